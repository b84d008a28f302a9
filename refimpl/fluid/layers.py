"""paddle.fluid.layers"""
from ..layers import exports

globals().update(exports("fluid.layers"))
__all__ = sorted(exports("fluid.layers"))
