"""paddle.distribution's base class and the argument rules Paddle 2.0's Uniform / Normal
share (specs/distributions.md, "paddle.distribution")."""
import warnings

import numpy as np

from ..dygraph.tensor import Tensor
from ..framework.dtypes import convert_dtype
from ..framework.program import Variable
from ..layers import creation
from ..layers.math import cast
from ..versions import switch

_FLOATS = ("float32", "float64")


class Distribution:
    """The abstract base: every method is NotImplementedError until a subclass defines it."""

    def sample(self):
        raise NotImplementedError("%s does not implement sample()" % type(self).__name__)

    def entropy(self):
        raise NotImplementedError("%s does not implement entropy()" % type(self).__name__)

    def kl_divergence(self, other):
        raise NotImplementedError("%s does not implement kl_divergence()"
                                  % type(self).__name__)

    def log_prob(self, value):
        raise NotImplementedError("%s does not implement log_prob()" % type(self).__name__)

    def probs(self, value):
        raise NotImplementedError("%s does not implement probs()" % type(self).__name__)


def is_tensor(value):
    return isinstance(value, (Variable, Tensor))


def parameters(owner, **args):
    """Paddle 2.0's parameter rule for Uniform / Normal: all Tensors (used as given, their
    dtype), or all ints / floats / lists / numpy arrays. Those become constant Tensors
    broadcast to one shape (a number: [1], 0-D under Paddle 3); lists and non-float arrays
    are float32, and the dtype is that of the first float32 / float64 numpy array, else
    float32. Returns (tensors in argument order, whether all were Python numbers)."""
    for arg, value in args.items():
        if not isinstance(value, (int, float, list, np.ndarray)) and not is_tensor(value):
            raise TypeError("%s: %s must be an int, float, list, numpy.ndarray or Tensor, "
                            "got %s" % (owner, arg, type(value).__name__))
    given = [is_tensor(v) for v in args.values()]
    if all(given):
        return list(args.values()), False
    if any(given):
        raise ValueError("%s: if one argument is a Tensor, all arguments must be Tensors; "
                         "got %s" % (owner, {k: type(v).__name__ for k, v in args.items()}))
    dtype = next((v.dtype for v in args.values() if isinstance(v, np.ndarray)
                  and v.dtype.name in _FLOATS), np.dtype("float32"))
    arrays = []
    for arg, value in args.items():
        if isinstance(value, (int, float)):
            array = np.array(float(value)).reshape(switch("distribution_number_param_shape"))
        else:
            array = np.array(value)
        if not (isinstance(value, np.ndarray) and array.dtype.name in _FLOATS):
            if array.dtype.name not in _FLOATS:
                warnings.warn("%s: %s of dtype %s is converted to float32 (float32 and "
                              "float64 are supported)" % (owner, arg, array.dtype))
            array = array.astype("float32")
        arrays.append(array.astype(dtype))
    numbers = all(isinstance(v, (int, float)) for v in args.values())
    return [constant(a, dtype) for a in np.broadcast_arrays(*arrays)], numbers


def constant(array, dtype):
    """A constant Tensor of `array` in `dtype`. Paddle 2.0 assigns it (float64 values
    become float32) and casts the result, so float64 parameters carry float32 precision."""
    out = creation.assign(np.array(array))   # a copy: broadcast views share memory
    return out if convert_dtype(out.dtype) == dtype.name else cast(out, dtype.name)


def value_in_dtype(owner, method, value, param):
    """log_prob / probs' `value`: a float32 / float64 Tensor, cast (with a warning) to the
    parameters' dtype when it differs."""
    if not is_tensor(value):
        raise TypeError("%s.%s: value must be a Tensor, got %s"
                        % (owner, method, type(value).__name__))
    dtype, wanted = convert_dtype(value.dtype), convert_dtype(param.dtype)
    if dtype not in _FLOATS:
        raise TypeError("%s.%s: value must be float32 or float64, got %s"
                        % (owner, method, dtype))
    if dtype == wanted:
        return value
    warnings.warn("%s.%s: value of dtype %s is converted to the parameters' %s"
                  % (owner, method, dtype, wanted))
    return cast(value, wanted)


def check_sample_args(owner, shape, seed):
    """Paddle 2.0 takes a list `shape` and an int `seed` (TypeError otherwise)."""
    if not isinstance(shape, list):
        raise TypeError("%s.sample: shape must be a list, got %s"
                        % (owner, type(shape).__name__))
    if not isinstance(seed, int):
        raise TypeError("%s.sample: seed must be an int, got %s"
                        % (owner, type(seed).__name__))


def check_other(owner, other, cls):
    if not isinstance(other, cls):
        raise TypeError("%s.kl_divergence: other must be a %s, got %s"
                        % (owner, cls.__name__, type(other).__name__))
