"""Complex parts: conj (complex -> complex), real and imag (complex -> real).

Gradients follow Paddle's convention for a real loss L: dL/dx = dL/dRe x + i dL/dIm x, so
real's gradient is dOut + 0i, imag's is 0 + i dOut, conj's is conj(dOut)."""
import numpy as np

from ..framework.dtypes import REAL_OF
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
