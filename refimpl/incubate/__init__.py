"""paddle.incubate: where later Paddle releases (2.2+) keep RecomputeOptimizer and
fluid.contrib.layers' functions (incubate.layers), and Paddle 1.8.5 its high-level API
preview (hapi); Paddle 3's autograd.primapi."""
from . import autograd, hapi, layers, optimizer

__all__ = ["autograd", "hapi", "layers", "optimizer"]
