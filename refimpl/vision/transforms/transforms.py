"""paddle.vision.transforms classes: callables for a data pipeline (not graph ops).

Random transforms draw from Python's `random` and numpy's global generator, as Paddle does,
so `random.seed` / `np.random.seed` make them repeatable.
"""
import math
import numbers
import random
from collections.abc import Sequence

import numpy as np

from ... import versions
from . import functional as F

__all__ = ["BaseTransform", "Compose", "ToTensor", "Resize", "RandomResizedCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Normalize", "Transpose",
           "BrightnessTransform", "ContrastTransform", "SaturationTransform", "HueTransform",
           "ColorJitter", "RandomCrop", "Pad", "RandomRotation", "Grayscale"]


def _image_size(img):
    """(width, height) of an ndarray or PIL image."""
    if F._is_pil_image(img):
        return img.size
    F._check_image(img, "transform")
    return img.shape[1], img.shape[0]


class Compose:
    """Apply `transforms` in order, each to the previous one's output."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for transform in self.transforms:
            try:
                data = transform(data)
            except Exception as e:
                e.add_note("in Compose, while applying %r" % (transform,))
                raise
        return data

    def __repr__(self):
        return "Compose(%s\n)" % "".join("\n    %r" % (t,) for t in self.transforms)


class BaseTransform:
    """Base of the transforms. `keys` names what each element of a tuple input is
    ('image' by default; a subclass handles key K in `_apply_K`). The tuple's elements are
    transformed by their key's method with one draw of random parameters (`_get_params`);
    elements beyond the keys pass through unchanged. A non-tuple input is one 'image'."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence) or isinstance(keys, str):
            raise ValueError("%s: keys should be a sequence of names such as ('image',); got %r"
                             % (type(self).__name__, keys))
        for key in keys:
            if self._get_apply(key) is None:
                raise NotImplementedError("%s: %r is an unsupported data structure (no _apply_%s)"
                                          % (type(self).__name__, key, key))
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        """Random parameters shared by all elements of one call (none by default)."""
        return None

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = [self._get_apply(key)(value) for key, value in zip(self.keys, inputs)]
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, "_apply_%s" % key, None)

    def _not_supported(self, what):
        raise NotImplementedError("%s does not transform %s" % (type(self).__name__, what))

    def _apply_image(self, image):
        self._not_supported("images")

    def _apply_boxes(self, boxes):
        self._not_supported("boxes")

    def _apply_mask(self, mask):
        self._not_supported("masks")

    def _apply_coords(self, coords):
        self._not_supported("coords")

    def __repr__(self):
        return "%s()" % type(self).__name__


class ToTensor(BaseTransform):
    """F.to_tensor: an ndarray in `data_format`, uint8 scaled to float32 [0, 1]."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    """F.resize to `size` (int: the shorter side)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not isinstance(size, numbers.Integral):
            F._size_pair(size, "Resize")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    """Crop a random area fraction in `scale` with a random aspect ratio (log-uniform in
    `ratio`), then resize it to `size`. After 10 failed draws: the centre crop with the
    ratio clamped into `ratio`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = F._size_pair(size, "RandomResizedCrop")
        if not scale[0] <= scale[1]:
            raise ValueError("RandomResizedCrop: scale should be (min, max); got %r" % (scale,))
        if not 0 < ratio[0] <= ratio[1]:
            raise ValueError("RandomResizedCrop: ratio should be (min, max) with min > 0; got %r"
                             % (ratio,))
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _get_param(self, image, attempts=10):
        width, height = _image_size(image)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = width / height
        w, h = width, height
        if in_ratio < min(self.ratio):
            h = int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w = int(round(height * max(self.ratio)))
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        top, left, h, w = self._get_param(img)
        return F.resize(F.crop(img, top, left, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """F.center_crop to `size` (int: a square)."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = F._size_pair(size, "CenterCrop")

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    """Apply `_flip` with probability `prob` (one random.random() draw per image; a prob
    above 1 always flips where the version takes it, switch flip_prob_range)."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if versions.switch("flip_prob_range") == "checked" and not 0 <= prob <= 1:
            raise ValueError("%s: prob should be in [0, 1]; got %r" % (type(self).__name__, prob))
        self.prob = prob

    def _apply_image(self, img):
        return self._flip(img) if random.random() < self.prob else img


class RandomHorizontalFlip(_RandomFlip):
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    _flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    """F.normalize; a number for mean/std means the same for 3 channels."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes (default HWC -> CHW); a (H, W) image gets a channel axis first."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        img = np.asarray(img)
        if img.ndim == 2:
            img = img[:, :, None]
        if sorted(self.order) != list(range(img.ndim)):
            raise ValueError("Transpose: order %r is not a permutation of the %d axes of an image"
                             " of shape %s" % (self.order, img.ndim, img.shape))
        return img.transpose(self.order)


