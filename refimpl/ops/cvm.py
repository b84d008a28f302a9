"""cvm (continuous value model): X [N, D] whose first two columns are show and click counts.
use_cvm: Y = X with those columns turned into log(show + 1) and log(click + 1) - log(show + 1);
otherwise Y = X[:, 2:]. Paddle's gradient is not the derivative of that: X@GRAD copies Y@GRAD
into the embedding columns and puts the CVM input (show, click) into the first two."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


@register
class Cvm(OpDef):
    type = "cvm"
    inputs = ("X", "CVM")
    outputs = ("Y",)
    attrs = {"use_cvm": True}
    grad_inputs = ("X", "CVM", "Y@GRAD")
    lod_outputs = {"Y": share_lod("X")}
    no_grad = ("CVM",)

    def infer_shape(self, ctx):
        x, cvm = ctx.input_shape("X"), ctx.input_shape("CVM")
        ctx.expect(len(x) == 2 and (x[1] < 0 or x[1] >= 2),
                   "input X must be 2-D [N, D] with D >= 2, got shape %s" % list(x))
        ctx.expect(len(cvm) == 2 and cvm[1] in (-1, 2),
                   "input CVM must be [N, 2] (show, click), got shape %s" % list(cvm))
        width = x[1] if ctx.attr("use_cvm") or x[1] < 0 else x[1] - 2
        ctx.set_output("Y", (x[0], width), ctx.input_dtype("X"))

    @staticmethod
    def forward(x, cvm, use_cvm=True):
        if not use_cvm:
            return x[:, 2:].copy()
        y = x.copy()
        y[:, 0] = np.log(x[:, 0] + 1)
        y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
        return y

    @staticmethod
    def backward(x, cvm, dy, use_cvm=True):
        dx = np.empty_like(x)
        dx[:, 2:] = dy[:, 2:] if use_cvm else dy
        dx[:, :2] = cvm
        return dx

    def samples(self, rng):
        x = rand(rng, 3, 5, low=0.0, high=4.0)
        cvm = rand(rng, 3, 2, low=0.0, high=4.0)
        # grad=False: the gradient is Paddle's convention, not a derivative (see docstring)
        yield Sample({"X": x, "CVM": cvm}, {"use_cvm": True}, grad=False)
        yield Sample({"X": x, "CVM": cvm}, {"use_cvm": False}, grad=False)
