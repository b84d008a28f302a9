"""Bitwise ops (Paddle 2.2 on, checked on 3.3.1): bitwise_and / or / xor of two tensors of
one integer or bool dtype, broadcast like numpy, and bitwise_not; the result has the
inputs' dtype (on bool: the logical op). No gradients."""
import numpy as np

from .compare import NumpyBroadcast
from .registry import OpDef, Sample, register, register_variant

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _operands(rng):
    return rng.randint(-100, 100, (3, 4)).astype("int32")


class _Bitwise(NumpyBroadcast):
    def check_operands(self, ctx):
        for slot in ("X", "Y"):
            ctx.check_dtype(slot, DTYPES)
        x, y = ctx.input_dtype("X"), ctx.input_dtype("Y")
        ctx.expect(x == y, "X and Y must have one dtype, got %s and %s"
                   % (getattr(x, "name", x), getattr(y, "name", y)))

    def samples(self, rng):
        yield Sample({"X": _operands(rng), "Y": _operands(rng)})
        yield Sample({"X": rng.randint(0, 256, (2, 3, 4)).astype("uint8"),
                      "Y": rng.randint(0, 256, (4,)).astype("uint8")})
        yield Sample({"X": rng.rand(3, 4) > 0.5, "Y": rng.rand(3, 4) > 0.5})


for _type, _fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                   ("bitwise_xor", np.bitwise_xor)]:
    register_variant(_Bitwise, _type, fn=_fn)


@register
class BitwiseNot(OpDef):
    type = "bitwise_not"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.check_dtype("X", DTYPES)
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    @staticmethod
    def forward(x):
        return np.invert(x)

    def samples(self, rng):
        yield Sample({"X": _operands(rng)})
        yield Sample({"X": rng.rand(3, 4) > 0.5})
