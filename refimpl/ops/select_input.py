"""select_input: Out = X[Mask], one of several inputs chosen by a one-number int mask
(Paddle 1.8's control-flow helper, fluid.layers.control_flow.select_input). Its gradient
goes to the chosen input; the others get zeros (Paddle's grad op, a select_output, leaves
them unwritten)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def chosen_branch(mask, branches, op_type):
    """The branch a one-number Mask names, checked against the number of branches."""
    m = np.asarray(mask)
    if m.size != 1:
        raise ValueError("%s: Mask must hold one number, got shape %s" % (op_type, m.shape))
    k = int(m.reshape(-1)[0])
    if not 0 <= k < branches:
        raise ValueError("%s: Mask is %d, but there are %d branches (0 to %d)"
                         % (op_type, k, branches, branches - 1))
    return k


@register
class SelectInput(OpDef):
    type = "select_input"
    inputs = ("X*", "Mask")
    outputs = ("Out",)
    no_grad = ("Mask",)
    grad_inputs = ("X", "Mask", "Out@GRAD")

    def infer_shape(self, ctx):
        # Paddle's kernel reads Mask as int32 (1.8.5 and 3.3.1 reject an int64 Mask at run time)
        ctx.check_dtype("Mask", ("int32",))
        first = ctx.input_var("X")
        ctx.set_output("Out", first.shape, first.dtype)

    @staticmethod
    def forward(xs, mask):
        return np.array(xs[chosen_branch(mask, len(xs), "select_input")])

    @staticmethod
    def backward(xs, mask, dout):
        k = chosen_branch(mask, len(xs), "select_input_grad")
        return [np.array(dout) if i == k else np.zeros_like(x) for i, x in enumerate(xs)]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2, 3) for _ in range(3)],
                      "Mask": np.array([1], np.int32)}, name="middle")
        yield Sample({"X": [rand(rng, 4), rand(rng, 4)], "Mask": np.array([0], np.int32)},
                     name="first")
