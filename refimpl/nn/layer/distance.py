"""PairwiseDistance: its own module, as Paddle 2.0 has it (paddle.nn.layer.distance, which
2.0's own tests name)."""
from ... import versions
from ...layers.common import append_op_out
from ...layers.functional_loss import p_norm
from .base import Layer

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Layer):
    """||x - y||_p along axis 1 (Paddle 2.0) or ||x - y + epsilon||_p along the last axis
    (3.3.1): the `pairwise_distance_axis` switch (p_norm op)."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self._name = p, epsilon, keepdim, name

    def forward(self, x, y):
        self._expect_input(x, "x")
        self._expect_input(y, "y")
        diff = append_op_out("elementwise_sub", {"X": [x], "Y": [y]}, {"axis": -1})
        if versions.switch("pairwise_distance_axis") == "axis1":
            return p_norm(diff, self.p, 1, self.keepdim, self.epsilon, name=self._name)
        if self.epsilon != 0:
            diff = diff + float(self.epsilon)
        return p_norm(diff, self.p, -1, self.keepdim, name=self._name)

    def extra_repr(self):
        return "p=%s" % (self.p,)
