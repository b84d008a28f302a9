"""Paddle 3's torch-style names in paddle.nn: on 3.3.1 each is the Paddle class itself
(measured: nn.Conv2d is nn.Conv2D, nn.Module is nn.Layer, nn.ModuleDict is nn.LayerDict)."""
from . import base, common, container, conv, padding, pooling

_CLASSES = {
    conv: ["Conv1D", "Conv2D", "Conv3D"],
    pooling: ["AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D",
              "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "LPPool1D",
              "LPPool2D"],
    padding: padding.__all__,
    common: ["UpsamplingBilinear2D", "UpsamplingNearest2D"],
}
ALIASES = {name[:-1] + "d": getattr(module, name) for module, names in _CLASSES.items()
           for name in names}
ALIASES.update({"MaxUnpool%dd" % nd: getattr(pooling, "MaxUnPool%dD" % nd) for nd in (1, 2, 3)})
ALIASES.update({"Module": base.Layer, "ModuleList": container.LayerList,
                "ModuleDict": container.LayerDict})
globals().update(ALIASES)
__all__ = sorted(ALIASES)
