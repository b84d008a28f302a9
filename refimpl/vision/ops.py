"""paddle.vision.ops (Paddle 2.0): deform_conv2d and its layer DeformConv2D, deformable
convolution v2 (the deformable_conv op, given a mask) or v1 (deformable_conv_v1, no
mask), with one deformable group and im2col_step 1, the bias added on the channel axis;
and the YOLOv3 head's yolo_box and yolo_loss (fluid.layers' yolo_box and yolov3_loss)."""
import math

from .. import nn
from ..framework.initializer import Normal
from ..layers.common import append_op_out, check_dtype
from ..layers.detection import yolo_box, yolov3_loss as yolo_loss

__all__ = ["yolo_loss", "yolo_box", "deform_conv2d", "DeformConv2D"]


def _pair(value, what):
    values = list(value) if isinstance(value, (list, tuple)) else [value] * 2
    if len(values) != 2 or not all(isinstance(v, int) for v in values):
        raise ValueError("deform_conv2d: %s must be an int or 2 ints, got %r" % (what, value))
    return values


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                  mask=None, name=None):
    """x [N, C, H, W], offset [N, 2 kh kw, Ho, Wo], weight [M, C / groups, kh, kw], mask
    [N, kh kw, Ho, Wo] (None: v1), bias [M]."""
    check_dtype(x, "x", "deform_conv2d", ("float32", "float64"))
    check_dtype(offset, "offset", "deform_conv2d", ("float32", "float64"))
    inputs = {"Input": [x], "Offset": [offset], "Filter": [weight]}
    if mask is not None:
        inputs["Mask"] = [mask]
    out = append_op_out("deformable_conv_v1" if mask is None else "deformable_conv", inputs,
                        {"strides": _pair(stride, "stride"), "paddings": _pair(padding, "padding"),
                         "dilations": _pair(dilation, "dilation"), "groups": groups,
                         "deformable_groups": 1, "im2col_step": 1},
                        None if bias is not None else name, out_slot="Output",
                        layer_type="deformable_conv")
    if bias is None:
        return out
    return append_op_out("elementwise_add", {"X": [out], "Y": [bias]}, {"axis": 1}, name)


class DeformConv2D(nn.Layer):
    """weight [out_channels, in_channels / groups, kh, kw], initialized N(0, sqrt(2 /
    (kh kw in_channels))) as Paddle 2.0 does; bias [out_channels] (bias_attr False: none)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        if weight_attr is False:
            raise AssertionError("DeformConv2D: weight_attr must not be False")
        if in_channels % groups:
            raise ValueError("DeformConv2D: in_channels %d must be divisible by groups %d"
                             % (in_channels, groups))
        self._stride, self._padding = _pair(stride, "stride"), _pair(padding, "padding")
        self._dilation, self._groups = _pair(dilation, "dilation"), groups
        kh, kw = _pair(kernel_size, "kernel_size")
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups, kh, kw], attr=weight_attr,
            default_initializer=Normal(0.0, math.sqrt(2.0 / (kh * kw * in_channels))))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._groups, mask)
