"""Padding, pixel rearrangements, resizing and patch extraction: paddle.nn.functional
(2.0) pad / pixel_shuffle / interpolate / upsample / unfold / diag_embed / temporal_shift,
(Paddle 3) zeropad2d / pixel_unshuffle / channel_shuffle / fold, and fluid.layers (1.8) pad / pad2d / pad_constant_like / pixel_shuffle / space_to_depth /
shuffle_channel / image_resize / resize_{bilinear,nearest,trilinear} / temporal_shift."""
import numpy as np

from .. import versions
from ..dygraph.tensor import Tensor
from ..framework.mode import in_dynamic_mode
from ..framework.program import Variable
from ..framework.errors import LayerAssertionError
from .common import append_op_out, check_variable
from .creation import assign, fill_constant
from .conv import adaptive_avg_pool2d
from .functional_conv import adaptive_avg_pool1d, adaptive_avg_pool3d
from .tensor import concat, squeeze, unsqueeze


def _ints(value, n, what, layer):
    """An int or a list of n ints -> list of n ints (Variables are not supported here)."""
    if isinstance(value, Variable) or (isinstance(value, (list, tuple)) and any(
            isinstance(v, Variable) for v in value)):
        raise NotImplementedError("%s: `%s` given as a Variable is not supported; pass "
                                  "Python ints" % (layer, what))
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ValueError("%s: `%s` must have %d values, got %s" % (layer, what, n, values))
    return [int(v) for v in values]


# -- padding
def fluid_pad(x, paddings, pad_value=0.0, name=None):
    """Constant padding of every dim; paddings [before_0, after_0, before_1, ...]."""
    check_variable(x, "x", "pad")
    paddings = _ints(paddings, 2 * len(x.shape), "paddings", "pad")
    return append_op_out("pad", {"X": [x]}, {"paddings": paddings,
                                             "pad_value": float(pad_value)}, name)


_SPATIAL_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _check_pad_args(mode, data_format):
    """Paddle 2.0's and 3.3.1's F.pad checks, AssertionErrors (measured on 3.3.1): the mode,
    the data_format, and for anything but a full constant pad, a 3-, 4- or 5-D x whose
    data_format matches its rank ('NCL' / 'NLC', 'NCHW' / 'NHWC', 'NCDHW' / 'NDHWC')."""
    if mode not in _PAD_MODES:
        raise AssertionError("pad: mode must be one of %s, got %r" % (list(_PAD_MODES), mode))
    if not any(data_format in formats for formats in _SPATIAL_FORMATS.values()):
        raise AssertionError("pad: data_format must be one of %s, got %r"
                             % ([f for fs in _SPATIAL_FORMATS.values() for f in fs],
                                data_format))


