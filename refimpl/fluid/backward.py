"""paddle.fluid.backward"""
from ..backward import append_backward, gradients, calc_gradient

__all__ = ["append_backward", "gradients", "calc_gradient"]
