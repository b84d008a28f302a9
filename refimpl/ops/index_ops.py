"""Index-driven ops of the Paddle 2.0 API: index_select, index_sample, gather_nd,
scatter_nd_add, masked_select, strided_slice, multiplex, shard_index. The gradient of a
gather is a scatter-add of dOut to where each element was read (repeats add up)."""
import numpy as np

from ._common import (rand, region_index, runtime_ints, shapes_agree, take_along,
                      take_along_grad)
from .registry import OpDef, Sample, register, scalar_shape, share_lod

INTS = ("int32", "int64")


def _check_int(ctx, slot):
    ctx.check_dtype(slot, INTS)


@register
class IndexSelect(OpDef):
    """Out = X's slices `Index` along `dim`."""
    type = "index_select"
    inputs = ("X", "Index")
    outputs = ("Out",)
    attrs = {"dim": 0}
    no_grad = ("Index",)
    grad_inputs = ("X", "Index", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx = ctx.input_var("X"), ctx.input_var("Index")
        _check_int(ctx, "Index")
        dim = ctx.attr("dim")
        ctx.expect(-len(x.shape) <= dim < len(x.shape), "dim %d is out of range for X %r of "
                   "rank %d" % (dim, x.name, len(x.shape)))
        ctx.expect(len(idx.shape) == 1 or (len(idx.shape) == 2 and idx.shape[1] == 1),
                   "Index %r must be 1-D, got shape %s" % (idx.name, list(idx.shape)))
        shape = list(x.shape)
        shape[dim] = idx.shape[0]
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, index, dim=0):
        return take_along(x, index, dim)

    @staticmethod
    def backward(x, index, dout, dim=0):
        return take_along_grad(x, index, dout, dim)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Index": np.array([3, 0, 3], "int64")}, {"dim": 1})
        yield Sample({"X": rand(rng, 3, 2), "Index": np.array([2, 1], "int32")}, {"dim": -2})


@register
class IndexSample(OpDef):
    """Out[i, j] = X[i, Index[i, j]] (per-row gather of a 2-D X)."""
    type = "index_sample"
    inputs = ("X", "Index")
    outputs = ("Out",)
    no_grad = ("Index",)
    grad_inputs = ("X", "Index", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx = ctx.input_var("X"), ctx.input_var("Index")
        _check_int(ctx, "Index")
        ctx.expect(len(x.shape) == 2 and len(idx.shape) == 2,
                   "X %r and Index %r must be 2-D, got shapes %s and %s"
                   % (x.name, idx.name, list(x.shape), list(idx.shape)))
        ctx.expect(x.shape[0] < 0 or idx.shape[0] < 0 or x.shape[0] == idx.shape[0],
                   "X %r has %d rows but Index %r has %d" % (x.name, x.shape[0], idx.name,
                                                            idx.shape[0]))
        ctx.set_output("Out", idx.shape, x.dtype)

    @staticmethod
    def forward(x, index):
        return np.take_along_axis(x, index.astype(np.int64), axis=1)

    @staticmethod
    def backward(x, index, dout):
        dx = np.zeros_like(x)
        rows = np.arange(x.shape[0])[:, None].repeat(index.shape[1], axis=1)
        np.add.at(dx, (rows, index), dout)
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 5), "Index": rng.randint(0, 5, (3, 4)).astype("int64")})


def _nd_index(index):
    """index[..., k] as a tuple of k coordinate arrays (numpy advanced indexing)."""
    return tuple(np.moveaxis(index.astype(np.int64), -1, 0))


def _gathered(x, index):
    """x[index[i..., :]] for every i...: [index.shape[:-1]] + x.shape[k:]. An index whose
    last dim is 0 picks all of x for each i (numpy's x[()] would not repeat it)."""
    k = index.shape[-1]
    picked = x[_nd_index(index)]
    return np.ascontiguousarray(np.broadcast_to(picked, index.shape[:-1] + x.shape[k:]))


def _scatter_add(out, index, updates):
    """Add updates[i...] at out[index[i..., :]] in place (repeats accumulate)."""
    if index.shape[-1] == 0:      # each update covers all of out
        out += updates.reshape((-1,) + out.shape).sum(axis=0).astype(out.dtype)
    else:
        np.add.at(out, _nd_index(index), updates)


def _check_nd_index(ctx, x, idx):
    _check_int(ctx, "Index")
    k = idx.shape[-1] if idx.shape else -1
    # the first words are Paddle's message, which its tests look for
    ctx.expect(k <= len(x.shape), "Input(Index).shape[-1] should be no greater than "
               "Input(X).rank: Index %r's last dim is %d, the rank of X %r is %d"
               % (idx.name, k, x.name, len(x.shape)))
    return list(idx.shape[:-1]) + list(x.shape[k:])


