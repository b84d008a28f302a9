"""mul: flatten X to 2-D at x_num_col_dims and Y at y_num_col_dims, then matmul (fc's GEMM)."""
from ..geometry import as_matrix
from ._common import FLOATS, numel, rand
from .registry import OpDef, Sample, register, share_lod


@register
class Mul(OpDef):
    type = "mul"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"x_num_col_dims": 1, "y_num_col_dims": 1}
    # Paddle 1.8 / 2.0's MKL-DNN and int8 attributes (its mul op desc has them)
    mkldnn_attrs = {"use_mkldnn": False, "scale_x": 1.0, "scale_y": [1.0], "scale_out": 1.0,
                   "force_fp32_output": False}
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        xn, yn = ctx.attr("x_num_col_dims"), ctx.attr("y_num_col_dims")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(x.dtype == y.dtype, "X %r is %s but Y %r is %s"
                   % (x.name, x.dtype.name, y.name, y.dtype.name))
        for slot, v, n in (("x", x, xn), ("y", y, yn)):
            ctx.expect(0 < n < len(v.shape), "%s_num_col_dims=%d must be in [1, %d) for %s %r "
                       "of shape %s" % (slot, n, len(v.shape), slot.upper(), v.name,
                                        list(v.shape)))
        x_inner = x.shape[xn:]
        y_inner = y.shape[:yn]
        if all(d >= 0 for d in x_inner + y_inner) and numel(x_inner) != numel(y_inner):
            ctx.fail("X %r of shape %s (flattened at dim %d: K=%d) does not match "
                     "Y %r of shape %s (K=%d)" % (x.name, list(x.shape), xn, numel(x_inner),
                                                  y.name, list(y.shape), numel(y_inner)))
        ctx.set_output("Out", tuple(x.shape[:xn]) + tuple(y.shape[yn:]), x.dtype)

    @staticmethod
    def forward(x, y, x_num_col_dims=1, y_num_col_dims=1):
        out = as_matrix(x, x_num_col_dims) @ as_matrix(y, y_num_col_dims)
        return out.reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])

    @staticmethod
    def backward(x, y, dout, x_num_col_dims=1, y_num_col_dims=1):
        x2 = as_matrix(x, x_num_col_dims)
        y2 = as_matrix(y, y_num_col_dims)
        d2 = dout.reshape(x2.shape[0], y2.shape[1])
        return (d2 @ y2.T).reshape(x.shape), (x2.T @ d2).reshape(y.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 3, 5)})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 12, 2)}, {"x_num_col_dims": 1})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 4, 5)}, {"x_num_col_dims": 2})
