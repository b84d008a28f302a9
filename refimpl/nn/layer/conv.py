"""Conv2D."""
import math

from ...framework.initializer import Normal
from ...layers.conv import functional_conv2d
from .base import Layer

__all__ = ["Conv2D"]


def _pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v]


class Conv2D(Layer):
    """nn.functional.conv2d with weight [out_channels, in_channels / groups, kh, kw]
    (default init Normal(0, sqrt(2 / (kh * kw * in_channels))) as Paddle's) and bias
    [out_channels] (zeros; bias_attr=False -> none). padding_mode other than 'zeros' needs a
    pad op refimpl does not have yet."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError("Conv2D: in_channels (%d) and out_channels (%d) must be divisible "
                             "by groups (%d)" % (in_channels, out_channels, groups))
        if padding_mode != "zeros":
            raise NotImplementedError("Conv2D: padding_mode=%r needs a pad op; only 'zeros' "
                                      "is supported" % (padding_mode,))
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError("Conv2D: data_format must be 'NCHW' or 'NHWC', got %r"
                             % (data_format,))
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size, self._stride = _pair(kernel_size), _pair(stride)
        self._dilation, self._padding, self._groups = _pair(dilation), padding, groups
        self._data_format = data_format
        std = math.sqrt(2.0 / (self._kernel_size[0] * self._kernel_size[1] * in_channels))
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups] + self._kernel_size, weight_attr,
            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x):
        self._expect_input(x, ranks=(4,))
        self._expect_dim(x, 3 if self._data_format == "NHWC" else 1, self._in_channels,
                         "in_channels")
        return functional_conv2d(x, self.weight, self.bias, self._stride, self._padding,
                                 self._dilation, self._groups, self._data_format)

    def extra_repr(self):
        text = "%d, %d, kernel_size=%s" % (self._in_channels, self._out_channels,
                                           self._kernel_size)
        if self._stride != [1, 1]:
            text += ", stride=%s" % self._stride
        if self._padding != 0:
            text += ", padding=%s" % (self._padding,)
        if self._dilation != [1, 1]:
            text += ", dilation=%s" % self._dilation
        if self._groups != 1:
            text += ", groups=%d" % self._groups
        return text + ", data_format=%s" % self._data_format
