"""Tensor manipulation ops of the Paddle 2.0 API: cumsum, flip, roll, tril_triu, diag_v2
(and fluid 1.8's diag), eye, trace, kron, cross, expand_as_v2, meshgrid, unbind. Each moves or combines elements
without arithmetic beyond sums, so each gradient sends dOut back where the element came
from."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import complex_promotion, conj, grads_in_operand_dtypes, plane_axes, rand
from .registry import OpDef, Sample, register



@register
class Cumsum(OpDef):
    """Running sum along `axis` (of the flattened X when `flatten`); `exclusive` leaves each
    element out of its own sum, `reverse` sums from the end."""
    type = "cumsum"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": -1, "flatten": False, "exclusive": False, "reverse": False}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if ctx.attr("flatten"):
            n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
            ctx.set_output("Out", [n], x.dtype)
            return
        ctx.check_axis("X", ctx.attr("axis"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, axis=-1, flatten=False, exclusive=False, reverse=False):
        if flatten:
            x, axis = x.reshape(-1), 0
        if reverse:
            x = np.flip(x, axis)
        out = np.cumsum(x, axis=axis, dtype=x.dtype)
        if exclusive:
            out = out - x
        return np.ascontiguousarray(np.flip(out, axis) if reverse else out)

    @staticmethod
    def backward(x, dout, axis=-1, flatten=False, exclusive=False, reverse=False):
        # Each input feeds the sums on its far side: the cumsum of dOut in the other direction.
        dx = Cumsum.forward(dout, 0 if flatten else axis, False, exclusive, not reverse)
        return dx.reshape(x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"axis": 1})
        yield Sample({"X": rand(rng, 3, 4)}, {"axis": 0, "exclusive": True, "reverse": True})
        yield Sample({"X": rand(rng, 2, 3)}, {"flatten": True})


@register
class Flip(OpDef):
    type = "flip"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": []}
    renamed_attrs = {"dims": "axis"}   # Paddle 1.8's names
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        axes = [ctx.check_axis("X", a) for a in ctx.attr("axis")]
        ctx.expect(len(set(axes)) == len(axes), "axis %s repeats a dim" % ctx.attr("axis"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, axis=()):
        return np.ascontiguousarray(np.flip(x, tuple(axis)))

    @staticmethod
    def backward(dout, axis=()):
        return Flip.forward(dout, axis)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": [0, -1]})


@register
class Reverse(Flip):
    """Paddle 1.8's reverse op (fluid.layers.reverse): flip under its older name, whose
    kernel takes X of rank 1 to 6 (checked when it runs, as 1.8 does). X may be a tensor
    array: axis [0] reverses the order of its elements (as Paddle's LoDTensorArray kernel),
    and its gradient array is reversed back."""
    type = "reverse"
    tensor_arrays = ("X",)

    @staticmethod
    def forward(x, axis=()):
        if isinstance(x, list):
            if list(axis) != [0]:
                raise ValueError("reverse of a tensor array takes axis [0], got %s"
                                 % list(axis))
            return x[::-1]
        if x.ndim > 6:      # 2.0: OutOfRange (an IndexError)
            raise IndexError("X has rank %d (shape %s); the reverse op takes ranks up to 6 "
                             "(Paddle 1.8's kernel; flip takes any)" % (x.ndim, list(x.shape)))
        return Flip.forward(x, axis)

    @staticmethod
    def backward(dout, axis=()):
        return Reverse.forward(dout, axis)


@register
class Roll(OpDef):
    """Elements shifted along `axis` by `shifts`, wrapping around; no axis: the flattened X
    is rolled and reshaped back."""
    type = "roll"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"shifts": [], "axis": []}
    renamed_attrs = {"dims": "axis"}   # Paddle 1.8's names
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        shifts, axis = ctx.attr("shifts"), ctx.attr("axis")
        for a in axis:
            ctx.check_axis("X", a)
        ctx.expect(len(shifts) == len(axis) or (not axis and len(shifts) == 1),
                   "shifts %s and axis %s must have the same length (or axis empty and one "
                   "shift)" % (list(shifts), list(axis)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, shifts=(), axis=()):
        if not axis:
            return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        return np.roll(x, tuple(shifts), tuple(axis))

    @staticmethod
    def backward(dout, shifts=(), axis=()):
        return Roll.forward(dout, [-s for s in shifts], axis)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"shifts": [1, -3], "axis": [0, 1]})
        yield Sample({"X": rand(rng, 3, 4)}, {"shifts": [5], "axis": []})


def _tri_mask(shape, diagonal, lower):
    """Boolean mask of the last two dims kept by tril (lower) / triu."""
    rows, cols = shape[-2], shape[-1]
    return (np.tri(rows, cols, diagonal, dtype=bool) if lower
            else ~np.tri(rows, cols, diagonal - 1, dtype=bool))


@register
class TrilTriu(OpDef):
    """tril (lower=True): keep the elements on and below the `diagonal`-th diagonal of the
    last two dims; triu: on and above."""
    type = "tril_triu"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"diagonal": 0, "lower": True}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) >= 2, "X %r must have rank >= 2, got shape %s"
                   % (x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, diagonal=0, lower=True):
        return np.where(_tri_mask(x.shape, diagonal, lower), x, np.zeros((), x.dtype))

    @staticmethod
    def backward(dout, diagonal=0, lower=True):
        return TrilTriu.forward(dout, diagonal, lower)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"diagonal": 1, "lower": True})
        yield Sample({"X": rand(rng, 2, 4, 3)}, {"diagonal": -1, "lower": False})


def _diagonal_index(n, offset):
    """(rows, cols) of the n elements of a matrix's `offset`-th diagonal."""
    i = np.arange(n)
    return i + max(0, -offset), i + max(0, offset)


@register
class DiagV2(OpDef):
    """1-D X: a square matrix with X on the `offset`-th diagonal, `padding_value` elsewhere.
    2-D X: its `offset`-th diagonal as a vector."""
    type = "diag_v2"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"offset": 0, "padding_value": 0.0}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        k = ctx.attr("offset")
        if len(x.shape) == 1:
            n = x.shape[0] + abs(k) if x.shape[0] >= 0 else -1
            ctx.set_output("Out", [n, n], x.dtype)
        elif len(x.shape) == 2:
            rows, cols = x.shape
            n = -1 if rows < 0 or cols < 0 else max(0, min(rows, cols - k) if k >= 0
                                                    else min(rows + k, cols))
            ctx.set_output("Out", [n], x.dtype)
        else:
            ctx.fail("X %r must be 1-D or 2-D, got shape %s" % (x.name, list(x.shape)))

    @staticmethod
    def forward(x, offset=0, padding_value=0.0):
        if x.ndim == 2:
            return np.ascontiguousarray(np.diagonal(x, offset))
        n = x.shape[0] + abs(offset)
        out = np.full((n, n), padding_value, dtype=x.dtype)
        out[_diagonal_index(x.shape[0], offset)] = x
        return out

    @staticmethod
    def backward(x, dout, offset=0, padding_value=0.0):
        if x.ndim == 1:
            return np.ascontiguousarray(np.diagonal(dout, offset))
        dx = np.zeros_like(x)
        dx[_diagonal_index(dout.shape[0], offset)] = dout
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3)}, {"offset": 1, "padding_value": 2.0})
        yield Sample({"X": rand(rng, 3)}, {"offset": -2})
        yield Sample({"X": rand(rng, 3, 5)}, {"offset": 1})
        yield Sample({"X": rand(rng, 4, 3)}, {"offset": -1})


