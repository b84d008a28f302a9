"""reduce_{sum,mean,max,min,prod,all,any}, Paddle 3's reduce_{amax,amin} and reduce_as,
and logsumexp: reduce X over `dim` (or every dim
with reduce_all, or when `dim` is empty). `out_dtype` (a dtype code, -1: X's) is the dtype
the reduction computes and returns in."""
import numpy as np

from ..framework.dtypes import convert_dtype, is_integer_value
from ..xp import array_module
from ._common import rand
from .registry import OpDef, Sample, register


def _axes(ndim, dim, reduce_all):
    if reduce_all or not dim or ndim == 0:     # a 0-D X: dim 0 / -1 is every dim
        return tuple(range(ndim))
    return tuple(sorted(d % ndim for d in dim))


def _out_shape(shape, axes, keep_dim):
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    # a full reduction is 0-D here; its shape follows scalar_shape() (registry.py)
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _computed_dtype(x_dtype, out_dtype):
    return x_dtype if out_dtype is None or out_dtype < 0 else convert_dtype(out_dtype)


def _infer(ctx, dim, keep_dim, reduce_all, dtype=None):
    x = ctx.input_var("X")
    if x.shape is None:     # a shapeless create_tensor (1.8's mse_loss of one): known when run
        ctx.set_output("Out", None, dtype or x.dtype)
        return
    nd = len(x.shape)
    for d in dim or ():
        ctx.expect(is_integer_value(d),
                   "dim must hold ints, got %r in %r" % (d, dim))
        if nd == 0:     # Paddle 3's 0-D tensors (3.3.1's rule and words)
            ctx.expect(d in (0, -1), "When input 0D Tensor, the axis can only be -1, 0, "
                       "None or [], got dim %d for X %r" % (d, x.name))
            continue
        ctx.expect(-nd <= d < nd, "dim %d is out of range for X %r of rank %d"
                   % (d, x.name, nd))
    axes = _axes(nd, dim, reduce_all)
    ctx.set_output("Out", _out_shape(x.shape, axes, keep_dim), dtype or x.dtype)


def _kept(x, axes):
    """x.shape with the reduced dims kept as 1 (Out and Out@GRAD broadcast back from it)."""
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape))


class _Reduce(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"dim": [0], "keep_dim": False, "reduce_all": False, "in_dtype": -1,
             "out_dtype": -1}

    def infer_shape(self, ctx):
        _infer(ctx, ctx.attr("dim"), ctx.attr("keep_dim"), ctx.attr("reduce_all"),
               _computed_dtype(ctx.input_dtype("X"), ctx.attr("out_dtype")))

    def forward(self, x, dim=(0,), keep_dim=False, reduce_all=False, in_dtype=-1,
                out_dtype=-1):
        axes = _axes(x.ndim, dim, reduce_all)
        x = x.astype(_computed_dtype(x.dtype, out_dtype), copy=False)
        out = self.reduce(x, axis=axes, keepdims=keep_dim)
        return array_module(x).asarray(out, dtype=x.dtype).reshape(
            _out_shape(x.shape, axes, keep_dim))

    def samples(self, rng):
        yield Sample({"X": self.sample(rng, 3, 4, 5)}, {"dim": [1]})
        yield Sample({"X": self.sample(rng, 3, 4)}, {"dim": [0, -1], "keep_dim": True})
        yield Sample({"X": self.sample(rng, 2, 3)}, {"reduce_all": True})
        yield Sample({"X": self.sample(rng, 2, 3, 2)}, {"dim": []}, name="empty_dim_is_all")

    def sample(self, rng, *shape):
        return rand(rng, *shape)


class _DifferentiableReduce(_Reduce):
    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float16", "float32", "float64", "int32", "int64", "complex64",
                              "complex128"))
        super().infer_shape(ctx)

    def backward(self, x, out, dout, dim=(0,), keep_dim=False, reduce_all=False, in_dtype=-1,
                 out_dtype=-1):
        axes = _axes(x.ndim, dim, reduce_all)
        kept = _kept(x, axes)
        computed = x.astype(_computed_dtype(x.dtype, out_dtype), copy=False)
        grad = self.grad(computed, out.reshape(kept), dout.reshape(kept), axes)
        return grad.astype(x.dtype)


@register
class ReduceSum(_DifferentiableReduce):
    type = "reduce_sum"
    reduce = staticmethod(np.sum)

    @staticmethod
    def grad(x, out, dout, axes):
        return np.broadcast_to(dout, x.shape).copy()


@register
class ReduceMean(_DifferentiableReduce):
    type = "reduce_mean"
    reduce = staticmethod(np.mean)

    @staticmethod
    def grad(x, out, dout, axes):
        n = int(np.prod([x.shape[a] for a in axes]))
        return np.broadcast_to(dout / n, x.shape).copy()


class _ReduceSelect(_DifferentiableReduce):
    """max/min: the gradient goes to every element equal to the result (as Paddle)."""

    def sample(self, rng, *shape):
        # distinct values: finite differences are valid away from ties
        return rng.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) / 7

    @staticmethod
    def grad(x, out, dout, axes):
        return dout * (x == out)


