"""paddle.vision.transforms.functional on numpy images.

An image is an ndarray of shape (H, W) or (H, W, C) (uint8 in [0, 255], or float), or a
PIL.Image when PIL is installed (it is converted to an array, transformed, and converted back).
The colour and geometry rules follow Paddle's default 'pil' backend (ImageEnhance blends, ITU-R
601-2 grey, half-pixel-centre sampling); specs/vision_transforms.md lists where refimpl differs.
"""
import functools
import math
import numbers
from collections.abc import Sequence

import numpy as np

try:
    from PIL import Image as _PILImage
except ImportError:  # PIL is optional: numpy images need nothing else
    _PILImage = None

__all__ = ["to_tensor", "resize", "pad", "crop", "center_crop", "hflip", "vflip",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "rotate",
           "to_grayscale", "normalize"]

# ITU-R 601-2 luma, as 16-bit fixed point with rounding (PIL's "L" conversion of uint8 RGB).
_LUMA = (0.299, 0.587, 0.114)
_LUMA_FIXED = (19595, 38470, 7471)

_INTERPOLATIONS = ("nearest", "bilinear")
# resize's filters besides 'nearest': (kernel of the distance in input pixels, its support)
_RESIZE_FILTERS = {
    "bilinear": (lambda d: np.maximum(0.0, 1.0 - d), 1.0),
    # PIL's BICUBIC: the cubic convolution kernel with a = -0.5 (Keys)
    "bicubic": (lambda d: np.where(d < 1.0, (1.5 * d - 2.5) * d * d + 1.0,
                                   np.where(d < 2.0, ((-0.5 * d + 2.5) * d - 4.0) * d + 2.0,
                                            0.0)), 2.0),
}
_PADDING_MODES = ("constant", "edge", "reflect", "symmetric")


def _is_pil_image(img):
    return _PILImage is not None and isinstance(img, _PILImage.Image)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _check_image(img, fname):
    if not (_is_numpy_image(img) or _is_pil_image(img)):
        got = ("ndarray with %d dims" % img.ndim if isinstance(img, np.ndarray)
               else type(img).__name__)
        raise TypeError("vision.transforms.%s: img should be a numpy.ndarray of shape (H, W) or "
                        "(H, W, C)%s; got %s" % (fname, " or a PIL.Image" if _PILImage else "",
                                                 got))


def _image_function(fn):
    """Run `fn` on the image as an ndarray; a PIL image goes in and comes back as PIL."""
    @functools.wraps(fn)
    def wrapper(img, *args, **kwargs):
        _check_image(img, fn.__name__)
        if not _is_pil_image(img):
            return fn(img, *args, **kwargs)
        out = fn(np.asarray(img), *args, **kwargs)
        if out.ndim == 3 and out.shape[2] == 1:
            out = out[:, :, 0]
        return _PILImage.fromarray(out)
    return wrapper


def _channels(img):
    return 1 if img.ndim == 2 else img.shape[2]


def _to_dtype(values, dtype, truncate=False):
    """Float results back to the image dtype: integers round half up (or truncate) and
    saturate."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        values = np.trunc(values) if truncate else np.floor(values + 0.5)
        return np.clip(values, info.min, info.max).astype(dtype)
    return values.astype(dtype, copy=False)


def _size_pair(size, fname, what="size"):
    """An int or a (height, width) pair of ints -> (height, width)."""
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 2 and all(
            isinstance(s, numbers.Integral) for s in size):
        return int(size[0]), int(size[1])
    raise TypeError("vision.transforms.%s: %s should be an int or a (height, width) pair of "
                    "ints; got %r" % (fname, what, size))


def to_tensor(pic, data_format="CHW"):
    """Image -> array in `data_format` ('CHW' or 'HWC'); uint8 becomes float32 / 255.

    refimpl is static-graph only, so this returns a numpy ndarray (feed it to an Executor)
    instead of a dygraph Tensor.
    """
    _check_image(pic, "to_tensor")
    if data_format not in ("CHW", "HWC"):
        raise ValueError("vision.transforms.to_tensor: data_format should be 'CHW' or 'HWC'; "
                         "got %r" % (data_format,))
    img = np.asarray(pic)
    if img.dtype == np.bool_:  # PIL mode "1"
        img = img.astype(np.uint8) * 255
    if img.ndim == 2:
        img = img[:, :, None]
    if data_format == "CHW":
        img = img.transpose(2, 0, 1)
    if img.dtype == np.uint8:
        return img.astype(np.float32) / np.float32(255)
    return np.array(img)


def _nearest_indices(out_len, in_len):
    """The input pixel under each output pixel's centre."""
    centres = (np.arange(out_len) + 0.5) * (in_len / out_len)
    return np.minimum(np.floor(centres).astype(np.int64), in_len - 1)


