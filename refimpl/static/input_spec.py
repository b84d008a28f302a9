"""paddle.static.InputSpec: the shape, dtype and name of a model input."""
import numpy as np

from .. import versions
from ..framework.dtypes import get_dtype
from ..framework.program import Variable

__all__ = ["InputSpec"]


def _checked_shape(shape):
    """`shape` as a tuple, None -> -1; a list / tuple of ints >= -1 or None, not empty
    unless the profile has 0-D specs (switch input_spec_zero_dim)."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError("InputSpec: shape must be a list or tuple, got %s"
                        % type(shape).__name__)
    if not shape and not versions.switch("input_spec_zero_dim"):
        raise ValueError("InputSpec: shape must hold at least one dim, got %s" % (list(shape),))
    for d in shape:
        if d is not None and not (isinstance(d, (int, np.integer)) and d >= -1):
            raise ValueError("InputSpec: shape dims must be None, -1 or >= 0 ints, got %s"
                             % (list(shape),))
    return tuple(-1 if d is None else int(d) for d in shape)


class InputSpec:
    """shape: a list / tuple (None or -1 = any size, stored as -1); dtype as paddle.data."""

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = _checked_shape(shape)
        self.dtype = get_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not isinstance(tensor, Variable):
            raise ValueError("InputSpec.from_tensor: expected a Tensor, got %s"
                             % type(tensor).__name__)
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        """Prepend a batch dim (in place, as Paddle; returns self)."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError("InputSpec.batch: batch_size as a list must hold one int, "
                                 "got %s" % (list(batch_size),))
            batch_size, = batch_size
        if batch_size is not None and not isinstance(batch_size, (int, np.integer)):
            raise TypeError("InputSpec.batch: batch_size must be an int, got %s"
                            % type(batch_size).__name__)
        self.shape = (-1 if batch_size is None else int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Drop the first dim (in place; returns self)."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the shape is empty, there is no batch dim")
        self.shape = _checked_shape(self.shape[1:])
        return self

    def _key(self):
        return self.shape, self.dtype.name, self.name

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key()[:2])      # as Paddle's: the name does not count

    def __repr__(self):
        return "InputSpec(shape=%s, dtype=%s, name=%s)" % (self.shape, self.dtype, self.name)
