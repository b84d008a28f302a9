"""paddle.fluid.clip (Paddle 1.8 / 2.0): what Paddle 3 moved to paddle.nn.clip
(refimpl/nn/clip.py)."""
from ..nn.clip import (ErrorClipByValue, GradientClipByGlobalNorm, GradientClipByNorm,
                       GradientClipByValue, append_gradient_clip_ops, error_clip_callback,
                       set_gradient_clip)  # noqa: F401  (append_gradient_clip_ops: 1.8's)

__all__ = ["set_gradient_clip", "ErrorClipByValue", "GradientClipByValue",
           "GradientClipByNorm", "GradientClipByGlobalNorm", "error_clip_callback"]
