"""Paddle 3's layers over rearrangements of elements: ChannelShuffle, PixelUnshuffle (each
calling its nn.functional function) and Fold / Unfold (col2im / im2col; 3.3.1's reprs,
measured: kernel_size, dilation, padding, stride)."""
from ...layers.functional_vision import (channel_shuffle, check_rearrangement_args, fold,
                                         pixel_unshuffle, unfold)
from .base import Layer
from .function_layer import REQUIRED, function_layer

__all__ = ["ChannelShuffle", "PixelUnshuffle", "Fold", "Unfold"]


def _rearrangement(class_name, function, factor):
    """The layer calling `function`, its `factor` and data_format checked when it is made
    (as 3.3.1's)."""
    layer = function_layer(class_name, __name__, function, (4,), None,
                           **{factor: REQUIRED, "data_format": "NCHW"})

    def __init__(self, *args, **kwargs):
        layer.__init__(self, *args, **kwargs)
        check_rearrangement_args(self._settings[factor], factor,
                                 self._settings["data_format"], class_name)

    def extra_repr(self):   # 3.3.1's: the data_format only when it is not NCHW
        shown = "%s=%s" % (factor, self._settings[factor])
        layout = self._settings["data_format"]
        return shown if layout == "NCHW" else "%s, data_format=%s" % (shown, layout)

    __init__.__signature__ = layer.__init__.__signature__
    return type(class_name, (layer,), {"__init__": __init__, "extra_repr": extra_repr,
                                        "__module__": __name__, "__qualname__": class_name})


ChannelShuffle = _rearrangement("ChannelShuffle", channel_shuffle, "groups")
PixelUnshuffle = _rearrangement("PixelUnshuffle", pixel_unshuffle, "downscale_factor")


class _Patches(Layer):
    def __init__(self, kernel_sizes, dilations, paddings, strides, name):
        super().__init__()
        self._kernel_sizes, self._dilations = kernel_sizes, dilations
        self._paddings, self._strides, self._name = paddings, strides, name

    def extra_repr(self):
        return "kernel_size=%s, dilation=%s, padding=%s, stride=%s" % (
            self._kernel_sizes, self._dilations, self._paddings, self._strides)


class Unfold(_Patches):
    """[N, C, H, W] -> [N, C kh kw, L] (nn.functional.unfold)."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides, name)

    def forward(self, input):
        self._expect_input(input, "input")
        return unfold(input, self._kernel_sizes, self._strides, self._paddings,
                      self._dilations, self._name)


class Fold(_Patches):
    """[N, C kh kw, L] -> [N, C, *output_sizes] (nn.functional.fold)."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides, name)
        self._output_sizes = output_sizes

    def forward(self, input):
        self._expect_input(input, "input")
        return fold(input, self._output_sizes, self._kernel_sizes, self._strides,
                    self._paddings, self._dilations, self._name)
