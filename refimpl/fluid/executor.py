"""paddle.fluid.executor: the Executor and the scope helpers fluid code imports from here."""
import numpy as np

from ..executor import Executor
from ..framework.scope import Tensor, global_scope, scope_guard

__all__ = ["Executor", "global_scope", "scope_guard", "as_numpy"]


def _fetch_var(name, scope=None, return_numpy=True):
    """The value of variable `name` in `scope` (default: the global scope)."""
    scope = scope if scope is not None else global_scope()
    holder = scope.find_var(name.name if hasattr(name, "name") else name)
    if holder is None or not holder.is_initialized():
        raise ValueError("_fetch_var: no value of %r in the scope" % (name,))
    tensor = holder.get_tensor()
    return as_numpy(tensor) if return_numpy else tensor


def as_numpy(tensor):
    """An ndarray of a LoDTensor (or of each in a list); a LoDTensor with sequence
    lengths has no dense array and is refused, as in Paddle."""
    if isinstance(tensor, (list, tuple)):
        return [as_numpy(t) for t in tensor]
    if isinstance(tensor, Tensor):
        if tensor.lod():
            raise RuntimeError("Some of your fetched tensors hold LoD information. They can "
                               "not be completely cast to Python ndarray; fetch them with "
                               "return_numpy=False")
        return np.array(tensor)
    return tensor
