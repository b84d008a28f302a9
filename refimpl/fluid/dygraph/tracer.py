"""fluid.dygraph.tracer (Paddle 1.8): the Tracer object 1.8 code reaches through
`framework._dygraph_tracer()`. refimpl's tracer is refimpl.dygraph.tracer (a module, one
per process); this object only shows its one setting, `_train_mode`, which is whether eager
ops are recorded for autograd (framework.mode.grad_enabled, what no_grad switches off)."""
from ...framework import mode

__all__ = ["Tracer"]


class Tracer:
    """The process's one tracer (`Tracer.instance`)."""

    instance = None

    @property
    def _train_mode(self):
        return mode.grad_enabled

    @_train_mode.setter
    def _train_mode(self, value):
        mode.set_grad_enabled(value)

    def train_mode(self):
        mode.set_grad_enabled(True)

    def eval_mode(self):
        mode.set_grad_enabled(False)


Tracer.instance = Tracer()
