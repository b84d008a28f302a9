"""paddle.nn.initializer, and the submodules Paddle 2.0 keeps its classes in
(paddle.nn.initializer.normal.Normal, ...)."""
from ..framework.initializer import (Assign, Bilinear, Constant, KaimingNormal,
                                     KaimingUniform, Normal, TruncatedNormal, Uniform,
                                     XavierNormal, XavierUniform, set_global_initializer)
from ..submodules import group

__all__ = ["Assign", "Bilinear", "Constant", "KaimingNormal", "KaimingUniform", "Normal",
           "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "set_global_initializer"]
globals().update(group(__name__, globals(), {
    "assign": ["Assign"], "constant": ["Constant"], "kaiming": ["KaimingNormal", "KaimingUniform"],
    "normal": ["Normal", "TruncatedNormal"], "uniform": ["Uniform"],
    "xavier": ["XavierNormal", "XavierUniform"]}))
