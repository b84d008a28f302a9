"""paddle.autograd (Paddle 3): ir_backward, the gradients of a static program's values."""
from . import ir_backward

__all__ = ["ir_backward"]
