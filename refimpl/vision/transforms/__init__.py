"""paddle.vision.transforms: numpy image transforms for data pipelines (not graph ops)."""
from . import functional
from .functional import (adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation,
                         center_crop, crop, hflip, normalize, pad, resize, rotate, to_grayscale,
                         to_tensor, vflip)
from .transforms import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose,
                         ContrastTransform, Grayscale, HueTransform, Normalize, Pad, RandomCrop,
                         RandomHorizontalFlip, RandomResizedCrop, RandomRotation,
                         RandomVerticalFlip, Resize, SaturationTransform, ToTensor, Transpose)

from . import transforms as _classes

__all__ = functional.__all__ + _classes.__all__