def _factor_range(value, name, center=1.0, bound=(0, float("inf")), clip_at_zero=True):
    """A number v -> [center - v, center + v] (low end clipped at 0 for factors); a pair is
    checked against `bound`. None when the range is just `center` (nothing to do)."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError("%s: a single number must be non-negative; got %r" % (name, value))
        value = [center - value, center + value]
        if clip_at_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError("%s: (min, max) should satisfy %s <= min <= max <= %s; got %r"
                             % (name, bound[0], bound[1], value))
    else:
        raise TypeError("%s: should be a number or a (min, max) list/tuple; got %r"
                        % (name, value))
    return None if value[0] == value[1] == center else value


class _RandomFactorTransform(BaseTransform):
    """Apply `_adjust(img, factor)` with factor uniform in the range made by _factor_range."""
    _range_args = {}

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, type(self).__name__, **self._range_args)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return self._adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_RandomFactorTransform):
    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_RandomFactorTransform):
    _adjust = staticmethod(F.adjust_contrast)


class SaturationTransform(_RandomFactorTransform):
    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_RandomFactorTransform):
    _adjust = staticmethod(F.adjust_hue)
    _range_args = dict(center=0.0, bound=(-0.5, 0.5), clip_at_zero=False)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _get_param(self, brightness, contrast, saturation, hue):
        transforms = [cls(value, self.keys) for cls, value in (
            (BrightnessTransform, brightness), (ContrastTransform, contrast),
            (SaturationTransform, saturation), (HueTransform, hue)) if value is not None]
        random.shuffle(transforms)
        return Compose(transforms)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


class RandomCrop(BaseTransform):
    """Crop a random `size` box, after optional `padding` (F.pad); pad_if_needed pads a
    side shorter than the crop (with padding_mode and fill)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant",
                 keys=None):
        super().__init__(keys)
        self.size = F._size_pair(size, "RandomCrop")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_param(self, img, output_size):
        w, h = _image_size(img)
        th, tw = output_size
        if th > h or tw > w:
            raise ValueError("RandomCrop: the crop size (%d, %d) is larger than the %dx%d image "
                             "(use padding or pad_if_needed=True)" % (th, tw, h, w))
        if w == tw and h == th:
            return 0, 0, h, w
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        return F.crop(img, *self._get_param(img, self.size))


class Pad(BaseTransform):
    """F.pad with fixed arguments."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        F._padding4(padding, "Pad")
        if padding_mode not in F._PADDING_MODES:
            raise ValueError("Pad: padding_mode should be one of %s; got %r"
                             % (F._PADDING_MODES, padding_mode))
        super().__init__(keys)
        self.padding = tuple(padding) if isinstance(padding, list) else padding
        self.fill = tuple(fill) if isinstance(fill, list) else fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomRotation(BaseTransform):
    """F.rotate by an angle uniform in `degrees` (a number d: [-d, d])."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("RandomRotation: a single number of degrees must be "
                                 "non-negative; got %r" % (degrees,))
            degrees = (-degrees, degrees)
        elif len(degrees) != 2:
            raise ValueError("RandomRotation: degrees should be a number or a (min, max) "
                             "sequence; got %r" % (degrees,))
        super().__init__(keys)
        self.degrees = degrees
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _apply_image(self, img):
        angle = random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class Grayscale(BaseTransform):
    """F.to_grayscale with 1 or 3 output channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)
