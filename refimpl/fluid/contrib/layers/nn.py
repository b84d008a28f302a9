"""fluid.contrib.layers.tree_conv (1.8): the tree_conv op (refimpl/ops/tree_conv.py) with
its filter [feature_size, 3, output_size, num_filters] (XavierUniform), a bias of the
output's shape past the batch, [max_nodes, output_size, num_filters] (zeros; bias_attr=False:
none), then act, as Paddle 1.8.5 builds it."""
from ....framework.layer_helper import LayerHelper
from ....layers.common import append_op_out, check_dtype, check_variable

__all__ = ["tree_conv"]


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
