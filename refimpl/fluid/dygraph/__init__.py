"""paddle.fluid.dygraph (1.8): the imperative guard and to_variable (fluid/dygraph/base.py).

Only what runs ops one by one as they are built: `with guard(): y = layer_fn(to_variable(x))`
then `y.numpy()`, `loss.backward()`, `x.gradient()`. Paddle's dygraph Layer classes belong
to refimpl's dynamic mode (not built yet)."""
from . import base
from .base import enabled, guard, no_grad, to_variable

__all__ = ["base", "enabled", "guard", "no_grad", "to_variable"]