def _check_pad_rank(x, data_format):
    ndim = len(x.shape)
    if ndim not in _SPATIAL_FORMATS:
        raise AssertionError("pad: x must be 3-, 4- or 5-D unless `pad` is a constant pad "
                             "listing all %d dims, got %s" % (ndim, list(x.shape)))
    if data_format not in _SPATIAL_FORMATS[ndim]:
        raise AssertionError("pad: a %d-D x takes data_format %s, got %r"
                             % (ndim, " or ".join(_SPATIAL_FORMATS[ndim]), data_format))


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """paddle.nn.functional.pad. A constant pad listing every dim (2 * ndim values,
    [before_0, after_0, ...]) is the pad op; otherwise x is 3/4/5-D, `pad` lists the
    spatial dims innermost first ([left, right(, top, bottom(, front, back))]), and x is
    viewed as 5-D for pad3d, as Paddle 2.0 does. `pad` may be an int32 Tensor: an eager
    one is read now, a static one becomes pad3d's Paddings input (read when it runs)."""
    check_variable(x, "x", "pad")
    data_format = data_format.upper()
    _check_pad_args(mode, data_format)
    if isinstance(pad, Tensor):
        pad = pad.numpy().ravel().tolist()
    ndim = len(x.shape)
    if mode == "constant" and isinstance(pad, (list, tuple)) and len(pad) == 2 * ndim:
        return fluid_pad(x, pad, value, name)
    _check_pad_rank(x, data_format)
    spatial = ndim - 2
    channels_last = data_format[-1] == "C"
    first = 1 if channels_last else 2
    # extra unit dims go right after the real spatial dims, so `pad`'s pairs stay on them
    extra = list(range(first + spatial, first + 3))
    x5 = unsqueeze(x, extra) if extra else x
    # pad3d lists W, H, D innermost first: the real dims are the outer ones of the 5-D view,
    # the unit dims' pairs come first
    unit_pairs = [0, 0] * (3 - spatial)
    inputs, attrs = {"X": [x5]}, {"mode": mode, "value": float(value),
                                  "data_format": "NDHWC" if channels_last else "NCDHW"}
    if isinstance(pad, Variable):
        inputs["Paddings"] = [concat([fill_constant([len(unit_pairs)], "int32", 0), pad])
                              if unit_pairs else pad]
        attrs["paddings"] = []
    else:
        attrs["paddings"] = unit_pairs + _ints(pad, 2 * spatial, "pad", "pad")
    out = append_op_out("pad3d", inputs, attrs, name)
    return squeeze(out, extra) if extra else out


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Paddle 3: pad with zeros, padding [left, right, top, bottom] (or an int)."""
    return pad(x, padding, "constant", 0.0, data_format, name)


def pad2d(input, paddings=(0, 0, 0, 0), mode="constant", pad_value=0.0, data_format="NCHW",
          name=None):
    """fluid.layers.pad2d: paddings [top, bottom, left, right] (a list, or a 1-D int32
    Variable read when the op runs); constant / reflect / edge."""
    check_variable(input, "input", "pad2d")
    inputs = {"X": [input]}
    if isinstance(paddings, Variable):
        inputs["Paddings"] = [paddings]
        paddings = []
    else:
        paddings = _ints(paddings, 4, "paddings", "pad2d")
    return append_op_out("pad2d", inputs,
                         {"paddings": paddings, "mode": mode, "pad_value": float(pad_value),
                          "data_format": data_format}, name)


def pad_constant_like(x, y, pad_value=0.0, name=None):
    """y padded with pad_value at the end of each dim up to x's shape."""
    check_variable(x, "x", "pad_constant_like")
    check_variable(y, "y", "pad_constant_like")
    return append_op_out("pad_constant_like", {"X": [x], "Y": [y]},
                         {"pad_value": float(pad_value)}, name, out_dtype=y.dtype)


# -- pixel rearrangements
def check_pixel_shuffle_args(upscale_factor, data_format, layer):
    """An int factor (a float, even 3.0, is a TypeError in 2.0 and 3.3.1, measured) and
    NCHW / NHWC (else ValueError)."""
    if not isinstance(upscale_factor, int):
        raise TypeError("%s: upscale_factor must be an int, got %r" % (layer, upscale_factor))
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("%s: data_format must be 'NCHW' or 'NHWC', got %r"
                         % (layer, data_format))


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    check_variable(x, "x", "pixel_shuffle")
    check_pixel_shuffle_args(upscale_factor, data_format, "pixel_shuffle")
    return append_op_out("pixel_shuffle", {"X": [x]}, {"upscale_factor": int(upscale_factor),
                                                       "data_format": data_format}, name)


def _check_rearrangement(x, factor, what, data_format, layer):
    """3.3.1's checks of pixel_unshuffle and channel_shuffle (measured): a 4-D x
    (ValueError), then check_rearrangement_args."""
    check_variable(x, "x", layer)
    if len(x.shape) != 4:
        raise ValueError("%s: x must be 4-D, got shape %s" % (layer, list(x.shape)))
    check_rearrangement_args(factor, what, data_format, layer)


