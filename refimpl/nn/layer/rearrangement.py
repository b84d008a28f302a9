"""Paddle 3's layers over rearrangements of elements: ChannelShuffle, PixelUnshuffle (each
calling its nn.functional function) and Fold / Unfold (col2im / im2col; 3.3.1's reprs,
measured: kernel_size, dilation, padding, stride)."""
from ...layers.functional_vision import channel_shuffle, fold, pixel_unshuffle, unfold
from .base import Layer
from .function_layer import REQUIRED, function_layer

__all__ = ["ChannelShuffle", "PixelUnshuffle", "Fold", "Unfold"]

ChannelShuffle = function_layer("ChannelShuffle", __name__, channel_shuffle, (4,), ("groups",),
                                groups=REQUIRED, data_format="NCHW")
PixelUnshuffle = function_layer("PixelUnshuffle", __name__, pixel_unshuffle, (4,),
                                ("downscale_factor",), downscale_factor=REQUIRED,
                                data_format="NCHW")


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
