"""Activations as layers: each calls its nn.functional counterpart with the settings given
at construction. PReLU (a weight parameter) waits for a prelu op."""
from ...layers import activation as F
from .base import Layer

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "GELU", "ELU",
           "LeakyReLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
           "SELU", "Softplus", "Softshrink", "Softsign", "Swish", "Tanhshrink",
           "ThresholdedReLU"]

_functional = F.EXPORTS["nn.functional"]


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
