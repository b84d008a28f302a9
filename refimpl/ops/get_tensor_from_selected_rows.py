"""get_tensor_from_selected_rows (Paddle 1.8): Out is the value tensor of the SelectedRows
X, its listed rows [len(rows), width] (the rule in selected_rows.py); of a dense X, a copy.
No gradient, as in Paddle."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class GetTensorFromSelectedRows(OpDef):
    type = "get_tensor_from_selected_rows"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        # the number of rows a SelectedRows lists is known when it runs
        ctx.set_output("Out", None if x.shape is None else [-1] + list(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x):
        return np.array(x, copy=True)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)})
