"""Conv1D/2D/3D and Conv1D/2D/3DTranspose over the nn.functional convolutions.

Plain convolutions: weight [out_channels, in_channels / groups, *kernel], default init
Normal(0, sqrt(2 / (prod(kernel) * in_channels))) as Paddle's. Transposed ones: weight
[in_channels, out_channels / groups, *kernel], XavierUniform by default (Paddle sets no
initializer there). Bias [out_channels], zeros; bias_attr=False -> none.
"""
import math
import numbers

from ...framework.initializer import Normal
from ...layers import functional_conv
from ...layers.conv import functional_conv2d
from ...layers.functional_vision import pad
from .base import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


class _ConvNd(Layer):
    """Checks the settings, creates weight and bias; forward calls `_function`."""
    _nd = 2
    _transposed = False
    _function = None

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 groups, weight_attr, bias_attr, data_format, padding_mode="zeros",
                 output_padding=0):
        super().__init__()
        cls = type(self).__name__
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError("%s: in_channels (%d) and out_channels (%d) must be divisible "
                             "by groups (%d)" % (cls, in_channels, out_channels, groups))
        if padding_mode not in _PADDING_MODES:
            raise ValueError("%s: padding_mode must be one of %s, got %r"
                             % (cls, list(_PADDING_MODES), padding_mode))
        if padding_mode != "zeros" and not isinstance(padding, int):
            # a TypeError in 2.0 and 3.3.1 (read in their source), as 2.0's test_conv1d_layer
            raise TypeError("%s: padding_mode=%r needs an int padding, got %r"
                            % (cls, padding_mode, padding))
        if data_format not in _FORMATS[self._nd]:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (cls, list(_FORMATS[self._nd]), data_format))
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _ntuple(kernel_size, self._nd)
        self._stride, self._dilation = _ntuple(stride, self._nd), _ntuple(dilation, self._nd)
        for arg, values in (("kernel_size", self._kernel_size), ("stride", self._stride),
                            ("dilation", self._dilation)):
            if not all(isinstance(v, numbers.Integral) and v > 0 for v in values):
                raise ValueError("%s: %s must be positive ints, got %s"
                                 % (type(self).__name__, arg, values))
        self._padding, self._padding_mode, self._groups = padding, padding_mode, groups
        self._output_padding, self._data_format = output_padding, data_format
        if self._transposed:
            shape, init = [in_channels, out_channels // groups], None
        else:
            fan_in = in_channels * math.prod(self._kernel_size)
            shape, init = [out_channels, in_channels // groups], Normal(0.0, math.sqrt(
                2.0 / fan_in))
        self.weight = self.create_parameter(shape + self._kernel_size, weight_attr,
                                            default_initializer=init)
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def _checked(self, x):
        """x after the rank and channel checks, padded by padding_mode when not 'zeros'."""
        self._expect_input(x, ranks=(self._nd + 2,))
        channels_last = self._data_format[-1] == "C"
        self._expect_dim(x, self._nd + 1 if channels_last else 1, self._in_channels,
                         "in_channels")
        if self._padding_mode == "zeros":
            return x, self._padding
        return pad(x, [self._padding] * (2 * self._nd), self._padding_mode,
                   data_format=self._data_format), 0

    def extra_repr(self):
        ones = [1] * self._nd
        text = "%d, %d, kernel_size=%s" % (self._in_channels, self._out_channels,
                                           self._kernel_size)
        if self._stride != ones:
            text += ", stride=%s" % self._stride
        if self._padding != 0:
            text += ", padding=%s" % (self._padding,)
        if self._padding_mode != "zeros":
            text += ", padding_mode=%s" % self._padding_mode
        if self._output_padding != 0:
            text += ", output_padding=%s" % (self._output_padding,)
        if self._dilation != ones:
            text += ", dilation=%s" % self._dilation
        if self._groups != 1:
            text += ", groups=%d" % self._groups
        return text + ", data_format=%s" % self._data_format


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, weight_attr, bias_attr, data_format or _FORMATS[self._nd][0],
                         padding_mode)

    def forward(self, x):
        x, padding = self._checked(x)
        return type(self)._function(x, self.weight, self.bias, self._stride, padding,
                                    self._dilation, self._groups, self._data_format)


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, weight_attr, bias_attr, data_format or _FORMATS[self._nd][0],
                         output_padding=output_padding)

    def forward(self, x, output_size=None):
        x, padding = self._checked(x)
        return type(self)._function(
            x, self.weight, self.bias, self._stride, padding,
            0 if output_size is not None else self._output_padding, self._groups,
            self._dilation, data_format=self._data_format, output_size=output_size)


class Conv1D(_Conv):
    """Input [N, C, L] ('NCL') or [N, L, C] ('NLC'); conv2d over a unit height."""
    _nd = 1
    _function = functional_conv.conv1d


class Conv2D(_Conv):
    """Input [N, C, H, W] ('NCHW') or [N, H, W, C] ('NHWC'); conv2d, or depthwise_conv2d
    when groups == in_channels."""
    _function = functional_conv2d


class Conv3D(_Conv):
    """Input [N, C, D, H, W] ('NCDHW') or [N, D, H, W, C] ('NDHWC')."""
    _nd = 3
    _function = functional_conv.conv3d


class Conv1DTranspose(_ConvTranspose):
    """Paddle 2.0 orders this one's arguments groups before dilation."""
    _nd = 1
    _function = functional_conv.conv1d_transpose

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)


class Conv2DTranspose(_ConvTranspose):
    _function = functional_conv.conv2d_transpose


class Conv3DTranspose(_ConvTranspose):
    _nd = 3
    _function = functional_conv.conv3d_transpose
