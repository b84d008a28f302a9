"""paddle.finfo and paddle.iinfo (Paddle 3): the limits of a float or an integer dtype,
with 3.3.1's attributes and reprs (measured). A complex dtype answers for its real one."""
import numpy as np

from .dtypes import REAL_OF, convert_dtype

__all__ = ["finfo", "iinfo", "BFLOAT16"]

_FLOATS = ("float16", "float32", "float64", "bfloat16")
_INTS = ("int8", "int16", "int32", "int64", "uint8")

# paddle.bfloat16: refimpl has no bfloat16 tensors (framework/dtypes.py), so the name is
# this string, which every dtype conversion refuses; finfo answers for it (3.3.1's values)
BFLOAT16 = "bfloat16"
_BFLOAT16_INFO = {"bits": 16, "eps": 2.0 ** -7, "max": 3.3895313892515355e38,
                  "tiny": 1.1754943508222875e-38, "resolution": 0.01}


def _name(dtype, allowed, api):
    try:
        name = BFLOAT16 if dtype == BFLOAT16 else convert_dtype(dtype)
    except TypeError:
        name = None
    name = REAL_OF.get(name, name) if api == "finfo" else name
    if name not in allowed:
        raise ValueError("The argument of paddle.%s can only be %s (refimpl has no float8), "
                         "got %r" % (api, ", ".join("paddle." + a for a in allowed), dtype))
    return name


class finfo:
    """bits, eps, min, max, tiny (= smallest_normal), resolution and dtype (its name)."""

    def __init__(self, dtype):
        self.dtype = _name(dtype, _FLOATS, "finfo")
        if self.dtype == BFLOAT16:
            info = _BFLOAT16_INFO
        else:
            limits = np.finfo(self.dtype)
            info = {"bits": limits.bits, "eps": limits.eps, "max": limits.max,
                    "tiny": limits.tiny, "resolution": 10.0 ** -int(limits.precision)}
        self.bits = int(info["bits"])
        self.eps, self.max = float(info["eps"]), float(info["max"])
        self.min = -self.max
        self.tiny = self.smallest_normal = float(info["tiny"])
        self.resolution = float(info["resolution"])

    def __repr__(self):
        return ("paddle.finfo(min=%g, max=%g, eps=%g, resolution=%g, smallest_normal=%g, "
                "tiny=%g, bits=%d, dtype=%s)" % (self.min, self.max, self.eps, self.resolution,
                                                 self.smallest_normal, self.tiny, self.bits,
                                                 self.dtype))


class iinfo:
    """bits, min, max and dtype (its name) of int8 .. int64 and uint8 (bool is refused)."""

    def __init__(self, dtype):
        self.dtype = _name(dtype, _INTS, "iinfo")
        info = np.iinfo(self.dtype)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)

    def __repr__(self):
        return "paddle.iinfo(min=%d, max=%d, bits=%d, dtype=%s)" % (self.min, self.max,
                                                                    self.bits, self.dtype)
