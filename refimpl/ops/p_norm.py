"""Norms along an axis: p_norm ((sum |x|^p)^(1/p), also p = inf / -inf / 0) and norm
(fluid's l2_normalize op: X / sqrt(sum x^2 + epsilon), with the norm as a second output)."""
import numpy as np

from ._common import FLOATS, float32_root, rand
from .registry import OpDef, Sample, register


def _axis_shape(ctx, x, axis, keepdim):
    ndim = len(x.shape)
    ctx.expect(-ndim <= axis < ndim, "axis %d is out of range for X %r %s"
               % (axis, x.name, list(x.shape)))
    axis %= ndim
    if keepdim:
        return tuple(1 if i == axis else d for i, d in enumerate(x.shape))
    return tuple(d for i, d in enumerate(x.shape) if i != axis)


@register
class PNorm(OpDef):
    """asvector: the norm of all elements (axis ignored). As Paddle's kernels (1.8.5,
    3.3.1 measured): the root 1 / p taken in float32 (`float32_root`), and epsilon added
    to norm^(p-1) where the gradient divides by it (a zero vector gets a zero gradient)."""
    type = "p_norm"
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"porder": 2.0, "axis": -1, "epsilon": 1e-12, "keepdim": False,
             "asvector": False}
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        if ctx.attr("asvector"):
            shape = (1,) * len(x.shape) if ctx.attr("keepdim") else ()
        else:
            shape = _axis_shape(ctx, x, ctx.attr("axis"), ctx.attr("keepdim"))
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def _norm(x, porder, axis, asvector):
        """The norm with the reduced axis kept (size 1), and that axis (None: all)."""
        axis = None if asvector else axis
        a = np.abs(x)
        if porder == np.inf:
            return a.max(axis=axis, keepdims=True), axis
        if porder == -np.inf:
            return a.min(axis=axis, keepdims=True), axis
        if porder == 0:
            return (a != 0).sum(axis=axis, keepdims=True).astype(x.dtype), axis
        return (a ** porder).sum(axis=axis, keepdims=True) ** float32_root(porder), axis

    @staticmethod
    def forward(x, porder=2.0, axis=-1, epsilon=1e-12, keepdim=False, asvector=False):
        norm, axis = PNorm._norm(x, porder, axis, asvector)
        if not keepdim:
            norm = norm.reshape(()) if axis is None else np.squeeze(norm, axis)
        return norm.astype(x.dtype)

    @staticmethod
    def backward(x, out, dout, porder=2.0, axis=-1, epsilon=1e-12, keepdim=False,
                 asvector=False):
        norm, _ = PNorm._norm(x, porder, axis, asvector)
        dout = dout.reshape(norm.shape)
        if porder == 0:
            return np.zeros_like(x)
        if np.isinf(porder):  # the gradient goes to the extreme element(s)
            return (np.sign(x) * (np.abs(x) == norm) * dout).astype(x.dtype)
        scale = np.abs(x) ** (porder - 1) / (norm ** (porder - 1) + x.dtype.type(epsilon))
        return (np.sign(x) * scale * dout).astype(x.dtype)

    def samples(self, rng):
        x = rand(rng, 3, 4, 2)
        small = np.abs(x) < 0.1   # away from |x|'s kink at 0, without making ties for inf
        x[small] = rng.uniform(0.2, 0.9, small.sum())
        yield Sample({"X": x}, {"porder": 2.0, "axis": 1}, name="l2")
        yield Sample({"X": x}, {"porder": 3.0, "axis": -1, "keepdim": True}, name="l3_keep")
        yield Sample({"X": x}, {"porder": 1.0, "asvector": True}, name="l1_all")
        yield Sample({"X": x}, {"porder": float("inf"), "axis": 0}, name="inf")


@register
class Norm(OpDef):
    type = "norm"
    inputs = ("X",)
    outputs = ("Out", "Norm")
    attrs = {"axis": 1, "epsilon": 1e-10, "is_test": False}
    grad_inputs = ("X", "Norm", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")
        ctx.set_output("Norm", _axis_shape(ctx, x, ctx.attr("axis"), True), x.dtype)

    @staticmethod
    def forward(x, axis=1, epsilon=1e-10, is_test=False):
        norm = np.sqrt((x * x).sum(axis=axis, keepdims=True) + epsilon)
        return (x / norm).astype(x.dtype), norm.astype(x.dtype)

    @staticmethod
    def backward(x, norm, dout, axis=1, epsilon=1e-10, is_test=False):
        y = x / norm
        return ((dout - y * (dout * y).sum(axis=axis, keepdims=True)) / norm).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"axis": 1})
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": -1, "epsilon": 1e-6})
