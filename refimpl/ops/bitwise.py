"""Bitwise ops (Paddle 2.2 on, checked on 3.3.1): bitwise_and / or / xor of two tensors of
one integer or bool dtype, broadcast like numpy, and bitwise_not; the result has the
inputs' dtype (on bool: the logical op). No gradients."""
import numpy as np

from ._common import broadcast_shape
from .registry import OpDef, Sample, register

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _operands(rng):
    return rng.randint(-100, 100, (3, 4)).astype("int32")


class _Bitwise(OpDef):
    inputs = ("X", "Y")
    outputs = ("Out",)

    def infer_shape(self, ctx):
        for slot in ("X", "Y"):
            ctx.check_dtype(slot, DTYPES)
        x, y = ctx.input_dtype("X"), ctx.input_dtype("Y")
        ctx.expect(x == y, "X and Y must have one dtype, got %s and %s"
                   % (getattr(x, "name", x), getattr(y, "name", y)))
        ctx.set_output("Out", broadcast_shape(ctx.input_shape("X"), ctx.input_shape("Y"), ctx),
                       x)

    def forward(self, x, y):
        return self.fn(x, y)

    def samples(self, rng):
        yield Sample({"X": _operands(rng), "Y": _operands(rng)})
        yield Sample({"X": rng.randint(0, 256, (2, 3, 4)).astype("uint8"),
                      "Y": rng.randint(0, 256, (4,)).astype("uint8")})
        yield Sample({"X": rng.rand(3, 4) > 0.5, "Y": rng.rand(3, 4) > 0.5})


for _name, _fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                   ("bitwise_xor", np.bitwise_xor)]:
    register(type(_name.title().replace("_", ""), (_Bitwise,),
                  {"type": _name, "fn": staticmethod(_fn)}))


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
