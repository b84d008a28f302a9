"""paddle.nn (static-graph subset): Layer classes (refimpl/nn/layer/), plus the nn
exports of the layer modules (gradient clipping classes)."""
from ..layers import exports as _exports
from . import functional, initializer, layer
from .layer import *  # noqa: F401,F403

globals().update(_exports("nn"))

__all__ = ["functional", "initializer", "layer"] + layer.__all__ + sorted(_exports("nn"))
