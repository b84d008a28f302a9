"""Running reductions of Paddle 3 along one axis: cumprod, logcumsumexp (both with Paddle's
`exclusive` / `reverse`, `flatten` for logcumsumexp) and cummax / cummin (the running
extreme and where it was). Each scan runs forward along the axis; `reverse` flips the
axis before and after, `exclusive` shifts the results one step on (the first holds the
scan's identity), so the gradients are the inclusive scan's gradient of a shifted dOut."""
import numpy as np

from ..framework.dtypes import convert_dtype
from ..framework.errors import OpIndexError
from ._common import rand
from .registry import OpDef, Sample, register


def _scan(scan, x, axis, exclusive, reverse, identity):
    """scan(x, axis) with Paddle's exclusive / reverse."""
    if reverse:
        x = np.flip(x, axis)
    out = scan(x, axis)
    if exclusive:
        first = np.full_like(np.take(out, [0], axis), identity)
        out = np.concatenate([first, np.delete(out, -1, axis)], axis)
    return np.ascontiguousarray(np.flip(out, axis) if reverse else out)


def _scan_grad(grad, x, dout, axis, exclusive, reverse):
    """grad(x, dout, axis) of the inclusive forward scan, for Paddle's exclusive / reverse:
    an exclusive result i is the inclusive result i - 1, so its dOut moves one step back."""
    if reverse:
        x, dout = np.flip(x, axis), np.flip(dout, axis)
    if exclusive:
        dout = np.concatenate([np.delete(dout, 0, axis), np.zeros_like(np.take(dout, [0],
                                                                               axis))], axis)
    dx = grad(x, dout, axis)
    return np.ascontiguousarray(np.flip(dx, axis) if reverse else dx)


def _check_axis(ctx, slot, attr):
    """The scan's axis in [-rank, rank): else an IndexError (logcumsumexp, cummax and
    cummin in 3.3.1; cumprod's is a ValueError, ctx.check_axis)."""
    x = ctx.input_var(slot)
    rank = max(len(x.shape), 1)
    ctx.expect(-rank <= ctx.attr(attr) < rank, "%s %d is out of range for %s %r of rank %d "
               "(expected in [%d, %d))" % (attr, ctx.attr(attr), slot, x.name, len(x.shape),
                                           -rank, rank), OpIndexError)


class _Scan(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")
    axis_error = "value"

    def infer_shape(self, ctx):
        ctx.check_dtype("X", self.dtypes)
        x = ctx.input_var("X")
        if "flatten" in self.attrs and ctx.attr("flatten"):
            n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
            ctx.set_output("Out", [n], x.dtype)
            return
        if self.axis_error == "index":
            _check_axis(ctx, "X", self.axis_attr)
        else:
            ctx.check_axis("X", ctx.attr(self.axis_attr), attr=self.axis_attr)
        ctx.same_as("X", "Out")


def _cumprod(x, axis):
    return np.cumprod(x, axis=axis, dtype=x.dtype)


def _cumprod_grad(x, dout, axis):
    """dX_j = prod(x_k, k < j) * S_j with S_j = dOut_j + x_(j+1) S_(j+1): no division, so
    zeros in X are fine (3.3.1's values)."""
    x, dout = np.moveaxis(x, axis, 0), np.moveaxis(dout, axis, 0)
    before = np.concatenate([np.ones_like(x[:1]), np.cumprod(x, 0, dtype=x.dtype)[:-1]])
    tail = np.empty_like(dout)
    tail[-1:] = dout[-1:]
    for j in range(len(x) - 2, -1, -1):
        tail[j] = dout[j] + x[j + 1] * tail[j + 1]
    return np.moveaxis(before * tail, 0, axis)


@register
class Cumprod(_Scan):
    """Running product along `dim` (0-D: X itself)."""
    type = "cumprod"
    attrs = {"dim": -1, "exclusive": False, "reverse": False}
    axis_attr = "dim"
    dtypes = ("float16", "float32", "float64", "int32", "int64", "complex64", "complex128")

    @staticmethod
    def forward(x, dim=-1, exclusive=False, reverse=False):
        if x.ndim == 0:
            return x.copy()
        return _scan(_cumprod, x, dim, exclusive, reverse, 1)

    @staticmethod
    def backward(x, dout, dim=-1, exclusive=False, reverse=False):
        if x.ndim == 0:
            return dout.copy()
        return _scan_grad(_cumprod_grad, x, dout, dim, exclusive, reverse)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"dim": 1})
        yield Sample({"X": rand(rng, 3, 4)}, {"dim": 0, "exclusive": True, "reverse": True})
        yield Sample({"X": np.array([[1., 3., 0., 2.], [0., 0., 2., -1.]])}, {"dim": -1},
                     name="zeros")


def _lowest(out):
    """3.3.1 gives the lowest finite number where the log of the sum is -inf."""
    return np.where(np.isneginf(out), np.finfo(out.dtype).min, out)


def _logcumsumexp(x, axis):
    return np.logaddexp.accumulate(x, axis=axis, dtype=x.dtype)


