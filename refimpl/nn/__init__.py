"""paddle.nn (static-graph subset)."""
from . import functional, initializer

__all__ = ["functional", "initializer"]