@register
class GatherNd(OpDef):
    """Out[i...] = X[Index[i..., :]]: the last dim of Index addresses X's leading dims."""
    type = "gather_nd"
    inputs = ("X", "Index")
    outputs = ("Out",)
    no_grad = ("Index",)
    grad_inputs = ("X", "Index", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx = ctx.input_var("X"), ctx.input_var("Index")
        ctx.set_output("Out", _check_nd_index(ctx, x, idx), x.dtype)

    @staticmethod
    def forward(x, index):
        return _gathered(x, index)

    @staticmethod
    def backward(x, index, dout):
        dx = np.zeros_like(x)
        # Out's shape: a one-element Out may come back as [1] where it was [] (Paddle 2.0's
        # one-element results are [1]; its test_gather_nd_op's TestGatherNdOpIndex1)
        _scatter_add(dx, index, dout.reshape(index.shape[:-1] + x.shape[index.shape[-1]:]))
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, 2),
                      "Index": np.array([[0, 1], [2, 3], [0, 1]], "int64")})
        yield Sample({"X": rand(rng, 3, 4), "Index": np.array([[[2]], [[0]]], "int32")})


@register
class ScatterNdAdd(OpDef):
    """Out = X, then Updates[i...] added at X[Index[i..., :]] (repeats accumulate)."""
    type = "scatter_nd_add"
    inputs = ("X", "Index", "Updates")
    outputs = ("Out",)
    no_grad = ("Index",)
    grad_inputs = ("Index", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx, up = (ctx.input_var(s) for s in ("X", "Index", "Updates"))
        want = _check_nd_index(ctx, x, idx)
        ctx.expect(shapes_agree(up.shape, want), "Updates has wrong shape: Updates %r has shape "
                   "%s; expected Index.shape[:-1] + X.shape[Index.shape[-1]:] = %s"
                   % (up.name, list(up.shape), want))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, index, updates):
        out = x.copy()
        _scatter_add(out, index, updates)
        return out

    @staticmethod
    def backward(index, dout):
        return dout.copy(), _gathered(dout, index)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Index": np.array([[1, 2], [1, 2], [0, 0]],
                                                              "int64"),
                      "Updates": rand(rng, 3)})
        yield Sample({"X": rand(rng, 3, 2), "Index": np.array([[2], [0]], "int32"),
                      "Updates": rand(rng, 2, 2)})


@register
class MaskedSelect(OpDef):
    """Y = the elements of X where Mask is true, as a 1-D tensor (row-major order)."""
    type = "masked_select"
    inputs = ("X", "Mask")
    outputs = ("Y",)
    no_grad = ("Mask",)
    grad_inputs = ("X", "Mask", "Y@GRAD")

    def infer_shape(self, ctx):
        x, mask = ctx.input_var("X"), ctx.input_var("Mask")
        ctx.check_dtype("Mask", ("bool",))
        ctx.expect(shapes_agree(mask.shape, x.shape), "Mask %r shape %s must equal X %r shape %s"
                   % (mask.name, list(mask.shape), x.name, list(x.shape)))
        ctx.set_output("Y", [-1], x.dtype)

    @staticmethod
    def forward(x, mask):
        return x[mask.astype(bool)]

    @staticmethod
    def backward(x, mask, dy):
        dx = np.zeros_like(x)
        dx[mask.astype(bool)] = dy
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Mask": rng.rand(3, 4) > 0.4})


