"""Ids -> vectors: embedding (lookup_table / lookup_table_v2) and one_hot layers."""
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import append_op_out, check_dtype, check_static_dtype, check_variable


def _padding_idx(padding_idx, rows):
    """Paddle's rule: None -> -1 (no padding), negative -> counted from the end."""
    if padding_idx is None:
        return -1
    if not -rows <= padding_idx < rows:
        raise ValueError("embedding: padding_idx must be in [%d, %d), got %d"
                         % (-rows, rows, padding_idx))
    return padding_idx if padding_idx >= 0 else rows + padding_idx


def _lookup(helper, op_type, weight, ids, padding_idx, is_sparse=False):
    out = helper.create_variable_for_type_inference(weight.dtype)
    helper.append_op(type=op_type, inputs={"W": [weight], "Ids": [ids]}, outputs={"Out": [out]},
                     attrs={"padding_idx": _padding_idx(padding_idx, weight.shape[0]),
                            "is_sparse": is_sparse})
    return out


def _embedding(op_type, ids, size, is_sparse, padding_idx, param_attr, dtype):
    check_variable(ids, "input", "embedding")
    helper = LayerHelper("embedding")
    w = helper.create_parameter(param_attr, list(size), dtype)
    return _lookup(helper, op_type, w, ids, padding_idx, is_sparse)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """fluid.layers.embedding: Ids [..., 1] -> [..., size[1]] (lookup_table); W is
    `embedding_N.w_0` of shape `size`."""
    return _embedding("lookup_table", input, size, is_sparse, padding_idx, param_attr, dtype)


def static_embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
                     param_attr=None, dtype="float32"):
    """paddle.static.nn.embedding (1.8's fluid.embedding): Ids of any shape -> shape +
    [size[1]] (lookup_table_v2). Integer ids and a float table, else TypeError (Paddle
    checks the same)."""
    check_dtype(input, "input", "embedding", ("int32", "int64"))
    if convert_dtype(dtype) not in ("float16", "float32", "float64"):
        raise TypeError("embedding: dtype must be float16, float32 or float64, got %s"
                        % convert_dtype(dtype))
    return _embedding("lookup_table_v2", input, size, is_sparse, padding_idx, param_attr, dtype)


def functional_embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """paddle.nn.functional.embedding: rows of a given `weight` (lookup_table_v2)."""
    check_variable(x, "x", "embedding")
    return _lookup(LayerHelper("embedding", name=name), "lookup_table_v2", weight, x,
                   padding_idx, sparse)


def one_hot(x, num_classes, name=None):
    """paddle.nn.functional.one_hot: appends a num_classes dim (one_hot_v2); num_classes an
    int or a [1] int Variable (known when the program runs). x holds int32 / int64 ids
    (Paddle 2.0 checks a static x)."""
    check_static_dtype(x, "x", "one_hot_v2", ("int32", "int64"))
    inputs, depth = one_hot_inputs(x, num_classes)
    return append_op_out("one_hot_v2", inputs, {"depth": depth, "allow_out_of_range": False},
                         name, out_dtype="float32", stop_gradient=True)


def one_hot_inputs(input, depth):
    """(the one_hot ops' inputs, their depth attr) for `depth` an int or a [1] int
    Variable (the depth_tensor input, known when the program runs)."""
    inputs = {"X": [input]}
    if isinstance(depth, Variable):
        inputs["depth_tensor"], depth = [depth], 1
    elif not isinstance(depth, int) or isinstance(depth, bool):
        raise TypeError("one_hot: depth must be an int or a Variable, got %s"
                        % type(depth).__name__)
    return inputs, depth


def fluid_one_hot(input, depth, allow_out_of_range=False):
    """fluid.layers.one_hot: replaces the last dim (which must be 1) by depth (one_hot);
    `depth` an int or a [1] int Variable (known when the program runs)."""
    check_dtype(input, "input", "one_hot", ("int32", "int64"))
    inputs, depth = one_hot_inputs(input, depth)
    return append_op_out("one_hot", inputs,
                         {"depth": depth, "allow_out_of_range": allow_out_of_range},
                         out_dtype="float32", stop_gradient=True)


EXPORTS = {
    "fluid.layers": {"embedding": embedding, "one_hot": fluid_one_hot},
    "static.nn": {"embedding": static_embedding},
    "fluid": {"embedding": static_embedding},       # 1.8's fluid.embedding: ids of any shape
    "nn.functional": {"embedding": functional_embedding, "one_hot": one_hot},
}
