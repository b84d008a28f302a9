"""Tensor math layers: mean, ..."""
from .common import unary

__all__ = ["mean"]


def mean(x, axis=None, keepdim=False, name=None):
    """Mean of all elements (axis=None) as a [1] tensor; with axis, reduce_mean."""
    if axis is None:
        return unary("mean", x, name=name)
    from .reduce import reduce_mean
    return reduce_mean(x, dim=axis, keep_dim=keepdim, name=name)
