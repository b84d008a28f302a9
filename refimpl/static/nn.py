"""paddle.static.nn"""
from ..layers import exports

globals().update(exports("static.nn"))
__all__ = sorted(exports("static.nn"))
