"""SelectedRows: some rows of a tall [height, ...] tensor, as Paddle 1.8 keeps sparse
gradients and sparse tables. `rows[i]` is the row of the full tensor that `value[i]` holds;
rows may repeat (the full tensor then holds their sum) and the rows not listed are zero.

`RowsValue` is what a scope or an executor's dict holds (immutable: an op makes a new one,
as it makes new arrays); `to_dense` is the tensor it stands for, which every op on it
matches (specs/selected_rows.md). Paddle's core.SelectedRows, the user's handle on one, is
framework/scope.py's SelectedRows.
"""
from collections import namedtuple

import numpy as np

from .. import versions

__all__ = ["RowsValue", "to_dense", "merged", "check_rows", "static_sparse_gradients"]


class RowsValue(namedtuple("RowsValue", "rows height value")):
    """rows: tuple of ints; height: the full tensor's row count; value: [len(rows), ...]
    array (None while nothing set it)."""
    __slots__ = ()

    @property
    def shape(self):
        """The full tensor's shape."""
        return (self.height,) + tuple(np.shape(self.value)[1:])

    @property
    def dtype(self):
        return np.asarray(self.value).dtype


def check_rows(sr, what, within_height=True):
    """`sr` is consistent: one value row per listed row, each row below height (unless
    not `within_height`: for rules that never use the height). A
    SelectedRows listing no rows is all zeros whatever its value holds (Paddle's sum skips
    such inputs)."""
    if not sr.rows:
        return
    if sr.value is None:
        raise ValueError("%s: SelectedRows lists rows %s but holds no value tensor"
                         % (what, list(sr.rows)))
    if np.ndim(sr.value) == 0 or len(sr.rows) != np.shape(sr.value)[0]:
        raise ValueError("%s: SelectedRows lists %d rows but its value has shape %s"
                         % (what, len(sr.rows), list(np.shape(sr.value))))
    bad = [r for r in sr.rows if not 0 <= r < (sr.height if within_height else np.inf)]
    if bad:
        raise ValueError("%s: SelectedRows rows %s are outside its height %d"
                         % (what, bad, sr.height))


def to_dense(sr, what="SelectedRows"):
    """The [height, ...] tensor `sr` stands for: value rows added into zeros at `rows`."""
    check_rows(sr, what)
    value = np.asarray(sr.value)
    dense = np.zeros(sr.shape, dtype=value.dtype)
    np.add.at(dense, np.asarray(sr.rows, dtype=np.int64), value[:len(sr.rows)])
    return dense


def merged(sr, what="SelectedRows", within_height=True):
    """The same tensor with each row listed once, rows ascending (Paddle's MergeAdd)."""
    check_rows(sr, what, within_height)
    rows = np.asarray(sr.rows, dtype=np.int64)
    unique, where = np.unique(rows, return_inverse=True)
    value = np.asarray(sr.value)
    summed = np.zeros((len(unique),) + value.shape[1:], dtype=value.dtype)
    np.add.at(summed, where, value[:len(rows)])
    return RowsValue(tuple(int(r) for r in unique), sr.height, summed)


def static_sparse_gradients():
    """Whether a static program keeps an is_sparse embedding's gradient as a SelectedRows:
    yes, but under Paddle 3 while FLAGS_enable_pir_api is on, whose PIR embedding_grad
    ignores `sparse` (the switch static_sparse_gradients)."""
    return versions.switch("static_sparse_gradients") == "selected_rows"
