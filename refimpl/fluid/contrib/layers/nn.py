"""fluid.contrib.layers.nn (1.8): fused_elemwise_activation, multiclass_nms2,
shuffle_batch, partial_concat, partial_sum, sequence_topk_avg_pooling (each a thin builder
of its op), match_matrix_tensor (its op with the weight made here), and tree_conv:
the tree_conv op (refimpl/ops/tree_conv.py) with
its filter [feature_size, 3, output_size, num_filters] (XavierUniform), a bias of the
output's shape past the batch, [max_nodes, output_size, num_filters] (zeros; bias_attr=False:
none), then act, as Paddle 1.8.5 builds it; rank_attention (its op with the parameter
made here); fused_embedding_seq_pool, tdm_child, tdm_sampler and var_conv_2d (their ops
with the table, tree, travel or filter parameters made here, as Paddle 1.8.5 builds
them); bilateral_slice (Paddle 2.0: its op on X, Guide and Grid); batch_fc (Paddle 2.0:
its op with W and Bias made here, then act)."""
import numpy as np

from .... import versions
from ....framework import unique_name
from ....framework.initializer import Constant
from ....framework.layer_helper import LayerHelper
from ....layers.common import append_op_out, append_op_outputs, check_dtype, check_variable
from ....layers.detection import multiclass_nms
from ....layers.tensor import fluid_reshape, slice as _slice

__all__ = ["tree_conv", "fused_elemwise_activation", "multiclass_nms2", "shuffle_batch",
           "partial_concat", "partial_sum", "match_matrix_tensor", "sequence_topk_avg_pooling",
           "rank_attention", "fused_embedding_seq_pool", "tdm_child", "tdm_sampler", "var_conv_2d",
           "bilateral_slice", "batch_fc"]


def tree_conv(nodes_vector, edge_set, output_size, num_filters=1, max_depth=2, act="tanh",
              param_attr=None, bias_attr=None, name=None):
    check_dtype(nodes_vector, "nodes_vector", "tree_conv", ("float32", "float64"))
    check_variable(edge_set, "edge_set", "tree_conv")
    helper = LayerHelper("tree_conv", name=name)
    dtype = nodes_vector.dtype
    weight = helper.create_parameter(
        param_attr, [nodes_vector.shape[2], 3, output_size, num_filters], dtype)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type="tree_conv", inputs={"NodesVector": [nodes_vector],
                                               "EdgeSet": [edge_set], "Filter": [weight]},
                     outputs={"Out": [out]}, attrs={"max_depth": int(max_depth)})
    if bias_attr is not False:
        bias = helper.create_parameter(bias_attr, list(out.shape[1:]), dtype, is_bias=True)
        out = append_op_out("elementwise_add", {"X": [out], "Y": [bias]}, {"axis": 1},
                            name=helper.name)
    return helper.append_activation(out, act)


def fused_elemwise_activation(x, y, functor_list, axis=-1, scale=0.0,
                              save_intermediate_out=True):
    """Out = Binary(X, Unary(Y)) or Unary(Binary(X, Y)), functor_list naming both in that
    order (a list of two, or one comma-separated string); ops/fused_elemwise_activation.py."""
    if isinstance(functor_list, str):
        functor_list = functor_list.split(",")
    if not isinstance(functor_list, list) or len(functor_list) != 2:
        raise ValueError("fused_elemwise_activation: functor_list must be a list of two op "
                         "names, got %r" % (functor_list,))
    check_variable(x, "x", "fused_elemwise_activation")
    check_variable(y, "y", "fused_elemwise_activation")
    out, _ = append_op_outputs(
        "fused_elemwise_activation", {"X": x, "Y": y},
        [("Out", x.dtype, False), ("IntermediateOut", x.dtype, False)],
        {"functor_list": list(functor_list), "axis": int(axis), "scale": float(scale),
         "save_intermediate_out": bool(save_intermediate_out)})
    return out


def multiclass_nms2(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold=0.3,
                    normalized=True, nms_eta=1.0, background_label=0, return_index=False,
                    name=None):
    """fluid.layers.multiclass_nms's boxes through the multiclass_nms2 op (an empty Out when
    nothing is kept); with return_index also Index [No, 1]."""
    out, index = multiclass_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k,
                                nms_threshold, normalized, nms_eta, background_label, name,
                                return_index=True)
    return (out, index) if return_index else out


