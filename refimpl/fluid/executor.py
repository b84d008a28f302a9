"""paddle.fluid.executor: the Executor and the scope helpers fluid code imports from here."""
import numpy as np

from ..executor import Executor
from ..framework.scope import Tensor, global_scope, scope_guard

__all__ = ["Executor", "global_scope", "scope_guard", "as_numpy"]


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
