"""The tensor functions Paddle 1.8 added to fluid.layers ahead of 2.0 (dot, flip, roll,
index_select, full_like, ...), with their 1.8 signatures: the argument names 1.8 used
(input / dims / dim) and its `out`, `device` and `stop_gradient` arguments, over the 2.0
implementations. `out`: the result is also assigned to that Variable, which is returned.
"""
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from . import (creation, functional_nn, functional_vision, indexing, linalg, manipulation, math,
               sampling)


def _into(out, result):
    """`result`, or `out` holding it when an out Variable is given."""
    return result if out is None else creation.assign(result, out)


def _stopped(var, stop_gradient):
    var.stop_gradient = stop_gradient
    return var


def addmm(input, x, y, alpha=1.0, beta=1.0, name=None):
    return linalg.addmm(input, x, y, beta=beta, alpha=alpha, name=name)


def addcmul(input, tensor1, tensor2, value=1.0, out=None, name=None):
    """input + value * tensor1 * tensor2."""
    return _into(out, input + math.scale(tensor1 * tensor2, value))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return math.allclose(input, other, rtol, atol, equal_nan, name)


def arange(start, end, step=1, dtype=None, name=None):
    return creation.arange(start, end, step, dtype, name)


def clamp(input, min=None, max=None, output=None, name=None):
    return _into(output, math.clip(input, min, max, name))


def cross(input, other, dim=None):
    return linalg.cross(input, other, axis=dim)


def elementwise_equal(x, y, name=None):
    return math.EXPORTS["fluid.layers"]["equal"](x, y)


def flip(input, dims, name=None):
    return manipulation.flip(input, dims, name)


def full(shape, fill_value, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    return _into(out, _stopped(creation.full(shape, fill_value, dtype, name), stop_gradient))


def full_like(input, fill_value, out=None, dtype=None, device=None, stop_gradient=True,
              name=None):
    return _into(out, _stopped(creation.full_like(input, fill_value, dtype, name), stop_gradient))


def index_select(input, index, dim=0):
    return indexing.index_select(input, index, axis=dim)


def kron(x, y, out=None, name=None):
    return _into(out, linalg.kron(x, y, name))


def log1p(x, out=None, name=None):
    return _into(out, math._paddle_unary("log1p")(x, name))


def logsumexp(x, dim=None, keepdim=False, out=None, name=None):
    return _into(out, math.logsumexp(x, dim, keepdim, name))


def meshgrid(input, name=None):
    return manipulation.meshgrid(*input)


def randint(low, high=None, shape=None, out=None, dtype=None, device=None, stop_gradient=False,
            seed=0, name=None):
    ints = creation.seeded_randint(low, high, shape or [1], dtype, name, seed)
    return _into(out, _stopped(ints, stop_gradient))


def randn(shape, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    return _into(out, _stopped(creation.randn(shape, dtype, name), stop_gradient))


def randperm(n, out=None, dtype="int64", device=None, stop_gradient=True, seed=0):
    return _into(out, _stopped(sampling.randperm(n, dtype, seed=seed), stop_gradient))


def roll(input, shifts, dims=None):
    return manipulation.roll(input, shifts, axis=dims)


def scatter_nd_add(ref, index, updates, name=None):
    return indexing.scatter_nd_add(ref, index, updates, name)


def trace(input, offset=0, dim1=0, dim2=1, out=None, name=None):
    return _into(out, linalg.trace(input, offset, dim1, dim2, name))


def tril(input, diagonal=0, name=None):
    return manipulation.tril(input, diagonal, name)


def triu(input, diagonal=0, name=None):
    return manipulation.triu(input, diagonal, name)


def nonzero(input, as_tuple=False):
    """1.8.5's fluid.layers.nonzero names its tensor `input` (paddle.nonzero's is `x`)."""
    return indexing.nonzero(input, as_tuple)


EXPORTS = {"fluid.layers": {
    "bmm": math.bmm, "dot": math.dot, "dist": linalg.dist,
    "index_sample": indexing.index_sample, "nonzero": nonzero,
    "scatter_nd": indexing.scatter_nd, "t": manipulation.t,
    "addmm": addmm, "addcmul": addcmul, "allclose": allclose, "arange": arange,
    "clamp": clamp, "cross": cross, "elementwise_equal": elementwise_equal, "flip": flip,
    "full": full, "full_like": full_like, "index_select": index_select, "kron": kron,
    "log1p": log1p, "logsumexp": logsumexp, "meshgrid": meshgrid, "randint": randint,
    "randn": randn, "randperm": randperm, "roll": roll, "scatter_nd_add": scatter_nd_add,
    "trace": trace, "tril": tril, "triu": triu,
    "LayerHelper": LayerHelper, "Variable": Variable,
    "diag_embed": functional_vision.diag_embed, "gather_tree": functional_nn.gather_tree,
    "unfold": functional_vision.unfold,
}}
