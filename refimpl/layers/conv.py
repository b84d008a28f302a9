"""conv2d, deformable_conv and pool2d layers (fluid.layers, static.nn, nn.functional
spellings)."""
import math

import numpy as np

from ..framework.initializer import Normal
from ..framework.layer_helper import LayerHelper
from .. import versions
from .common import append_op_out, check_variable
from .math import scale
from .pool_mask import (adaptive_max_pool_with_mask, max_pool_with_mask, refuse_channel_last,
                        required_index)


def _pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v]


def _padding(padding, data_format="NCHW"):
    """(paddings list, padding_algorithm) from 'SAME'/'VALID', an int, [ph, pw],
    [top, bottom, left, right], or one [before, after] pair per dimension of the input
    (the batch and channel pairs must be [0, 0])."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise ValueError("padding must be 'SAME', 'VALID', an int or a list, got %r"
                             % padding)
        return [0, 0], algo
    p = _pair(padding)
    if len(p) == 4 and all(isinstance(v, (list, tuple)) for v in p):
        nhwc = data_format == "NHWC"
        spatial, others = (p[1:3], [p[0], p[3]]) if nhwc else (p[2:], p[:2])
        if any(list(v) != [0, 0] for v in others):
            raise ValueError("padding %s pads the batch or channel dimension" % (padding,))
        return [v for pair in spatial for v in pair], "EXPLICIT"
    if len(p) not in (2, 4):
        raise ValueError("padding must have 1, 2 or 4 values, got %s" % (padding,))
    return p, "EXPLICIT"


def _conv_type(channels, num_filters, groups):
    """depthwise_conv2d for one group per channel, as Paddle picks it (its own op type, so
    passes can find it)."""
    return "depthwise_conv2d" if groups == channels > 1 and num_filters % channels == 0 \
        else "conv2d"


def check_groups(layer, groups):
    """A conv's groups: None (the fluid layers' default, one group) or an int > 0; 0 is a
    ValueError as in Paddle 3.3.1 (2.0 divided by it: ZeroDivisionError)."""
    if groups is None:
        return 1
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError("%s: groups must be an int greater than 0, got %r" % (layer, groups))
    return int(groups)


def check_filters(layer, num_filters, channels):
    """A conv layer's num_filters and its input's channel count, both > 0 (Paddle 3.3.1
    refuses 0 filters with a ValueError)."""
    if not isinstance(num_filters, (int, np.integer)) or num_filters <= 0:
        raise ValueError("%s: num_filters must be an int greater than 0, got %r"
                         % (layer, num_filters))
    if channels == 0:
        raise ValueError("%s: the input has 0 channels (expected at least 1)" % layer)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """Conv layer: Filter [num_filters, C/groups, kh, kw] initialized N(0, sqrt(2/(kh*kw*C)))
    as Paddle does, bias added on the channel axis, then `act`."""
    check_variable(input, "input", "conv2d")
    if not isinstance(use_cudnn, bool):
        raise ValueError("conv2d: use_cudnn must be True or False, got %r" % (use_cudnn,))
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("conv2d: data_format must be 'NCHW' or 'NHWC', got %r"
                         % (data_format,))
    helper = LayerHelper("conv2d", name=name)
    check_rank(input, data_format, "conv2d")
    channels = input.shape[3] if data_format == "NHWC" else input.shape[1]
    groups = check_groups("conv2d", groups)
    check_filters("conv2d", num_filters, channels)
    if channels < 0 or channels % groups:
        raise ValueError("conv2d: input channels %d must be known and divisible by groups=%d"
                         % (channels, groups))
    kh, kw = _pair(filter_size)
    std = math.sqrt(2.0 / (kh * kw * channels))
    w = helper.create_parameter(param_attr, [num_filters, channels // groups, kh, kw],
                                input.dtype, default_initializer=Normal(0.0, std))
    paddings, algo = _padding(padding, data_format)
    out = append_op_out(_conv_type(channels, num_filters, groups), {"Input": [input], "Filter": [w]},
                        {"strides": _pair(stride), "paddings": paddings,
                         "padding_algorithm": algo, "groups": groups,
                         "dilations": _pair(dilation), "data_format": data_format,
                         "use_cudnn": use_cudnn},
                        name=helper.name, out_slot="Output")   # no second conv2d_N name
    pre_act = helper.append_bias_op(out, bias_attr, dim_start=3 if data_format == "NHWC" else 1)
    return helper.append_activation(pre_act, act, use_cudnn=use_cudnn)


def check_rank(x, data_format, layer):
    """x has one dim per letter of data_format ("NCHW": 4-D), else a ValueError (as Paddle
    3.3.1's conv functionals and static.nn.conv2d)."""
    if len(x.shape) != len(data_format):
        raise ValueError("%s: x %r must be %d-D (%s), got shape %s"
                         % (layer, x.name, len(data_format), data_format, list(x.shape)))


def known_channels(x, data_format, layer):
    """x's channel dim (last for channel-last formats, else dim 1), which the 2.0 conv
    functionals need known when built: a ValueError otherwise (switch
    conv_channels_known). x must have one dim per letter of data_format (a ValueError)."""
    check_rank(x, data_format, layer)
    channels = x.shape[-1] if data_format[-1] == "C" else x.shape[1]
    if channels < 0 and versions.switch("conv_channels_known"):
        raise ValueError("%s: the channel dim of x must be known, got shape %s (%s)"
                         % (layer, list(x.shape), data_format))
    return channels


def functional_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NCHW", name=None):
    check_variable(x, "x", "conv2d")
    groups = check_groups("conv2d", groups)
    paddings, algo = _padding(padding, data_format)
    channels = known_channels(x, data_format, "conv2d")
    out = append_op_out(_conv_type(channels, weight.shape[0], groups),
                        {"Input": [x], "Filter": [weight]},
                        {"strides": _pair(stride), "paddings": paddings,
                         "padding_algorithm": algo, "groups": groups,
                         "dilations": _pair(dilation), "data_format": data_format},
                        name, out_slot="Output")
    if bias is None:
        return out
    return append_op_out("elementwise_add", {"X": [out], "Y": [bias]},
                         {"axis": 3 if data_format == "NHWC" else 1})


def _pool(x, pool_type, ksize, stride, padding, ceil_mode, exclusive, global_pooling,
          data_format, name, adaptive=False, use_cudnn=False):
    check_variable(x, "x", "pool2d")
    paddings, algo = _padding(padding, data_format)
    return append_op_out("pool2d", {"X": [x]},
                         {"pooling_type": pool_type, "ksize": _pair(ksize),
                          "strides": _pair(stride), "paddings": paddings,
                          "padding_algorithm": algo, "global_pooling": global_pooling,
                          "ceil_mode": ceil_mode, "exclusive": exclusive,
                          "adaptive": adaptive, "data_format": data_format,
                          "use_cudnn": use_cudnn}, name)


def check_pool_args(layer, pool_type, pool_size, global_pooling, use_cudnn, pool_padding,
                    ceil_mode):
    """fluid pool2d / pool3d's argument checks, with the error types Paddle 1.8.5 raises."""
    if pool_type not in ("max", "avg"):
        raise ValueError("%s: pool_type must be 'max' or 'avg', got %r" % (layer, pool_type))
    if not global_pooling and pool_size == -1:
        raise ValueError("%s: pool_size must be given unless global_pooling is True"
                         % layer)
    if not isinstance(use_cudnn, (bool, np.bool_)):
        raise TypeError("%s: use_cudnn must be True or False, got %r" % (layer, use_cudnn))
    refuse_valid_ceil(pool_padding, ceil_mode, layer, "pool_padding")


def refuse_valid_ceil(padding, ceil_mode, layer, arg="padding"):
    """Paddle's pools (fluid 1.8.5 and the 2.0 functionals) raise a ValueError for ceil_mode
    with padding 'VALID'."""
    if isinstance(padding, str) and padding.upper() == "VALID" and ceil_mode:
        raise ValueError('%s: with %s "VALID", ceil_mode must be False' % (layer, arg))


def pool2d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCHW"):
    check_pool_args("pool2d", pool_type, pool_size, global_pooling, use_cudnn, pool_padding,
                    ceil_mode)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("pool2d: data_format must be 'NCHW' or 'NHWC', got %r" % (data_format,))
    return _pool(input, pool_type, pool_size, pool_stride, pool_padding, ceil_mode, exclusive,
                 global_pooling, data_format, name, use_cudnn=use_cudnn)


def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):
    if require_index:
        check_variable(input, "input", "adaptive_pool2d")
        return required_index(input, pool_size, pool_type, 2, "adaptive_pool2d")
    return _pool(input, pool_type, pool_size, 1, 0, False, True, False, "NCHW", name, True)