def shuffle_batch(x, seed=None):
    """X's rows (along its last dim) in a random order (ops/shuffle_batch.py). The seed: an
    int, else the main program's random_seed when set, else a random one; a persistable
    int64 Seed variable starts at it (in the startup program) and takes the op's SeedOut,
    so every run shuffles anew, as in Paddle 1.8. A Variable seed is used as it is."""
    check_variable(x, "x", "shuffle_batch")
    helper = LayerHelper("shuffle_batch")
    if seed is None:
        seed = helper.main_program.random_seed or int(np.random.randint(-65536, 65535))
    attrs = {}
    if isinstance(seed, (int, np.integer)):
        attrs["startup_seed"] = int(seed)
        seed_var = helper.create_global_variable(
            name=unique_name.generate("shuffle_batch_seed"), shape=[1], dtype="int64",
            persistable=True, stop_gradient=True)
        Constant(float(seed))(seed_var)
        seed = seed_var
    check_variable(seed, "seed", "shuffle_batch")
    out = helper.create_variable_for_type_inference(x.dtype)
    shuffle_index = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(type="shuffle_batch", inputs={"X": [x], "Seed": [seed]},
                     outputs={"Out": [out], "ShuffleIdx": [shuffle_index],
                              "SeedOut": [seed]}, attrs=attrs)
    return out


def _partial(op_type, input, start_index, length):
    if not isinstance(input, (list, tuple)):
        input = [input]
    for i, x in enumerate(input):
        check_dtype(x, "input[%d]" % i, op_type, ("float32", "float64", "int32", "int64"))
    for arg, value in (("start_index", start_index), ("length", length)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("%s: %s must be an int, got %r" % (op_type, arg, value))
    return append_op_out(op_type, {"X": list(input)},
                         {"start_index": start_index, "length": length})


def partial_concat(input, start_index=0, length=-1):
    """The columns [start_index, start_index + length) of each 2-D input, joined along
    axis 1 (ops/partial_concat.py)."""
    return _partial("partial_concat", input, start_index, length)


def partial_sum(input, start_index=0, length=-1):
    """The sum of the columns [start_index, start_index + length) of the 2-D inputs
    (ops/partial_sum.py)."""
    return _partial("partial_sum", input, start_index, length)


def match_matrix_tensor(x, y, channel_num, act=None, param_attr=None, dtype="float32",
                        name=None):
    """(act(Out), Tmp) of the match_matrix_tensor op (ops/match_matrix_tensor.py) with its
    weight W [h, channel_num, h] made here, as Paddle 1.8.5 builds it."""
    check_variable(x, "x", "match_matrix_tensor")
    check_variable(y, "y", "match_matrix_tensor")
    if len(x.shape) != 2 or len(y.shape) != 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError("match_matrix_tensor: x and y must be [rows, h] sequences of one "
                         "width, got %s and %s" % (list(x.shape), list(y.shape)))
    helper = LayerHelper("match_matrix_tensor", name=name)
    w = helper.create_parameter(param_attr, [x.shape[-1], channel_num, y.shape[-1]], dtype)
    out, tmp, _ = append_op_outputs(
        "match_matrix_tensor", {"X": x, "Y": y, "W": w},
        [("Out", dtype, False), ("Tmp", dtype, True), ("OutLength", "int64", True)],
        {"dim_t": int(channel_num)}, helper=helper)
    return helper.append_activation(out, act), tmp


def sequence_topk_avg_pooling(input, row, col, topks, channel_num):
    """Out of the sequence_topk_avg_pooling op (ops/sequence_topk_avg_pooling.py): per
    row of each sequence's [channel_num, rows, cols] grid, the top-k averages."""
    for arg, var in (("input", input), ("row", row), ("col", col)):
        check_variable(var, arg, "sequence_topk_avg_pooling")
    out, _ = append_op_outputs(
        "sequence_topk_avg_pooling", {"X": input, "ROW": row, "COLUMN": col},
        [("Out", input.dtype, False), ("pos", "int32", True)],
        {"topks": [int(k) for k in topks], "channel_num": int(channel_num)})
    return out


def rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank=3,
                   max_size=0):
    """Out [N, D] of the rank_attention op (ops/rank_attention.py) with its RankParam
    rank_param_shape = [max_rank^2 C, D] made here in input's dtype. Paddle 1.8.5 binds Out
    only (and makes an InsRank variable it never binds); 2.0 and 3 bind InputHelp and
    InsRank too and pass max_size (switch rank_attention_helper_outputs)."""
    check_dtype(input, "input", "rank_attention", ("float32", "float64"))
    check_dtype(rank_offset, "rank_offset", "rank_attention", ("int32", "int64"))
    if len(input.shape) != 2 or input.shape[1] * max_rank * max_rank != rank_param_shape[0]:
        raise ValueError("rank_attention: rank_param_shape[0] must be input's width times "
                         "max_rank^2 (%d), got %s for input of shape %s"
                         % (max_rank * max_rank, rank_param_shape[0], list(input.shape)))
    helper = LayerHelper("rank_attention")
    dtype = input.dtype
    rank_param = helper.create_parameter(rank_param_attr, list(rank_param_shape), dtype)
    rank_param.stop_gradient = False
    output = helper.create_variable_for_type_inference(dtype)
    outputs, attrs = {"Out": [output]}, {"MaxRank": int(max_rank)}
    helpers = versions.switch("rank_attention_helper_outputs")
    if helpers:
        outputs["InputHelp"] = [helper.create_variable_for_type_inference(
            dtype, stop_gradient=True)]
        attrs["MaxSize"] = int(max_size)
    ins_rank = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    if helpers:
        outputs["InsRank"] = [ins_rank]
    helper.append_op(type="rank_attention", inputs={
        "X": [input], "RankOffset": [rank_offset], "RankParam": [rank_param]},
        outputs=outputs, attrs=attrs)
    return output


