"""fluid.dygraph.base (Paddle 1.8): guard, to_variable, enabled, no_grad and the
enable/disable switches, on refimpl's dynamic mode (specs/dygraph.md)."""
import contextlib
import functools
import warnings

import numpy as np

from ... import versions
from ...framework import mode
from ...framework.mode import no_grad
from ...dygraph.tensor import Tensor
from ...framework import unique_name
from ...framework.dtypes import convert_dtype
from ...framework.errors import DygraphOnlyError
from ...layers.creation import assign

__all__ = ["guard", "to_variable", "enabled", "no_grad", "grad", "enable_dygraph",
           "disable_dygraph", "enable_imperative", "disable_imperative",
           "switch_to_static_graph"]


def enabled():
    """Whether ops run eagerly (dynamic mode)."""
    return mode.dynamic


@contextlib.contextmanager
def guard(place=None):
    """Dynamic mode inside, with fresh unique names (as Paddle 1.8's guard), the previous
    mode after."""
    with mode.dygraph_guard(True), unique_name.guard():
        yield


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """An eager Tensor holding `value` (an ndarray, a number or nested lists; a Tensor is
    returned as it is). stop_gradient=True, as Paddle 1.8. Under 1.8 an ndarray is shared,
    not copied, unless zero_copy=False or a dtype conversion is asked for (zero_copy None
    means True on the CPU); from 2.0 it is copied, zero_copy=True warning that it is
    discarded (switch to_variable_zero_copy)."""
    if isinstance(value, Tensor):
        return value
    if not mode.dynamic and mode.in_translation():
        # to_static recording a program: a copy into the program, as 2.0's dy2static
        # turns to_variable into assign
        return assign(value)
    if not mode.dynamic:    # an AssertionError too, as Paddle's dygraph_only asserts
        raise DygraphOnlyError("to_variable works in dynamic mode: inside "
                               "fluid.dygraph.guard() (or after paddle.disable_static())")
    if versions.switch("to_variable_zero_copy") == "discarded":
        if zero_copy is True:
            warnings.warn("Currently, zero_copy is not supported, and it will be discarded.")
        zero_copy = False
    share = zero_copy is not False and isinstance(value, np.ndarray)
    array = np.asarray(value) if share else np.array(value)
    if dtype is not None:
        array = array.astype(convert_dtype(dtype), copy=False)
    convert_dtype(array.dtype)     # a clear error for dtypes Paddle has not
    return Tensor(array, stop_gradient=True, name=name)


def enable_dygraph(place=None):
    mode.disable_static(place)


def disable_dygraph():
    mode.enable_static()


enable_imperative, disable_imperative = enable_dygraph, disable_dygraph


def switch_to_static_graph(function):
    """`function` run in static mode, the mode before restored after (a decorator of
    Paddle 2.0's dygraph-to-static code, which its tests use too)."""
    @functools.wraps(function)
    def static_function(*args, **kwargs):
        with mode.dygraph_guard(False):
            return function(*args, **kwargs)
    return static_function


class GradArgumentError(TypeError, AssertionError):
    """A bad argument of fluid.dygraph.grad: a TypeError, and the AssertionError Paddle 1.8
    raised for it."""


def _check_tensors(value, what, allow_none=False):
    items = list(value) if isinstance(value, (list, tuple, set)) else [value]
    if value is None or (isinstance(value, (list, tuple)) and not items):
        raise GradArgumentError("fluid.dygraph.grad: %s must be a Tensor or a non-empty list "
                                "of Tensors, got %r" % (what, value))
    for item in items:
        if not (isinstance(item, Tensor) or (allow_none and item is None)):
            raise GradArgumentError("fluid.dygraph.grad: %s must hold Tensors%s, got %s"
                                    % (what, " or None" if allow_none else "",
                                       type(item).__name__))
    return items


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, backward_strategy=None):
    """1.8's fluid.dygraph.grad: paddle.grad, with 1.8's argument checks;
    `backward_strategy` only chose the order gradients are summed in (BackwardStrategy)."""
    from ...dygraph.autograd import grad as _grad
    outputs = _check_tensors(outputs, "outputs")
    inputs = _check_tensors(inputs, "inputs")
    if grad_outputs is not None:
        grad_outputs = _check_tensors(grad_outputs, "grad_outputs", allow_none=True)
        if len(grad_outputs) != len(outputs):
            raise GradArgumentError("fluid.dygraph.grad: %d grad_outputs for %d outputs"
                                    % (len(grad_outputs), len(outputs)))
    if no_grad_vars is not None:
        no_grad_vars = _check_tensors(no_grad_vars, "no_grad_vars")
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                 allow_unused, no_grad_vars)


def _print_debug_msg(parameter_list, limit=5, is_test=False):
    """1.8's debug counters: (unique names generated, parameters given, live eager
    tensors); printed unless is_test."""
    import gc
    counts = (len(unique_name._generator.ids), len(parameter_list),
              sum(isinstance(o, Tensor) for o in gc.get_objects()))
    if is_test:
        return counts
    print("unique_name num: %d, tracer vars num: %d, alive vars num: %d" % counts)