def check_rearrangement_args(factor, what, data_format, layer):
    """An int factor (TypeError) that is positive, NCHW / NHWC (ValueError): 3.3.1's
    functions and layers (at construction) check them so."""
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError("%s: %s must be an int, got %r" % (layer, what, factor))
    if factor <= 0:
        raise ValueError("%s: %s must be positive, got %d" % (layer, what, factor))
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("%s: data_format must be 'NCHW' or 'NHWC', got %r"
                         % (layer, data_format))


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Paddle 3: [N, C, H, W] -> [N, C r^2, H/r, W/r], pixel_shuffle's inverse."""
    _check_rearrangement(x, downscale_factor, "downscale_factor", data_format,
                         "pixel_unshuffle")
    return append_op_out("pixel_unshuffle", {"X": [x]},
                         {"downscale_factor": downscale_factor, "data_format": data_format},
                         name)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Paddle 3: the channels as [groups, C/groups] read out transposed."""
    _check_rearrangement(x, groups, "groups", data_format, "channel_shuffle")
    return append_op_out("channel_shuffle", {"X": [x]},
                         {"groups": groups, "data_format": data_format}, name)


def fluid_pixel_shuffle(x, upscale_factor):
    return pixel_shuffle(x, upscale_factor)


def space_to_depth(x, blocksize, name=None):
    check_variable(x, "x", "space_to_depth")
    return append_op_out("space_to_depth", {"X": [x]}, {"blocksize": int(blocksize)}, name)


def shuffle_channel(x, group, name=None):
    check_variable(x, "x", "shuffle_channel")
    return append_op_out("shuffle_channel", {"X": [x]}, {"group": int(group)}, name)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    check_variable(x, "x", "temporal_shift")
    if data_format not in ("NCHW", "NHWC"):        # 3.3.1's words, in both modes
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         "Attr(data_format): %s." % data_format)
    return append_op_out("temporal_shift", {"X": [x]},
                         {"seg_num": int(seg_num), "shift_ratio": float(shift_ratio),
                          "data_format": data_format}, name)


def _four_paddings(paddings, layer):
    """unfold's and fold's paddings: one int, [h, w] or [top, left, bottom, right]."""
    if isinstance(paddings, (list, tuple)) and len(paddings) == 2:
        paddings = list(paddings) * 2
    return _ints(paddings, 4, "paddings", layer)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: [N, C, H, W] -> [N, C kh kw, L]."""
    check_variable(x, "x", "unfold")
    return append_op_out("unfold", {"X": [x]},
                         {"kernel_sizes": _ints(kernel_sizes, 2, "kernel_sizes", "unfold"),
                          "strides": _ints(strides, 2, "strides", "unfold"),
                          "paddings": _four_paddings(paddings, "unfold"),
                          "dilations": _ints(dilations, 2, "dilations", "unfold")},
                         name, out_slot="Y")


def _fold_pair(value, what):
    """An int or 2 ints, checked as 3.3.1's fold (measured): other lengths are an
    AssertionError, values that are no ints a TypeError (when the op is made)."""
    values = [value] * 2 if isinstance(value, int) else value
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise LayerAssertionError("fold: %s must be an int or 2 ints, got %r" % (what, value))
    if not all(isinstance(v, (int, np.integer)) for v in values):
        raise TypeError("fold: %s must be ints, got %r" % (what, value))
    return [int(v) for v in values]


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Paddle 3, col2im: [N, C kh kw, L] -> [N, C, *output_sizes], unfold's adjoint (3.3.1
    asserts a 3-D x and 2-value sizes; paddings of another length is a ValueError)."""
    check_variable(x, "x", "fold")
    if len(x.shape) != 3:
        raise LayerAssertionError("fold: x must be [N, C, L], got shape %s" % list(x.shape))
    attrs = {what: _fold_pair(value, what) for what, value in (
        ("output_sizes", output_sizes), ("kernel_sizes", kernel_sizes), ("strides", strides),
        ("dilations", dilations))}
    if not isinstance(paddings, int) and len(paddings) not in (2, 4):
        raise ValueError("fold: paddings must be an int or 2 or 4 ints, got %r" % (paddings,))
    attrs["paddings"] = _four_paddings(paddings, "fold")
    return append_op_out("fold", {"X": [x]}, attrs, name, out_slot="Y")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal `offset` (in the planes dim1, dim2) holds input's last dim.
    An input that is no Variable (a numpy array) is assigned first, as Paddle 1.8 and 2.0
    do."""
    if not isinstance(input, Variable):
        input = assign(input)
    return append_op_out("diag_embed", {"Input": [input]},
                         {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)})