@register
class ReduceMax(_ReduceSelect):
    type = "reduce_max"
    reduce = staticmethod(np.max)


@register
class ReduceMin(_ReduceSelect):
    type = "reduce_min"
    reduce = staticmethod(np.min)


@register
class ReduceProd(_DifferentiableReduce):
    type = "reduce_prod"
    reduce = staticmethod(np.prod)

    def sample(self, rng, *shape):
        return rng.uniform(0.5, 1.5, shape)

    @staticmethod
    def grad(x, out, dout, axes):
        return dout * out / x  # Paddle's formula: inputs must be non-zero


class _ReduceBool(_Reduce):
    """reduce_all / reduce_any: bool in, bool out, no gradient."""

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("bool",))
        super().infer_shape(ctx)

    def sample(self, rng, *shape):
        return rng.rand(*shape) > 0.3


@register
class ReduceAll(_ReduceBool):
    type = "reduce_all"
    reduce = staticmethod(np.all)


@register
class ReduceAny(_ReduceBool):
    type = "reduce_any"
    reduce = staticmethod(np.any)


@register
class Logsumexp(OpDef):
    """log(sum(exp(X))) over `axis`, computed after subtracting the max (Paddle 2.0 attrs)."""
    type = "logsumexp"
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"axis": [0], "keepdim": False, "reduce_all": False}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float16", "float32", "float64"))
        _infer(ctx, ctx.attr("axis"), ctx.attr("keepdim"), ctx.attr("reduce_all"))

    @staticmethod
    def forward(x, axis=(0,), keepdim=False, reduce_all=False):
        axes = _axes(x.ndim, axis, reduce_all)
        m = x.max(axis=axes, keepdims=True)
        out = np.log(np.exp(x - m).sum(axis=axes, keepdims=True)) + m
        return out.astype(x.dtype).reshape(_out_shape(x.shape, axes, keepdim))

    @staticmethod
    def backward(x, out, dout, axis=(0,), keepdim=False, reduce_all=False):
        kept = _kept(x, _axes(x.ndim, axis, reduce_all))
        return (dout.reshape(kept) * np.exp(x - out.reshape(kept))).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, 5)}, {"axis": [1]})
        yield Sample({"X": rand(rng, 3, 4) * 5}, {"axis": [0, -1], "keepdim": True})
        yield Sample({"X": rand(rng, 2, 3)}, {"reduce_all": True})


class _ReduceExtreme(_ReduceSelect):
    """reduce_amax / reduce_amin (Paddle 3's amax / amin): max / min whose gradient is shared
    evenly among the elements equal to the result (3.3.1). reduce_all reduces every dim,
    as for the other reduce ops (3.3.1's kernels take none: specs/conformance.md)."""

    @staticmethod
    def grad(x, out, dout, axes):
        ties = x == out
        return dout * ties / ties.sum(axis=axes, keepdims=True)

    def samples(self, rng):
        yield from super().samples(rng)
        yield Sample({"X": np.array([[1., 3., 3., 0.], [2., -1., 5., 5.]])}, {"dim": [1]},
                     grad=False, name="ties")


@register
class ReduceAmax(_ReduceExtreme):
    type = "reduce_amax"
    reduce = staticmethod(np.max)


@register
class ReduceAmin(_ReduceExtreme):
    type = "reduce_amin"
    reduce = staticmethod(np.min)


@register
class ReduceAs(OpDef):
    """x summed to target's shape (Paddle 3's reduce_as): over x's leading dims beyond
    target's rank and where target has 1; bool and int32 sum to int64 (3.3.1)."""
    type = "reduce_as"
    inputs = ("x", "target")
    outputs = ("out",)
    no_grad = ("target",)
    grad_inputs = ("x", "out@GRAD")

    def infer_shape(self, ctx):
        x, target = ctx.input_var("x"), ctx.input_var("target")
        lead = len(x.shape) - len(target.shape)
        ctx.expect(lead >= 0 and all(t in (1, d) or -1 in (t, d) for t, d in
                                     zip(target.shape, x.shape[lead:])),
                   "x %r %s cannot be summed to the shape %s of target %r"
                   % (x.name, list(x.shape), list(target.shape), target.name))
        ctx.set_output("out", target.shape, _summed_dtype(x.dtype))

    @staticmethod
    def forward(x, target):
        lead = x.ndim - target.ndim
        axes = tuple(range(lead)) + tuple(lead + i for i, t in enumerate(target.shape)
                                          if t == 1 and x.shape[lead + i] != 1)
        return np.asarray(x.sum(axis=axes, dtype=_summed_dtype(x.dtype))).reshape(
            target.shape)

    @staticmethod
    def backward(x, dout):
        return np.broadcast_to(dout, x.shape).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"x": rand(rng, 2, 3, 4), "target": rand(rng, 3, 1)})
        yield Sample({"x": rand(rng, 2, 3, 4), "target": rand(rng, 2, 1, 4)})


def _summed_dtype(dtype):
    name = getattr(dtype, "name", str(dtype))
    return "int64" if name in ("bool", "int32") else name
