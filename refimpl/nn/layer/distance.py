"""PairwiseDistance: its own module, as Paddle 2.0 has it (paddle.nn.layer.distance, which
2.0's own tests name)."""
from ...layers.functional_loss import pairwise_distance
from .base import Layer

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Layer):
    """F.pairwise_distance as a layer."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self._name = p, epsilon, keepdim, name

    def forward(self, x, y):
        self._expect_input(x, "x")
        self._expect_input(y, "y")
        return pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self._name)

    def extra_repr(self):
        return "p=%s" % (self.p,)