def max_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCHW", name=None):
    """The max pool; with return_mask, (out, mask) of max_pool2d_with_index."""
    refuse_valid_ceil(padding, ceil_mode, "max_pool2d")
    stride = kernel_size if stride is None else stride
    if return_mask:
        check_variable(x, "x", "max_pool2d")
        refuse_channel_last(data_format, "max_pool2d")
        paddings, algo = _padding(padding, data_format)
        return max_pool_with_mask(x, _pair(kernel_size), _pair(stride), paddings, algo,
                                  ceil_mode, "max_pool2d")
    return _pool(x, "max", kernel_size, stride, padding, ceil_mode, True, False, data_format,
                 name)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    refuse_valid_ceil(padding, ceil_mode, "avg_pool2d")
    out = _pool(x, "avg", kernel_size, kernel_size if stride is None else stride, padding,
                ceil_mode, exclusive, False, data_format, name)
    return override_divisor(out, _pair(kernel_size), divisor_override, "avg_pool2d")


def override_divisor(out, ksize, divisor_override, layer):
    """The average pools' divisor_override as Paddle 2.0 and 3.3.1 apply it: the pooled
    output times the kernel's area (volume), divided by the divisor (two scale ops, as 2.0's
    Tensor * number and Tensor / number build them)."""
    if divisor_override is None:
        return out
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, float)):
        raise ValueError("%s: divisor_override must be an int or a float, got %s"
                         % (layer, type(divisor_override).__name__))
    return scale(scale(out, float(np.prod(ksize))), 1.0 / divisor_override)


