"""paddle.nn (static-graph subset): Layer classes (refimpl/nn/layer/) and the gradient
clipping classes (refimpl/optimizer/clip.py)."""
from ..optimizer.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import functional, initializer, layer
from .layer import *  # noqa: F401,F403
from .layer import loss  # paddle.nn.loss.MSELoss, as Paddle 2.0 scripts write it

__all__ = ["functional", "initializer", "layer"] + layer.__all__ + [
    "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]
