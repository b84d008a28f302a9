"""Convolutions and pooling beyond 2-D conv: paddle.nn.functional (2.0) conv1d,
conv1d_transpose, conv2d_transpose, conv3d, conv3d_transpose, {max,avg}_pool{1,3}d,
adaptive_{avg,max}_pool{1,3}d; fluid.layers (1.8) pool3d and adaptive_pool3d.
The 1-D forms view x as 2-D with a unit height (unsqueeze, the 2-D op, squeeze), as
Paddle 2.0 builds them."""
from .common import append_op_out, check_variable
from .conv import (_pool, adaptive_sizes, check_groups, check_pool_args, known_channels, override_divisor,
                   refuse_valid_ceil)
from .pool_mask import (adaptive_max_pool_with_mask, max_pool_with_mask, refuse_channel_last,
                        required_index)
from .tensor import squeeze, unsqueeze


_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _ints(value, n, what, layer):
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ValueError("%s: `%s` must be an int or %d ints, got %s" % (layer, what, n, value))
    return [int(v) for v in values]


def _padding(padding, nd, data_format, layer):
    """(paddings, padding_algorithm): 'same'/'valid', an int, nd ints, 2*nd ints
    (lo, hi per dim) or nd+2 [lo, hi] pairs including the batch and channel dims."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise ValueError("%s: padding must be 'same', 'valid' or numbers, got %r"
                             % (layer, padding))
        return [0] * nd, algo
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0],
                                                                      (list, tuple)):
        if len(padding) != nd + 2:
            raise ValueError("%s: padding pairs must cover all %d dims, got %s"
                             % (layer, nd + 2, padding))
        spatial = padding[1:-1] if data_format[-1] == "C" else padding[2:]
        others = [padding[0], padding[-1] if data_format[-1] == "C" else padding[1]]
        if any(int(v) != 0 for pair in others for v in pair):
            # as Paddle 1.8.5 and 2.0
            raise ValueError("%s: the padding pairs of the batch and channel dims must be "
                             "[0, 0] (%s), got %s" % (layer, data_format, padding))
        return [int(v) for pair in spatial for v in pair], "EXPLICIT"
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * nd:
        return [int(v) for v in padding], "EXPLICIT"
    return _ints(padding, nd, "padding", layer), "EXPLICIT"


def _add_bias(out, bias, data_format):
    if bias is None:
        return out
    axis = len(out.shape) - 1 if data_format[-1] == "C" else 1
    return append_op_out("elementwise_add", {"X": [out], "Y": [bias]}, {"axis": axis})


def _conv_nd(op_type, x, weight, bias, stride, padding, dilation, groups, data_format, nd,
             name, layer, transpose_attrs=None):
    check_variable(x, "x", layer)
    check_variable(weight, "weight", layer)
    if data_format not in _FORMATS[nd]:
        raise ValueError("%s: data_format must be one of %s, got %r"
                         % (layer, list(_FORMATS[nd]), data_format))
    known_channels(x, data_format, layer)
    paddings, algo = _padding(padding, nd, data_format, layer)
    attrs = {"strides": _ints(stride, nd, "stride", layer), "paddings": paddings,
             "padding_algorithm": algo, "groups": check_groups(layer, groups),
             "dilations": _ints(dilation, nd, "dilation", layer), "data_format": data_format}
    if op_type == "conv3d_transpose":    # Paddle's op names the layouts NCHW / NHWC
        attrs["data_format"] = "NHWC" if data_format[-1] == "C" else "NCHW"
    attrs.update(transpose_attrs or {})
    out = append_op_out(op_type, {"Input": [x], "Filter": [weight]}, attrs, name,
                        out_slot="Output")
    return _add_bias(out, bias, data_format)


def _transpose_attrs(output_padding, output_size, nd, layer):
    if output_size is not None and output_padding:
        raise ValueError("%s: give output_size or output_padding, not both" % layer)
    return {"output_padding": _ints(output_padding, nd, "output_padding", layer)
            if output_padding else [],
            "output_size": _ints(output_size, nd, "output_size", layer)
            if output_size is not None else []}


def conv_transpose_op(op_type, nd, x, weight, bias, stride, padding, output_padding, groups,
                      dilation, data_format, output_size, name):
    """conv{nd}d_transpose as the op `op_type` (fluid 1.8's conv2d_transpose layer builds
    depthwise_conv2d_transpose for one group per channel)."""
    layer = "conv%dd_transpose" % nd
    return _conv_nd(op_type, x, weight, bias, stride, padding, dilation, groups, data_format,
                    nd, name, layer, _transpose_attrs(output_padding, output_size, nd, layer))


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, data_format="NCHW", output_size=None, name=None):
    """The adjoint of conv2d in its input; weight [C_in, C_out / groups, kh, kw]."""
    return conv_transpose_op("conv2d_transpose", 2, x, weight, bias, stride, padding,
                             output_padding, groups, dilation, data_format, output_size, name)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    return _conv_nd("conv3d", x, weight, bias, stride, padding, dilation, groups,
                    data_format, 3, name, "conv3d")


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, data_format="NCDHW", output_size=None, name=None):
    return conv_transpose_op("conv3d_transpose", 3, x, weight, bias, stride, padding,
                             output_padding, groups, dilation, data_format, output_size, name)


# -- 1-D through 2-D with a unit height
_FORMATS_1D = {"NCL": ("NCHW", 2), "NLC": ("NHWC", 1)}


def _as_2d(x, weight, padding, data_format, layer):
    """x with a unit height dim, the weight [M, C, 1, k], padding for (height, width)."""
    if data_format not in _FORMATS_1D:
        raise ValueError("%s: data_format must be 'NCL' or 'NLC', got %r" % (layer, data_format))
    fmt_2d, axis = _FORMATS_1D[data_format]
    check_variable(x, "x", layer)
    if len(x.shape) != 3:
        raise ValueError("%s: x must be 3-D, got %s" % (layer, list(x.shape)))
    if isinstance(padding, str):
        pad_2d = padding
    else:
        paddings, _ = _padding(padding, 1, data_format, layer)
        pad_2d = [0, 0] + (paddings * 2 if len(paddings) == 1 else paddings)
    return unsqueeze(x, [axis]), unsqueeze(weight, [2]), pad_2d, fmt_2d, axis


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCL", name=None):
    x2, w2, pad, fmt, axis = _as_2d(x, weight, padding, data_format, "conv1d")
    out = _conv_nd("conv2d", x2, w2, None, [1] + _ints(stride, 1, "stride", "conv1d"), pad,
                   [1] + _ints(dilation, 1, "dilation", "conv1d"), groups, fmt, 2, None,
                   "conv1d")
    return _add_bias(squeeze(out, [axis]), bias, data_format)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    x2, w2, pad, fmt, axis = _as_2d(x, weight, padding, data_format, "conv1d_transpose")
    extra = _transpose_attrs(output_padding, output_size, 1, "conv1d_transpose")
    extra = {k: ([1 if k == "output_size" else 0] + v if v else []) for k, v in extra.items()}
    out = _conv_nd("conv2d_transpose", x2, w2, None,
                   [1] + _ints(stride, 1, "stride", "conv1d_transpose"), pad,
                   [1] + _ints(dilation, 1, "dilation", "conv1d_transpose"), groups, fmt, 2,
                   None, "conv1d_transpose", extra)
    return _add_bias(squeeze(out, [axis]), bias, data_format)


def _check_1d(x, layer):
    check_variable(x, "x", layer)
    if len(x.shape) != 3:
        raise ValueError("%s: x must be [N, C, L], got %s" % (layer, list(x.shape)))


def _pool1d(x, pool_type, kernel_size, stride, padding, ceil_mode, exclusive, adaptive,
            layer, return_mask=False):
    """The 1-D pool as the 2-D one over [N, C, 1, L]; with return_mask, (out, mask)."""
    _check_1d(x, layer)
    refuse_valid_ceil(padding, ceil_mode, layer)
    k = [1] + _ints(kernel_size, 1, "kernel_size", layer)
    s = k if stride is None else [1] + _ints(stride, 1, "stride", layer)
    paddings, algo = _padding(padding, 1, "NCL", layer)
    pad = padding if isinstance(padding, str) else \
        [0, 0] + (paddings * 2 if len(paddings) == 1 else paddings)
    if return_mask:
        outs = max_pool_with_mask(unsqueeze(x, [2]), k, s, pad, algo, ceil_mode, layer)
        return tuple(squeeze(v, [2]) for v in outs)
    out = _pool(unsqueeze(x, [2]), pool_type, k, s, pad, ceil_mode, exclusive, False, "NCHW",
                None, adaptive)
    return squeeze(out, [2])


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    return _pool1d(x, "max", kernel_size, stride, padding, ceil_mode, True, False,
                   "max_pool1d", return_mask)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    return _pool1d(x, "avg", kernel_size, stride, padding, ceil_mode, exclusive, False,
                   "avg_pool1d")


def adaptive_avg_pool1d(x, output_size, name=None):
    return _pool1d(x, "avg", output_size, 1, 0, False, True, True, "adaptive_avg_pool1d")


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    if return_mask:
        _check_1d(x, "adaptive_max_pool1d")
        size = _ints(output_size, 1, "output_size", "adaptive_max_pool1d")
        outs = adaptive_max_pool_with_mask(unsqueeze(x, [2]), [1] + size)
        return tuple(squeeze(v, [2]) for v in outs)
    return _pool1d(x, "max", output_size, 1, 0, False, True, True, "adaptive_max_pool1d")


# -- 3-D pooling
def _pool3d(x, pool_type, kernel_size, stride, padding, ceil_mode, exclusive, global_pooling,
            adaptive, data_format, name, layer, return_mask=False):
    """pool3d; with return_mask, (out, mask) of max_pool3d_with_index."""
    check_variable(x, "x", layer)
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError("%s: data_format must be 'NCDHW' or 'NDHWC', got %r"
                         % (layer, data_format))
    refuse_valid_ceil(padding, ceil_mode, layer)
    paddings, algo = _padding(padding, 3, data_format, layer)
    k = _ints(kernel_size, 3, "kernel_size", layer)
    strides = k if stride is None else _ints(stride, 3, "stride", layer)
    if return_mask:
        refuse_channel_last(data_format, layer)
        return max_pool_with_mask(x, k, strides, paddings, algo, ceil_mode, layer)
    return append_op_out("pool3d", {"X": [x]},
                         {"pooling_type": pool_type, "ksize": k, "strides": strides,
                          "paddings": paddings, "padding_algorithm": algo,
                          "global_pooling": bool(global_pooling), "ceil_mode": bool(ceil_mode),
                          "exclusive": bool(exclusive), "adaptive": bool(adaptive),
                          "data_format": data_format}, name)


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCDHW", name=None):
    return _pool3d(x, "max", kernel_size, stride, padding, ceil_mode, True, False, False,
                   data_format, name, "max_pool3d", return_mask)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    out = _pool3d(x, "avg", kernel_size, stride, padding, ceil_mode, exclusive, False, False,
                  data_format, name, "avg_pool3d")
    return override_divisor(out, _ints(kernel_size, 3, "kernel_size", "avg_pool3d"),
                            divisor_override, "avg_pool3d")


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    return _pool3d(x, "avg", adaptive_sizes(x, output_size, 3, data_format), 1, 0, False, True,
                   False, True, data_format, name, "adaptive_avg_pool3d")


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    sizes = adaptive_sizes(x, output_size, 3, "NCDHW")
    if return_mask:
        check_variable(x, "x", "adaptive_max_pool3d")
        return adaptive_max_pool_with_mask(
            x, _ints(sizes, 3, "output_size", "adaptive_max_pool3d"))
    return _pool3d(x, "max", sizes, 1, 0, False, True, False, True, "NCDHW", name,
                   "adaptive_max_pool3d")


def pool3d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCDHW"):
    check_pool_args("pool3d", pool_type, pool_size, global_pooling, use_cudnn, pool_padding,
                    ceil_mode)
    size = 1 if global_pooling and pool_size == -1 else pool_size
    return _pool3d(input, pool_type, size, pool_stride, pool_padding, ceil_mode, exclusive,
                   global_pooling, False, data_format, name, "pool3d")


def adaptive_pool3d(input, pool_size, pool_type="max", require_index=False, name=None):
    if require_index:
        check_variable(input, "input", "adaptive_pool3d")
        return required_index(input, pool_size, pool_type, 3, "adaptive_pool3d")
    return _pool3d(input, pool_type, pool_size, 1, 0, False, True, False, True, "NCDHW",
                   name, "adaptive_pool3d")


EXPORTS = {
    "nn.functional": {"conv1d": conv1d, "conv1d_transpose": conv1d_transpose,
                      "conv2d_transpose": conv2d_transpose, "conv3d": conv3d,
                      "conv3d_transpose": conv3d_transpose, "max_pool1d": max_pool1d,
                      "avg_pool1d": avg_pool1d, "adaptive_avg_pool1d": adaptive_avg_pool1d,
                      "adaptive_max_pool1d": adaptive_max_pool1d, "max_pool3d": max_pool3d,
                      "avg_pool3d": avg_pool3d, "adaptive_avg_pool3d": adaptive_avg_pool3d,
                      "adaptive_max_pool3d": adaptive_max_pool3d},
    "fluid.layers": {"pool3d": pool3d, "adaptive_pool3d": adaptive_pool3d},
    # Paddle 3's top-level names of these functionals
    "paddle": {"conv1d": conv1d, "conv3d": conv3d, "adaptive_avg_pool1d": adaptive_avg_pool1d},
}
