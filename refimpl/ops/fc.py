"""fc (Paddle 1.8's fused inference op): Input flattened to 2-D at in_num_col_dims times W,
plus Bias, then activation_type ("" or "relu"). The GEMM is the mul op's; relu is the relu
op's. With padding_weights W is stored [K + 4, N + 4] and only its top-left [K, N] is used.
No gradient (Paddle registers none: fluid.layers.fc builds mul + elementwise_add)."""
from ._common import FLOATS, numel, rand
from .mul import Mul
from .registry import OpDef, Sample, register, share_lod
from .relu import Relu

_PAD = 4   # Paddle's FC_PADDING


@register
class FC(OpDef):
    type = "fc"
    inputs = ("Input", "W", "Bias?")
    outputs = ("Out",)
    attrs = {"in_num_col_dims": 1, "activation_type": "", "padding_weights": False}
    lod_outputs = {"Out": share_lod("Input")}

    def infer_shape(self, ctx):
        x, w = ctx.input_var("Input"), ctx.input_var("W")
        n_col = ctx.attr("in_num_col_dims")
        ctx.check_dtype("Input", FLOATS)
        ctx.expect(len(w.shape) == 2, "W %r must be 2-D, got %s" % (w.name, list(w.shape)))
        ctx.expect(ctx.attr("activation_type") in ("", "relu"),
                   "activation_type must be '' or 'relu', got %r"
                   % ctx.attr("activation_type"))
        ctx.expect(1 <= n_col < len(x.shape) + (0 if len(x.shape) > 1 else 1),
                   "in_num_col_dims=%d out of range for Input %r %s"
                   % (n_col, x.name, list(x.shape)))
        k, n = w.shape
        if ctx.attr("padding_weights"):
            k, n = k - _PAD, n - _PAD
        inner = x.shape[n_col:]
        if k >= 0 and all(d >= 0 for d in inner):
            ctx.expect(numel(inner) == k,
                       "Input %r %s flattened at dim %d does not match W %r %s"
                       % (x.name, list(x.shape), n_col, w.name, list(w.shape)))
        if ctx.has_input("Bias"):
            b = ctx.input_var("Bias")
            ctx.expect(numel(b.shape) in (n, -1) or n < 0,
                       "Bias %r %s must hold %d values" % (b.name, list(b.shape), n))
        ctx.set_output("Out", tuple(x.shape[:n_col]) + (n,), x.dtype)

    @staticmethod
    def forward(x, w, bias=None, in_num_col_dims=1, activation_type="", padding_weights=False):
        if padding_weights:
            w = w[:w.shape[0] - _PAD, :w.shape[1] - _PAD]
        out = Mul.forward(x.reshape(x.shape[:in_num_col_dims] + (-1,)), w, in_num_col_dims)
        if bias is not None:
            out = out + bias.reshape(-1).astype(out.dtype)
        if activation_type == "relu":
            out = Relu.forward(out)
        return out

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 2, 2), "W": rand(rng, 12, 5),
                      "Bias": rand(rng, 1, 5)}, {"activation_type": "relu"}, name="relu")
        yield Sample({"Input": rand(rng, 2, 3, 4), "W": rand(rng, 4, 3)},
                     {"in_num_col_dims": 2}, name="no_bias")
        yield Sample({"Input": rand(rng, 3, 4), "W": rand(rng, 4 + _PAD, 2 + _PAD),
                      "Bias": rand(rng, 2)}, {"padding_weights": True}, name="padded")
