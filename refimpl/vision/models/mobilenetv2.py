"""MobileNetV2 (Sandler et al. 2018) with Paddle's parameter layout."""
from ... import nn
from ._utils import ConvNormActivation, load_pretrained, pooled_classifier_head

__all__ = ["MobileNetV2", "mobilenet_v2"]


def _make_divisible(value, divisor=8):
    """`value` rounded to the nearest multiple of divisor (at least divisor), never more
    than 10 % below it."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class InvertedResidual(nn.Layer):
    """1x1 expand (unless expand_ratio is 1), 3x3 depthwise with `stride`, 1x1 linear
    projection with batch norm; a residual connection when the shape is kept."""

    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden, 1, activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden, hidden, 3, stride=stride, groups=hidden,
                                      activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden, oup, 1, bias_attr=False), nn.BatchNorm2D(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# (expand ratio t, output channels c, repeats n, first stride s)
_SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
             (6, 160, 3, 2), (6, 320, 1, 1)]


class MobileNetV2(nn.Layer):
    """features: a 3x3/2 stem conv, the inverted-residual stages of _SETTINGS (channels
    scaled and made divisible by 8), a 1x1 conv to 1280 * max(1, scale); then adaptive
    average pool (with_pool) and Dropout(0.2) + Linear (num_classes > 0)."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        channels = _make_divisible(32 * scale)
        self.last_channel = _make_divisible(1280 * max(1.0, scale))
        features = [ConvNormActivation(3, channels, 3, stride=2, activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTINGS:
            out = _make_divisible(c * scale)
            for i in range(n):
                features.append(InvertedResidual(channels, out, s if i == 0 else 1, t))
                channels = out
        features.append(ConvNormActivation(channels, self.last_channel, 1,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        return pooled_classifier_head(self, x, "pool2d_avg", "classifier")


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    model = MobileNetV2(scale=scale, **kwargs)
    weights = "mobilenet_v2_x1.0.pdparams" if scale == 1.0 else None   # Paddle publishes no others
    return load_pretrained(model, "mobilenet_v2", weights) if pretrained else model
