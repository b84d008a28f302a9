"""paddle.nn (static-graph subset)."""
from ..layers import exports as _exports
from . import functional, initializer

globals().update(_exports("nn"))

__all__ = ["functional", "initializer"]
