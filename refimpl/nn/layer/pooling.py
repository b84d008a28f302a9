"""Max / average / adaptive pools over 1-D (pool2d on a unit height), 2-D (pool2d) and
3-D (pool3d) inputs, each calling its nn.functional counterpart."""
from ...layers import functional_conv as F
from ...layers.conv import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d
from .function_layer import REQUIRED, function_layer

__all__ = ["MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D",
           "MaxPool2D", "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D",
           "MaxPool3D", "AvgPool3D", "AdaptiveAvgPool3D", "AdaptiveMaxPool3D"]


_WINDOW = ("kernel_size", "stride", "padding")   # the settings a windowed pool's repr shows


def _pool(class_name, function, rank, shown, **settings):
    return function_layer(class_name, __name__, function, (rank,), shown, **settings)


MaxPool2D = _pool("MaxPool2D", max_pool2d, 4, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, return_mask=False, ceil_mode=False, data_format="NCHW")
AvgPool2D = _pool("AvgPool2D", avg_pool2d, 4, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                  data_format="NCHW")
AdaptiveAvgPool2D = _pool("AdaptiveAvgPool2D", adaptive_avg_pool2d, 4, ("output_size",),
                          output_size=REQUIRED, data_format="NCHW")
AdaptiveMaxPool2D = _pool("AdaptiveMaxPool2D", adaptive_max_pool2d, 4,
                          ("output_size", "return_mask"), output_size=REQUIRED,
                          return_mask=False)

MaxPool1D = _pool("MaxPool1D", F.max_pool1d, 3, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, return_mask=False, ceil_mode=False)
AvgPool1D = _pool("AvgPool1D", F.avg_pool1d, 3, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, exclusive=True, ceil_mode=False)
AdaptiveAvgPool1D = _pool("AdaptiveAvgPool1D", F.adaptive_avg_pool1d, 3, ("output_size",),
                          output_size=REQUIRED)
AdaptiveMaxPool1D = _pool("AdaptiveMaxPool1D", F.adaptive_max_pool1d, 3,
                          ("output_size", "return_mask"), output_size=REQUIRED,
                          return_mask=False)

MaxPool3D = _pool("MaxPool3D", F.max_pool3d, 5, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW")
AvgPool3D = _pool("AvgPool3D", F.avg_pool3d, 5, _WINDOW, kernel_size=REQUIRED, stride=None,
                  padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                  data_format="NCDHW")
AdaptiveAvgPool3D = _pool("AdaptiveAvgPool3D", F.adaptive_avg_pool3d, 5, ("output_size",),
                          output_size=REQUIRED, data_format="NCDHW")
AdaptiveMaxPool3D = _pool("AdaptiveMaxPool3D", F.adaptive_max_pool3d, 5,
                          ("output_size", "return_mask"), output_size=REQUIRED,
                          return_mask=False)
