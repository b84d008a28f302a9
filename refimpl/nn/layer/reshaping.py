"""Paddle 3's shape layers: Unflatten (paddle.unflatten as a Layer)."""
from ...layers.reshaping import unflatten
from .base import Layer

__all__ = ["Unflatten"]


class Unflatten(Layer):
    """paddle.unflatten(x, axis, shape): dim `axis` split into `shape`."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape = axis, shape

    def forward(self, input):
        self._expect_input(input)
        return unflatten(input, self.axis, self.shape)

    def extra_repr(self):
        return "axis=%s, shape=%s" % (self.axis, self.shape)