def fused_embedding_seq_pool(input, size, is_sparse=False, padding_idx=None, combiner="sum",
                             param_attr=None, dtype="float32"):
    """Out [sequences, size[1]] of the fused_embedding_seq_pool op
    (ops/fused_embedding_seq_pool.py): per sequence of `input`'s ids, the sum of the rows of
    the table W (`size`, made here). A negative padding_idx counts from the table's end."""
    check_dtype(input, "input", "fused_embedding_seq_pool", ("int64",))
    helper = LayerHelper("fused_embedding_seq_pool")
    w = helper.create_parameter(param_attr, list(size), dtype)
    padding_idx = -1 if padding_idx is None else \
        padding_idx if padding_idx >= 0 else size[0] + padding_idx
    return append_op_out("fused_embedding_seq_pool", {"Ids": [input], "W": [w]},
                         {"is_sparse": bool(is_sparse), "combiner": combiner,
                          "padding_idx": int(padding_idx)})


def _check_int_dtype(dtype, arg, layer):
    if dtype not in ("int32", "int64"):
        raise TypeError("%s: %s must be int32 or int64, got %r" % (layer, arg, dtype))


def _tree_parameter(helper, attr, shape, dtype):
    """A tree table parameter (zeros unless its attr's initializer says otherwise) that
    no gradient reaches."""
    table = helper.create_parameter(attr, shape, dtype, default_initializer=Constant(0))
    table.stop_gradient = True
    return table


def tdm_child(x, node_nums, child_nums, param_attr=None, dtype="int32"):
    """(Child, LeafMask) of the tdm_child op (ops/tdm_child.py) with the tree table
    TreeInfo [node_nums, 3 + child_nums] (int32: Paddle makes it in `dtype`, whose
    initializers fill int32 only) made here from param_attr."""
    _check_int_dtype(dtype, "dtype", "fluid.contrib.layers.tdm_child")
    check_variable(x, "x", "tdm_child")
    helper = LayerHelper("tdm_child")
    tree_info = _tree_parameter(helper, param_attr, [node_nums, 3 + child_nums], dtype)
    child, leaf_mask = append_op_outputs(
        "tdm_child", {"X": x, "TreeInfo": tree_info},
        [("Child", dtype, True), ("LeafMask", dtype, True)],
        {"child_nums": int(child_nums), "dtype": dtype}, helper=helper)
    return child, leaf_mask


def tdm_sampler(x, neg_samples_num_list, layer_node_num_list, leaf_node_num,
                tree_travel_attr=None, tree_layer_attr=None, output_positive=True,
                output_list=True, seed=0, tree_dtype="int32", dtype="int32"):
    """(samples, labels, mask) of the tdm_sampler op (ops/tdm_sampler.py) with the Travel
    [leaf_node_num, layers] and Layer [nodes, 1] parameters made here; with output_list,
    each a list of one [N, output_positive + negatives, 1] part per layer."""
    layer = "fluid.contrib.layers.tdm_sampler"
    _check_int_dtype(tree_dtype, "tree_dtype", layer)
    _check_int_dtype(dtype, "dtype", layer)
    check_variable(x, "x", "tdm_sampler")
    if len(neg_samples_num_list) != len(layer_node_num_list):
        raise ValueError("The shape of negative samples list must match the shape of layers. "
                         "But received len of neg_samples_num_list: %d, and len of "
                         "layer_node_num_list: %d, please check your input."
                         % (len(neg_samples_num_list), len(layer_node_num_list)))
    offsets = [0]
    for l, (negatives, nodes) in enumerate(zip(neg_samples_num_list, layer_node_num_list)):
        if negatives >= nodes:
            raise ValueError("The number of negative samples must be less than the number of "
                             "nodes in the layer %d, But received negative nums %d, and num "
                             "of node at layer %d is %d" % (l, negatives, l, nodes))
        offsets.append(offsets[-1] + nodes)
    if leaf_node_num is None or leaf_node_num >= offsets[-1]:
        raise ValueError("%s: leaf_node_num (%r) must be less than the %d nodes of the layers"
                         % (layer, leaf_node_num, offsets[-1]))
    helper = LayerHelper("tdm_sampler")
    travel = _tree_parameter(helper, tree_travel_attr,
                             [leaf_node_num, len(layer_node_num_list)], tree_dtype)
    nodes = _tree_parameter(helper, tree_layer_attr, [offsets[-1], 1], tree_dtype)
    outs = append_op_outputs(
        "tdm_sampler", {"X": x, "Travel": travel, "Layer": nodes},
        [("Out", dtype, True), ("Labels", dtype, True), ("Mask", dtype, True)],
        {"neg_samples_num_list": list(neg_samples_num_list), "layer_offset_lod": offsets,
         "output_positive": bool(output_positive), "seed": int(seed), "dtype": dtype},
        helper=helper)
    if not output_list:
        return tuple(outs)
    parts = ([], [], [])
    start = 0
    for negatives in neg_samples_num_list:
        width = negatives + int(bool(output_positive))
        for out, part in zip(outs, parts):
            piece = fluid_reshape(_slice(out, axes=[1], starts=[start], ends=[start + width]),
                                  [-1, width, 1])
            piece.stop_gradient = True
            part.append(piece)
        start += width
    return parts


