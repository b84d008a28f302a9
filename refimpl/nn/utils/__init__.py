"""paddle.nn.utils (Paddle 2.0): weight_norm / remove_weight_norm."""
from .weight_norm_hook import remove_weight_norm, weight_norm

__all__ = ["weight_norm", "remove_weight_norm"]
