"""paddle.incubate.layers (Paddle 2.3 on): where Paddle 3 keeps fluid.contrib.layers'
functions (its `nn` module)."""
from . import nn

__all__ = ["nn"]
