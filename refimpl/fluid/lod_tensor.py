"""paddle.fluid.lod_tensor (fluid 1.8 / 2.0): building LoD tensors, create_lod_tensor and
create_random_int_lodtensor. The LoDTensor class is framework/scope.py's Tensor; LoD itself is
framework/lod.py (specs/lod.md)."""
import numpy as np

from ..framework.errors import LayerAssertionError
from ..framework.lod import check_lengths
from ..framework.scope import LoDTensor, LoDTensorArray, Tensor

__all__ = ["LoDTensor", "LoDTensorArray", "create_lod_tensor", "create_random_int_lodtensor"]


def create_lod_tensor(data, recursive_seq_lens, place=None):
    """A LoDTensor from `data`: an ndarray (rows of all sequences), a list of sequences
    (each a list of ints: the rows become an int64 [N, 1] array, as in Paddle) or a
    LoDTensor; `recursive_seq_lens` must match it."""
    if isinstance(data, Tensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        given = [[len(seq) for seq in data]]
        if recursive_seq_lens != given:
            # Paddle asserts it (an AssertionError there)
            raise LayerAssertionError("create_lod_tensor: data holds sequences of lengths %s, but "
                             "recursive_seq_lens is %s" % (given, recursive_seq_lens))
        rows = [np.asarray(seq, dtype=np.int64).reshape(-1) for seq in data]
        flat = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        return create_lod_tensor(flat.reshape(-1, 1), recursive_seq_lens, place)
    if not isinstance(data, np.ndarray):
        raise TypeError("create_lod_tensor: data must be an ndarray, a list of sequences or "
                        "a LoDTensor, got %s" % type(data).__name__)
    tensor = LoDTensor(value=data.copy())
    tensor.set_recursive_sequence_lengths(recursive_seq_lens)
    if not tensor.has_valid_recursive_sequence_lengths():
        raise ValueError("create_lod_tensor: recursive_seq_lens %s do not match data of shape "
                         "%s (each level must add up to the next level's count, the last to "
                         "the number of rows)" % (recursive_seq_lens, list(data.shape)))
    return tensor


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place=None, low=0, high=1):
    """A LoDTensor of int64 values uniform in [low, high] (both included), of shape
    [rows] + base_shape, rows = the sum of the last level's lengths."""
    if low > high:
        raise ValueError("create_random_int_lodtensor: low (%s) must be <= high (%s)"
                         % (low, high))
    levels = check_lengths(recursive_seq_lens, "create_random_int_lodtensor")
    rows = sum(levels[-1]) if levels else 0
    data = np.random.randint(low, high + 1, size=[rows] + list(base_shape)).astype(np.int64)
    return create_lod_tensor(data, levels, place)
