"""reduce_{sum,mean,max,min,prod}: reduce X over `dim` (or everything with reduce_all)."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _axes(ndim, dim, reduce_all):
    if reduce_all or not dim:
        return tuple(range(ndim))
    return tuple(sorted(d % ndim for d in dim))


def _out_shape(shape, axes, keep_dim):
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    # A full reduction is 0-D, as in Paddle >= 2.5 (1.8/2.0 gave [1]; see specs/ops/reduce.md).
    return tuple(d for i, d in enumerate(shape) if i not in axes)


class _Reduce(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"dim": [0], "keep_dim": False, "reduce_all": False}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        nd = len(x.shape)
        for d in ctx.attr("dim") or ():
            ctx.expect(-nd <= d < nd, "dim %d is out of range for X %r of rank %d"
                       % (d, x.name, nd))
        axes = _axes(nd, ctx.attr("dim"), ctx.attr("reduce_all"))
        ctx.set_output("Out", _out_shape(x.shape, axes, ctx.attr("keep_dim")), x.dtype)

    def forward(self, x, dim=(0,), keep_dim=False, reduce_all=False):
        axes = _axes(x.ndim, dim, reduce_all)
        out = self.reduce(x, axis=axes, keepdims=keep_dim)
        return np.asarray(out, dtype=x.dtype).reshape(_out_shape(x.shape, axes, keep_dim))

    def backward(self, x, out, dout, dim=(0,), keep_dim=False, reduce_all=False):
        axes = _axes(x.ndim, dim, reduce_all)
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        return self.grad(x, out.reshape(kept), dout.reshape(kept), axes).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": self.sample(rng, 3, 4, 5)}, {"dim": [1]})
        yield Sample({"X": self.sample(rng, 3, 4)}, {"dim": [0, -1], "keep_dim": True})
        yield Sample({"X": self.sample(rng, 2, 3)}, {"reduce_all": True})

    def sample(self, rng, *shape):
        return rand(rng, *shape)


@register
class ReduceSum(_Reduce):
    type = "reduce_sum"
    reduce = staticmethod(np.sum)

    @staticmethod
    def grad(x, out, dout, axes):
        return np.broadcast_to(dout, x.shape).copy()


@register
class ReduceMean(_Reduce):
    type = "reduce_mean"
    reduce = staticmethod(np.mean)

    @staticmethod
    def grad(x, out, dout, axes):
        n = int(np.prod([x.shape[a] for a in axes]))
        return np.broadcast_to(dout / n, x.shape).copy()


class _ReduceSelect(_Reduce):
    """max/min: the gradient goes to every element equal to the result."""

    def sample(self, rng, *shape):
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
class ReduceProd(_Reduce):
    type = "reduce_prod"
    reduce = staticmethod(np.prod)

    def sample(self, rng, *shape):
        return rng.uniform(0.5, 1.5, shape)

    @staticmethod
    def grad(x, out, dout, axes):
        return dout * out / x
