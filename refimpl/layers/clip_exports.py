"""paddle.nn.ClipGradBy* names."""
from ..optimizer.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

EXPORTS = {"nn": {"ClipGradByGlobalNorm": ClipGradByGlobalNorm,
                  "ClipGradByNorm": ClipGradByNorm, "ClipGradByValue": ClipGradByValue}}
