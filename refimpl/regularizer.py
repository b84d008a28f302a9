"""paddle.regularizer"""
from .framework.regularizer import L1Decay, L2Decay

__all__ = ["L1Decay", "L2Decay"]