def _pair(value, arg):
    pair = [value, value] if isinstance(value, int) else list(value)
    if len(pair) != 2 or not all(isinstance(v, int) for v in pair):
        raise TypeError("var_conv_2d: %s must be an int or two ints, got %r" % (arg, value))
    return pair


def var_conv_2d(input, row, col, input_channel, output_channel, filter_size, stride=1,
                param_attr=None, act=None, dtype="float32", name=None):
    """act(Out) of the var_conv_2d op (ops/var_conv_2d.py): each sequence of `input` an
    [input_channel, rows, cols] image (rows, cols: the lengths of `row`'s and `col`'s
    sequences), convolved with the filter [output_channel, input_channel * kh * kw] made
    here."""
    for arg, var in (("input", input), ("row", row), ("col", col)):
        check_variable(var, arg, "var_conv_2d")
    if len(input.shape) != 2:
        raise ValueError("var_conv_2d: input must be 2-D [values, 1], got shape %s"
                         % list(input.shape))
    kernel, strides = _pair(filter_size, "filter_size"), _pair(stride, "stride")
    helper = LayerHelper("var_conv_2d", name=name)
    w = helper.create_parameter(
        param_attr, [int(output_channel), int(input_channel) * kernel[0] * kernel[1]], dtype)
    out, _ = append_op_outputs(
        "var_conv_2d", {"X": input, "ROW": row, "COLUMN": col, "W": w},
        [("Out", dtype, False), ("Col", dtype, True)],
        {"InputChannel": int(input_channel), "OutputChannel": int(output_channel),
         "StrideH": strides[0], "StrideW": strides[1], "KernelH": kernel[0],
         "KernelW": kernel[1]}, helper=helper)
    return helper.append_activation(out, act)


def batch_fc(input, param_size, param_attr, bias_size, bias_attr, act=None):
    """Out [S, N, O] of the batch_fc op (ops/batch_fc.py): per slot s, input[s] [N, I]
    times W[s] plus Bias[s], W `param_size` [S, I, O] and Bias `bias_size` [S, O] made here
    in input's dtype (neither initialized as a bias, as Paddle 2.0 makes them), then act."""
    check_variable(input, "input", "batch_fc")
    shape = list(input.shape)
    if (len(shape) != 3 or len(param_size) != 3 or len(bias_size) != 2
            or shape[0] != param_size[0] or shape[2] != param_size[1]
            or param_size[2] != bias_size[1] or shape[0] != bias_size[0]):
        raise ValueError("batch_fc: param_size must be [S, I, O] and bias_size [S, O] for "
                         "input [S, N, I], got param_size %s and bias_size %s for input %r "
                         "of shape %s" % (list(param_size), list(bias_size), input.name,
                                          shape))
    check_dtype(input, "input", "batch_fc", ("float32", "float64"))
    helper = LayerHelper("batch_fc")
    w = helper.create_parameter(param_attr, list(param_size), input.dtype)
    bias = helper.create_parameter(bias_attr, list(bias_size), input.dtype)
    out = append_op_out("batch_fc", {"Input": [input], "W": [w], "Bias": [bias]})
    return helper.append_activation(out, act)


def bilateral_slice(x, guide, grid, has_offset, name=None):
    """Out [N, Co, H, W] of the bilateral_slice op (ops/bilateral_slice.py): X's pixels
    transformed by the affine coefficients Grid holds at (x, y, Guide)."""
    for arg, value in (("x", x), ("guide", guide), ("grid", grid)):
        check_dtype(value, arg, "bilateral_slice", ("float32", "float64"))
    return append_op_out("bilateral_slice", {"X": [x], "Guide": [guide], "Grid": [grid]},
                         {"has_offset": bool(has_offset)}, name)
