"""paddle.fluid.layers"""
from ..layers.io import fluid_data as data
from ..layers.math import mean
from ..layers.nn import fc

__all__ = ["data", "mean", "fc"]
