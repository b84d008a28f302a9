"""paddle.autograd.ir_backward (Paddle 3): grad(), the gradient ops of a static program.

Paddle 3 writes them into a PIR program; refimpl's programs are one IR (pir_utils), so
grad() appends them to the current program as paddle.static.gradients does."""
from ..backward import gradients

__all__ = ["grad"]


def grad(outputs, inputs, grad_outputs=None, no_grad_vars=None):
    """The gradients of `outputs` with respect to each of `inputs` (None where an input
    does not reach them), `grad_outputs` the outputs' gradients (ones when None)."""
    return gradients(outputs, inputs, grad_outputs, no_grad_vars)