@register
class Diag(OpDef):
    """fluid 1.8's diag op: a square matrix with the 1-D Diagonal on its diagonal, zeros
    elsewhere; no gradient, as in 1.8 (fluid.layers.diag here builds diag_v2, which has
    one)."""
    type = "diag"
    inputs = ("Diagonal",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        d = ctx.input_var("Diagonal")
        if len(d.shape) != 1:
            ctx.fail("Diagonal %r must be 1-D, got shape %s" % (d.name, list(d.shape)))
        ctx.set_output("Out", [d.shape[0], d.shape[0]], d.dtype)

    @staticmethod
    def forward(diagonal):
        return np.diag(diagonal)

    def samples(self, rng):
        yield Sample({"Diagonal": np.array([3, 4, 5], "int64")}, grad=False)


@register
class Eye(OpDef):
    type = "eye"
    inputs = ()
    outputs = ("Out",)
    attrs = {"num_rows": 1, "num_columns": -1, "dtype": "float32"}

    def infer_shape(self, ctx):
        rows, cols = ctx.attr("num_rows"), ctx.attr("num_columns")
        ctx.expect(rows >= 0, "num_rows must be >= 0, got %d" % rows)
        ctx.set_output("Out", [rows, rows if cols < 0 else cols], ctx.attr("dtype"))

    @staticmethod
    def forward(num_rows=1, num_columns=-1, dtype="float32"):
        return np.eye(num_rows, num_rows if num_columns < 0 else num_columns, dtype=dtype)

    def samples(self, rng):
        yield Sample({}, {"num_rows": 3, "num_columns": 4, "dtype": "float64"})
        yield Sample({}, {"num_rows": 2, "dtype": "int64"})


@register
class Trace(OpDef):
    """Sum of the `offset`-th diagonal of the (axis1, axis2) planes."""
    type = "trace"
    inputs = ("Input",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"offset": 0, "axis1": 0, "axis2": 1}
    renamed_attrs = {"dim1": "axis1", "dim2": "axis2"}   # Paddle 1.8's names
    grad_inputs = ("Input", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        a1, a2 = plane_axes(ctx)
        # a matrix's trace is one number (scalar_shape())
        ctx.set_output("Out", [d for i, d in enumerate(x.shape) if i not in (a1, a2)],
                       x.dtype)

    @staticmethod
    def forward(x, offset=0, axis1=0, axis2=1):
        return np.asarray(np.trace(x, offset, axis1, axis2), x.dtype)

    @staticmethod
    def backward(x, dout, offset=0, axis1=0, axis2=1):
        a1, a2 = axis1 % x.ndim, axis2 % x.ndim
        mask = np.eye(x.shape[a1], x.shape[a2], offset, dtype=x.dtype)
        rest = [d for i, d in enumerate(x.shape) if i not in (a1, a2)]
        planes = dout.reshape(rest + [1, 1]) * mask
        return np.ascontiguousarray(np.moveaxis(planes, (-2, -1), (a1, a2)))

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4)}, {"offset": 1})
        yield Sample({"Input": rand(rng, 2, 3, 3)}, {"offset": -1, "axis1": 1, "axis2": -1})


