"""Rank tables and the rows they move (specs/ops/sequence.md#rank-tables).

A rank table (a LOD_RANK_TABLE variable) is built from level `level` of a tensor's LoD: its
run-time value is the int64 lengths of that level's sequences (each one's count of entries
at the next level, or of rows), carrying the levels above as its LoD (Paddle's coarse
LoD), so the table's level is the depth of its own LoD. Paddle's items, (index, length)
longest first, ties in index order, are framework.lod.rank_order. A tensor without a LoD is taken as
sequences of one row each (refimpl's extension: 1.8.5 refuses it).

"Children" of a LoD: the entries of its top level (its rows when it has no level), each
with the rows and sub-LoD below it; the ops here gather children into new tensors."""
import numpy as np

from ..framework.lod import lod_of, rank_order


def table_parts(table):
    """(lengths int64, coarse LoD) of a rank table's value."""
    return np.asarray(table).reshape(-1).astype(np.int64), lod_of(table)


def _bounds(lod, count):
    """Per level of `lod` and then for the rows: child c spans entries [b[c], b[c+1])."""
    bounds = [np.arange(count + 1)]
    for level in lod:
        offsets = np.concatenate([[0], np.cumsum(level, dtype=np.int64)])
        bounds.append(offsets[bounds[-1]])
    return bounds


def child_count(lod, rows):
    return len(lod[0]) if lod else rows


def gather_children(lod, rows, children):
    """(row indices, LoD) of `children` (top-level entries of `lod` over `rows` rows)
    joined in the order given, each keeping the sub-LoD below it."""
    bounds = _bounds(lod, child_count(lod, rows))
    children = np.asarray(children, dtype=np.int64)
    row_b = bounds[-1]
    row_index = np.concatenate([np.arange(row_b[c], row_b[c + 1]) for c in children]) \
        if len(children) else np.zeros(0, np.int64)
    levels = tuple(tuple(int(n) for c in children for n in level[b[c]:b[c + 1]])
                   for level, b in zip(lod, bounds))
    return row_index.astype(np.int64), levels


def tensor_lod(x, op):
    """x's LoD, or rows as sequences of one (refimpl's extension), for `op`'s messages."""
    lod = lod_of(x)
    return lod if lod else ((1,) * len(x),)


def check_table_fits(lod, lengths, coarse, op):
    level = len(coarse)
    if len(lod) <= level or tuple(lod[:level]) != tuple(coarse) or \
            tuple(lod[level]) != tuple(int(n) for n in lengths):
        raise ValueError("%s: the rank table (of LoD level %d, lengths %s) was not built "
                         "from this input's LoD %s" % (op, level, lengths.tolist(),
                                                      [list(v) for v in lod]))


def step_rows(lod, lengths, level):
    """Per step t of the sequences at `level` (rank order, those longer than t): (rows,
    LoD) of their t-th children, from a tensor with LoD `lod` (the array element t)."""
    below = lod[level + 1:]
    rows = sum(lod[-1]) if lod else 0
    first = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])[:-1]
    order = rank_order(lengths)
    steps = int(lengths.max()) if len(lengths) else 0
    return [gather_children(below, rows, [first[i] + t for i in order if lengths[i] > t])
            for t in range(steps)]


def array_lod(array, lengths, coarse):
    """The LoD of the tensor whose rank-table steps the array holds (array_to_lod_tensor):
    the table's coarse levels, its lengths, and below them each sequence's children (in
    sequence order) with the sub-LoD they carry in the array's elements."""
    order = rank_order(lengths)
    position = []             # per step: sequence index -> its child's place in element t
    for t in range(len(array)):
        live = [i for i in order if lengths[i] > t]
        position.append({i: k for k, i in enumerate(live)})
    depth = len(lod_of(array[0])) if len(array) else 0
    below = [[] for _ in range(depth)]
    for i in range(len(lengths)):
        for t in range(int(lengths[i])):
            element_lod = lod_of(array[t])
            bounds = _bounds(element_lod, child_count(element_lod, len(array[t])))
            c = position[t][i]
            for level, (values, b) in enumerate(zip(element_lod, bounds)):
                below[level].extend(values[b[c]:b[c + 1]])
    return tuple(coarse) + (tuple(int(n) for n in lengths),) + tuple(tuple(v) for v in below)
