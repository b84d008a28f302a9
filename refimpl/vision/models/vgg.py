"""VGG (Simonyan & Zisserman 2014) with Paddle's parameter layout."""
from ... import nn
from ._utils import load_pretrained, pooled_classifier_head

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19"]

# output channels of each 3x3 conv, "M" a 2x2 max pool (configurations A, B, D, E)
_CONFIGS = {
    11: [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    13: [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    16: [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
         "M"],
    19: [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
         512, 512, 512, "M"],
}


def make_layers(config, batch_norm=False):
    """The convolutional part: 3x3 conv (padding 1) [+ BatchNorm2D] + ReLU per number,
    MaxPool2D(2, 2) per "M"."""
    layers, channels = [], 3
    for item in config:
        if item == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(channels, item, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(item))
        layers.append(nn.ReLU())
        channels = item
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """features, adaptive average pool to 7x7 (with_pool), then Linear 25088->4096, ReLU,
    Dropout, Linear 4096->4096, ReLU, Dropout, Linear 4096->num_classes (num_classes > 0)."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        return pooled_classifier_head(self, x, "avgpool", "classifier")


def _vgg(depth, pretrained, batch_norm, **kwargs):
    arch = "vgg%d" % depth
    model = VGG(make_layers(_CONFIGS[depth], batch_norm), **kwargs)
    if not pretrained:
        return model
    # Paddle publishes only vgg16's weights (without batch norm)
    published = arch == "vgg16" and not batch_norm
    return load_pretrained(model, arch + ("_bn" if batch_norm else ""),
                           "vgg16.pdparams" if published else None)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    return _vgg(11, pretrained, batch_norm, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    return _vgg(13, pretrained, batch_norm, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    return _vgg(16, pretrained, batch_norm, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    return _vgg(19, pretrained, batch_norm, **kwargs)
