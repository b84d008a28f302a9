"""paddle.static.py_func: a Python function as an op of the program (op py_func)."""
from ..framework.program import Variable, default_main_program
from ..ops.py_func import register_callable

__all__ = ["py_func"]


def _variables(value, arg):
    if value is None:
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError("py_func: %s must be a Variable or a list of Variables, got %s"
                            % (arg, type(v).__name__))
    return items


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Append an op that runs `func(*x)` (ndarrays in, ndarrays out) into the variables
    `out`, which the caller created with their shapes and dtypes. `backward_func`
    receives x, out and the gradients of out (less the variables in
    skip_vars_in_backward_input) and returns one gradient per x (None: zero); without
    it no gradient flows through the op. Returns `out`."""
    if not callable(func):
        raise TypeError("py_func: func must be callable, got %s" % type(func).__name__)
    if backward_func is not None and not callable(backward_func):
        raise TypeError("py_func: backward_func must be callable or None, got %s"
                        % type(backward_func).__name__)
    xs, outs = _variables(x, "x"), _variables(out, "out")
    skip = _variables(skip_vars_in_backward_input, "skip_vars_in_backward_input")
    forward_names = {v.name for v in xs + outs}
    for v in skip:
        if v.name not in forward_names:
            raise ValueError("py_func: skip_vars_in_backward_input %r is neither an input nor "
                             "an output of the function" % v.name)
    skip_names = {v.name for v in skip}
    backward_id = -1
    if backward_func is None:
        for v in outs:
            v.stop_gradient = True
    else:
        kept_x = [v.name not in skip_names for v in xs]
        kept_out = [v.name not in skip_names for v in outs]

        def call_backward(x_values, out_values, out_grads):
            args = [a for a, keep in zip(x_values, kept_x) if keep] + \
                [a for a, keep in zip(out_values, kept_out) if keep] + list(out_grads)
            return backward_func(*args)
        backward_id = register_callable(call_backward)
    default_main_program().current_block().append_op(
        type="py_func", inputs={"X": xs}, outputs={"Out": outs},
        attrs={"forward_callable_id": register_callable(func),
               "backward_callable_id": backward_id,
               "backward_skip_vars": sorted(skip_names)})
    return out
