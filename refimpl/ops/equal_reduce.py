"""equal_reduce (Paddle 1.8): one bool, X and Y equal everywhere after the elementwise
`axis` broadcast; the elementwise comparison is the `equal` op's (floats within 1e-8 under
the 1.8 profile)."""
import numpy as np

from ..broadcasting import align
from ._common import rand
from .compare import _equal
from .elementwise import axis_broadcast_shape
from .registry import OpDef, Sample, register


@register
class EqualReduce(OpDef):
    type = "equal_reduce"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"axis": -1}
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        axis_broadcast_shape(ctx)   # X and Y must broadcast
        ctx.set_output("Out", (), "bool")

    @staticmethod
    def forward(x, y, axis=-1):
        return np.array(bool(np.all(_equal(*align(x, y, axis)))))

    def samples(self, rng):
        x = np.round(rand(rng, 3, 4))
        yield Sample({"X": x, "Y": x.copy()}, name="equal")
        yield Sample({"X": x, "Y": np.round(rand(rng, 3, 4))}, name="differ")
        yield Sample({"X": np.tile(x[0], (2, 3, 1)), "Y": x[0].copy()}, name="broadcast")
        yield Sample({"X": np.ones((2, 3, 4)), "Y": np.ones(3)}, {"axis": 1},
                     name="broadcast_axis")
