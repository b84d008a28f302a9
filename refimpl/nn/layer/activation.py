"""Activations as layers: each calls its nn.functional counterpart with the settings given
at construction. PReLU owns its slope parameter."""
from ...framework.initializer import Constant
from ...layers import activation as F
from ...layers import functional_nn
from ...layers.functional_nn import prelu
from .base import Layer

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "GELU", "ELU",
           "LeakyReLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
           "SELU", "Softplus", "Softshrink", "Softsign", "Swish", "Tanhshrink",
           "ThresholdedReLU", "PReLU", "Maxout"]

_functional = dict(F.EXPORTS["nn.functional"], maxout=functional_nn.maxout)


class _Activation(Layer):
    """Calls nn.functional.<_function>(x, **settings, name=name)."""
    _function = None

    def __init__(self, name=None, **settings):
        super().__init__()
        self._name = name
        self._settings = settings

    def forward(self, x):
        self._expect_input(x)
        return _functional[self._function](x, name=self._name, **self._settings)

    def extra_repr(self):
        return ", ".join("%s=%s" % kv for kv in self._settings.items())


class ReLU(_Activation):
    _function = "relu"


class ReLU6(_Activation):
    _function = "relu6"


class Sigmoid(_Activation):
    _function = "sigmoid"


class Tanh(_Activation):
    _function = "tanh"


class LogSigmoid(_Activation):
    _function = "log_sigmoid"


class Softsign(_Activation):
    _function = "softsign"


class Swish(_Activation):
    _function = "swish"


class Tanhshrink(_Activation):
    _function = "tanhshrink"


class Hardswish(_Activation):
    _function = "hardswish"


class Hardsigmoid(_Activation):
    _function = "hardsigmoid"


class Softmax(_Activation):
    _function = "softmax"

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class LogSoftmax(_Activation):
    _function = "log_softmax"

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class GELU(_Activation):
    _function = "gelu"

    def __init__(self, approximate=False, name=None):
        super().__init__(name, approximate=approximate)


class ELU(_Activation):
    _function = "elu"

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class LeakyReLU(_Activation):
    _function = "leaky_relu"

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name, negative_slope=negative_slope)


class Hardshrink(_Activation):
    _function = "hardshrink"

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softshrink(_Activation):
    _function = "softshrink"

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Hardtanh(_Activation):
    _function = "hardtanh"

    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__(name, min=min, max=max)


class SELU(_Activation):
    _function = "selu"

    def __init__(self, scale=1.0507009873554804934193349852946,
                 alpha=1.6732632423543772848170429916717, name=None):
        super().__init__(name, scale=scale, alpha=alpha)


class Softplus(_Activation):
    _function = "softplus"

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name, beta=beta, threshold=threshold)


class ThresholdedReLU(_Activation):
    _function = "thresholded_relu"

    def __init__(self, threshold=1.0, name=None):
        super().__init__(name, threshold=threshold)


class Maxout(_Activation):
    """nn.functional.maxout: the max over each run of `groups` channels along axis."""
    _function = "maxout"

    def __init__(self, groups, axis=1, name=None):
        super().__init__(name, groups=groups, axis=axis)


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