def _filter_weights(out_len, in_len, interpolation):
    """(out_len, in_len) matrix of the resize filter at half-pixel centres, each row
    normalised over the input pixels it reaches (none outside the image). Upscaling with
    'bilinear' is plain bilinear interpolation with clamped edges; when downscaling the filter
    widens by the scale, so every input pixel contributes (antialiasing, as PIL's resize)."""
    kernel, support = _RESIZE_FILTERS[interpolation]
    scale = in_len / out_len
    width = max(scale, 1.0)
    centres = (np.arange(out_len) + 0.5) * scale
    distance = (np.arange(in_len) + 0.5)[None, :] - centres[:, None]
    weights = np.where(np.abs(distance) < support * width, kernel(np.abs(distance) / width), 0.0)
    return weights / weights.sum(axis=1, keepdims=True)


@_image_function
def resize(img, size, interpolation="bilinear"):
    """Resize to (height, width); an int sets the shorter side and keeps the aspect ratio
    (the longer side becomes int(size * long / short)). 'bilinear', 'bicubic': see
    _filter_weights; 'nearest': the input pixel under each output pixel's centre."""
    if interpolation != "nearest" and interpolation not in _RESIZE_FILTERS:
        raise ValueError("vision.transforms.resize: interpolation should be one of %s; got %r"
                         % (("nearest",) + tuple(_RESIZE_FILTERS), interpolation))
    if not isinstance(size, numbers.Integral):
        size = _size_pair(size, "resize")
    h, w = img.shape[:2]
    if isinstance(size, numbers.Integral):
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        size = (int(size * h / w), size) if w < h else (size, int(size * w / h))
    out_h, out_w = size
    if out_h <= 0 or out_w <= 0:
        raise ValueError("vision.transforms.resize: the output size must be positive; got "
                         "(height=%d, width=%d)" % (out_h, out_w))
    if interpolation == "nearest":
        return img[_nearest_indices(out_h, h)][:, _nearest_indices(out_w, w)]
    # Along the width first, then the height; integer images are rounded in between, as
    # PIL stores its intermediate image.
    rows = _to_dtype(np.einsum("hw...,pw->hp...", img.astype(np.float64),
                               _filter_weights(out_w, w, interpolation)), img.dtype)
    out = np.einsum("oh,hp...->op...", _filter_weights(out_h, h, interpolation),
                    rows.astype(np.float64))
    return _to_dtype(out, img.dtype)


def _padding4(padding, fname):
    """int | (left/right, top/bottom) | (left, top, right, bottom) -> (l, t, r, b)."""
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if not isinstance(padding, (list, tuple)) or len(padding) not in (2, 4) or not all(
            isinstance(p, numbers.Integral) for p in padding):
        raise TypeError("vision.transforms.%s: padding should be an int or a list/tuple of 2 "
                        "or 4 ints; got %r" % (fname, padding))
    if len(padding) == 2:
        return (padding[0], padding[1], padding[0], padding[1])
    return tuple(padding)


