"""Paddle 3's ops drawing from a distribution per element of their input (3.3.1's kernels,
forward only but for a zero gradient): exponential (Tensor.exponential_), poisson,
binomial, standard_gamma. exponential draws one uniform value of the global generator per
element (3.3.1's values after paddle.seed, bit for bit); the others draw from the global numpy
stream that paddle.seed resets (3.3.1's own streams are not reproduced): their tests are
statistical (tests/test_tensor_random_fill.py, Paddle 3's test_poisson_op)."""
import numpy as np

from ..framework.mt19937 import libm_log
from ..framework.random import rng_for, uniform
from ._common import FLOATS
from .registry import OpDef, register



class _DrawOp(OpDef):
    """Out has X's shape and dtype; the gradient of X is zero (3.3.1's grad kernels)."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")

    @staticmethod
    def backward(dout, **attrs):
        return np.zeros_like(dout)

    def samples(self, rng):
        return []      # random: checked statistically


@register
class Exponential(_DrawOp):
    """Out = -log(1 - u) / lambda in X's dtype, u one U(0, 1) draw per element and log the
    C library's (3.3.1's CPU kernel: 2000 draws bit for bit after paddle.seed, float32 and
    float64)."""
    type = "exponential"
    attrs = {"lambda": 1.0}

    @staticmethod
    def forward(x, **attrs):
        t = x.dtype.type
        u = uniform(0, 0.0, 1.0, x.shape, x.dtype)
        return (-libm_log(t(1) - u) / t(attrs["lambda"])).astype(x.dtype)


@register
class Poisson(_DrawOp):
    """Out ~ Poisson(X) elementwise, in X's dtype (a negative rate draws 0)."""
    type = "poisson"
    attrs = {}

    @staticmethod
    def forward(x):
        return rng_for(0).poisson(np.maximum(x, 0).astype(np.float64)).astype(x.dtype)


@register
class StandardGamma(OpDef):
    """Out ~ Gamma(X, 1) elementwise, in X's dtype; X must be positive."""
    type = "standard_gamma"
    inputs = ("x",)
    outputs = ("out",)
    attrs = {}

    def infer_shape(self, ctx):
        ctx.check_dtype("x", FLOATS)
        ctx.same_as("x", "out")

    @staticmethod
    def forward(x):
        if not (x > 0).all():
            raise ValueError("standard_gamma: the shapes x must be > 0")
        return rng_for(0).standard_gamma(x.astype(np.float64)).astype(x.dtype)

    def samples(self, rng):
        return []


@register
class Binomial(OpDef):
    """out ~ Binomial(count, prob) elementwise (int64), count and prob of one shape;
    prob must be in [0, 1] and count >= 0."""
    type = "binomial"
    inputs = ("count", "prob")
    outputs = ("out",)
    attrs = {}

    def infer_shape(self, ctx):
        ctx.check_dtype("prob", FLOATS)
        count, prob = ctx.input_var("count"), ctx.input_var("prob")
        ctx.expect(list(count.shape) == list(prob.shape), "count %r %s and prob %r %s must "
                   "have the same shape" % (count.name, list(count.shape), prob.name,
                                            list(prob.shape)))
        ctx.set_output("out", list(prob.shape), "int64")

    @staticmethod
    def forward(count, prob):
        if ((prob < 0) | (prob > 1)).any() or (count < 0).any():
            raise ValueError("binomial: prob must be in [0, 1] and count >= 0")
        return rng_for(0).binomial(count.astype(np.int64), prob.astype(np.float64)) \
            .astype(np.int64)

    def samples(self, rng):
        return []