# -- resizing
_V2_OPS = {("linear", 1): "linear_interp_v2", ("bilinear", 2): "bilinear_interp_v2",
           ("trilinear", 3): "trilinear_interp_v2", ("bicubic", 2): "bicubic_interp_v2",
           ("nearest", 2): "nearest_interp_v2"}
_OUT_NAMES = ("out_d", "out_h", "out_w")
_INTERP_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _size_attrs(x, size, scale, spatial, layer, scale_as_list):
    if (size is None) == (scale is None):
        raise ValueError("%s: give exactly one of the output size and the scale factor"
                         % layer)
    attrs = dict.fromkeys(_OUT_NAMES, -1)
    if size is not None:
        attrs.update(zip(_OUT_NAMES[3 - spatial:], _ints(size, spatial, "size", layer)))
        attrs["scale"] = [] if scale_as_list else 0.0
        return attrs
    if isinstance(scale, Variable):
        raise NotImplementedError("%s: a Variable scale is not supported" % layer)
    if scale_as_list:
        scales = list(scale) if isinstance(scale, (list, tuple)) else [scale] * spatial
        if len(scales) != spatial:
            raise ValueError("%s: scale_factor must have %d values, got %s"
                             % (layer, spatial, scales))
        if any(s <= 0 for s in scales):
            raise ValueError("%s: scale_factor must be > 0, got %s" % (layer, scales))
        attrs["scale"] = [float(s) for s in scales]
    else:
        attrs["scale"] = float(scale)
    return attrs


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format="NCHW", name=None):
    """paddle.nn.functional.interpolate (the *_interp_v2 ops): nearest / bicubic /
    bilinear for 4-D x, linear 3-D, trilinear 5-D; exactly one of size / scale_factor."""
    check_variable(x, "x", "interpolate")
    if not isinstance(align_corners, bool):     # Paddle 2.0 and 3.x: a TypeError
        raise TypeError("interpolate: align_corners must be a bool, got %s %r"
                        % (type(align_corners).__name__, align_corners))
    _check_align_mode(align_mode, "interpolate")
    mode = mode.lower()
    if mode == "area":
        return _area(x, size, name)
    spatial = len(x.shape) - 2
    op_type = _V2_OPS.get((mode, spatial))
    if op_type is None:
        raise ValueError("interpolate: mode %r does not take %d-D input %s (linear: 3-D, "
                         "bilinear/bicubic/nearest: 4-D, trilinear: 5-D)"
                         % (mode, len(x.shape), list(x.shape)))
    if align_corners and mode == "nearest":
        raise ValueError("interpolate: align_corners can only be set with the "
                         "interpolating modes linear | bilinear | bicubic | trilinear")
    if data_format not in _INTERP_FORMATS[len(x.shape)]:
        raise ValueError("interpolate: data_format for %d-D x must be one of %s, got %r"
                         % (len(x.shape), list(_INTERP_FORMATS[len(x.shape)]),
                            data_format))
    size = _checked_interp_size(size, scale_factor)
    if isinstance(size, Variable):      # 3.3.1's words (measured)
        if len(size.shape) != 1:
            raise ValueError("If size is a tensor, it's rank must be 1, but received %d."
                             % len(size.shape))
        if size.shape[0] not in (-1, spatial):
            raise ValueError("The x and size should satisfy rank(x) - 2 == size.shape[0].")
    inputs, size, scale = _runtime_size_inputs(size, scale_factor, spatial, "interpolate")
    if inputs and size is None and scale is None:
        attrs = dict(dict.fromkeys(_OUT_NAMES, -1), scale=[])
    else:
        attrs = _size_attrs(x, size, scale, spatial, "interpolate", True)
    # the ops' data_layout is "NCHW" or "NHWC" whatever the rank, as in Paddle
    attrs.update(interp_method=mode, align_corners=bool(align_corners),
                 align_mode=int(align_mode),
                 data_layout="NHWC" if data_format[-1] == "C" else "NCHW")
    return append_op_out(op_type, dict(inputs, X=[x]), attrs, name)


