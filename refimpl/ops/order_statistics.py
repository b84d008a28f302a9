"""Order statistics of Paddle 3 along axes: kthvalue (the k-th smallest), mode (the most
frequent value) and nanmedian (the median of the non-NaN values). Each picks elements of
X, so each gradient sends dOut back to the elements picked (nanmedian: half each to the two
middle ones of an even count; an all-NaN slice: shared by all, as 3.3.1)."""
import numpy as np

from ._common import rand
from .reduce import _axes, _out_shape
from .registry import OpDef, Sample, register


def _put(x, axis, indices, dout):
    """dX: dOut at `indices` (one per slice along `axis`, kept dims), zeros elsewhere."""
    dx = np.zeros_like(x)
    np.put_along_axis(dx, indices, dout, axis)
    return dx


class _Pick(OpDef):
    """An op giving Out (a value of each slice along `axis`) and Indices (where it stands)."""
    inputs = ("X",)
    outputs = ("Out", "Indices")
    grad_inputs = ("X", "Indices", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64", "int32", "int64"))
        x = ctx.input_var("X")
        axis = ctx.check_axis("X", ctx.attr("axis"))
        self.check(ctx, x, axis)
        shape = _out_shape(x.shape, (axis,) if x.shape else (), ctx.attr("keepdim"))
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("Indices", shape, "int64")

    def check(self, ctx, x, axis):
        pass

    def forward(self, x, axis=-1, keepdim=False, **attrs):
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        at = np.expand_dims(self.pick(np.moveaxis(x, axis, -1), **attrs), axis)
        out = np.take_along_axis(x, at, axis)
        if not keepdim:
            out, at = np.squeeze(out, axis), np.squeeze(at, axis)
        return out, at

    @staticmethod
    def backward(x, indices, dout, axis=-1, keepdim=False, **attrs):
        if x.ndim == 0:
            return dout.copy()
        if not keepdim:
            indices, dout = np.expand_dims(indices, axis), np.expand_dims(dout, axis)
        return _put(x, axis % x.ndim, indices, dout)


@register
class Kthvalue(_Pick):
    """The k-th smallest along `axis` (NaN counts as the largest); among equal values the
    first one's index (3.3.1's partial sort may name another of them)."""
    type = "kthvalue"
    attrs = {"k": 1, "axis": -1, "keepdim": False}

    def check(self, ctx, x, axis):
        k, n = ctx.attr("k"), x.shape[axis] if x.shape else 1
        ctx.expect(k >= 1 and (n < 0 or k <= n), "k=%d must be in [1, %d] (dim %d of X %r "
                   "%s)" % (k, n, axis, x.name, list(x.shape)))

    @staticmethod
    def pick(rows, k=1):
        return np.argsort(rows, axis=-1, kind="stable")[..., k - 1]

    def samples(self, rng):
        x = rng.permutation(24).reshape(2, 3, 4) / 5.0
        yield Sample({"X": x}, {"k": 2})
        yield Sample({"X": x}, {"k": 3, "axis": 1, "keepdim": True}, name="axis_keepdim")


def _mode_index(row):
    """The last index of the most frequent value of `row` (the smallest such value)."""
    values, counts = np.unique(row[~np.isnan(row)] if row.dtype.kind == "f" else row,
                               return_counts=True)
    if not len(values):
        return len(row) - 1
    return int(np.flatnonzero(row == values[np.argmax(counts)])[-1])


@register
class Mode(_Pick):
    """The most frequent value along `axis` (the smallest of those as frequent; NaN never
    equals anything) and its last index, as 3.3.1."""
    type = "mode"
    attrs = {"axis": -1, "keepdim": False}

    @staticmethod
    def pick(rows):
        flat = rows.reshape(-1, rows.shape[-1])
        return np.array([_mode_index(r) for r in flat], np.int64).reshape(rows.shape[:-1])

    def samples(self, rng):
        # repeated values: a finite difference would break the ties (tests check dX)
        x = rng.randint(0, 3, (3, 5)).astype(np.float64) + rng.permutation(3)[:, None] / 7.0
        yield Sample({"X": x}, {"axis": 1}, grad=False)
        yield Sample({"X": x}, {"axis": 0, "keepdim": True}, grad=False, name="axis0_keepdim")


def _middles(rows):
    """The flat indices of the lower and upper middle non-NaN values of each row (-1 for
    an all-NaN row)."""
    order = np.argsort(rows, axis=-1, kind="stable")    # NaN last
    valid = (~np.isnan(rows)).sum(-1) if rows.dtype.kind == "f" else np.full(
        rows.shape[:-1], rows.shape[-1])
    lower = np.take_along_axis(order, np.maximum((valid - 1) // 2, 0)[..., None], -1)[..., 0]
    upper = np.take_along_axis(order, (valid // 2)[..., None], -1)[..., 0]
    empty = valid == 0
    return np.where(empty, -1, lower), np.where(empty, -1, upper)


def _reduced_rows(x, axis):
    """x with the reduced `axis` dims moved last and flattened into one."""
    axes = _axes(x.ndim, axis, False)
    kept = [d for d in range(x.ndim) if d not in axes]
    rows = np.transpose(x, kept + list(axes))
    return rows.reshape(rows.shape[:len(kept)] + (-1,)), axes


@register
class Nanmedian(OpDef):
    """The median of the non-NaN values over `axis` (empty: all dims): mode 'avg' the mean
    of the two middle values of an even count (in X's dtype), 'min' the lower; NaN for an
    all-NaN slice. MedianIndex: the flat positions (within the reduced dims) of the lower
    and upper middle values (mode 'min': the lower only), -1 for an all-NaN slice. Both
    keep the reduced dims as 1 whatever `keepdim` says (3.3.1's kernel; its API squeezes
    them)."""
    type = "nanmedian"
    inputs = ("X",)
    outputs = ("Out", "MedianIndex")
    attrs = {"axis": [], "keepdim": False, "mode": "avg"}
    grad_inputs = ("X", "MedianIndex", "Out@GRAD")
    scalar_outputs = ("Out", "MedianIndex")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float16", "float32", "float64", "int32", "int64"))
        mode = ctx.attr("mode")
        ctx.expect(mode in ("avg", "min"), "mode must be 'avg' or 'min', got %r" % (mode,))
        x = ctx.input_var("X")
        for a in ctx.attr("axis"):
            ctx.check_axis("X", a)
        shape = list(_out_shape(x.shape, _axes(len(x.shape), ctx.attr("axis"), False), True))
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("MedianIndex", shape + [2] if mode == "avg" else shape, "int64")

    @staticmethod
    def forward(x, axis=(), keepdim=False, mode="avg"):
        rows, axes = _reduced_rows(x, axis)
        lower, upper = _middles(rows)
        low = np.take_along_axis(rows, np.maximum(lower, 0)[..., None], -1)[..., 0]
        high = np.take_along_axis(rows, np.maximum(upper, 0)[..., None], -1)[..., 0]
        out = low if mode == "min" else (low + high) / 2
        if rows.dtype.kind == "f":
            out = np.where(lower < 0, np.nan, out)
        shape = _out_shape(x.shape, axes, True)
        index = lower if mode == "min" else np.stack([lower, upper], -1)
        return (np.asarray(out).astype(x.dtype).reshape(shape),
                index.reshape(tuple(shape) + index.shape[rows.ndim - 1:]))

    @staticmethod
    def backward(x, index, dout, axis=(), keepdim=False, mode="avg"):
        rows, axes = _reduced_rows(x, axis)
        picked = index.reshape(rows.shape[:-1] + (-1,))
        dout = dout.reshape(rows.shape[:-1] + (1,))
        drows = np.zeros_like(rows)
        for i in range(picked.shape[-1]):
            part = np.zeros_like(rows)
            np.put_along_axis(part, np.maximum(picked[..., i:i + 1], 0),
                              dout / picked.shape[-1], -1)
            drows += part
        drows = np.where(picked[..., :1] < 0, dout / max(rows.shape[-1], 1), drows)
        kept = [d for d in range(x.ndim) if d not in axes]
        moved = drows.reshape([x.shape[d] for d in kept + list(axes)])
        return np.transpose(moved, np.argsort(kept + list(axes)))

    def samples(self, rng):
        x = rng.permutation(24).reshape(2, 3, 4) / 5.0
        yield Sample({"X": x}, {"axis": [1]})
        yield Sample({"X": x}, {"axis": [0, 2], "keepdim": True}, name="axes_keepdim")
        yield Sample({"X": x}, {"axis": [-1], "mode": "min"}, name="min")
        x = rand(rng, 3, 4)
        x[0, 1] = x[1, 2] = np.nan
        yield Sample({"X": x}, {"axis": [1]}, name="nan")
