"""paddle.nn (static-graph subset): Layer classes (refimpl/nn/layer/) and the gradient
clipping classes (refimpl/optimizer/clip.py)."""
from ..optimizer.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import clip, functional, initializer, layer, utils
from .layer import *  # noqa: F401,F403
from .layer import loss   # paddle.nn.loss.L1Loss, as in Paddle (2.0 and 3.3.1)
from .layer import decode  # paddle.nn.decode.BeamSearchDecoder, as in Paddle (2.0 and 3.3.1)
from .utils import spectral_norm   # Paddle 3's paddle.nn.spectral_norm: nn.utils' function

__all__ = ["functional", "initializer", "layer", "loss", "decode", "utils",
           "spectral_norm"] + layer.__all__ + [
    "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]
