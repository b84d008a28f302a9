"""Max / average / adaptive pools over 1-D (pool2d on a unit height), 2-D (pool2d) and
3-D (pool3d) inputs, each calling its nn.functional counterpart, and Paddle 3's LPPool1D /
LPPool2D and MaxUnPool1D / 2D / 3D."""
from ...layers import functional_conv as F, pooling
from ...layers.conv import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d
from .base import Layer
from .function_layer import REQUIRED, FunctionLayer, function_layer

__all__ = ["MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D",
           "MaxPool2D", "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D",
           "MaxPool3D", "AvgPool3D", "AdaptiveAvgPool3D", "AdaptiveMaxPool3D",
           "LPPool1D", "LPPool2D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D",
           "FractionalMaxPool2D", "FractionalMaxPool3D"]


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



class _LPPool(FunctionLayer):
    """Its repr as 3.3.1's: norm_type as a float, the stride the kernel's when not given."""

    def extra_repr(self):
        s = self._settings
        return "norm_type=%s, kernel_size=%s, stride=%s, padding=%s" % (
            float(s["norm_type"]), s["kernel_size"],
            s["kernel_size"] if s["stride"] is None else s["stride"], s["padding"])


def _lp_pool(class_name, function, rank, data_format):
    layer = function_layer(class_name, __name__, function, (rank,), None,
                           norm_type=REQUIRED, kernel_size=REQUIRED, stride=None, padding=0,
                           ceil_mode=False, data_format=data_format)
    return type(class_name, (_LPPool, layer), {"__module__": __name__,
                                                "__qualname__": class_name})


LPPool1D = _lp_pool("LPPool1D", pooling.lp_pool1d, 3, "NCL")
LPPool2D = _lp_pool("LPPool2D", pooling.lp_pool2d, 4, "NCHW")


class _MaxUnPool(Layer):
    """Calls the max_unpool function of its rank on (x, indices)."""
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._data_format, self._output_size, self._name = data_format, output_size, name

    def forward(self, x, indices):
        return type(self)._function(x, indices, self._kernel_size, self._stride, self._padding,
                                    self._data_format, self._output_size, self._name)

    def extra_repr(self):
        return "output_size=%s" % (self._output_size,)


def _max_unpool(class_name, function, data_format):
    def __init__(self, kernel_size, stride=None, padding=0, data_format=data_format,
                 output_size=None, name=None):
        _MaxUnPool.__init__(self, kernel_size, stride, padding, data_format, output_size, name)

    return type(class_name, (_MaxUnPool,), {"__init__": __init__,
                                            "_function": staticmethod(function),
                                            "__module__": __name__,
                                            "__qualname__": class_name})


MaxUnPool1D = _max_unpool("MaxUnPool1D", pooling.max_unpool1d, "NCL")
MaxUnPool2D = _max_unpool("MaxUnPool2D", pooling.max_unpool2d, "NCHW")
MaxUnPool3D = _max_unpool("MaxUnPool3D", pooling.max_unpool3d, "NCDHW")

FractionalMaxPool2D = _pool("FractionalMaxPool2D", pooling.fractional_max_pool2d, 4,
                            ("output_size", "return_mask"), output_size=REQUIRED,
                            kernel_size=None, random_u=None, return_mask=False)
FractionalMaxPool3D = _pool("FractionalMaxPool3D", pooling.fractional_max_pool3d, 5,
                            ("output_size", "return_mask"), output_size=REQUIRED,
                            kernel_size=None, random_u=None, return_mask=False)
