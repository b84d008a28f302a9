"""paddle.incubate.autograd (Paddle 3): primapi, its program decomposition switch."""
from . import primapi

__all__ = ["primapi"]
