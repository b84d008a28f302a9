"""The run-time half of refimpl's dygraph-to-static conversion (Paddle 2.0's
dygraph_to_static/convert_operators.py names, refimpl's own code): each function receives
what the converted Python statement had and decides by the values it gets. A static
Variable (a program being recorded) gives control-flow / logical ops; anything else (an
eager Tensor, a Python value) runs as Python would (specs/jit.md, "Dygraph to static")."""
from ...dygraph.tensor import Tensor
from ...fluid import layers
from ...framework.nest import map_structure
from ...framework import unique_name
from ...framework.program import Variable, default_main_program

__all__ = ["cast_bool_if_necessary", "convert_assert", "convert_ifelse", "convert_len",
           "convert_logical_and", "convert_logical_not", "convert_logical_or",
           "convert_print", "convert_shape_compare", "convert_var_dtype",
           "convert_var_shape", "convert_while_loop"]


def is_static(value):
    """A Variable of a program being built (an eager Tensor is a Variable too in refimpl,
    but runs Python control flow as written)."""
    return isinstance(value, Variable) and not isinstance(value, Tensor)


class Undefined:
    """The value of a name not bound yet where a converted if / while starts (it may be
    bound by a branch). Any use of it is the NameError Python would raise."""

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise NameError("name %r is not defined (or it is bound in one branch only of an "
                        "if converted by paddle.jit.to_static)" % self.name)

    __getattr__ = __call__ = __add__ = __radd__ = __sub__ = __mul__ = __bool__ = \
        __getitem__ = __len__ = __iter__ = _fail


def value_of(name, read):
    """read() (a lambda reading `name`), or Undefined when the name is unbound."""
    try:
        return read()
    except NameError:
        return Undefined(name)


def constant_dtype(value):
    """The dtype 2.0's dy2static gives a Python bool / int / float constant (bool, int64,
    float64), None for another value."""
    for kind, dtype in ((bool, "bool"), (int, "int64"), (float, "float64")):
        if isinstance(value, kind):
            return dtype
    return None


def to_static_variable(value):
    """A Python bool / int / float as a one-element constant (2.0's to_static_variable);
    a Variable as it is."""
    dtype = None if isinstance(value, Variable) else constant_dtype(value)
    return value if dtype is None else layers.fill_constant([1], dtype, value)


def cast_bool_if_necessary(var):
    return var if var.dtype.name == "bool" else layers.cast(var, "bool")


def _short_circuit(x_func, y_func, decisive, static_op):
    """Python's `x and y` (`decisive` False) / `x or y` (True): x when its truth value is
    the decisive one, else y, evaluated only then; of a static x and a Python y, y when
    its truth value is decisive, else x; two static Variables give static_op (logical_and
    / logical_or) of them as bools."""
    x = x_func()
    if not is_static(x):
        return x if bool(x) == decisive else y_func()
    y = y_func()
    if not is_static(y):
        return y if bool(y) == decisive else x
    return static_op(cast_bool_if_necessary(x), cast_bool_if_necessary(y))


def convert_logical_and(x_func, y_func):
    """`x and y`: y evaluated only when Python would evaluate it; two static Variables
    give logical_and."""
    return _short_circuit(x_func, y_func, False, layers.logical_and)


def convert_logical_or(x_func, y_func):
    """`x or y`: y evaluated only when Python would evaluate it; two static Variables
    give logical_or."""
    return _short_circuit(x_func, y_func, True, layers.logical_or)


def convert_logical_not(x):
    return layers.logical_not(cast_bool_if_necessary(x)) if is_static(x) else not x


def _merge_branch_outputs(true_out, false_out, names):
    """Both branches' outputs as cond takes them: Python numbers as constants, the names
    one branch leaves unbound dropped from both (they stay unbound after the if)."""
    kept = [i for i in range(len(names))
            if not isinstance(true_out[i], Undefined) and not isinstance(false_out[i], Undefined)]
    for i, (t, f) in enumerate(zip(true_out, false_out)):
        if i in kept and not (isinstance(t, Variable) and isinstance(f, Variable)):
            raise TypeError("paddle.jit.to_static: %r after the if on a tensor must be a "
                            "Tensor (or a bool / int / float) in both branches, got %s and %s"
                            % (names[i], type(t).__name__, type(f).__name__))
    return kept


def convert_ifelse(pred, true_fn, false_fn, args, names=()):
    """`if pred:` whose branches are true_fn / false_fn of the values `args` of the
    modified names, each returning their new values. A static pred gives a cond op holding
    both branches (the names unbound in one branch stay unbound after it)."""
    if not is_static(pred):
        return true_fn(*args) if pred else false_fn(*args)
    args = [to_static_variable(a) for a in args]
    outputs = {}

    def branch(fn, which):
        def run():
            out = [to_static_variable(v) for v in fn(*args)]
            outputs[which] = out
            if which == "false":        # cond flattens the outputs after both ran
                kept = _merge_branch_outputs(outputs["true"], out, names)
                outputs["kept"] = kept
                outputs["true"][:] = [outputs["true"][i] for i in kept]
                out = [out[i] for i in kept]
            return out if names else None       # no names: run for the effects
        return run
    merged = layers.cond(cast_bool_if_necessary(pred), branch(true_fn, "true"),
                         branch(false_fn, "false"))
    merged = list(merged or [])
    result = [Undefined(n) for n in names]
    for i, value in zip(outputs["kept"], merged):
        result[i] = value
    return tuple(result)


def convert_ifelse_return(pred, true_fn, false_fn, args):
    """`if pred:` whose branches end by returning (refimpl's rewriting of 2.0's return
    transformer): what the taken branch returns; a static pred gives a cond op holding
    both branches, returning what they return (Python numbers as constants)."""
    if not is_static(pred):
        return true_fn(*args) if pred else false_fn(*args)
    args = [to_static_variable(a) for a in args]

    def branch(fn):
        return lambda: map_structure(to_static_variable, fn(*args))
    return layers.cond(cast_bool_if_necessary(pred), branch(true_fn), branch(false_fn))