@_image_function
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: padding is an int (all sides), (left/right, top/bottom) or
    (left, top, right, bottom). Modes: 'constant' (with `fill`, a number or one value per
    channel), 'edge', 'reflect' (mirror without the edge pixel), 'symmetric' (with it)."""
    left, top, right, bottom = _padding4(padding, "pad")
    if min(left, top, right, bottom) < 0:
        raise ValueError("vision.transforms.pad: padding must be non-negative; got %r"
                         % (padding,))
    if padding_mode not in _PADDING_MODES:
        raise ValueError("vision.transforms.pad: padding_mode should be one of %s; got %r"
                         % (_PADDING_MODES, padding_mode))
    h, w = img.shape[:2]
    if padding_mode != "constant":
        if padding_mode == "reflect" and (max(top, bottom) >= h or max(left, right) >= w):
            raise ValueError("vision.transforms.pad: 'reflect' padding %r must be smaller than "
                             "the %dx%d image" % (padding, h, w))
        widths = ((top, bottom), (left, right)) + ((0, 0),) * (img.ndim - 2)
        return np.pad(img, widths, mode=padding_mode)
    fill_values = np.asarray(fill, dtype=np.float64).ravel()
    if fill_values.size not in (1, _channels(img)):
        raise ValueError("vision.transforms.pad: fill should be a number or one value per "
                         "channel (%d); got %r" % (_channels(img), fill))
    if fill_values.size == 1 and _channels(img) > 1:
        # Paddle's rule (both its backends): one number fills the first channel and zeroes
        # the others, as PIL's int colour and OpenCV's Scalar(v) = (v, 0, 0, 0) do
        fill_values = np.concatenate([fill_values, np.zeros(_channels(img) - 1)])
    out = np.empty((top + h + bottom, left + w + right) + img.shape[2:], img.dtype)
    out[...] = fill_values if img.ndim == 3 else fill_values[0]
    out[top:top + h, left:left + w] = img
    return out


@_image_function
def crop(img, top, left, height, width):
    """The height x width box whose top-left corner is (top, left); it must lie inside."""
    h, w = img.shape[:2]
    if top < 0 or left < 0 or height <= 0 or width <= 0 or top + height > h or left + width > w:
        raise ValueError("vision.transforms.crop: the box (top=%d, left=%d, height=%d, width=%d)"
                         " does not fit in the %dx%d image" % (top, left, height, width, h, w))
    return img[top:top + height, left:left + width].copy()


@_image_function
def center_crop(img, output_size):
    """The (height, width) box (an int: a square) at the centre; the offset is
    round((size - crop) / 2), Python's round (halves to even)."""
    crop_h, crop_w = _size_pair(output_size, "center_crop", "output_size")
    h, w = img.shape[:2]
    if crop_h > h or crop_w > w:
        raise ValueError("vision.transforms.center_crop: output_size (%d, %d) is larger than the "
                         "%dx%d image" % (crop_h, crop_w, h, w))
    return crop(img, int(round((h - crop_h) / 2.0)), int(round((w - crop_w) / 2.0)),
                crop_h, crop_w)


@_image_function
def hflip(img):
    """Mirror left-right."""
    return img[:, ::-1].copy()


@_image_function
def vflip(img):
    """Mirror top-bottom."""
    return img[::-1].copy()


def _gray(img):
    """Luma as float (H, W); uint8 RGB uses the fixed-point rounding of PIL's "L" mode."""
    if _channels(img) == 1:
        return img.reshape(img.shape[:2]).astype(np.float64)
    rgb = img[:, :, :3]
    if img.dtype == np.uint8:
        weights = np.array(_LUMA_FIXED, dtype=np.int64)
        return ((rgb.astype(np.int64) @ weights + 0x8000) >> 16).astype(np.float64)
    return rgb.astype(np.float64) @ np.array(_LUMA)


def _blend(degenerate, img, factor):
    """degenerate + factor * (img - degenerate), saturated to [0, 255]. uint8 follows PIL's
    ImageEnhance: float32 arithmetic, truncated toward zero."""
    if np.issubdtype(img.dtype, np.integer):
        degenerate = degenerate.astype(np.float32)
        out = degenerate + np.float32(factor) * (img.astype(np.float32) - degenerate)
        return np.clip(np.trunc(out), 0, 255).astype(img.dtype)
    out = degenerate + factor * (img.astype(np.float64) - degenerate)
    return np.clip(out, 0, 255).astype(img.dtype)


def _check_factor(value, name, fname):
    if not isinstance(value, numbers.Real) or value < 0:
        raise ValueError("vision.transforms.%s: %s should be a non-negative number; got %r"
                         % (fname, name, value))


def _broadcast_gray(gray, img):
    return gray.reshape(img.shape[:2] + (1,) * (img.ndim - 2))


