"""Max / average / adaptive pools over 1-D (pool2d on a unit height), 2-D (pool2d) and
3-D (pool3d) inputs, each calling its nn.functional counterpart."""
from ...layers import functional_conv as F
from ...layers.conv import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d
from .base import Layer

__all__ = ["MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D",
           "MaxPool2D", "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D",
           "MaxPool3D", "AvgPool3D", "AdaptiveAvgPool3D", "AdaptiveMaxPool3D"]


class _Pool(Layer):
    """Calls `_function(x, **settings, name=name)` on an input of rank `_rank`."""
    _function = None
    _rank = 4
    _shown = ()   # settings named in the repr

    def __init__(self, name, **settings):
        super().__init__()
        self._name = name
        self._settings = settings

    def forward(self, x):
        self._expect_input(x, ranks=(self._rank,))
        return type(self)._function(x, name=self._name, **self._settings)

    def extra_repr(self):
        return ", ".join("%s=%s" % (k, self._settings[k]) for k in self._shown)


class MaxPool2D(_Pool):
    _function = max_pool2d
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         return_mask=return_mask, ceil_mode=ceil_mode,
                         data_format=data_format)


class AvgPool2D(_Pool):
    _function = avg_pool2d
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, exclusive=exclusive,
                         divisor_override=divisor_override, data_format=data_format)


class AdaptiveAvgPool2D(_Pool):
    _function = adaptive_avg_pool2d
    _shown = ("output_size",)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(name, output_size=output_size, data_format=data_format)


class AdaptiveMaxPool2D(_Pool):
    _function = adaptive_max_pool2d
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name, output_size=output_size, return_mask=return_mask)


class MaxPool1D(_Pool):
    _function = F.max_pool1d
    _rank = 3
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         return_mask=return_mask, ceil_mode=ceil_mode)


class AvgPool1D(_Pool):
    _function = F.avg_pool1d
    _rank = 3
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         exclusive=exclusive, ceil_mode=ceil_mode)


class AdaptiveAvgPool1D(_Pool):
    _function = F.adaptive_avg_pool1d
    _rank = 3
    _shown = ("output_size",)

    def __init__(self, output_size, name=None):
        super().__init__(name, output_size=output_size)


class AdaptiveMaxPool1D(_Pool):
    _function = F.adaptive_max_pool1d
    _rank = 3
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name, output_size=output_size, return_mask=return_mask)


class MaxPool3D(_Pool):
    _function = F.max_pool3d
    _rank = 5
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCDHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         return_mask=return_mask, ceil_mode=ceil_mode,
                         data_format=data_format)


class AvgPool3D(_Pool):
    _function = F.avg_pool3d
    _rank = 5
    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(name, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, exclusive=exclusive,
                         divisor_override=divisor_override, data_format=data_format)


class AdaptiveAvgPool3D(_Pool):
    _function = F.adaptive_avg_pool3d
    _rank = 5
    _shown = ("output_size",)

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(name, output_size=output_size, data_format=data_format)


class AdaptiveMaxPool3D(_Pool):
    _function = F.adaptive_max_pool3d
    _rank = 5
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name, output_size=output_size, return_mask=return_mask)