def _checked_interp_size(size, scale_factor):
    """Paddle 2.0's interpolate: exactly one of size (a list, a tuple or a Tensor; under 3
    in dynamic mode any iterable, switch interpolate_size_iterable) and scale_factor (a
    number, a list, a tuple or a Tensor). Returns size."""
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor, got %s"
                         % ("both" if size is not None else "neither"))
    if size is not None and not isinstance(size, (list, tuple, Variable)):
        if versions.switch("interpolate_size_iterable") == "iterable" and \
                in_dynamic_mode() and not isinstance(size, (int, str)) and \
                hasattr(size, "__iter__"):
            size = list(size)
        else:
            raise TypeError("interpolate: size must be a list, a tuple or a Tensor, got %s %r"
                            % (type(size).__name__, size))
    if scale_factor is not None and (isinstance(scale_factor, bool) or not isinstance(
            scale_factor, (int, float, list, tuple, Variable))):
        raise TypeError("interpolate: scale_factor must be a float, an int, a list, a tuple "
                        "or a Tensor, got %s" % type(scale_factor).__name__)
    return size


_AREA_POOLS = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}


def _area(x, size, name):
    """mode='area' is the adaptive average pool of x's rank to `size`, as Paddle 2.0 (and
    3.3.1, measured) composes it: a size is required, and data_format is not passed on
    (an NHWC x is pooled as NCHW there too)."""
    if size is None:
        raise ValueError("interpolate: output size can not be None in AREA mode")
    if len(x.shape) not in _AREA_POOLS:
        raise ValueError("interpolate: mode 'area' takes 3-D, 4-D or 5-D input, got %s"
                         % list(x.shape))
    return _AREA_POOLS[len(x.shape)](x, size, name=name)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format="NCHW", name=None):
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format,
                       name)


# LINEAR (3-D input, linear_interp) came with Paddle 2.0's fluid.layers.resize_linear
_V1_OPS = {"LINEAR": ("linear_interp", 1), "BILINEAR": ("bilinear_interp", 2),
           "NEAREST": ("nearest_interp", 2), "TRILINEAR": ("trilinear_interp", 3)}
_V1_OPS_WITH_BICUBIC = dict(_V1_OPS, BICUBIC=("bicubic_interp", 2))


def image_resize(input, out_shape=None, scale=None, name=None, resample="BILINEAR",
                 actual_shape=None, align_corners=True, align_mode=1, data_format="NCHW"):
    """fluid.layers.image_resize (the 1.8 *_interp ops): out_shape wins over scale."""
    return _resize(input, out_shape, scale, name, resample, actual_shape, align_corners,
                   align_mode, data_format, _V1_OPS, "image_resize")


def fluid_interpolate(input, out_shape=None, scale=None, name=None, resample="BILINEAR",
                      actual_shape=None, align_corners=True, align_mode=1,
                      data_format="NCHW"):
    """fluid.layers.interpolate (Paddle 1.8): image_resize that also takes 'BICUBIC'."""
    return _resize(input, out_shape, scale, name, resample, actual_shape, align_corners,
                   align_mode, data_format, _V1_OPS_WITH_BICUBIC, "interpolate")


def _check_align_mode(align_mode, layer):
    # Paddle 1.8.5's image_resize and 3.3.1's interpolate both refuse other values
    if align_mode not in (0, 1):
        raise ValueError("%s: align_mode must be 0 or 1, got %r" % (layer, align_mode))