@_image_function
def adjust_brightness(img, brightness_factor):
    """img * factor (0: black, 1: unchanged), saturated to [0, 255]."""
    _check_factor(brightness_factor, "brightness_factor", "adjust_brightness")
    return _blend(np.zeros((1,) * img.ndim), img, brightness_factor)


@_image_function
def adjust_contrast(img, contrast_factor):
    """Blend with the mean grey level (0: a flat grey image, 1: unchanged); uint8 images
    use the mean luma rounded to an integer, as PIL does."""
    _check_factor(contrast_factor, "contrast_factor", "adjust_contrast")
    mean = _gray(img).mean()
    if img.dtype == np.uint8:
        mean = float(int(mean + 0.5))
    return _blend(np.full((1,) * img.ndim, mean), img, contrast_factor)


@_image_function
def adjust_saturation(img, saturation_factor):
    """Blend with the image's grey version (0: grey, 1: unchanged, 2: twice as saturated)."""
    _check_factor(saturation_factor, "saturation_factor", "adjust_saturation")
    return _blend(_broadcast_gray(_gray(img), img), img, saturation_factor)


def _rgb_to_hsv(rgb):
    """rgb float (..., 3) in any range -> h in [0, 1), s in [0, 1], v (same range as rgb)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(axis=-1)
    chroma = v - rgb.min(axis=-1)
    safe = np.where(chroma > 0, chroma, 1.0)
    s = np.where(v > 0, chroma / np.where(v > 0, v, 1.0), 0.0)
    h = np.select([chroma == 0, v == r, v == g],
                  [0.0, (g - b) / safe, 2.0 + (b - r) / safe], 4.0 + (r - g) / safe)
    return np.mod(h / 6.0, 1.0), s, v


def _hsv_to_rgb(h, s, v):
    sector = np.floor(h * 6.0)
    frac = h * 6.0 - sector
    p, q, t = v * (1 - s), v * (1 - s * frac), v * (1 - s * (1 - frac))
    sector = sector.astype(np.int64) % 6
    # (r, g, b) for each of the six hue sectors
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    return np.stack([np.choose(sector, [c[k] for c in choices]) for k in range(3)], axis=-1)


@_image_function
def adjust_hue(img, hue_factor):
    """Rotate the hue by hue_factor of a full turn (in [-0.5, 0.5]; +-0.5 gives the
    complementary colours). Grey images (one channel) are returned unchanged."""
    if not isinstance(hue_factor, numbers.Real) or not -0.5 <= hue_factor <= 0.5:
        raise ValueError("vision.transforms.adjust_hue: hue_factor should be in [-0.5, 0.5]; "
                         "got %r" % (hue_factor,))
    if _channels(img) == 1:
        return img
    h, s, v = _rgb_to_hsv(img[:, :, :3].astype(np.float64))
    out = img.astype(np.float64)
    out[:, :, :3] = _hsv_to_rgb(np.mod(h + hue_factor, 1.0), s, v)
    return _to_dtype(out, img.dtype)


def _fill_values(fill, channels, fname):
    values = np.asarray(fill, dtype=np.float64).ravel()
    if values.size == 1:
        return np.repeat(values, channels)
    if values.size < channels:
        raise ValueError("vision.transforms.%s: fill should be a number or one value per channel"
                         " (%d); got %r" % (fname, channels, fill))
    return values[:channels]


@_image_function
def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate counter-clockwise by `angle` degrees about `center` ((x, y) with the top-left
    corner of the image at (0, 0); default: the middle). Pixels from outside become `fill`.
    expand=True enlarges the output to hold the whole rotated image (centre rotation only)."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("vision.transforms.rotate: interpolation should be one of %s; got %r"
                         % (_INTERPOLATIONS, interpolation))
    h, w = img.shape[:2]
    if center is None and angle % 90 == 0 and (expand or h == w):
        return np.rot90(img, k=int(angle // 90) % 4).copy()  # exact, any parity of h and w
    cx, cy = (w / 2.0, h / 2.0) if center is None else (float(center[0]), float(center[1]))
    theta = math.radians(angle)
    # Rounded so multiples of 90 degrees map pixel centres exactly onto pixel centres.
    cos, sin = round(math.cos(theta), 15), round(math.sin(theta), 15)
    out_h, out_w = h, w
    if expand:
        corners = [(x - cx, y - cy) for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
        xs = [cos * dx + sin * dy + cx for dx, dy in corners]
        ys = [-sin * dx + cos * dy + cy for dx, dy in corners]
        out_w = math.ceil(max(xs)) - math.floor(min(xs))
        out_h = math.ceil(max(ys)) - math.floor(min(ys))
    # Inverse map: each output pixel centre, relative to the output's centre of rotation,
    # rotated back onto the input.
    dy, dx = np.meshgrid(np.arange(out_h) + 0.5 - cy - (out_h - h) / 2.0,
                         np.arange(out_w) + 0.5 - cx - (out_w - w) / 2.0, indexing="ij")
    src_x = cos * dx - sin * dy + cx
    src_y = sin * dx + cos * dy + cy
    inside = (src_x >= 0) & (src_x < w) & (src_y >= 0) & (src_y < h)
    data = img.astype(np.float64)
    if interpolation == "nearest":
        xi = np.clip(np.floor(src_x).astype(np.int64), 0, w - 1)
        yi = np.clip(np.floor(src_y).astype(np.int64), 0, h - 1)
        out = data[yi, xi]
    else:
        sx, sy = np.clip(src_x - 0.5, 0, w - 1), np.clip(src_y - 0.5, 0, h - 1)
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
        extra = (None,) * (img.ndim - 2)
        wx, wy = (sx - x0)[(Ellipsis,) + extra], (sy - y0)[(Ellipsis,) + extra]
        out = ((data[y0, x0] * (1 - wx) + data[y0, x1] * wx) * (1 - wy)
               + (data[y1, x0] * (1 - wx) + data[y1, x1] * wx) * wy)
    fill_values = _fill_values(fill, _channels(img), "rotate")
    out[~inside] = fill_values if img.ndim == 3 else fill_values[0]
    return _to_dtype(out, img.dtype, truncate=True)  # PIL's transform truncates


@_image_function
def to_grayscale(img, num_output_channels=1):
    """ITU-R 601-2 luma (0.299 R + 0.587 G + 0.114 B) as (H, W, 1), or (H, W, 3) with
    r = g = b."""
    if num_output_channels not in (1, 3):
        raise ValueError("vision.transforms.to_grayscale: num_output_channels should be 1 or 3;"
                         " got %r" % (num_output_channels,))
    gray = _to_dtype(_gray(img), img.dtype)[:, :, None]
    return np.repeat(gray, num_output_channels, axis=2)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel; mean and std are float32, so a uint8 image gives
    float32. to_rgb reverses the channel order (BGR -> RGB) first. A PIL image becomes a
    float32 HWC array; a 2-D image comes back [C, H, W] (C the number of CHW means, else 1),
    and a one-channel CHW image is broadcast to C channels, as in Paddle."""
    _check_image(img, "normalize")
    if data_format not in ("CHW", "HWC"):
        raise ValueError("vision.transforms.normalize: data_format should be 'CHW' or 'HWC'; "
                         "got %r" % (data_format,))
    if _is_pil_image(img):
        img = np.asarray(img).astype(np.float32)
    if img.ndim == 2:
        # a one-channel image without its channel axis (an 'L' image, MNIST's arrays):
        # Paddle's [C, 1, 1] / [1, 1, C] mean and std broadcast it to [C, H, W], channel
        # axis first in either data format
        img = img[None]
        data_format = "CHW" if np.size(mean) == np.size(std) == 1 else data_format
    channel_axis = 0 if data_format == "CHW" else img.ndim - 1
    shape = [1] * img.ndim
    shape[channel_axis] = -1
    mean = np.float32(np.asarray(mean)).reshape(shape)
    std = np.float32(np.asarray(std)).reshape(shape)
    channels = img.shape[channel_axis]
    for name, values in (("mean", mean), ("std", std)):
        if values.size not in (1, channels) and not (channels == 1 and data_format == "CHW"):
            raise ValueError("vision.transforms.normalize: %s has %d values but the %s image "
                             "has %d channels (shape %s)" % (name, values.size, data_format,
                                                              channels, img.shape))
    if to_rgb:
        img = np.flip(img, axis=channel_axis)
    return (img - mean) / std
