"""Complex parts: conj (complex -> complex), real and imag (complex -> real).

Gradients follow Paddle's convention for a real loss L: dL/dx = dL/dRe x + i dL/dIm x, so
real's gradient is dOut + 0i, imag's is 0 + i dOut, conj's is conj(dOut)."""
import numpy as np

from ..framework.dtypes import COMPLEX_OF, REAL_OF
from ._common import COMPLEX, rand
from .registry import OpDef, Sample, register


def _complex_sample(rng, *shape):
    return rand(rng, *shape) + 1j * rand(rng, *shape)


def _as_complex(dout):
    """A real part's gradient dOut as the complex dtype of its precision."""
    return dout.astype(np.result_type(dout.dtype, np.complex64))


class _ComplexPart(OpDef):
    """Out has X's shape and, with `real_out`, X's real dtype (complex64 -> float32)."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)
    real_out = True

    def infer_shape(self, ctx):
        ctx.check_dtype("X", COMPLEX)
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, REAL_OF[x.dtype.name] if self.real_out
                       else x.dtype.name)

    def samples(self, rng):
        # complex inputs: the generic finite-difference check perturbs real inputs only,
        # tests/test_complex.py checks these gradients against Paddle's
        yield Sample({"X": _complex_sample(rng, 3, 4)}, grad=False)


@register
class Conj(_ComplexPart):
    type = "conj"
    real_out = False

    @staticmethod
    def forward(x):
        return np.conj(x)

    @staticmethod
    def backward(dout):
        return np.conj(dout)


@register
class Real(_ComplexPart):
    type = "real"

    @staticmethod
    def forward(x):
        return np.ascontiguousarray(x.real)

    @staticmethod
    def backward(dout):
        return _as_complex(dout)


@register
class Imag(_ComplexPart):
    type = "imag"

    @staticmethod
    def forward(x):
        return np.ascontiguousarray(x.imag)

    @staticmethod
    def backward(dout):
        return 1j * _as_complex(dout)


@register
class AsComplex(_ComplexPart):
    """Out[...] = X[..., 0] + i X[..., 1]: a float tensor whose last dim is 2 as the
    complex tensor of its precision."""
    type = "as_complex"

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) >= 1 and x.shape[-1] in (2, -1),
                   "X %r must have a last dim of 2, got shape %s" % (x.name, list(x.shape)))
        ctx.set_output("Out", x.shape[:-1], COMPLEX_OF[x.dtype.name])

    @staticmethod
    def forward(x):
        return x[..., 0] + 1j * x[..., 1]

    @staticmethod
    def backward(dout):
        return np.stack([dout.real, dout.imag], axis=-1)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2)}, grad=False)   # a complex Out: tests/test_linalg.py


@register
class AsReal(_ComplexPart):
    """Out[..., 0] = Re X, Out[..., 1] = Im X."""
    type = "as_real"

    def infer_shape(self, ctx):
        ctx.check_dtype("X", COMPLEX)
        x = ctx.input_var("X")
        ctx.set_output("Out", list(x.shape) + [2], REAL_OF[x.dtype.name])

    @staticmethod
    def forward(x):
        return np.stack([x.real, x.imag], axis=-1)

    @staticmethod
    def backward(dout):
        return dout[..., 0] + 1j * dout[..., 1]


@register
class Angle(OpDef):
    """Out = the argument of X in (-pi, pi] (a real X: 0, or pi where negative), in X's
    real dtype; its gradient dOut i X / |X|^2 (0 where X is 0, and for a real X)."""
    type = "angle"
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, REAL_OF.get(x.dtype.name, x.dtype.name))

    @staticmethod
    def forward(x):
        return np.angle(x).astype(x.real.dtype)

    @staticmethod
    def backward(x, dout):
        if x.dtype.kind != "c":
            return np.zeros_like(x)
        magnitude = np.abs(x) ** 2
        return np.where(magnitude == 0, 0, dout * 1j * x / np.where(magnitude == 0, 1, magnitude))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)})
        yield Sample({"X": _complex_sample(rng, 3)}, grad=False)