def _resize(input, out_shape, scale, name, resample, actual_shape, align_corners,
            align_mode, data_format, methods, layer):
    check_variable(input, "input", layer)
    _check_align_mode(align_mode, layer)
    if resample not in methods:
        raise ValueError("%s: resample must be one of %s, got %r"
                         % (layer, sorted(methods), resample))
    op_type, spatial = methods[resample]
    if len(input.shape) != spatial + 2:
        raise ValueError("%s: %s takes %d-D input, got %s"
                         % (layer, resample, spatial + 2, list(input.shape)))
    formats = _INTERP_FORMATS[spatial + 2]
    if data_format not in formats:
        raise ValueError("%s: data_format of a %d-D input must be one of %s, got %r"
                         % (layer, spatial + 2, formats, data_format))
    if out_shape is not None:
        scale = None
    elif scale is None:
        raise ValueError("%s: give out_shape or scale" % layer)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float, Variable)):
        raise TypeError("%s: scale must be a float, an int or a Variable, got %r"
                        % (layer, scale))
    elif not isinstance(scale, Variable) and scale <= 0:
        raise ValueError("%s: scale must be > 0, got %s" % (layer, scale))
    inputs, out_shape, scale = _runtime_size_inputs(out_shape, scale, spatial, layer)
    if actual_shape is not None:    # the size at run time; out_shape only shapes the build
        check_variable(actual_shape, "actual_shape", layer)
        inputs["OutSize"] = [actual_shape]
    if inputs and out_shape is None and scale is None:
        attrs = dict(dict.fromkeys(_OUT_NAMES, -1), scale=0.0)
    else:
        attrs = _size_attrs(input, out_shape, scale, spatial, layer, False)
    attrs.update(interp_method=resample.lower(), align_corners=bool(align_corners),
                 align_mode=int(align_mode), data_layout=data_format)
    return append_op_out(op_type, dict(inputs, X=[input]), attrs, name)


def _runtime_size_inputs(out_shape, scale, spatial, layer):
    """The 1.8 ops' run-time size inputs: out_shape a Variable (OutSize), a list holding
    Variables (SizeTensor: one 1-element int32 tensor per axis, ints made constants), scale a
    Variable (Scale). Returns (inputs, the out_shape / scale left for the attrs)."""
    from .creation import fill_constant
    inputs = {}
    if isinstance(out_shape, Variable):
        inputs["OutSize"] = [out_shape]
        out_shape = None
    elif isinstance(out_shape, (list, tuple)) and any(isinstance(v, Variable)
                                                      for v in out_shape):
        if len(out_shape) != spatial:
            raise ValueError("%s: out_shape must have %d values, got %s"
                             % (layer, spatial, list(out_shape)))
        inputs["SizeTensor"] = [v if isinstance(v, Variable)
                                else fill_constant([1], "int32", int(v)) for v in out_shape]
        out_shape = [v if not isinstance(v, Variable) else -1 for v in out_shape]
    if isinstance(scale, Variable):
        inputs["Scale"] = [scale]
        scale = None
    return inputs, out_shape, scale


def resize_linear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                  align_corners=True, align_mode=1, data_format="NCW"):
    return image_resize(input, out_shape, scale, name, "LINEAR", actual_shape,
                        align_corners, align_mode, data_format)


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                    align_corners=True, align_mode=1, data_format="NCHW"):
    return image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape,
                        align_corners, align_mode, data_format)


def resize_trilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                     align_corners=True, align_mode=1, data_format="NCDHW"):
    return image_resize(input, out_shape, scale, name, "TRILINEAR", actual_shape,
                        align_corners, align_mode, data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None,
                   align_corners=True, data_format="NCHW"):
    return image_resize(input, out_shape, scale, name, "NEAREST", actual_shape,
                        align_corners, 1, data_format)


