"""paddle.incubate: where later Paddle releases (2.2+) keep RecomputeOptimizer, and
Paddle 1.8.5 its high-level API preview (hapi)."""
from . import hapi, optimizer

__all__ = ["hapi", "optimizer"]
