"""batch_fc (Paddle's fluid.contrib.layers.batch_fc, 2.0): one fully connected layer per
slot, Out[s] = Input[s] @ W[s] + Bias[s], with Input [S, N, I], W [S, I, O], Bias [S, O],
Out [S, N, O]. Paddle runs it on a GPU only (its CPU kernel raises Unimplemented, 2.0 and
3.3.1); refimpl everywhere, from the op's definition."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


@register
class BatchFC(OpDef):
    type = "batch_fc"
    inputs = ("Input", "W", "Bias")
    outputs = ("Out",)
    grad_inputs = ("Input", "W", "Bias", "Out@GRAD")
    grad_shape_only = ("Bias",)
    lod_outputs = {"Out": share_lod("Input")}

    def infer_shape(self, ctx):
        x, w, b = ctx.input_var("Input"), ctx.input_var("W"), ctx.input_var("Bias")
        ctx.check_dtype("Input", FLOATS)
        ctx.expect(len(x.shape) == 3 and len(w.shape) == 3 and len(b.shape) == 2,
                   "Input %r %s and W %r %s must be 3-D and Bias %r %s 2-D"
                   % (x.name, list(x.shape), w.name, list(w.shape), b.name, list(b.shape)))
        ctx.expect(x.shape[0] == w.shape[0] == b.shape[0] and x.shape[2] == w.shape[1]
                   and b.shape[1] == w.shape[2],
                   "W %r %s must be [%d, %d, O] and Bias %r %s [%d, O] for Input %r %s"
                   % (w.name, list(w.shape), x.shape[0], x.shape[2], b.name, list(b.shape),
                      x.shape[0], x.name, list(x.shape)))
        ctx.set_output("Out", (x.shape[0], x.shape[1], w.shape[2]), x.dtype)

    @staticmethod
    def forward(x, w, bias):
        return (np.matmul(x, w) + bias[:, None, :]).astype(x.dtype)

    @staticmethod
    def backward(x, w, bias, dout):
        dx = np.matmul(dout, np.swapaxes(w, 1, 2))
        dw = np.matmul(np.swapaxes(x, 1, 2), dout)
        return dx, dw, dout.sum(1).reshape(bias.shape)

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4, 5), "W": rand(rng, 3, 5, 2),
                      "Bias": rand(rng, 3, 2)}, name="slots")
        yield Sample({"Input": rand(rng, 1, 2, 3), "W": rand(rng, 1, 3, 4),
                      "Bias": rand(rng, 1, 4)}, name="one_slot")
