"""Tensor contractions of Paddle 3: paddle.einsum (its op, ops/einsum.py), and tensordot,
inner, outer (ger) as einsum equations (3.3.1 composes them from reshape / transpose /
matmul: the same values and gradients)."""
from ..framework.errors import LayerAssertionError
from ..framework.program import Variable
from .common import append_op_out, check_static_dtype, check_variable
from .tensor import reshape

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def einsum(equation, *operands):
    """numpy.einsum's contraction of the operands (implicit output, ellipsis,
    broadcasting); a list of tensors as the one operand argument is taken as the operands."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum: equation must be a str, got %s" % type(equation).__name__)
    for i, x in enumerate(operands):
        check_variable(x, "operands[%d]" % i, "einsum")
    _check_equation(equation.replace(" ", ""), operands)
    return append_op_out("einsum", {"Operands": list(operands)}, {"equation": equation})


def _check_equation(equation, operands):
    """3.3.1's checks of the equation against the operands, its AssertionErrors and
    messages (LayerAssertionError: a ValueError in refimpl's terms); a label's sizes
    disagreeing is the op's error (a ValueError, as 3.3.1's)."""
    def fail(message):
        raise LayerAssertionError(message)
    if not operands:
        fail("Required at least one operand in Einsum API, but received 0 ")
    if equation.count("->") > 1:
        fail("Invalid equation: multiple `->` were found.")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        fail("Invalid equation: the number of operands is %d, but found %d segments in the "
             "label equation." % (len(operands), len(terms)))
    for term in terms + ([rhs] if arrow else []):
        bare = term.replace("...", "", 1)
        if "." in bare:
            fail("Invalid equation: `.` is found outside of an ellipsis.")
        bad = [c for c in bare if not c.isalpha()]
        if bad:
            fail("Invalid equation: %s is not a valid label, which should be letters." % bad[0])
    for term, x in zip(terms, operands):
        labels = len(term.replace("...", ""))
        if labels != len(x.shape) and not ("..." in term and labels <= len(x.shape)):
            fail("Invalid equation: the label string '%s' misses dimensions." % term)
    if arrow and "..." not in rhs and any(
            "..." in t and len(x.shape) > len(t.replace("...", ""))
            for t, x in zip(terms, operands)):
        fail("Invalid equation: missing ellipsis in output labels.")


def _contraction(x, y, x_axes, y_axes, name):
    """The einsum summing x's x_axes against y's y_axes (pairwise); a pair where one dim
    is 1 takes two letters, so the other dim is summed alone (3.3.1's broadcasting)."""
    nx, ny = len(x.shape), len(y.shape)
    x_sub = list(_LETTERS[:nx])
    y_sub = list(_LETTERS[nx:nx + ny])
    for a, b in zip(x_axes, y_axes):
        if 1 not in (x.shape[a], y.shape[b]) or x.shape[a] == y.shape[b]:
            y_sub[b] = x_sub[a]
    out = [c for i, c in enumerate(x_sub) if i not in x_axes] + \
        [c for i, c in enumerate(y_sub) if i not in y_axes]
    return einsum("%s,%s->%s" % ("".join(x_sub), "".join(y_sub), "".join(out)), x, y)


def _ints(axes):
    """axes (an int, a list, a Tensor) as Python ints."""
    if isinstance(axes, Variable):
        return axes.numpy().tolist()
    return [int(a) for a in axes] if isinstance(axes, (list, tuple)) else int(axes)


def tensordot(x, y, axes=2, name=None):
    """The sum over x's and y's paired axes: axes an int n (x's last n with y's first n),
    a list of ints (the same axes of both), or [x_axes, y_axes] (one list: the same axes
    of both; the shorter list continued with the longer one's tail); a Tensor of any of
    these (eager). A pair where one dim is 1 sums the other dim."""
    check_variable(x, "x", "tensordot")
    check_variable(y, "y", "tensordot")
    nx, ny = len(x.shape), len(y.shape)
    axes = _ints(axes) if isinstance(axes, Variable) else axes
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0:
            raise LayerAssertionError("tensordot: axes %d must be non-negative" % axes)
        if axes > min(nx, ny):
            raise IndexError("tensordot: axes %d is more than the ranks of x (%d) and y (%d)"
                             % (axes, nx, ny))
        x_axes, y_axes = list(range(nx - axes, nx)), list(range(axes))
    else:
        axes = list(axes)
        if all(isinstance(a, int) for a in axes):
            x_axes = y_axes = axes
        else:
            x_axes = _ints(axes[0])
            y_axes = _ints(axes[1]) if len(axes) > 1 else x_axes
            x_axes, y_axes = x_axes + y_axes[len(x_axes):], y_axes + x_axes[len(y_axes):]
        if min(x_axes + y_axes, default=0) < 0 or len(x_axes) > nx or len(y_axes) > ny:
            raise LayerAssertionError("tensordot: axes %s must be non-negative and at most "
                                      "the ranks of x (%d) and y (%d)" % (axes, nx, ny))
        if len(set(x_axes)) < len(x_axes) or len(set(y_axes)) < len(y_axes):
            raise ValueError("tensordot: axes %s name an axis twice" % (axes,))
        if max(x_axes, default=0) >= nx or max(y_axes, default=0) >= ny:
            raise IndexError("tensordot: axes %s out of range for x of rank %d and y of rank "
                             "%d" % (axes, nx, ny))
    for a, b in zip(x_axes, y_axes):
        if -1 not in (x.shape[a], y.shape[b]) and 1 not in (x.shape[a], y.shape[b]) \
                and x.shape[a] != y.shape[b]:
            raise ValueError("tensordot: x's dim %d (%d) and y's dim %d (%d) differ"
                             % (a, x.shape[a], b, y.shape[b]))
    return _contraction(x, y, x_axes, y_axes, name)


def inner(x, y, name=None):
    """The sum of products over x's and y's last dims (0-D operands multiply). A static
    x / y must be float16 / float32 / float64 (3.3.1's check; eager ones are not checked)."""
    for arg, v in (("x", x), ("y", y)):
        check_static_dtype(v, arg, "inner", ("float16", "float32", "float64"))
    if not x.shape or not y.shape:
        return _contraction(x, y, [], [], name)
    return _contraction(x, y, [len(x.shape) - 1], [len(y.shape) - 1], name)


def outer(x, y, name=None):
    """x flattened times y flattened: [x.numel(), y.numel()]."""
    check_variable(x, "x", "outer")
    check_variable(y, "y", "outer")
    return _contraction(reshape(x, [-1]), reshape(y, [-1]), [], [], name)


EXPORTS = {
    "paddle": {"einsum": einsum, "tensordot": tensordot, "inner": inner, "outer": outer,
               "ger": outer},
}
