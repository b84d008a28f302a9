"""merge_selected_rows (Paddle 1.8, fluid.layers.merge_selected_rows): a SelectedRows with
each row listed once, rows ascending, duplicates added (Paddle's MergeAdd; the rule in
ops/selected_rows.py). On a dense tensor, which stands for itself with its rows merged,
Out is a copy of X. No gradient (Paddle registers none)."""
from ._common import rand
from .registry import OpDef, Sample, register


@register
class MergeSelectedRows(OpDef):
    type = "merge_selected_rows"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x):
        return x.copy()

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, grad=False)
