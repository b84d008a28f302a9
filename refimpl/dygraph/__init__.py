"""Dynamic (eager) mode: Tensor, the tracer that runs each op's OpDef now and records it on
a tape, and the autograd engine that runs the ops' registered backwards (specs/dygraph.md).

Loading it lends the framework what it needs to run ops eagerly (framework.mode.eager), so
the framework never imports this package."""
from types import SimpleNamespace

from ..framework import mode
from .dispatch import eager_append_op, has_eager_input, placeholder, run_eagerly
from .tensor import ParamBase, Tensor
from .tracer import run_op

mode.install_eager(SimpleNamespace(
    Tensor=Tensor, ParamBase=ParamBase, append_op=eager_append_op,
    has_eager_input=has_eager_input, placeholder=placeholder, run_eagerly=run_eagerly,
    run_op=run_op))