def _interleave(a, b):
    return [v for pair in zip(a, b) for v in pair]


@register
class Kron(OpDef):
    """Kronecker product; the lower-rank operand gets leading 1s."""
    type = "kron"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        # a real operand with a complex one is promoted (Paddle 2.0's kron takes them:
        # IndicateOrPromoteVarDataTypes; its test_complex_kron)
        promoted = complex_promotion(ctx.input_var("X"), ctx.input_var("Y"))
        if promoted is None:
            ctx.check_same_dtype("X", "Y")
        xs, ys = ctx.input_shape("X"), ctx.input_shape("Y")
        n = max(len(xs), len(ys))
        xs, ys = (1,) * (n - len(xs)) + xs, (1,) * (n - len(ys)) + ys
        ctx.set_output("Out", [a * b if a >= 0 and b >= 0 else -1 for a, b in zip(xs, ys)],
                       ctx.input_dtype("X") if promoted is None else promoted)

    @staticmethod
    def forward(x, y):
        return np.kron(x, y).astype(np.result_type(x.dtype, y.dtype), copy=False)

    @staticmethod
    def backward(x, y, dout):
        # Out viewed as [x0, y0, x1, y1, ...]: the element (i, j) is X[i] * Y[j]; complex
        # operands' gradients carry the other's conjugate (2.0's test_kron_op)
        n = max(x.ndim, y.ndim)
        xs, ys = (1,) * (n - x.ndim) + x.shape, (1,) * (n - y.ndim) + y.shape
        d = dout.reshape(_interleave(xs, ys))
        x_b = conj(x).reshape(_interleave(xs, (1,) * n))
        y_b = conj(y).reshape(_interleave((1,) * n, ys))
        dx = (d * y_b).sum(axis=tuple(range(1, 2 * n, 2))).reshape(x.shape)
        dy = (d * x_b).sum(axis=tuple(range(0, 2 * n, 2))).reshape(y.shape)
        return grads_in_operand_dtypes((dx, dy), x, y)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 3, 2)})
        yield Sample({"X": rand(rng, 3), "Y": rand(rng, 2, 2)})


_FIRST_DIM_OF_3 = -100   # Paddle's "no dim given": the first dim of size 3


def _cross_dim(shape, dim):
    if dim == _FIRST_DIM_OF_3:
        return next((i for i, d in enumerate(shape) if d == 3), None)
    return dim % len(shape) if -len(shape) <= dim < len(shape) else None


