"""Reads and writes along one axis (Paddle 3): take_along_axis, put_along_axis.

Index has X's rank; along `Axis` it names positions of X (negative ones count from the
end), in the other dims it may be smaller than X: Out[i..., j, k...] reads
X[i..., Index[i..., j, k...], k...] for the coordinates of Index (3.3.1's kernels,
measured). put_along_axis writes Value (Index's shape) there into a copy of X, combining
what lands on one place by `Reduce`: assign (the last write wins), add, mul / multiply,
mean, amin, amax; `Include_self` false leaves X's own value out of the combination."""
import numpy as np

from ._common import rand
from .index_ops import INTS
from .registry import OpDef, Sample, register

REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _check_index(ctx, x, idx, axis):
    ctx.check_dtype("Index", INTS)
    ctx.expect(len(idx.shape) == len(x.shape), "Index %r and Input %r must have the same rank, "
               "got shapes %s and %s" % (idx.name, x.name, list(idx.shape), list(x.shape)))
    axis = ctx.check_axis("Input", axis, attr="Axis")
    small = all(i < 0 or d < 0 or i <= d
                for k, (i, d) in enumerate(zip(idx.shape, x.shape)) if k != axis)
    ctx.expect(small, "Index %r of shape %s is larger than Input %r of shape %s outside "
               "axis %d" % (idx.name, list(idx.shape), x.name, list(x.shape), axis))


def _places(x, index, axis, op):
    """The coordinates (a tuple of arrays of Index's shape) of X that Index addresses."""
    axis %= x.ndim
    n = x.shape[axis]
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexError("%s: Index holds %d, out of range for Input's dim %d of size %d "
                         "(expected in [%d, %d))" % (op, index.max() if index.max() >= n
                                                     else index.min(), axis, n, -n, n))
    coords = list(np.indices(index.shape, sparse=True))
    coords[axis] = np.where(index < 0, index + n, index).astype(np.int64)
    return tuple(coords)


@register
class TakeAlongAxis(OpDef):
    """Result = X's elements at Index along Axis (Index's shape)."""
    type = "take_along_axis"
    inputs = ("Input", "Index")
    outputs = ("Result",)
    attrs = {"Axis": 0}
    no_grad = ("Index",)
    grad_inputs = ("Input", "Index", "Result@GRAD")

    def infer_shape(self, ctx):
        x, idx = ctx.input_var("Input"), ctx.input_var("Index")
        _check_index(ctx, x, idx, ctx.attr("Axis"))
        ctx.set_output("Result", idx.shape, x.dtype)

    @staticmethod
    def forward(x, index, Axis=0):
        return x[_places(x, index, Axis, "take_along_axis")]

    @staticmethod
    def backward(x, index, dout, Axis=0):
        dx = np.zeros_like(x)
        np.add.at(dx, _places(x, index, Axis, "take_along_axis"), dout)
        return dx

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4), "Index": np.array([[0, -1], [2, 2]], "int64")},
                     {"Axis": 1})
        yield Sample({"Input": rand(rng, 3, 2, 2),
                      "Index": rng.randint(0, 3, (4, 2, 2)).astype("int32")}, {"Axis": 0})


def _identity(reduce, dtype):
    """What a place starts from when X's own value is left out of `reduce`."""
    if reduce in ("amin", "amax"):
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.finfo(dtype)
        return info.max if reduce == "amin" else info.min
    return 1 if reduce in ("mul", "multiply") else 0


def _combined(x, places, value, reduce, include_self):
    """X with Value combined into `places` by `reduce`, and how many values (X's own
    counted when included) each place combines."""
    counts = np.zeros(x.shape, np.int64)
    np.add.at(counts, places, 1)
    touched = counts > 0
    out = x.copy()
    if reduce == "assign":
        out[places] = value
        return out, counts
    if not include_self:
        out[touched] = _identity(reduce, x.dtype)
    ufunc = {"add": np.add, "mean": np.add, "mul": np.multiply, "multiply": np.multiply,
             "amin": np.minimum, "amax": np.maximum}[reduce]
    ufunc.at(out, places, value)
    if include_self:
        counts += touched
    if reduce == "mean":
        mean = out[touched] / counts[touched]
        out[touched] = np.trunc(mean) if out.dtype.kind in "iu" else mean
    return out, counts


