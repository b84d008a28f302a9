"""Layers with parameters: fc, ..."""
from ..framework.layer_helper import LayerHelper
from .common import check_variable

__all__ = ["fc"]


def fc(x=None, size=None, num_flatten_dims=1, weight_attr=None, bias_attr=None,
       activation=None, name=None, input=None, param_attr=None, act=None):
    """Fully connected: act(sum_i(x_i @ W_i) + b). Both the paddle.static.nn spelling
    (x, weight_attr, activation) and fluid's (input, param_attr, act) are accepted."""
    x = input if x is None else x
    weight_attr = param_attr if weight_attr is None else weight_attr
    activation = act if activation is None else activation
    if size is None:
        raise TypeError("fc: `size` is required")
    inputs = x if isinstance(x, (list, tuple)) else [x]
    attrs = weight_attr if isinstance(weight_attr, (list, tuple)) else [weight_attr] * len(inputs)
    helper = LayerHelper("fc", name=name)
    products = []
    for v, attr in zip(inputs, attrs):
        check_variable(v, "x", "fc")
        in_shape = v.shape
        if num_flatten_dims == -1:      # Paddle 1.8.5 and 2.0: all but the last dim
            num_flatten_dims = len(in_shape) - 1
        if not 0 < num_flatten_dims < len(in_shape):
            raise ValueError("fc: num_flatten_dims=%d must be in [1, %d) for input %r of shape "
                             "%s" % (num_flatten_dims, len(in_shape), v.name, list(in_shape)))
        k = 1
        for d in in_shape[num_flatten_dims:]:
            if d < 0:
                raise ValueError("fc: input %r has unknown dims after num_flatten_dims=%d: %s"
                                 % (v.name, num_flatten_dims, list(in_shape)))
            k *= d
        w = helper.create_parameter(attr, [k, size], v.dtype)
        out = helper.create_variable_for_type_inference(v.dtype)
        helper.append_op(type="mul", inputs={"X": [v], "Y": [w]}, outputs={"Out": [out]},
                         attrs={"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1})
        products.append(out)
    if len(products) > 1:
        pre_bias = helper.create_variable_for_type_inference(inputs[0].dtype)
        helper.append_op(type="sum", inputs={"X": products}, outputs={"Out": [pre_bias]})
    else:
        pre_bias = products[0]
    pre_act = helper.append_bias_op(pre_bias, bias_attr, dim_start=num_flatten_dims)
    return helper.append_activation(pre_act, activation)


EXPORTS = {
    "static.nn": {"fc": fc},
    "fluid.layers": {"fc": fc},
}