@register
class Cross(OpDef):
    """3-vector cross product along `dim` (default: the first dim of size 3)."""
    type = "cross"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"dim": _FIRST_DIM_OF_3}
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(tuple(x.shape) == tuple(y.shape), "X %r shape %s and Y %r shape %s must "
                   "be equal" % (x.name, list(x.shape), y.name, list(y.shape)))
        dim = _cross_dim(x.shape, ctx.attr("dim"))
        ctx.expect(dim is not None and x.shape[dim] in (3, -1),
                   "dim %s of X %r (shape %s) must exist and have size 3"
                   % (ctx.attr("dim"), x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, y, dim=_FIRST_DIM_OF_3):
        return np.cross(x, y, axis=_cross_dim(x.shape, dim)).astype(x.dtype)

    @staticmethod
    def backward(x, y, dout, dim=_FIRST_DIM_OF_3):
        # <x × y, g> = <x, y × g> = <y, g × x>
        axis = _cross_dim(x.shape, dim)
        return np.cross(y, dout, axis=axis), np.cross(dout, x, axis=axis)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3)})
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4)}, {"dim": 0})


@register
class ExpandAsV2(OpDef):
    """X broadcast to `target_shape` (the shape of Y, known at build time), or to the run-time
    shape of target_tensor when given."""
    type = "expand_as_v2"
    inputs = ("X", "target_tensor?")
    outputs = ("Out",)
    attrs = {"target_shape": []}
    no_grad = ("target_tensor",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        target = list(ctx.attr("target_shape"))
        if ctx.has_input("target_tensor"):
            target = list(ctx.input_shape("target_tensor"))
        ctx.expect(len(target) >= len(x.shape), "X %r of rank %d cannot expand to the lower "
                   "rank shape %s" % (x.name, len(x.shape), target))
        lead = len(target) - len(x.shape)
        for d, t in zip(x.shape, target[lead:]):
            ctx.expect(d in (1, t) or d < 0 or t < 0, "X %r of shape %s does not broadcast "
                       "to %s" % (x.name, list(x.shape), target))
        ctx.set_output("Out", target, x.dtype)

    @staticmethod
    def forward(x, target=None, target_shape=()):
        shape = target.shape if target is not None else tuple(target_shape)
        return np.ascontiguousarray(np.broadcast_to(x, shape))

    @staticmethod
    def backward(x, dout, target_shape=()):
        return sum_to_shape(dout, x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 1)}, {"target_shape": [2, 3, 4]})
        # Paddle 3.x reads only target_shape (its layer sets it from the tensor's shape)
        yield Sample({"X": rand(rng, 1, 4), "target_tensor": rand(rng, 3, 4)},
                     {"target_shape": [3, 4]})


@register
class Meshgrid(OpDef):
    """k 1-D inputs -> k grids of shape [n1, ..., nk] (matrix 'ij' indexing)."""
    type = "meshgrid"
    inputs = ("X*",)
    outputs = ("Out*",)
    grad_inputs = ("X*", "Out@GRAD*")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        for i, v in enumerate(xs):
            ctx.expect(len(v.shape) == 1, "input %d %r must be 1-D, got shape %s"
                       % (i, v.name, list(v.shape)))
        for i in range(len(ctx.op.outputs.get("Out", ()))):
            ctx.set_output("Out", [v.shape[0] for v in xs], xs[0].dtype, i)

    @staticmethod
    def forward(xs):
        return [np.ascontiguousarray(g) for g in np.meshgrid(*xs, indexing="ij")]

    @staticmethod
    def backward(xs, douts):
        n = len(xs)
        return [np.zeros_like(x) if d is None else
                np.asarray(d).sum(axis=tuple(a for a in range(n) if a != i)).astype(x.dtype)
                for i, (x, d) in enumerate(zip(xs, douts))]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2), rand(rng, 3), rand(rng, 4)]})


@register
class Unbind(OpDef):
    """X split into its slices along `axis`, that axis removed."""
    type = "unbind"
    inputs = ("X",)
    outputs = ("Out*",)
    attrs = {"axis": 0}
    grad_inputs = ("X", "Out@GRAD*")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        axis = ctx.check_axis("X", ctx.attr("axis"))
        for i in range(len(ctx.op.outputs.get("Out", ()))):
            ctx.set_output("Out", [d for j, d in enumerate(x.shape) if j != axis], x.dtype, i)

    @staticmethod
    def forward(x, axis=0):
        return [np.ascontiguousarray(np.take(x, i, axis=axis)) for i in range(x.shape[axis])]

    @staticmethod
    def backward(x, douts, axis=0):
        slice_shape = [d for j, d in enumerate(x.shape) if j != axis % x.ndim]
        return np.stack([np.zeros(slice_shape, x.dtype) if d is None else d for d in douts],
                        axis=axis)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2, 4)}, {"axis": 1})
        yield Sample({"X": rand(rng, 3, 2)}, {"axis": -2})
