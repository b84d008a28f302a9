"""paddle.nn.initializer"""
from ..framework.initializer import (Assign, Bilinear, Constant, KaimingNormal,
                                     KaimingUniform, Normal, TruncatedNormal, Uniform,
                                     XavierNormal, XavierUniform, set_global_initializer)

__all__ = ["Assign", "Bilinear", "Constant", "KaimingNormal", "KaimingUniform", "Normal",
           "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "set_global_initializer"]