def _logcumsumexp_grad(x, dout, axis):
    """dX_j = sum(dOut_i exp(x_j - out_i), i >= j), summed in log space for the positive and
    the negative dOut apart (no overflow)."""
    out = _logcumsumexp(x, axis)
    with np.errstate(divide="ignore"):
        log_weight = np.log(np.abs(dout)) - out
    dx = np.zeros_like(x)
    for sign in (1, -1):
        part = np.where(np.sign(dout) == sign, log_weight, -np.inf)
        dx += sign * np.exp(x + np.flip(_logcumsumexp(np.flip(part, axis), axis), axis))
    return dx


@register
class Logcumsumexp(_Scan):
    """log(cumsum(exp(X))) along `axis` (of the flattened X with `flatten`), without
    overflow (logaddexp); a -inf result is the dtype's lowest number, as in 3.3.1."""
    type = "logcumsumexp"
    attrs = {"axis": -1, "flatten": False, "exclusive": False, "reverse": False}
    axis_attr = "axis"
    axis_error = "index"
    dtypes = ("float16", "float32", "float64")

    @staticmethod
    def forward(x, axis=-1, flatten=False, exclusive=False, reverse=False):
        if flatten or x.ndim == 0:
            x, axis = x.reshape(-1), 0
        return _lowest(_scan(_logcumsumexp, x, axis, exclusive, reverse, -np.inf))

    @staticmethod
    def backward(x, dout, axis=-1, flatten=False, exclusive=False, reverse=False):
        if flatten or x.ndim == 0:
            dx = _scan_grad(_logcumsumexp_grad, x.reshape(-1), dout.reshape(-1), 0,
                            exclusive, reverse)
            return dx.reshape(x.shape)
        return _scan_grad(_logcumsumexp_grad, x, dout, axis, exclusive, reverse)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4) * 3}, {"axis": 1})
        yield Sample({"X": rand(rng, 3, 4)}, {"axis": 0, "reverse": True}, name="reverse")
        # the first exclusive result is the lowest float: no finite differences there
        yield Sample({"X": rand(rng, 3, 4)}, {"axis": 0, "exclusive": True}, grad=False,
                     name="exclusive")
        yield Sample({"X": rand(rng, 2, 3)}, {"flatten": True})


def _running_extreme(x, axis, better):
    """(values, indices) of the running extreme along `axis`: an element at least as good
    as the extreme so far (a tie moves the index on, 3.3.1) or NaN (which then stays)
    takes over."""
    x = np.moveaxis(x, axis, -1)
    out, idx = np.empty_like(x), np.zeros(x.shape, np.int64)
    best, at = x[..., 0].copy(), np.zeros(x.shape[:-1], np.int64)
    for j in range(x.shape[-1]):
        v = x[..., j]
        take = better(v, best) | (v == best)
        if np.issubdtype(x.dtype, np.floating):
            take = take | np.isnan(v)
        best, at = np.where(take, v, best), np.where(take, j, at)
        out[..., j], idx[..., j] = best, at
    return np.moveaxis(out, -1, axis), np.moveaxis(idx, -1, axis)


class _CumExtreme(OpDef):
    """cummax / cummin: `out` the running extreme along `axis`, `indices` (of `dtype`, a
    dtype code: int32 or int64) where it stands. Gradient: dout added up where each value
    came from."""
    inputs = ("x",)
    outputs = ("out", "indices")
    attrs = {"axis": -1, "dtype": 3}
    grad_inputs = ("x", "indices", "out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("x", ("float32", "float64", "int32", "int64"))
        x = ctx.input_var("x")
        _check_axis(ctx, "x", "axis")
        index_dtype = convert_dtype(ctx.attr("dtype"))
        ctx.expect(index_dtype in ("int32", "int64"),
                   "dtype of indices must be int32 or int64, got %s" % index_dtype)
        ctx.set_output("out", x.shape, x.dtype)
        ctx.set_output("indices", x.shape, index_dtype)

    def forward(self, x, axis=-1, dtype=3):
        if x.ndim == 0:
            return x.copy(), np.zeros((), convert_dtype(dtype))
        out, idx = _running_extreme(x, axis, self.better)
        return out, idx.astype(convert_dtype(dtype))

    @staticmethod
    def backward(x, indices, dout, axis=-1, dtype=3):
        if x.ndim == 0:
            return dout.copy()
        dx = np.zeros_like(x)
        moved = np.moveaxis(dx, axis, -1)
        rows = np.indices(moved.shape[:-1] + (1,))[:-1]
        np.add.at(moved, tuple(rows) + (np.moveaxis(indices, axis, -1).astype(np.int64),),
                  np.moveaxis(dout, axis, -1))
        return dx

    def samples(self, rng):
        # distinct values: finite differences are valid away from ties
        x = rng.permutation(12).reshape(3, 4) / 5.0
        yield Sample({"x": x}, {"axis": 1})
        yield Sample({"x": x}, {"axis": 0, "dtype": 2}, name="int32_indices")


@register
class Cummax(_CumExtreme):
    type = "cummax"
    better = staticmethod(np.greater)


@register
class Cummin(_CumExtreme):
    type = "cummin"
    better = staticmethod(np.less)
