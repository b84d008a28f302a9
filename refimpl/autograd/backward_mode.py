"""paddle.autograd.backward_mode: backward (dynamic mode: the gradients of several
tensors at once) and gradients_with_optimizer (static mode, fluid.backward's)."""
from ..dygraph.autograd import backward
from ..fluid.backward import gradients_with_optimizer

__all__ = ["backward", "gradients_with_optimizer"]
