"""Tensor math layers: mean, ..."""
from .common import unary

__all__ = ["mean"]


def mean(x, axis=None, keepdim=False, name=None):
    """Mean of all elements (axis=None) as a [1] tensor; with axis, reduce_mean."""
    if axis is None:
        return unary("mean", x, name=name)
    return unary("reduce_mean", x, name=name,
                 attrs={"dim": list(axis) if isinstance(axis, (list, tuple)) else [axis],
                        "keep_dim": keepdim, "reduce_all": False})


def fluid_mean(x, name=None):
    return unary("mean", x, name=name)


EXPORTS = {
    "paddle": {"mean": mean},
    "fluid.layers": {"mean": fluid_mean},
}
