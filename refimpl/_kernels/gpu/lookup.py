"""lookup_table and lookup_table_v2 on a GPU. Forward: a gather, one thread per element of
Out reading its id's row of W (zeros for padding_idx); an id outside W's rows reads zeros
and sets a flag that a deferred check (xp.defer_check) turns into the reference's
IndexError when the run ends: the reference's own check reads the ids' range on the host at
once, a device-to-host wait every step. Backward (dense W@GRAD): a scatter-add, one thread
per element of Out@GRAD adding it to its id's row with atomicAdd (float64 atomics: sm_60
on), rows of padding_idx and ids outside W (the forward's check reports them) left out;
the reference's mask multiply, zeros and add.at are several passes."""
import cupy

from ...xp import defer_check
from .source import elementwise

__all__ = ["lookup_table_forward", "lookup_table_v2_forward", "lookup_table_backward"]

_GATHER = elementwise(
    "raw T w, raw int64 ids, int64 width, int64 rows, int64 padding_idx",
    "T out, raw int32 outside",
    "long long id = ids[i / width]; bool inside = id >= 0 && id < rows;"
    " if (!inside) outside[0] = 1;"
    " out = (!inside || id == padding_idx) ? (T)0 : w[id * width + i % width]",
    "refimpl_lookup_table")
_SCATTER_ADD = elementwise(
    "T g, raw int64 ids, int64 width, int64 rows, int64 padding_idx", "raw T dw",
    "long long id = ids[i / width];"
    " if (id != padding_idx && id >= 0 && id < rows) atomicAdd(&dw[id * width + i % width], g)",
    "refimpl_lookup_table_grad")


def _flat_ids(ids):
    return cupy.ascontiguousarray(ids, dtype=cupy.int64).reshape(-1)


def _lookup(op_type, w, ids, padding_idx, lead_shape):
    rows, width = w.shape
    flat = _flat_ids(ids)
    out = cupy.empty((flat.size, width), w.dtype)
    outside = cupy.zeros(1, cupy.int32)
    if out.size:    # (W and dW go in 1-D: element i of a raw 2-D array costs a division)
        _GATHER(cupy.ascontiguousarray(w).reshape(-1), flat, width, rows, padding_idx, out,
                outside)
    elif flat.size:    # W without columns: nothing to gather, the ids still checked
        outside = ((flat < 0) | (flat >= rows)).any()
    defer_check(lambda: _check_ids(op_type, flat, outside, rows))
    return out.reshape(tuple(lead_shape) + (width,))


def _check_ids(op_type, flat, outside, rows):
    if bool(outside.any()):
        bad = flat[(flat < 0) | (flat >= rows)]
        raise IndexError("%s: Ids: id %d is out of range for W with %d rows"
                         % (op_type, int(bad[0]), rows))


def lookup_table_forward(w, ids, padding_idx=-1, **_):
    """Ids [..., 1] -> [..., D]."""
    return _lookup("lookup_table", w, ids, padding_idx, ids.shape[:-1])


def lookup_table_v2_forward(w, ids, padding_idx=-1, **_):
    """Ids of any shape -> Ids.shape + [D]."""
    return _lookup("lookup_table_v2", w, ids, padding_idx, ids.shape)


def lookup_table_backward(w, ids, dout, padding_idx=-1, **_):
    rows, width = w.shape
    flat = _flat_ids(ids)
    dw = cupy.zeros((rows, width), w.dtype)
    if flat.size and width:
        g = cupy.ascontiguousarray(dout, dtype=w.dtype).reshape(flat.size, width)
        _SCATTER_ADD(g, flat, width, rows, padding_idx, dw.reshape(-1))
    return dw
