"""fsp (flow of solution procedure) matrix: Out[n] = X[n] Y[n]^T / (H W), with X [N, C1, H, W]
and Y [N, C2, H, W] viewed as [N, C, H*W]; Out [N, C1, C2]."""
from ._common import rand
from .registry import OpDef, Sample, register


@register
class Fsp(OpDef):
    type = "fsp"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_shape("X"), ctx.input_shape("Y")
        ctx.expect(len(x) == 4 and len(y) == 4,
                   "inputs X and Y must be 4-D [N, C, H, W], got %s and %s"
                   % (list(x), list(y)))
        for i, what in ((0, "batch"), (2, "height"), (3, "width")):
            ctx.expect(x[i] < 0 or y[i] < 0 or x[i] == y[i],
                       "X and Y must have the same %s, got X %s and Y %s"
                       % (what, list(x), list(y)))
        ctx.set_output("Out", (x[0], x[1], y[1]), ctx.input_dtype("X"))

    @staticmethod
    def forward(x, y):
        n, area = x.shape[0], x.shape[2] * x.shape[3]
        return (x.reshape(n, x.shape[1], area) @ y.reshape(n, y.shape[1], area)
                .transpose(0, 2, 1) / area).astype(x.dtype)

    @staticmethod
    def backward(x, y, dout):
        n, area = x.shape[0], x.shape[2] * x.shape[3]
        xf, yf = x.reshape(n, x.shape[1], area), y.reshape(n, y.shape[1], area)
        dx = (dout @ yf / area).reshape(x.shape)
        dy = (dout.transpose(0, 2, 1) @ xf / area).reshape(y.shape)
        return dx.astype(x.dtype), dy.astype(y.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 2, 3), "Y": rand(rng, 2, 4, 2, 3)})
