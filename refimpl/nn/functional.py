"""paddle.nn.functional"""
from ..layers import exports

globals().update(exports("nn.functional"))
__all__ = sorted(exports("nn.functional"))