def convert_while_loop(cond, body, loop_vars, names=(), outlive=()):
    """`while cond:` over the values `loop_vars` of the names the body binds: a static
    condition gives a while op over the bound ones and over those of `outlive` (names the
    function reads outside the loop) that the loop binds first: each such name gets a
    placeholder before the loop, a variable of the type the body gives it and no value
    until an iteration sets it (2.0 makes a float32 one). The body's other names stay
    its own, unbound after the loop."""
    pred = cond(*loop_vars)
    if not is_static(pred):
        while pred:
            loop_vars = body(*loop_vars)
            pred = cond(*loop_vars)
        return loop_vars
    loop_vars = list(loop_vars)
    placeholders = {}
    for i, value in enumerate(loop_vars):
        if isinstance(value, Undefined) and names[i] in outlive:
            placeholders[i] = loop_vars[i] = _placeholder(names[i])
    bound = [i for i, v in enumerate(loop_vars) if not isinstance(v, Undefined)]

    def full(values):
        everything = list(loop_vars)
        for i, v in zip(bound, values):
            everything[i] = v
        return everything

    def step(*values):
        given = full(values)
        for i in placeholders:      # unbound in the iteration until it binds it
            given[i] = Undefined(names[i])
        out = body(*given)
        out = [to_static_variable(out[i]) for i in bound]
        for i, value in zip(bound, out):
            if i in placeholders and isinstance(value, Variable):
                placeholders[i]._set_shape_dtype(value.shape, value.dtype)
            _check_loop_variable(names, i, value)
        return out
    state = [to_static_variable(loop_vars[i]) for i in bound]
    for i, value in zip(bound, state):
        _check_loop_variable(names, i, value)
    final = layers.while_loop(lambda *v: cast_bool_if_necessary(cond(*full(v))), step, state)
    result = [Undefined(n) for n in names] if names else list(loop_vars)
    for i, value in zip(bound, final):
        result[i] = value
    return tuple(result)


def _placeholder(name):
    """A variable no op writes yet (its dtype and shape set by the loop's body)."""
    block = default_main_program().current_block()
    return block.create_var(name=unique_name.generate(name), dtype="float32", shape=[-1],
                            stop_gradient=False)


def _check_loop_variable(names, i, value):
    if isinstance(value, Undefined):
        raise NameError("paddle.jit.to_static: %r, read outside the while on a tensor, is "
                        "not bound by every iteration of it" % value.name)
    if not isinstance(value, Variable):
        raise TypeError("paddle.jit.to_static: the loop variable %r of a while on a "
                        "tensor must be a Tensor (or a bool / int / float), got %s"
                        % (names[i] if i < len(names) else i, type(value).__name__))


def range_condition(i, stop, step):
    """The test of `for i in range(start, stop, step)` converted to a while."""
    if is_static(step):
        raise TypeError("paddle.jit.to_static: the step of range() must be a Python int")
    return i < stop if step > 0 else i > stop


def convert_len(var):
    """len(): a static tensor's first dim as a shape op (it may be the batch size, unknown
    until run), a tensor array's length as array_length; anything else len()."""
    if is_static(var):
        if var.type == "LOD_TENSOR_ARRAY":
            return layers.array_length(var)
        return layers.shape(var)[0]
    return len(var)


def convert_var_shape(x, idx=None, in_control_flow=False):
    """x.shape (x.shape[idx]): of a static Variable the shape op's value when it is used
    in an if / while test or the dim is unknown (-1), else the build-time shape."""
    if is_static(x):
        shape = list(x.shape)
        unknown = shape[idx] < 0 if idx is not None else any(d < 0 for d in shape)
        if in_control_flow or unknown:
            return layers.shape(x) if idx is None else layers.shape(x)[idx]
    return x.shape if idx is None else x.shape[idx]


def convert_shape_compare(left, *args):
    """`left op1 a op2 b ...` (args: op string, operand, ...): Python's chained compare,
    or, with a static left operand, each compare reduced to one bool (reduce_all, `!=`:
    reduce_any) and the results and-ed."""
    if len(args) < 2 or len(args) % 2:
        raise ValueError("convert_shape_compare: expected op, operand pairs, got %r" % (args,))
    compare = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
               ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
               "is": lambda a, b: a is b, "is not": lambda a, b: a is not b,
               "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}
    if not is_static(left):
        for op, right in zip(args[::2], args[1::2]):
            if not compare[op](left, right):
                return False
            left = right
        return True
    result = None
    for op, right in zip(args[::2], args[1::2]):
        value = compare[op](left, right)
        if is_static(value) and op not in ("is", "is not", "in", "not in"):
            value = (layers.reduce_any if op == "!=" else layers.reduce_all)(value)
        result = value if result is None else convert_logical_and(lambda: result,
                                                                   lambda: value)
        left = right
    return result


def convert_var_dtype(var, dtype):
    """bool(x) / int(x) / float(x): of a static Variable a cast to bool / int32 /
    float32 (2.0's table)."""
    if is_static(var):
        return layers.cast(var, {"bool": "bool", "int": "int32", "float": "float32"}[dtype])
    return {"bool": bool, "int": int, "float": float}[dtype](var)


def convert_assert(cond, message=""):
    if is_static(cond):
        return layers.Assert(layers.cast(cond, "bool"))
    assert cond, message


def convert_print(*args):
    """print(): a static Variable through a Print op, anything else printed."""
    for value in args:
        if is_static(value):
            layers.Print(value)
        else:
            print(value)
