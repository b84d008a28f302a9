"""RecomputeOptimizer (seed 004): an optimizer whose backward pass recomputes the forward
segments between checkpoints (refimpl/backward/recompute.py) instead of keeping their
activations."""
import warnings

from .. import backward as _backward
from ..framework.program import default_startup_program, program_guard

__all__ = ["RecomputeOptimizer"]


class RecomputeOptimizer:
    """Wraps an optimizer; its backward recomputes the segments between checkpoints."""

    def __init__(self, optimizer):
        self._optimizer = optimizer
        self._checkpoints = None

    def _set_checkpoints(self, checkpoints):
        if not isinstance(checkpoints, (list, tuple)):
            raise TypeError("RecomputeOptimizer._set_checkpoints takes a list of Variables or "
                            "names, got %s" % type(checkpoints).__name__)
        self._checkpoints = list(checkpoints)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None, checkpoints=None):
        """[(param, grad)], with recomputation when checkpoints are set (argument or
        _set_checkpoints); without any, a warning and the plain backward (see specs)."""
        checkpoints = checkpoints if checkpoints is not None else self._checkpoints
        self._optimizer._startup_program = startup_program
        params = parameter_list if parameter_list is not None \
            else self._optimizer._parameter_list
        if not checkpoints:
            warnings.warn("RecomputeOptimizer.backward: no checkpoints set "
                          "(call _set_checkpoints); using the plain backward")
        return _backward.append_backward(loss, params, no_grad_set, callbacks,
                                         checkpoints=checkpoints)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def apply_optimize(self, loss, startup_program, params_grads):
        return self._optimizer.apply_optimize(loss, startup_program, params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def load(self, state_dict):
        """Paddle 1.8's RecomputeOptimizer.load: unsupported, with Paddle's message."""
        raise NotImplementedError("load function is not supported by Recompute Optimizer "
                                  "for now")

    def __getattr__(self, name):
        # get_lr, set_lr, ... of the wrapped optimizer
        return getattr(self._optimizer, name)
