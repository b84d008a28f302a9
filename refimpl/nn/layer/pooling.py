"""MaxPool2D, AvgPool2D, AdaptiveAvgPool2D, AdaptiveMaxPool2D (pool2d)."""
from ...layers.conv import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d
from .base import Layer

__all__ = ["MaxPool2D", "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"]


class _Pool2D(Layer):
    """Calls `_function(x, **settings, name=name)` on a 4-D input."""
    _function = None
    _shown = ()   # settings named in the repr

    def __init__(self, name, **settings):
        super().__init__()
        self._name = name
        self._settings = settings

    def forward(self, x):
        self._expect_input(x, ranks=(4,))
        return type(self)._function(x, name=self._name, **self._settings)

    def extra_repr(self):
        return ", ".join("%s=%s" % (k, self._settings[k]) for k in self._shown)


class MaxPool2D(_Pool2D):
    _function = max_pool2d
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         return_mask=return_mask, ceil_mode=ceil_mode,
                         data_format=data_format)


class AvgPool2D(_Pool2D):
    _function = avg_pool2d
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, exclusive=exclusive,
                         divisor_override=divisor_override, data_format=data_format)


class AdaptiveAvgPool2D(_Pool2D):
    _function = adaptive_avg_pool2d
    _shown = ("output_size",)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(name, output_size=output_size, data_format=data_format)


class AdaptiveMaxPool2D(_Pool2D):
    _function = adaptive_max_pool2d
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name, output_size=output_size, return_mask=return_mask)
