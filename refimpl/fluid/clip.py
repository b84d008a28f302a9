"""paddle.fluid.clip"""
from ..optimizer.clip import (GradientClipByGlobalNorm, GradientClipByNorm,
                              GradientClipByValue)

__all__ = ["GradientClipByGlobalNorm", "GradientClipByNorm", "GradientClipByValue"]
