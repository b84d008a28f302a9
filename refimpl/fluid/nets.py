"""paddle.fluid.nets (1.8): small networks built from fluid.layers.

simple_img_conv_pool: conv2d then pool2d. img_conv_group: a stack of conv2d (each with
optional batch_norm and dropout) then one pool2d. sequence_conv_pool: sequence_conv then
sequence_pool. glu: split in two along `dim`, a * sigmoid(b). scaled_dot_product_attention:
multi-head attention softmax(q k^T / sqrt(d)) v, with fc projections when num_heads > 1.
"""
from ..layers.common import check_dtype
from . import layers

__all__ = ["simple_img_conv_pool", "img_conv_group", "sequence_conv_pool", "glu",
           "scaled_dot_product_attention"]


def simple_img_conv_pool(input, num_filters, filter_size, pool_size, pool_stride,
                         pool_padding=0, pool_type="max", global_pooling=False, conv_stride=1,
                         conv_padding=0, conv_dilation=1, conv_groups=1, param_attr=None,
                         bias_attr=None, act=None, use_cudnn=True):
    conv = layers.conv2d(input, num_filters, filter_size, stride=conv_stride,
                         padding=conv_padding, dilation=conv_dilation, groups=conv_groups,
                         param_attr=param_attr, bias_attr=bias_attr, act=act,
                         use_cudnn=use_cudnn)
    return layers.pool2d(conv, pool_size=pool_size, pool_type=pool_type,
                         pool_stride=pool_stride, pool_padding=pool_padding,
                         global_pooling=global_pooling, use_cudnn=use_cudnn)


def _per_conv(value, n, what):
    """One value per conv layer: a list / tuple of n, or one value for all."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError("img_conv_group: %s has %d entries for %d conv layers"
                             % (what, len(value), n))
        return list(value)
    return [value] * n


def img_conv_group(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3,
                   conv_act=None, param_attr=None, conv_with_batchnorm=False,
                   conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type="max",
                   use_cudnn=True):
    if not isinstance(conv_num_filter, (list, tuple)):
        raise TypeError("img_conv_group: conv_num_filter must be a list or tuple, got %s"
                        % type(conv_num_filter).__name__)
    n = len(conv_num_filter)
    paddings = _per_conv(conv_padding, n, "conv_padding")
    sizes = _per_conv(conv_filter_size, n, "conv_filter_size")
    attrs = _per_conv(param_attr, n, "param_attr")
    with_bn = _per_conv(conv_with_batchnorm, n, "conv_with_batchnorm")
    drops = _per_conv(conv_batchnorm_drop_rate, n, "conv_batchnorm_drop_rate")
    tmp = input
    for i in range(n):
        tmp = layers.conv2d(tmp, conv_num_filter[i], sizes[i], padding=paddings[i],
                            param_attr=attrs[i], act=None if with_bn[i] else conv_act,
                            use_cudnn=use_cudnn)
        if with_bn[i]:
            tmp = layers.batch_norm(tmp, act=conv_act)
            if abs(drops[i]) > 1e-5:
                tmp = layers.dropout(tmp, dropout_prob=drops[i])
    return layers.pool2d(tmp, pool_size=pool_size, pool_type=pool_type,
                         pool_stride=pool_stride, use_cudnn=use_cudnn)


def sequence_conv_pool(input, num_filters, filter_size, param_attr=None, act="sigmoid",
                       pool_type="max", bias_attr=None):
    conv = layers.sequence_conv(input, num_filters, filter_size, param_attr=param_attr,
                                bias_attr=bias_attr, act=act)
    return layers.sequence_pool(conv, pool_type)


def glu(input, dim=-1):
    a, b = layers.split(input, num_or_sections=2, dim=dim)
    return layers.elementwise_mul(a, layers.sigmoid(b))


def scaled_dot_product_attention(queries, keys, values, num_heads=1, dropout_rate=0.0):
    for name, v in (("queries", queries), ("keys", keys), ("values", values)):
        check_dtype(v, name, "scaled_dot_product_attention", ("float32", "float64"))
    if not queries.dtype == keys.dtype == values.dtype:
        raise TypeError("scaled_dot_product_attention: queries, keys and values must have "
                        "one dtype, got %s, %s and %s"
                        % (queries.dtype.name, keys.dtype.name, values.dtype.name))
    for name, v in (("queries", queries), ("keys", keys), ("values", values)):
        if len(v.shape) != 3:
            raise ValueError("scaled_dot_product_attention: %s must be 3-D [batch, length, "
                             "hidden], got %s" % (name, list(v.shape)))
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError("scaled_dot_product_attention: queries and keys must have the same "
                         "hidden size, got %d and %d" % (queries.shape[-1], keys.shape[-1]))
    if keys.shape[-2] != values.shape[-2]:
        raise ValueError("scaled_dot_product_attention: keys and values must have the same "
                         "length, got %d and %d" % (keys.shape[-2], values.shape[-2]))
    for name, v in (("queries", queries), ("values", values)):
        if v.shape[-1] % num_heads:
            raise ValueError("scaled_dot_product_attention: the hidden size of %s (%d) must "
                             "divide by num_heads (%d)" % (name, v.shape[-1], num_heads))

    def project(x):
        if num_heads == 1:
            return x
        return layers.fc(x, size=x.shape[-1], num_flatten_dims=2, bias_attr=False)

    def split_heads(x):
        if num_heads == 1:
            return x
        shaped = layers.reshape(x, [0, 0, num_heads, x.shape[-1] // num_heads])
        return layers.transpose(shaped, [0, 2, 1, 3])

    def combine_heads(x):
        if num_heads == 1:
            return x
        merged = layers.transpose(x, [0, 2, 1, 3])
        return layers.reshape(merged, [0, 0, merged.shape[2] * merged.shape[3]])

    q, k, v = (split_heads(project(x)) for x in (queries, keys, values))
    key_dim = k.shape[-1]
    scaled_q = layers.scale(q, scale=key_dim ** -0.5)
    weights = layers.softmax(layers.matmul(scaled_q, k, transpose_y=True))
    if dropout_rate:
        weights = layers.dropout(weights, dropout_prob=dropout_rate, is_test=False)
    return combine_heads(layers.matmul(weights, v))
