"""cos_sim: the cosine similarity of each row of X [N, D] with the matching row of Y
([N, D], or [1, D] compared with every row): Out [N, 1] = <x, y> / (|x| |y|), with XNorm
[N, 1] and YNorm (Y's rows, [N or 1, 1]) the row norms, as Paddle returns them. Out
carries X's LoD."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


def _rows(a):
    return a.reshape(len(a), -1)


@register
class CosSim(OpDef):
    type = "cos_sim"
    inputs = ("X", "Y")
    outputs = ("Out", "XNorm", "YNorm")
    grad_inputs = ("X", "Y", "Out", "XNorm", "YNorm", "Out@GRAD")
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(len(x.shape) >= 2 and tuple(x.shape[1:]) == tuple(y.shape[1:]),
                   "X %r %s and Y %r %s must have the same row shape" % (
                       x.name, list(x.shape), y.name, list(y.shape)))
        ctx.expect(y.shape[0] in (1, x.shape[0]) or x.shape[0] < 0 or y.shape[0] < 0,
                   "Y %r must have X %r's %d rows or 1, got %d" % (y.name, x.name, x.shape[0],
                                                                  y.shape[0]))
        ctx.set_output("Out", (x.shape[0], 1), x.dtype)
        ctx.set_output("XNorm", (x.shape[0], 1), x.dtype)
        ctx.set_output("YNorm", (y.shape[0], 1), x.dtype)

    @staticmethod
    def forward(x, y):
        xr, yr = _rows(x), _rows(y)
        x_norm = np.sqrt((xr * xr).sum(axis=1, keepdims=True))
        y_norm = np.sqrt((yr * yr).sum(axis=1, keepdims=True))
        out = (xr * yr).sum(axis=1, keepdims=True) / (x_norm * y_norm)
        return out.astype(x.dtype), x_norm.astype(x.dtype), y_norm.astype(x.dtype)

    @staticmethod
    def backward(x, y, out, x_norm, y_norm, dout):
        xr, yr = _rows(x), _rows(y)
        # d out / d x = y / (|x||y|) - out x / |x|^2, and symmetrically for y
        dx = dout * (yr / (x_norm * y_norm) - out * xr / x_norm ** 2)
        dy = dout * (xr / (x_norm * y_norm) - out * yr / y_norm ** 2)
        if len(yr) != len(xr):       # one Y row compared with every X row
            dy = dy.sum(axis=0, keepdims=True)
        return dx.reshape(x.shape), dy.reshape(y.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 4, 3)})
        yield Sample({"X": rand(rng, 3, 5), "Y": rand(rng, 1, 5)}, name="one_y_row")
        # float32, the only dtype of Paddle's cos_sim kernel (no finite-difference
        # gradient check in float32)
        yield Sample({"X": rand(rng, 4, 3).astype("float32"),
                      "Y": rand(rng, 1, 3).astype("float32")}, grad=False, name="float32")
