"""LoD (level of detail): how the rows of a tensor group into sequences (specs/lod.md).

A LoD is kept as recursive sequence lengths, a tuple of levels, each a tuple of ints:
((2, 1), (3, 1, 2)) = two sequences, the first made of 2 sub-sequences of 3 and 1 rows,
the second of one sub-sequence of 2 rows. Paddle's `lod()` is the same as offsets,
[[0, 2, 3], [0, 3, 4, 6]]. Each level's lengths add up to the next level's count, the last
level's to the tensor's rows.

At run time a value with a LoD is a `LoDArray`: an ndarray that carries its `lod`. Every
other array (and every array an op computes) has none; the op's declared LoD rule says what
its outputs carry (ops/registry.py: lod_lengths, lod_outputs)."""
from collections.abc import Sequence

import numpy as np

from ..xp import to_host

__all__ = ["LoDArray", "lod_of", "with_lod", "as_plain", "check_lengths", "lengths_to_offsets",
           "offsets_to_lengths", "valid_for", "describe_lod", "sequence_slice", "rank_order"]


class LoDArray(np.ndarray):
    """An ndarray carrying a LoD (recursive sequence lengths). Arrays derived from it
    (slices, arithmetic) carry none: the class attribute `lod = ()` shows through."""
    lod = ()

    def __reduce__(self):
        # pickles (process pools, copies) keep the LoD
        rebuild, args, state = super().__reduce__()
        return _rebuild, (rebuild, args, state, self.lod)

    def __deepcopy__(self, memo):
        out = np.array(self, copy=True).view(LoDArray)
        out.lod = self.lod
        return out

    def __repr__(self):
        return "LoDArray(%r, lod=%s)" % (np.asarray(self), [list(level) for level in self.lod])


def _rebuild(rebuild, args, state, lod):
    arr = rebuild(*args)
    arr.__setstate__(state)
    arr.lod = lod
    return arr


def lod_of(value):
    """The LoD a run-time value carries (() for none)."""
    return getattr(value, "lod", ()) if isinstance(value, np.ndarray) else ()


def as_plain(value):
    """`value` as a plain ndarray (a view of a LoDArray), what kernels compute on."""
    return value.view(np.ndarray) if type(value) is LoDArray else value


def with_lod(value, lod):
    """`value` (an ndarray) carrying `lod` (a view; a plain array when lod is empty). A GPU
    array with a LoD comes back to the host: a LoD value lives there (specs/gpu.md)."""
    if not lod:
        return as_plain(value)
    out = np.asarray(to_host(value)).view(LoDArray)
    out.lod = lod
    return out


def _is_sequence(value):
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def check_lengths(levels, fn):
    """Recursive sequence lengths as a LoD tuple, or a TypeError naming `fn`."""
    if isinstance(levels, np.ndarray):
        levels = levels.tolist()
    # any sequences of ints (ranges, tuples, arrays), as Paddle's binding takes
    if not _is_sequence(levels) or not all(
            _is_sequence(level) and all(
                isinstance(n, (int, np.integer)) and n >= 0 for n in level)
            for level in levels):
        raise TypeError("%s: expected a list of lists of non-negative ints (recursive "
                        "sequence lengths), got %r" % (fn, levels))
    return tuple(tuple(int(n) for n in level) for level in levels)


def lengths_to_offsets(lod):
    """[[0, 2, 3], [0, 3, 4, 6]] from ((2, 1), (3, 1, 2))."""
    return [np.concatenate([[0], np.cumsum(level, dtype=np.int64)]).astype(int).tolist()
            for level in lod]


def offsets_to_lengths(offsets, fn):
    """A LoD tuple from offsets (each level starting at 0, never decreasing), or a
    ValueError naming `fn`."""
    levels = check_lengths(offsets, fn)
    for level in levels:
        if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
            raise ValueError("%s: each LoD level must be offsets starting at 0 and never "
                             "decreasing, got %s" % (fn, list(level)))
    return tuple(tuple(int(d) for d in np.diff(level)) for level in levels)


def valid_for(lod, rows):
    """Whether each level adds up to the next level's count and the last to `rows`."""
    for upper, lower in zip(lod, lod[1:]):
        if sum(upper) != len(lower):
            return False
    return not lod or sum(lod[-1]) == rows


def describe_lod(lod):
    """The LoD for messages, as Paddle prints it: offsets."""
    return str(lengths_to_offsets(lod))


def sequence_slice(value, lod, start, end):
    """Top-level sequences [start, end) of `value` (rows) with LoD `lod`: (rows, their LoD,
    each level cut to the sub-sequences below those sequences)."""
    levels = []
    for level in lod:
        levels.append(tuple(level[start:end]))
        start, end = sum(level[:start]), sum(level[:end])
    return value[start:end], tuple(levels)


def rank_order(lengths):
    """Sequence indices longest first, ties in index order: the order of Paddle's rank
    table items (fluid.layers.lod_rank_table, ops/_rank_table.py)."""
    return np.argsort(-np.asarray(lengths), kind="stable")
