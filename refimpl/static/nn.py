"""paddle.static.nn"""
from ..layers.nn import fc

__all__ = ["fc"]
