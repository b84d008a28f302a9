"""Paddle 3's reductions beside sum / max / mean: amax / amin (the reduce_amax / reduce_amin
ops: ties share the gradient), nansum / nanmean (NaN left out, composed as 3.3.1 does:
where, sum, a count), count_nonzero and reduce_as (the reduce_as op)."""
from . import math
from .common import append_op_out, check_dtype, check_variable, paddle_api, unary

AMAX_DTYPES = ("float32", "float64", "int32", "int64")
NAN_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _extreme(op_type, layer):
    def reduce(x, axis=None, keepdim=False, name=None):
        check_dtype(x, "x", layer, AMAX_DTYPES)
        # every dim: an empty dim (the ops have no reduce_all in 3.3.1)
        dim = [] if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]
        return unary(op_type, x, {"dim": dim, "keep_dim": bool(keepdim), "reduce_all": not dim},
                     name, layer_type=layer)
    reduce.__name__ = layer
    reduce.__doc__ = ("paddle.%s: the %s over `axis` (None: all); the gradient is shared "
                      "evenly among the elements equal to it (3.3.1)." % (layer, layer[1:]))
    return reduce


amax = _extreme("reduce_amax", "amax")
amin = _extreme("reduce_amin", "amin")


def not_nan(x):
    """Where x is not NaN (bool)."""
    return paddle_api("logical_not")(paddle_api("isnan")(x))


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum over `axis` with NaN counted as 0 (its gradient 0 there); dtype as
    paddle.sum's (int32 / bool sum to int64)."""
    check_dtype(x, "x", "nansum", NAN_DTYPES)
    if x.dtype.name.startswith("float"):
        x = paddle_api("where")(paddle_api("isnan")(x), paddle_api("zeros_like")(x), x)
    return paddle_api("sum")(x, axis, dtype, keepdim, name)


def nanmean(x, axis=None, keepdim=False, name=None):
    """The mean of the non-NaN values over `axis` (NaN where there are none)."""
    check_dtype(x, "x", "nanmean", ("float16", "float32", "float64"))
    count = paddle_api("sum")(not_nan(x), axis, x.dtype.name, keepdim)
    return paddle_api("divide")(nansum(x, axis, keepdim=keepdim), count, name)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """int64 count of the nonzero elements over `axis` (NaN counts)."""
    check_dtype(x, "x", "count_nonzero", ("bool",) + NAN_DTYPES)
    return paddle_api("sum")(math.cast(x, "bool"), axis, "int64", keepdim, name)


def reduce_as(x, target, name=None):
    """x summed to target's shape (its leading extra dims, and where target has 1); bool
    and int32 sum to int64."""
    check_variable(x, "x", "reduce_as")
    check_variable(target, "target", "reduce_as")
    dtype = "int64" if x.dtype.name in ("bool", "int32") else x.dtype.name
    return append_op_out("reduce_as", {"x": [x], "target": [target]}, name=name,
                         out_dtype=dtype, out_slot="out")


EXPORTS = {
    "paddle": {"amax": amax, "amin": amin, "nansum": nansum, "nanmean": nanmean,
               "count_nonzero": count_nonzero, "reduce_as": reduce_as},
}
