"""py_func: calls a Python function at run time (paddle.static.py_func builds it).

The op's attrs hold ids into this process's table of callables, not the functions: a
program stays plain data (it serializes), and a program loaded in another process
names ids that process never registered (a clear error when it runs).
  forward:  Out = forward_callable(*X)
  backward: X@GRAD = backward_callable(X, Out, Out@GRAD), a wrapper that
            paddle.static.py_func builds around the user's function (it drops the
            skipped variables and unpacks the lists)
"""
import numpy as np

from .registry import OpDef, register

__all__ = ["register_callable", "registered_callable"]

_CALLABLES = []    # a callable's id is its index; kept for the life of the process


def register_callable(fn):
    _CALLABLES.append(fn)
    return len(_CALLABLES) - 1


def registered_callable(callable_id):
    if not 0 <= callable_id < len(_CALLABLES):
        raise ValueError("py_func: callable id %d is not registered in this process (the "
                         "Python functions of a saved program are not saved; build the "
                         "program with paddle.static.py_func here)" % callable_id)
    return _CALLABLES[callable_id]


def _as_list(result):
    if result is None:
        return []
    return list(result) if isinstance(result, (list, tuple)) else [result]


@register
class PyFunc(OpDef):
    type = "py_func"
    inputs = ("X*?",)
    outputs = ("Out*?",)
    attrs = {"forward_callable_id": -1, "backward_callable_id": -1, "backward_skip_vars": []}
    grad_inputs = ("X*?", "Out*?", "Out@GRAD*?")

    def infer_shape(self, ctx):
        # the outputs are variables the user created with their shapes and dtypes
        ctx.expect(ctx.attr("forward_callable_id") >= 0,
                   "forward_callable_id must name a registered function, got %d"
                   % ctx.attr("forward_callable_id"))

    def bound_attrs(self, op):
        """The outputs' names, shapes and dtypes, to check and cast what the function returns."""
        specs = []
        for name in op.output("Out"):
            var = op.block._find_var_recursive(name)
            specs.append((name, var.shape, var.dtype.np if var.dtype is not None else None))
        return {"out_specs": tuple(specs)}

    @staticmethod
    def forward(xs, forward_callable_id=-1, backward_callable_id=-1, backward_skip_vars=(),
                out_specs=()):
        outs = _as_list(registered_callable(forward_callable_id)(*xs))
        if len(outs) != len(out_specs):
            raise ValueError("py_func: the forward function returned %d values for %d outputs "
                             "%s" % (len(outs), len(out_specs), [s[0] for s in out_specs]))
        results = []
        for value, (name, shape, dtype) in zip(outs, out_specs):
            value = np.asarray(value, dtype=dtype)
            if shape is not None and (value.ndim != len(shape) or any(
                    d >= 0 and d != g for d, g in zip(shape, value.shape))):
                raise ValueError("py_func: output %r expects shape %s, the forward function "
                                 "returned shape %s" % (name, list(shape), list(value.shape)))
            results.append(value)
        return results

    @staticmethod
    def backward(xs, outs, douts, forward_callable_id=-1, backward_callable_id=-1,
                 backward_skip_vars=()):
        result = registered_callable(backward_callable_id)(xs, outs, douts)
        grads = [None] * len(xs) if result is None else _as_list(result)
        if len(grads) != len(xs):
            raise ValueError("py_func: the backward function returned %d gradients for %d "
                             "inputs" % (len(grads), len(xs)))
        results = []
        for i, (g, x) in enumerate(zip(grads, xs)):
            # None: this input gets no gradient from here, i.e. zeros
            g = np.zeros_like(x) if g is None else np.asarray(g, dtype=x.dtype)
            if g.shape != x.shape:
                raise ValueError("py_func: the backward function returned a gradient of shape "
                                 "%s for input %d of shape %s" % (list(g.shape), i,
                                                                  list(x.shape)))
            results.append(g)
        return results
