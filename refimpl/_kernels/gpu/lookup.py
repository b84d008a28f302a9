"""lookup_table and lookup_table_v2's dense W@GRAD: a scatter-add, one thread per element
of Out@GRAD adding it to its id's row with atomicAdd (float64 atomics: sm_60 on), rows of
padding_idx left out; the reference's mask multiply, zeros and add.at are several passes.
Ids outside W's rows add nothing: the forward has raised the reference's IndexError for
them before any gradient runs."""
import cupy

from .source import elementwise

__all__ = ["lookup_table_backward"]

_SCATTER_ADD = elementwise(
    "T g, raw int64 ids, int64 width, int64 rows, int64 padding_idx", "raw T dw",
    "long long id = ids[i / width];"
    " if (id != padding_idx && id >= 0 && id < rows) atomicAdd(&dw[id * width + i % width], g)",
    "refimpl_lookup_table_grad")


def lookup_table_backward(w, ids, dout, padding_idx=-1, **_):
    rows, width = w.shape
    flat = cupy.ascontiguousarray(ids, dtype=cupy.int64).reshape(-1)
    dw = cupy.zeros((rows, width), w.dtype)
    if flat.size and width:
        g = cupy.ascontiguousarray(dout, dtype=w.dtype).reshape(flat.size, width)
        _SCATTER_ADD(g, flat, width, rows, padding_idx, dw)
    return dw