@register
class PutAlongAxis(OpDef):
    """Result = X with Value (Index's shape) combined in at Index along Axis."""
    type = "put_along_axis"
    inputs = ("Input", "Index", "Value")
    outputs = ("Result",)
    attrs = {"Axis": 0, "Reduce": "assign", "Include_self": True}
    no_grad = ("Index",)
    grad_inputs = ("Input", "Index", "Value", "Result", "Result@GRAD")

    def infer_shape(self, ctx):
        x, idx, v = (ctx.input_var(s) for s in ("Input", "Index", "Value"))
        _check_index(ctx, x, idx, ctx.attr("Axis"))
        ctx.expect(ctx.attr("Reduce") in REDUCES, "Reduce %r is not one of %s"
                   % (ctx.attr("Reduce"), list(REDUCES)))
        ctx.expect(len(v.shape) == len(idx.shape) and all(
            a < 0 or b < 0 or a >= b for a, b in zip(v.shape, idx.shape)),
            "Value %r of shape %s must cover Index %r of shape %s"
            % (v.name, list(v.shape), idx.name, list(idx.shape)))
        ctx.check_same_dtype("Input", "Value")
        ctx.same_as("Input", "Result")

    @staticmethod
    def forward(x, index, value, Axis=0, Reduce="assign", Include_self=True):
        places = _places(x, index, Axis, "put_along_axis")
        value = value[tuple(slice(0, d) for d in index.shape)]
        return _combined(x, places, value, Reduce, Include_self)[0]

    @staticmethod
    def backward(x, index, value, out, dout, Axis=0, Reduce="assign", Include_self=True):
        places = _places(x, index, Axis, "put_along_axis")
        dvalue = np.zeros_like(value)
        used = tuple(slice(0, d) for d in index.shape)
        v = value[used]
        counts = _combined(x, places, v, Reduce, Include_self)[1]
        touched = counts > 0
        keep_self = Include_self and Reduce != "assign"
        dx = np.where(touched & (not keep_self), 0, dout).astype(dout.dtype)
        if Reduce == "assign":
            # the last write to a place is the one it holds
            flat = np.ravel_multi_index(np.broadcast_arrays(*places), x.shape).ravel()
            last = np.zeros(flat.shape, bool)
            last[len(flat) - 1 - np.unique(flat[::-1], return_index=True)[1]] = True
            dvalue[used] = np.where(last.reshape(index.shape), dout[places], 0)
        elif Reduce in ("add", "mean"):
            share = dout / np.maximum(counts, 1) if Reduce == "mean" else dout
            dvalue[used] = share[places]
            if keep_self and Reduce == "mean":
                dx = np.where(touched, share, dout).astype(dout.dtype)
        elif Reduce in ("mul", "multiply"):
            dvalue[used] = (dout * out)[places] / v
            if keep_self:
                product = np.ones_like(x)
                np.multiply.at(product, places, v)
                dx = dout * product
        else:
            # amin / amax: the gradient shared evenly by the values equal to the result, X's
            # own counted among them even when left out (3.3.1, measured: then its share
            # goes nowhere)
            ties = np.zeros(x.shape, np.int64)
            np.add.at(ties, places, (v == out[places]).astype(np.int64))
            ties += touched & (x == out)
            if keep_self:
                dx = np.where(touched, np.where(x == out, dout / np.maximum(ties, 1), 0),
                              dout).astype(dout.dtype)
            share = dout / np.maximum(ties, 1)
            dvalue[used] = np.where(v == out[places], share[places], 0)
        return dx, dvalue

    def samples(self, rng):
        index = np.array([[1, 1], [0, 2]], "int64")
        for reduce in ("assign", "add", "mul", "mean", "amin", "amax"):
            for include_self in (True, False):
                yield Sample({"Input": rand(rng, 2, 3), "Index": index,
                              "Value": rand(rng, 2, 2)},
                             {"Axis": 1, "Reduce": reduce, "Include_self": include_self},
                             name="%s include_self=%s" % (reduce, include_self))
        yield Sample({"Input": rand(rng, 3, 2), "Index": np.array([[2, -1]], "int32"),
                      "Value": rand(rng, 1, 2)}, {"Axis": 0, "Reduce": "add"})