def adaptive_sizes(x, output_size, nd, data_format):
    """The adaptive pools' output_size with None items taken from x's spatial dims (as
    Paddle 2.0 and 3.3.1 do: None keeps that dim)."""
    if not isinstance(output_size, (list, tuple)):
        return output_size
    spatial = x.shape[1:1 + nd] if data_format[-1] == "C" else x.shape[2:2 + nd]
    return [dim if size is None else size for size, dim in zip(output_size, spatial)]


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    return _pool(x, "avg", adaptive_sizes(x, output_size, 2, data_format), 1, 0, False, True,
                 False, data_format, name, True)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """The adaptive max pool; with return_mask, (out, mask) of max_pool2d_with_index."""
    sizes = adaptive_sizes(x, output_size, 2, "NCHW")
    if return_mask:
        check_variable(x, "x", "adaptive_max_pool2d")
        return adaptive_max_pool_with_mask(x, _pair(sizes))
    return _pool(x, "max", sizes, 1, 0, False, True, False, "NCHW", name, True)


def _int_pair(value, what, layer):
    values = list(value) if isinstance(value, (list, tuple)) else [value, value]
    if len(values) != 2:
        raise ValueError("%s: %s must be an int or 2 ints, got %s" % (layer, what, value))
    return [int(v) for v in values]


def deformable_conv(input, offset, mask, num_filters, filter_size, stride=1, padding=0,
                    dilation=1, groups=None, deformable_groups=None, im2col_step=None,
                    param_attr=None, bias_attr=None, modulated=True, name=None):
    """Deformable convolution v2 (modulated: deformable_conv op, reads `mask`) or v1
    (deformable_conv_v1, mask ignored). Filter [num_filters, C/groups, kh, kw] initialized
    N(0, sqrt(2 / (kh * kw * C))) as conv2d; bias added on the channel axis."""
    layer = "deformable_conv"
    for arg, v in (("input", input), ("offset", offset)):
        check_variable(v, arg, layer)
    if modulated:
        check_variable(mask, "mask", layer)
    channels = input.shape[1]
    groups = groups or 1
    if channels < 0 or channels % groups:
        raise ValueError("%s: input channels %d must be known and divisible by groups=%d"
                         % (layer, channels, groups))
    kh, kw = _int_pair(filter_size, "filter_size", layer)
    helper = LayerHelper(layer, name=name)
    std = math.sqrt(2.0 / (kh * kw * channels))
    weight = helper.create_parameter(param_attr, [num_filters, channels // groups, kh, kw],
                                     input.dtype, default_initializer=Normal(0.0, std))
    inputs = {"Input": [input], "Offset": [offset], "Filter": [weight]}
    if modulated:
        inputs["Mask"] = [mask]
    out = append_op_out("deformable_conv" if modulated else "deformable_conv_v1", inputs,
                        {"strides": _int_pair(stride, "stride", layer),
                         "paddings": _int_pair(padding, "padding", layer),
                         "dilations": _int_pair(dilation, "dilation", layer),
                         "groups": groups, "deformable_groups": deformable_groups or 1,
                         "im2col_step": im2col_step or 64},
                        out_slot="Output", layer_type=layer)
    return helper.append_bias_op(out, bias_attr, dim_start=1)


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1,
                  groups=1, deformable_groups=1, im2col_step=1, weight_attr=None,
                  bias_attr=None, name=None):
    """paddle.static.nn.deform_conv2d (Paddle 2.0): deformable_conv, modulated (v2) when
    given a mask, v1 without one."""
    return deformable_conv(x, offset, mask, num_filters, filter_size, stride, padding,
                           dilation, groups, deformable_groups, im2col_step, weight_attr,
                           bias_attr, modulated=mask is not None, name=name)


EXPORTS = {
    "fluid.layers": {"conv2d": conv2d, "pool2d": pool2d, "adaptive_pool2d": adaptive_pool2d,
                     "deformable_conv": deformable_conv},
    "static.nn": {"conv2d": conv2d, "deform_conv2d": deform_conv2d},
    "nn.functional": {"conv2d": functional_conv2d, "max_pool2d": max_pool2d,
                      "avg_pool2d": avg_pool2d, "adaptive_avg_pool2d": adaptive_avg_pool2d,
                      "adaptive_max_pool2d": adaptive_max_pool2d},
    "paddle": {"conv2d": functional_conv2d},   # Paddle 3's top-level name
}