# -- spatial transformers
def affine_grid(theta, out_shape, align_corners=True, name=None):
    """Theta [N, 2, 3] and out_shape [N, C, H, W] (a list, or an int Variable) -> the
    [N, H, W, 2] sampling grid (affine_grid op)."""
    if not isinstance(theta, Variable) and \
            versions.switch("affine_grid_theta_error") == "ValueError":
        raise ValueError("affine_grid: theta should be a Tensor, got %s"
                         % type(theta).__name__)
    check_variable(theta, "theta", "affine_grid")
    inputs = {"Theta": [theta]}
    attrs = {"align_corners": bool(align_corners)}
    if isinstance(out_shape, Variable):
        inputs["OutputShape"] = [out_shape]
    else:
        attrs["output_shape"] = _ints(out_shape, 4, "out_shape", "affine_grid")
    return append_op_out("affine_grid", inputs, attrs, name, out_slot="Output")


def fluid_affine_grid(theta, out_shape, name=None):
    return affine_grid(theta, out_shape, True, name)


GRID_SAMPLE_MODES = ("bilinear", "nearest")
GRID_SAMPLE_PADDING_MODES = ("zeros", "reflection", "border")


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
                name=None):
    """x [N, C, H, W] sampled at grid [N, Ho, Wo, 2] of normalized (x, y) (grid_sampler);
    Paddle 2.0's ValueErrors for a mode, padding_mode or align_corners it does not take."""
    check_variable(x, "x", "grid_sample")
    check_variable(grid, "grid", "grid_sample")
    if mode not in GRID_SAMPLE_MODES:
        raise ValueError("grid_sample: mode must be one of %s, got %r"
                         % (list(GRID_SAMPLE_MODES), mode))
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError("grid_sample: padding_mode must be one of %s, got %r"
                         % (list(GRID_SAMPLE_PADDING_MODES), padding_mode))
    if not isinstance(align_corners, bool):
        raise ValueError("grid_sample: align_corners must be a bool, got %s %r"
                         % (type(align_corners).__name__, align_corners))
    return append_op_out("grid_sampler", {"X": [x], "Grid": [grid]},
                         {"mode": mode, "padding_mode": padding_mode,
                          "align_corners": bool(align_corners)}, name, out_slot="Output")


def grid_sampler(x, grid, name=None):
    return grid_sample(x, grid, name=name)


def image_resize_short(input, out_short_len, resample="BILINEAR"):
    """Resize [N, C, H, W] so its shorter side is out_short_len, the other side scaled by
    the same ratio (rounded half up), through image_resize."""
    check_variable(input, "input", "image_resize_short")
    if len(input.shape) != 4:
        raise ValueError("image_resize_short: input must be 4-D [N, C, H, W], got %s"
                         % list(input.shape))
    hw = list(input.shape[2:])
    if min(hw) <= 0:
        raise ValueError("image_resize_short: input's H and W must be known, got %s" % hw)
    short = hw.index(min(hw))
    out_shape = list(hw)
    out_shape[short] = int(out_short_len)
    out_shape[1 - short] = int(hw[1 - short] * (float(out_short_len) / hw[short]) + 0.5)
    return image_resize(input, out_shape=out_shape, resample=resample)


EXPORTS = {
    "nn.functional": {"pad": pad, "pixel_shuffle": pixel_shuffle, "zeropad2d": zeropad2d,
                      "pixel_unshuffle": pixel_unshuffle, "channel_shuffle": channel_shuffle,
                      "fold": fold,
                      "temporal_shift": temporal_shift, "unfold": unfold,
                      "diag_embed": diag_embed, "interpolate": interpolate,
                      "upsample": upsample, "affine_grid": affine_grid,
                      "grid_sample": grid_sample},
    "fluid.layers": {"pad": fluid_pad, "pad2d": pad2d, "pad_constant_like": pad_constant_like,
                     "pixel_shuffle": fluid_pixel_shuffle, "space_to_depth": space_to_depth,
                     "shuffle_channel": shuffle_channel, "temporal_shift": temporal_shift,
                     "image_resize": image_resize, "interpolate": fluid_interpolate,
                     "image_resize_short": image_resize_short,
                     "resize_linear": resize_linear, "resize_bilinear": resize_bilinear,
                     "resize_nearest": resize_nearest, "resize_trilinear": resize_trilinear,
                     "affine_grid": fluid_affine_grid, "grid_sampler": grid_sampler},
}
