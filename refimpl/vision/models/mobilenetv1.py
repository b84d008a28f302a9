"""MobileNetV1 (Howard et al. 2017) with Paddle's parameter layout."""
from ... import nn
from ._utils import ConvNormActivation, load_pretrained, pooled_classifier_head

__all__ = ["MobileNetV1", "mobilenet_v1"]


class DepthwiseSeparable(nn.Layer):
    """3x3 depthwise conv (groups = channels) then 1x1 pointwise conv, each with batch norm
    and ReLU; channel counts scaled by `scale`."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), 3,
                                                  stride=stride,
                                                  groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale),
                                                  int(out_channels2 * scale), 1)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (sublayer name, depthwise channels, pointwise output channels, stride)
_BLOCKS = [("conv2_1", 32, 64, 1), ("conv2_2", 64, 128, 2), ("conv3_1", 128, 128, 1),
           ("conv3_2", 128, 256, 2), ("conv4_1", 256, 256, 1), ("conv4_2", 256, 512, 2)] + \
          [("conv5_%d" % i, 512, 512, 1) for i in range(1, 6)] + \
          [("conv5_6", 512, 1024, 2), ("conv6", 1024, 1024, 1)]


class MobileNetV1(nn.Layer):
    """A 3x3/2 stem conv (32 * scale), 13 depthwise-separable blocks, adaptive average
    pool (with_pool) and a Linear classifier (num_classes > 0)."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), 3, stride=2)
        self.dwsl = [self.add_sublayer(name, DepthwiseSeparable(
            int(channels * scale), channels, out_channels, channels, stride, scale))
            for name, channels, out_channels, stride in _BLOCKS]
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        return pooled_classifier_head(self, x, "pool2d_avg", "fc")


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    model = MobileNetV1(scale=scale, **kwargs)
    weights = "mobilenetv1_1.0.pdparams" if scale == 1.0 else None   # Paddle publishes no others
    return load_pretrained(model, "mobilenet_v1", weights) if pretrained else model
