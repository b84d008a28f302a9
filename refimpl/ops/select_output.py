"""select_output: Out[Mask] = X, a one-number int mask choosing which of several outputs
gets the input (Paddle 1.8's control-flow helper, fluid.layers.control_flow.select_output).
Paddle leaves the other outputs unwritten; refimpl writes zeros of X's shape into them, so
that a later select_input (which may read any branch) and the gradients see values. Its
gradient is the chosen output's.

How many outputs there are is the program's (the Out list): the executor passes it
(`branches`), so the op runs in static programs only and has no samples; see
tests/test_control_flow.py."""
import numpy as np

from .registry import OpDef, register
from .select_input import chosen_branch


@register
class SelectOutput(OpDef):
    type = "select_output"
    inputs = ("X", "Mask")
    outputs = ("Out*",)
    no_grad = ("Mask",)
    grad_inputs = ("Mask", "Out@GRAD*")

    def infer_shape(self, ctx):
        ctx.check_dtype("Mask", ("int32", "int64"))
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, x.dtype)

    def bound_attrs(self, op):
        return {"branches": len(op.output("Out"))}

    @staticmethod
    def forward(x, mask, branches):
        k = chosen_branch(mask, branches, "select_output")
        return [np.array(x) if i == k else np.zeros_like(x) for i in range(branches)]

    @staticmethod
    def backward(mask, douts):
        return np.array(douts[chosen_branch(mask, len(douts), "select_output_grad")])
