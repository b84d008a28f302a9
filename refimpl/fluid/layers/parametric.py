"""Paddle 1.8's fluid.layers functions that create their own parameters and have a
fluid.dygraph (or paddle.nn) Layer of the same maths: conv3d, conv2d_transpose,
conv3d_transpose, instance_norm, prelu, spectral_norm, nce. Each builds that Layer
once and applies it, so the parameter shapes, default initializers and names
(`conv3d_0.w_0`, as Paddle's LayerHelper names them) live in one place; in static mode
applying it appends the ops to the current program. bilinear_tensor_product (whose
2.0 Layer names its parameters otherwise) creates its two parameters here.

`name=` is accepted and names nothing: the parameters keep the layer's numbered name
(Paddle 1.8 would call them `<name>.w_0`), recorded in specs/fluid_layers.md."""
from ...framework.layer_helper import LayerHelper
from ...layers.common import check_variable
from ...layers.conv import check_filters, check_groups
from ...layers.functional_conv import _padding
from ...layers.functional_nn import bilinear
from ...nn.layer.spectral_norm import SpectralNorm
from ..dygraph.nn import (NCE, Conv3D, Conv2DTranspose, Conv3DTranspose,
                          InstanceNorm, PRelu)

__all__ = ["conv3d", "conv2d_transpose", "conv3d_transpose",
           "instance_norm", "prelu", "spectral_norm", "bilinear_tensor_product", "nce"]


_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _channels(input, data_format, layer, nd):
    """The input's channel count, for a channels-first or channels-last data_format (as
    1.8.5, ValueError for another format or an unknown channel dim)."""
    check_variable(input, "input", layer)
    if data_format not in _FORMATS[nd]:
        raise ValueError("%s: data_format must be one of %s, got %r"
                         % (layer, _FORMATS[nd], data_format))
    if len(input.shape) != nd + 2:
        raise ValueError("%s: input %r must be %d-D, got shape %s"
                         % (layer, input.name, nd + 2, list(input.shape)))
    channels = input.shape[-1 if data_format[-1] == "C" else 1]
    if channels is None or channels < 0:
        raise ValueError("%s: the channel dim of input %r (%s) must be known, got %s"
                         % (layer, input.name, data_format, list(input.shape)))
    return channels


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """Also NDHWC input, as 1.8.5 (the Conv3D Layer is NCDHW only; its conv gets the
    layout). The paddings are checked by the conv (SAME / VALID, 3 or 6 ints, or one
    [lo, hi] pair per dim with zeros on the batch and channel dims)."""
    if not isinstance(use_cudnn, bool):
        raise ValueError("conv3d: use_cudnn must be a bool, got %r" % (use_cudnn,))
    channels = _channels(input, data_format, "conv3d", 3)
    groups = check_groups("conv3d", groups)
    check_filters("conv3d", num_filters, channels)
    _padding(padding, 3, data_format, "conv3d")     # checked before the parameters, as 1.8.5
    layer = Conv3D(channels, num_filters, filter_size, stride, padding, dilation, groups,
                   param_attr, bias_attr, use_cudnn, act, dtype=input.dtype)
    layer._data_format = data_format
    return layer(input)


def _filter_size(input, output_size, filter_size, padding, stride, dilation, nd, layer,
                 data_format):
    """filter_size, or the one that makes output_size from the input (Paddle 1.8's rule:
    (out - (in - 1) * stride + 2 * pad - 1) // dilation + 1 per spatial dim)."""
    if filter_size is not None:
        return filter_size
    if output_size is None:
        raise ValueError("%s: output_size must be set when filter_size is None" % layer)

    def per_dim(v):
        return [v] * nd if isinstance(v, int) else list(v)
    out, pad, st, dil = (per_dim(v) for v in (output_size, padding, stride, dilation))
    if len(pad) != nd:
        raise ValueError("%s: computing filter_size needs one padding per spatial dim, got %r"
                         % (layer, padding))
    return [(o - (i - 1) * s + 2 * p - 1) // d + 1
            for o, i, s, p, d in zip(out, input.shape[1:-1] if data_format[-1] == "C"
                                     else input.shape[2:], st, pad, dil)]


def _conv_transpose(cls, nd, data_format_default):
    """fluid.layers.conv{nd}d_transpose: the `cls` Layer of the input's channels, its
    filter_size from output_size when not given."""
    layer = "conv%dd_transpose" % nd

    def conv_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                       stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                       use_cudnn=True, act=None, name=None, data_format=data_format_default):
        channels = _channels(input, data_format, layer, nd)
        check_filters(layer, num_filters, channels)
        if groups is not None:
            check_groups(layer, groups)
        size = _filter_size(input, output_size, filter_size, padding, stride, dilation, nd,
                            layer, data_format)
        conv = cls(channels, num_filters, size, output_size, padding, stride, dilation,
                   groups, param_attr, bias_attr, use_cudnn, act, dtype=input.dtype)
        conv._data_format = data_format
        if nd == 2 and channels == groups == num_filters and not use_cudnn:
            conv._op_type = "depthwise_conv2d_transpose"     # as Paddle 1.8 picks it
        return conv(input)
    conv_transpose.__name__ = conv_transpose.__qualname__ = layer
    return conv_transpose


conv2d_transpose = _conv_transpose(Conv2DTranspose, 2, "NCHW")
conv3d_transpose = _conv_transpose(Conv3DTranspose, 3, "NCDHW")


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    check_variable(input, "input", "instance_norm")
    return InstanceNorm(input.shape[1], epsilon, param_attr, bias_attr,
                        dtype=input.dtype)(input)


def prelu(x, mode, param_attr=None, name=None):
    check_variable(x, "x", "prelu")
    channel = x.shape[1] if len(x.shape) > 1 else None
    return PRelu(mode, channel=channel, input_shape=x.shape, param_attr=param_attr,
                 dtype=x.dtype)(x)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    check_variable(weight, "weight", "spectral_norm")
    return SpectralNorm(weight.shape, dim, power_iters, eps, dtype=weight.dtype)(weight)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None,
                            bias_attr=None):
    """out[n, k] = x[n] W[k] y[n] + b[k]: W [size, M, N] (Xavier), b [1, size] (zeros;
    bias_attr=False: none), then act."""
    check_variable(x, "x", "bilinear_tensor_product")
    check_variable(y, "y", "bilinear_tensor_product")
    helper = LayerHelper("bilinear_tensor_product", name=name)
    w = helper.create_parameter(param_attr, [size, x.shape[1], y.shape[1]], x.dtype)
    b = helper.create_parameter(bias_attr, [1, size], x.dtype, is_bias=True) \
        if bias_attr is not False else None
    return helper.append_activation(bilinear(x, y, w, b, name=helper.name), act)


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None,
        bias_attr=None, num_neg_samples=None, name=None, sampler="uniform", custom_dist=None,
        seed=0, is_sparse=False):
    """A bias unless bias_attr is False (the NCE Layer's default is none)."""
    check_variable(input, "input", "nce")
    bias_attr = True if bias_attr is None else bias_attr
    return NCE(num_total_classes, input.shape[1], sample_weight, param_attr, bias_attr,
               num_neg_samples, sampler, custom_dist, seed, is_sparse,
               dtype=input.dtype)(input, label)
