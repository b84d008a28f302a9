"""Complex parts: conj (complex -> complex), real and imag (complex -> real).

Gradients follow Paddle's convention for a real loss L: dL/dx = dL/dRe x + i dL/dIm x, so
real's gradient is dOut + 0i, imag's is 0 + i dOut, conj's is conj(dOut)."""
import numpy as np

from ..framework.dtypes import REAL_OF
from ._common import COMPLEX, rand
from .registry import OpDef, Sample, register


def _complex_sample(rng, *shape):
    return rand(rng, *shape) + 1j * rand(rng, *shape)


class _ComplexPart(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        ctx.check_dtype("X", COMPLEX)
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, self.out_dtype(x.dtype.name))

    def samples(self, rng):
        # complex inputs: the generic finite-difference check perturbs real inputs only,
        # tests/test_complex.py checks these gradients against Paddle's
        yield Sample({"X": _complex_sample(rng, 3, 4)}, grad=False)


@register
class Conj(_ComplexPart):
    type = "conj"

    @staticmethod
    def out_dtype(name):
        return name

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
    def out_dtype(name):
        return REAL_OF[name]

    @staticmethod
    def forward(x):
        return np.ascontiguousarray(x.real)

    @staticmethod
    def backward(dout):
        return dout.astype(np.result_type(dout.dtype, np.complex64))


@register
class Imag(_ComplexPart):
    type = "imag"

    @staticmethod
    def out_dtype(name):
        return REAL_OF[name]

    @staticmethod
    def forward(x):
        return np.ascontiguousarray(x.imag)

    @staticmethod
    def backward(dout):
        return 1j * dout.astype(np.result_type(dout.dtype, np.complex64))
