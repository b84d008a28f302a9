"""sgd: ParamOut = Param - LearningRate * Grad, in place when ParamOut is Param."""
import numpy as np

from .registry import OpDef, register


@register
class SGD(OpDef):
    type = "sgd"
    inputs = ("Param", "LearningRate", "Grad")
    outputs = ("ParamOut",)

    def infer_shape(self, ctx):
        p, g = ctx.input_var("Param"), ctx.input_var("Grad")
        # a SelectedRows Param holds some rows only (ops/selected_rows.py checks them)
        if p.type != "SELECTED_ROWS" and tuple(p.shape) != tuple(g.shape):
            ctx.fail("Grad %r has shape %s but Param %r has %s"
                     % (g.name, list(g.shape), p.name, list(p.shape)))
        ctx.same_as("Param", "ParamOut")

    @staticmethod
    def forward(param, lr, grad):
        param -= lr.reshape(-1)[0].astype(param.dtype) * grad   # stays on a GPU
        return param

    def samples(self, rng):
        from ._common import rand
        from .registry import Sample
        yield Sample({"Param": rand(rng, 3, 4), "LearningRate": np.array([0.1]),
                      "Grad": rand(rng, 3, 4)})
