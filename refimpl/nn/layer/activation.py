"""Activations as layers: each calls its nn.functional counterpart with the settings given
at construction. PReLU owns its slope parameter."""
from ...framework.initializer import Constant
from ...layers import activation as F
from ...layers import functional_nn
from ...layers.functional_nn import prelu
from .base import Layer
from .function_layer import REQUIRED, function_layer

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "GELU", "ELU",
           "LeakyReLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
           "SELU", "Softplus", "Softshrink", "Softsign", "Swish", "Tanhshrink",
           "ThresholdedReLU", "PReLU", "Maxout", "GLU", "SiLU", "Silu", "CELU", "Mish",
           "RReLU", "Softmax2D"]

_functional = dict(F.EXPORTS["nn.functional"], maxout=functional_nn.maxout,
                   glu=functional_nn.glu, softmax2d=F.softmax2d)


def _activation(class_name, function, **settings):
    return function_layer(class_name, __name__, _functional[function], **settings)


ReLU = _activation("ReLU", "relu")
ReLU6 = _activation("ReLU6", "relu6")
Sigmoid = _activation("Sigmoid", "sigmoid")
Tanh = _activation("Tanh", "tanh")
LogSigmoid = _activation("LogSigmoid", "log_sigmoid")
Softsign = _activation("Softsign", "softsign")
Swish = _activation("Swish", "swish")
Tanhshrink = _activation("Tanhshrink", "tanhshrink")
Hardswish = _activation("Hardswish", "hardswish")
Hardsigmoid = _activation("Hardsigmoid", "hardsigmoid")
Softmax = _activation("Softmax", "softmax", axis=-1)
LogSoftmax = _activation("LogSoftmax", "log_softmax", axis=-1)
GELU = _activation("GELU", "gelu", approximate=False)
ELU = _activation("ELU", "elu", alpha=1.0)
LeakyReLU = _activation("LeakyReLU", "leaky_relu", negative_slope=0.01)
Hardshrink = _activation("Hardshrink", "hardshrink", threshold=0.5)
Softshrink = _activation("Softshrink", "softshrink", threshold=0.5)
Hardtanh = _activation("Hardtanh", "hardtanh", min=-1.0, max=1.0)
SELU = _activation("SELU", "selu", scale=1.0507009873554804934193349852946,
                   alpha=1.6732632423543772848170429916717)
Softplus = _activation("Softplus", "softplus", beta=1, threshold=20)
ThresholdedReLU = _activation("ThresholdedReLU", "thresholded_relu", threshold=1.0)
# the max over each run of `groups` channels along axis
Maxout = _activation("Maxout", "maxout", groups=REQUIRED, axis=1)


class _Named:
    """A repr naming the layer's name too, when given (3.3.1's GLU, Silu, RReLU)."""

    def extra_repr(self):
        return ", ".join(part for part in (super().extra_repr(), self._name and
                                           "name=%s" % self._name) if part)


class GLU(_Named, _activation("GLU", "glu", axis=-1)):
    """F.glu as a layer; its repr names the layer's name too, when given (Paddle 3.3.1)."""


CELU = _activation("CELU", "celu", alpha=1.0)
Mish = _activation("Mish", "mish")


class Softmax2D(_Named, _activation("Softmax2D", "softmax2d")):
    """Softmax over the channels of a 3-D or 4-D input."""


class Silu(_Named, _activation("Silu", "silu", inplace=False)):
    """F.silu as a layer (Paddle 3's nn.SiLU and nn.Silu, one class)."""


SiLU = Silu


class RReLU(Layer):
    """F.rrelu as a layer: random slopes in training, their mean after eval()."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        self._expect_input(x)
        return F.rrelu(x, self._lower, self._upper, self.training, self._name)

    def extra_repr(self):
        return "lower=%s, upper=%s, training=%s, dtype=%s%s" % (
            self._lower, self._upper, self.training, self._dtype,
            ", name=%s" % self._name if self._name else "")


class PReLU(Layer):
    """nn.functional.prelu with a learned slope: `_weight` [num_parameters], initialized to
    `init`; num_parameters 1 shares one slope, otherwise one per channel (axis 1)."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, name=None):
        super().__init__()
        if num_parameters < 1:
            raise ValueError("PReLU: num_parameters must be positive, got %r"
                             % (num_parameters,))
        self._num_parameters, self._init, self._name = num_parameters, init, name
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        self._expect_input(x)
        if self._num_parameters > 1:
            if len(x.shape) < 2:
                raise ValueError("%s: input %r %s needs a channel dim 1 for %d slopes"
                                 % (self._where(), x.name, list(x.shape),
                                    self._num_parameters))
            self._expect_dim(x, 1, self._num_parameters, "num_parameters")
        return prelu(x, self._weight, self._name)

    def extra_repr(self):
        return "num_parameters=%d, init=%s, dtype=%s" % (self._num_parameters, self._init,
                                                         self._dtype)
