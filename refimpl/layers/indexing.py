"""Indexing and set layers of the Paddle 2.0 API and their fluid.layers 1.8 forms:
index_select, index_sample, gather_nd, scatter_nd(_add), masked_select, multiplex,
shard_index, nonzero, sort, unique, unique_with_counts. Plain gather / scatter / slice are
in tensor.py."""
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from . import creation, math, tensor
from .common import append_op_out, as_list, unary


def index_select(x, index, axis=0, name=None):
    return append_op_out("index_select", {"X": [x], "Index": [index]}, {"dim": int(axis)}, name)


def index_sample(x, index):
    return append_op_out("index_sample", {"X": [x], "Index": [index]})


def gather_nd(x, index, name=None):
    return append_op_out("gather_nd", {"X": [x], "Index": [index]}, {}, name)


def fluid_gather_nd(input, index, name=None):
    return gather_nd(input, index, name)


def scatter_nd_add(x, index, updates, name=None):
    if x.dtype != updates.dtype:
        raise ValueError("scatter_nd_add: x (ref) and updates must have the same dtype, got "
                         "%s and %s" % (x.dtype.name, updates.dtype.name))
    return append_op_out("scatter_nd_add", {"X": [x], "Index": [index], "Updates": [updates]},
                         {}, name)


def scatter_nd(index, updates, shape, name=None):
    """zeros(shape) with `updates` added at `index` (repeats accumulate)."""
    zeros = creation.fill_constant(shape, updates.dtype, 0.0)
    return scatter_nd_add(zeros, index, updates, name)


def masked_select(x, mask, name=None):
    return append_op_out("masked_select", {"X": [x], "Mask": [mask]}, {}, name, out_slot="Y")


def multiplex(inputs, index):
    if len(inputs) < 2:
        raise ValueError("multiplex: inputs must be a list of at least 2 Variables, got %d"
                         % len(inputs))
    return append_op_out("multiplex", {"X": list(inputs), "Ids": [index]})


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    return unary("shard_index", input, {"index_num": int(index_num), "nshards": int(nshards),
                                        "shard_id": int(shard_id),
                                        "ignore_value": int(ignore_value)})


def nonzero(x, as_tuple=False):
    """[N, rank] int64 coordinates of the nonzero elements; as_tuple: one [N, 1] column per
    dim. (Paddle 2.0's and 3's parameter is `x`.)"""
    cond = x if x.dtype.name == "bool" else math.cast(x, "bool")
    coords = tensor.nonzero_index(cond)
    if not as_tuple:
        return coords
    return tuple(tensor.slice(coords, [1], [i], [i + 1]) for i in range(len(x.shape)))


def sort(x, axis=-1, descending=False, name=None):
    return tensor.fluid_argsort(x, axis, descending, name)[0]


def _unique(x, attrs, outputs, name):
    helper = LayerHelper("unique", name=name)
    dtype = attrs["dtype"]
    outs = {slot: [helper.create_variable_for_type_inference(
        x.dtype if slot == "Out" else dtype, stop_gradient=True)] for slot in outputs}
    helper.append_op(type="unique", inputs={"X": [x]}, outputs=outs, attrs=attrs)
    return [outs[slot][0] for slot in outputs]


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """Sorted distinct values (slices along `axis`), plus what the flags ask for."""
    wanted = [("Indices", return_index), ("Index", return_inverse),
              ("Counts", return_counts)]
    attrs = {"dtype": convert_dtype(dtype), "return_index": return_index,
             "return_inverse": return_inverse, "return_counts": return_counts,
             "axis": [int(a) for a in as_list(axis)], "is_sorted": True}
    outs = _unique(x, attrs, ["Out"] + [slot for slot, on in wanted if on], name)
    return outs[0] if len(outs) == 1 else tuple(outs)


def fluid_unique(x, dtype="int32"):
    """(distinct values in order of first appearance, index of each element's value)."""
    return tuple(_unique(x, {"dtype": convert_dtype(dtype), "is_sorted": False},
                         ["Out", "Index"], None))


def unique_with_counts(x, dtype="int32"):
    helper = LayerHelper("unique_with_counts")
    dtype = convert_dtype(dtype)
    out, index, count = (helper.create_variable_for_type_inference(d, stop_gradient=True)
                         for d in (x.dtype, dtype, dtype))
    helper.append_op(type="unique_with_counts", inputs={"X": [x]},
                     outputs={"Out": [out], "Index": [index], "Count": [count]},
                     attrs={"dtype": dtype})
    return out, index, count


_SHARED = {"multiplex": multiplex, "shard_index": shard_index}

EXPORTS = {
    "paddle": dict(_SHARED, index_select=index_select, index_sample=index_sample,
                   gather_nd=gather_nd, scatter_nd_add=scatter_nd_add, scatter_nd=scatter_nd,
                   masked_select=masked_select, nonzero=nonzero, sort=sort, unique=unique),
    "fluid.layers": dict(_SHARED, gather_nd=fluid_gather_nd, unique=fluid_unique,
                         unique_with_counts=unique_with_counts),
}
