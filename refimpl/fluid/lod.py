"""LoD tensors as values: data plus recursive sequence lengths (fluid 1.8).

refimpl has no LoD in its ops: a LoDTensor fed to a program gives the op its flat data
(`np.array(t)`, rows of all sequences one after another, as in Paddle) and the lengths
are dropped. They are kept here so user code that builds, inspects and validates LoD
values runs unchanged (specs/fluid_misc.md).
"""
import numpy as np

from ..framework.scope import LoDTensorArray, Tensor

__all__ = ["LoDTensor", "LoDTensorArray", "create_lod_tensor", "create_random_int_lodtensor"]


class LoDTensor(Tensor):
    """fluid.LoDTensor: a value with recursive sequence lengths, e.g. [[2, 3]] = two
    sequences of 2 and 3 rows; lod() gives the same as offsets, [[0, 2, 5]]."""

    def __init__(self, scope=None, name=None, value=None):
        super().__init__(scope, name, value)
        self._seq_lens = []

    def recursive_sequence_lengths(self):
        return [list(level) for level in self._seq_lens]

    def set_recursive_sequence_lengths(self, recursive_seq_lens):
        self._seq_lens = _check_lengths(recursive_seq_lens, "set_recursive_sequence_lengths")

    def lod(self):
        return [np.concatenate([[0], np.cumsum(level)]).astype(int).tolist()
                for level in self._seq_lens]

    def set_lod(self, lod):
        levels = _check_lengths(lod, "set_lod")
        for level in levels:
            if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
                raise ValueError("set_lod: each level must be offsets starting at 0 and not "
                                 "decreasing, got %s" % level)
        self._seq_lens = [list(np.diff(level).astype(int).tolist()) for level in levels]

    def has_valid_recursive_sequence_lengths(self):
        """Each level's lengths add up to the next level's count; the last to the rows."""
        value = self._get()
        if not self._seq_lens:
            return True
        for upper, lower in zip(self._seq_lens, self._seq_lens[1:]):
            if sum(upper) != len(lower):
                return False
        return value is not None and np.ndim(value) > 0 and sum(self._seq_lens[-1]) == len(value)


def _check_lengths(levels, fn):
    if not isinstance(levels, (list, tuple)) or not all(
            isinstance(level, (list, tuple)) and all(
                isinstance(n, (int, np.integer)) and n >= 0 for n in level)
            for level in levels):
        raise TypeError("%s: expected a list of lists of non-negative ints, got %r"
                        % (fn, levels))
    return [[int(n) for n in level] for level in levels]


def create_lod_tensor(data, recursive_seq_lens, place=None):
    """A LoDTensor from `data`: an ndarray (rows of all sequences), a list of sequences
    (each a list of ints: the rows become an int64 [N, 1] array, as in Paddle) or a
    LoDTensor; `recursive_seq_lens` must match it."""
    if isinstance(data, Tensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        given = [[len(seq) for seq in data]]
        if recursive_seq_lens != given:
            raise ValueError("create_lod_tensor: data holds sequences of lengths %s, but "
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
    levels = _check_lengths(recursive_seq_lens, "create_random_int_lodtensor")
    rows = sum(levels[-1]) if levels else 0
    data = np.random.randint(low, high + 1, size=[rows] + list(base_shape)).astype(np.int64)
    return create_lod_tensor(data, levels, place)
