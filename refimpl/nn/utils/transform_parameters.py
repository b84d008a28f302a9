"""paddle.nn.utils.parameters_to_vector / vector_to_parameters (Paddle 2.1 on, checked on
3.3.1): a layer's parameters as one flat 1-D tensor, and back. Dynamic mode only; no
gradient flows through either (the vector is a new leaf that needs a gradient, the
parameters stay leaves)."""
import numpy as np

from ...dygraph.tensor import Tensor, on_place_of
from ...framework import mode

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_dynamic(api):
    if not mode.dynamic:
        raise RuntimeError("paddle.nn.utils.%s works in dynamic mode only (Paddle's "
                           "@dygraph_only); call paddle.disable_static() first" % api)


def parameters_to_vector(parameters, name=None):
    """The parameters' values flattened and concatenated, in order, on the first one's
    place and in its dtype."""
    _check_dynamic("parameters_to_vector")
    parameters = list(parameters)
    first = parameters[0]._array()
    flat = np.concatenate([p._host().reshape(-1) for p in parameters])
    return Tensor(on_place_of(first, flat, first.dtype), stop_gradient=False)


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D `vec` into `parameters`, each reshaped to its
    parameter's shape; `vec` may be longer (the rest is left), not shorter (ValueError)."""
    _check_dynamic("vector_to_parameters")
    if len(vec.shape) != 1:
        raise AssertionError("vector_to_parameters: vec must be 1-D, got shape %s"
                             % list(vec.shape))
    parameters = list(parameters)
    sizes = [int(np.prod(p.shape, dtype=np.int64)) for p in parameters]
    if sum(sizes) > vec.shape[0]:
        raise ValueError("vector_to_parameters: vec has %d elements, the parameters %d: "
                         "vec must hold at least as many" % (vec.shape[0], sum(sizes)))
    values, start = vec._host(), 0
    for p, size in zip(parameters, sizes):
        p.set_value(values[start:start + size].reshape(p.shape))
        start += size
