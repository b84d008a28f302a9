"""paddle.autograd (Paddle 2.1 and later; 3.3.1's names that refimpl implements):
backward, grad, no_grad, enable_grad, is_grad_enabled, set_grad_enabled, backward_mode
(backward, gradients_with_optimizer) and ir_backward (the gradients of a static program's
values). Paddle 2.0 has no paddle.autograd (its paddle.grad and Tensor.backward are the
same functions). PyLayer, jacobian, hessian and saved_tensors_hooks are not implemented."""
from .._env import grad, no_grad
from ..framework.mode import enable_grad, is_grad_enabled, set_grad_enabled
from . import backward_mode, ir_backward
from .backward_mode import backward

__all__ = ["backward", "grad", "no_grad", "enable_grad", "is_grad_enabled", "set_grad_enabled"]