@register
class StridedSlice(OpDef):
    """Input[starts:ends:strides] on `axes` (negative strides walk backwards);
    `decrease_axis` drops those (size-1) dims. starts / ends / strides come from their
    XTensorList (1-element int tensors) or XTensor (1-D int tensor) inputs when given (an
    attr may then be empty), else the attrs; the sliced dims are then known at run time."""
    type = "strided_slice"
    _RUNTIME = ("StartsTensor", "EndsTensor", "StridesTensor", "StartsTensorList",
                "EndsTensorList", "StridesTensorList")
    inputs = ("Input", "StartsTensor?", "EndsTensor?", "StridesTensor?", "StartsTensorList*?",
              "EndsTensorList*?", "StridesTensorList*?")
    outputs = ("Out",)
    attrs = {"axes": [], "starts": [], "ends": [], "strides": [], "infer_flags": [],
             "decrease_axis": []}
    no_grad = _RUNTIME
    grad_inputs = inputs + ("Out@GRAD",)
    # the gradient reads Input's shape and dtype only (Paddle's no-need-buffer Input): an
    # in-place change of x after x[...] does not stop its backward (3.3.1, test_inplace)
    grad_shape_only = ("Input",)

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        axes = ctx.attr("axes")
        shape = list(x.shape)
        given = {k: ctx.attr(k) for k in ("starts", "ends", "strides")}
        for k, values in given.items():
            at_run_time = ctx.has_input(k.title() + "Tensor") or \
                ctx.has_input(k.title() + "TensorList")
            ctx.expect(at_run_time or len(values) == len(axes),
                       "axes %s and %s %s must have the same length (or %s given as "
                       "tensors)" % (list(axes), k, list(values), k))
        ctx.expect(0 not in given["strides"], "strides %s must not contain 0"
                   % list(given["strides"]))
        known = not any(ctx.has_input(s) for s in self._RUNTIME)
        for i, a in enumerate(axes):
            ctx.expect(-len(shape) <= a < len(shape), "axis %d is out of range for Input %r "
                       "of rank %d" % (a, x.name, len(shape)))
            if not known:
                shape[a] = -1
            elif shape[a] >= 0:
                shape[a] = len(range(*slice(given["starts"][i], given["ends"][i],
                                            given["strides"][i]).indices(shape[a])))
        dec = ctx.attr("decrease_axis")
        ctx.set_output("Out", [d for i, d in enumerate(shape) if i not in dec]
                       or list(scalar_shape()), x.dtype)

    @staticmethod
    def _region(x, tensors, axes, starts, ends, strides):
        st, et, sst, sl, el, ssl = tensors
        return region_index(x.ndim, axes, runtime_ints(st, sl, starts),
                            runtime_ints(et, el, ends), runtime_ints(sst, ssl, strides))

    @staticmethod
    def forward(x, st=None, et=None, sst=None, sl=None, el=None, ssl=None, axes=(),
                starts=(), ends=(), strides=(), infer_flags=(), decrease_axis=()):
        out = x[StridedSlice._region(x, (st, et, sst, sl, el, ssl), axes, starts, ends,
                                     strides)]
        if decrease_axis:
            out = out.reshape([d for i, d in enumerate(out.shape)
                               if i not in decrease_axis] or scalar_shape())
        return np.require(out, requirements="C")

    @staticmethod
    def backward(x, st, et, sst, sl, el, ssl, dout, axes=(), starts=(), ends=(), strides=(),
                 infer_flags=(), decrease_axis=()):
        dx = np.zeros_like(x)
        region = StridedSlice._region(x, (st, et, sst, sl, el, ssl), axes, starts, ends,
                                      strides)
        dx[region] = dout.reshape(dx[region].shape)
        return dx

    def samples(self, rng):
        # infer_flags: one per axis, as Paddle's layer sets them (its kernel reads one per
        # axis; empty ones crashed Paddle 3.3.1)
        yield Sample({"Input": rand(rng, 5, 6)}, {"axes": [0, 1], "starts": [1, -1],
                                                  "ends": [5, 0], "strides": [2, -2],
                                                  "infer_flags": [1, 1]})
        yield Sample({"Input": rand(rng, 3, 4)}, {"axes": [0], "starts": [1], "ends": [2],
                                                  "strides": [1], "decrease_axis": [0],
                                                  "infer_flags": [1]})


@register
class Multiplex(OpDef):
    """Out[i] = X[Ids[i]][i]: row i comes from the input that Ids[i] names."""
    type = "multiplex"
    inputs = ("X*", "Ids")
    outputs = ("Out",)
    no_grad = ("Ids",)
    grad_inputs = ("X*", "Ids", "Out@GRAD")

    def infer_shape(self, ctx):
        xs, ids = ctx.input_vars("X"), ctx.input_var("Ids")
        _check_int(ctx, "Ids")
        for v in xs[1:]:
            ctx.expect(tuple(v.shape) == tuple(xs[0].shape), "all inputs must have the shape "
                       "of %r %s, got %r %s" % (xs[0].name, list(xs[0].shape), v.name,
                                                list(v.shape)))
        ctx.expect(len(ids.shape) == 2 and ids.shape[1] == 1,
                   "Ids %r must have shape [N, 1], got %s" % (ids.name, list(ids.shape)))
        ctx.set_output("Out", xs[0].shape, xs[0].dtype)

    @staticmethod
    def forward(xs, ids):
        ids = ids.reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(xs)):
            raise ValueError("multiplex: Ids must be in [0, %d), got %s" % (len(xs), ids))
        return np.stack(xs)[ids, np.arange(len(ids))]

    @staticmethod
    def backward(xs, ids, dout):
        ids = ids.reshape(-1)
        return [dout * (ids == k).reshape((-1,) + (1,) * (dout.ndim - 1))
                for k in range(len(xs))]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 4, 3), rand(rng, 4, 3), rand(rng, 4, 3)],
                      "Ids": np.array([[2], [0], [1], [2]], "int32")})


@register
class ShardIndex(OpDef):
    """Ids of shard `shard_id` (of `nshards` equal ranges of [0, index_num)) become
    shard-local (id - shard_id * shard_size); other ids become `ignore_value`."""
    type = "shard_index"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"index_num": 0, "nshards": 1, "shard_id": 0, "ignore_value": -1}
    lod_outputs = {"Out": share_lod("X")}     # one id per row: the sequences stay

    def infer_shape(self, ctx):
        _check_int(ctx, "X")
        n, shard = ctx.attr("nshards"), ctx.attr("shard_id")
        ctx.expect(n > 0 and 0 <= shard < n, "shard_id %d must be in [0, nshards=%d)"
                   % (shard, n))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, index_num=0, nshards=1, shard_id=0, ignore_value=-1):
        shard_size = (index_num + nshards - 1) // nshards
        mine = x // shard_size == shard_id
        return np.where(mine, x - shard_id * shard_size, ignore_value).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rng.randint(0, 20, (6, 1)).astype("int64")},
                     {"index_num": 20, "nshards": 3, "shard_id": 1})
