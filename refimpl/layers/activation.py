"""Activation layers: paddle.nn.functional.* (2.0) and fluid.layers.* (1.8)."""
from .common import unary


def _act(op_type, **defaults):
    def layer(x, name=None, **attrs):
        merged = dict(defaults)
        merged.update(attrs)
        return unary(op_type, x, merged, name)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s" % op_type
    return layer


def leaky_relu(x, negative_slope=0.01, name=None):
    return unary("leaky_relu", x, {"alpha": float(negative_slope)}, name)


def fluid_leaky_relu(x, alpha=0.02, name=None):
    return unary("leaky_relu", x, {"alpha": float(alpha)}, name)


def gelu(x, approximate=False, name=None):
    return unary("gelu", x, {"approximate": approximate}, name)


def softmax(x, axis=-1, dtype=None, name=None):
    return unary("softmax", x, {"axis": axis}, name)


def fluid_softmax(input, use_cudnn=False, name=None, axis=-1):
    return unary("softmax", input, {"axis": axis}, name)


def log_softmax(x, axis=-1, dtype=None, name=None):
    return unary("log_softmax", x, {"axis": axis}, name)


def relu6(x, name=None):
    return unary("relu6", x, {"threshold": 6.0}, name)


def elu(x, alpha=1.0, name=None):
    return unary("elu", x, {"alpha": float(alpha)}, name)


def softplus(x, beta=1, threshold=20, name=None):
    return unary("softplus", x, {"beta": float(beta), "threshold": float(threshold)}, name)


def swish(x, name=None):
    return unary("swish", x, {"beta": 1.0}, name)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return unary("hard_sigmoid", x, {"slope": slope, "offset": offset}, name)


def hardswish(x, name=None):
    return unary("hard_swish", x, {}, name)


_SIMPLE = ["relu", "sigmoid", "tanh", "softsign"]

EXPORTS = {
    "nn.functional": dict(
        {"leaky_relu": leaky_relu, "gelu": gelu, "softmax": softmax, "log_softmax": log_softmax,
         "relu6": relu6, "elu": elu, "softplus": softplus, "swish": swish,
         "hardsigmoid": hardsigmoid, "hardswish": hardswish},
        **{n: _act(n) for n in _SIMPLE}),
    "fluid.layers": dict(
        {"leaky_relu": fluid_leaky_relu, "gelu": gelu, "softmax": fluid_softmax,
         "log_softmax": log_softmax, "relu6": relu6, "elu": elu, "softplus": softplus,
         "swish": swish, "hard_sigmoid": _act("hard_sigmoid", slope=0.2, offset=0.5),
         "hard_swish": hardswish},
        **{n: _act(n) for n in _SIMPLE}),
    "paddle": {"tanh": _act("tanh"), "sigmoid": _act("sigmoid")},
}
