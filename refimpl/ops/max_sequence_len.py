"""max_sequence_len: the longest length in a rank table (int64 [1]; 0 for an empty
table), the step count of a loop over its sequences."""
import numpy as np

from ._rank_table import table_parts
from .registry import OpDef, Sample, register


@register
class MaxSequenceLen(OpDef):
    type = "max_sequence_len"
    inputs = ("RankTable",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", (1,), "int64")

    @staticmethod
    def forward(rank_table):
        lengths, _ = table_parts(rank_table)
        return np.array([lengths.max() if len(lengths) else 0], np.int64)

    def samples(self, rng):
        yield Sample({"RankTable": np.array([3, 6, 1], np.int64)}, grad=False)
        yield Sample({"RankTable": np.zeros(0, np.int64)}, grad=False, name="empty")
