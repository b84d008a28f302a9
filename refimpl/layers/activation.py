"""Activation layers: paddle.nn.functional.* (2.0 signatures) and fluid.layers.* (1.8).

The two APIs often name one op's attribute differently (F.leaky_relu's negative_slope is the
op's alpha, F.softshrink's threshold is its lambda) and pick other defaults; each layer
function below maps its own arguments onto the op's attrs.
"""
from ..framework.errors import LayerAssertionError
from .creation import written
from .common import append_op_out, check_variable, check_variables, in_place, unary
from .math import cast
from .tensor import split


def _simple(op_type, api_name=None):
    def layer(x, name=None):
        return unary(op_type, x, None, name, layer_type=api_name)
    layer.__name__ = api_name or op_type
    layer.__doc__ = "elementwise %s" % op_type
    return layer


# -- paddle.nn.functional (2.0)
def leaky_relu(x, negative_slope=0.01, name=None):
    return unary("leaky_relu", x, {"alpha": float(negative_slope)}, name)


def gelu(x, approximate=False, name=None):
    return unary("gelu", x, {"approximate": bool(approximate)}, name)


def _softmax_family(op_type, x, axis, dtype, name):
    # dtype: cast first, so the softmax itself runs in (and returns) that dtype
    if dtype is not None:
        x = cast(x, dtype)
    return unary(op_type, x, {"axis": axis}, name)


def softmax(x, axis=-1, dtype=None, name=None):
    return _softmax_family("softmax", x, axis, dtype, name)


def log_softmax(x, axis=-1, dtype=None, name=None):
    return _softmax_family("log_softmax", x, axis, dtype, name)


def relu6(x, name=None):
    return unary("relu6", x, {"threshold": 6.0}, name)


def elu(x, alpha=1.0, name=None):
    return unary("elu", x, {"alpha": float(alpha)}, name)


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
         name=None):
    # paddle.nn.functional.selu (2.0, 3.3.1) refuses these; fluid.layers.selu takes any
    if scale <= 1.0:
        raise ValueError("selu: scale must be greater than 1.0, got %s" % scale)
    if alpha < 0:
        raise ValueError("selu: alpha must be no less than zero, got %s" % alpha)
    return unary("selu", x, {"scale": float(scale), "alpha": float(alpha)}, name)


def softplus(x, beta=1, threshold=20, name=None):
    return unary("softplus", x, {"beta": float(beta), "threshold": float(threshold)}, name)


def swish(x, name=None):
    return unary("swish", x, {"beta": 1.0}, name)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return unary("hard_sigmoid", x, {"slope": float(slope), "offset": float(offset)}, name,
                 layer_type="hardsigmoid")


def hardswish(x, name=None):
    return unary("hard_swish", x, {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, name,
                 layer_type="hardswish")


def hardtanh(x, min=-1.0, max=1.0, name=None):
    return unary("brelu", x, {"t_min": float(min), "t_max": float(max)}, name,
                 layer_type="hardtanh")


def hardshrink(x, threshold=0.5, name=None):
    return unary("hard_shrink", x, {"threshold": float(threshold)}, name,
                 layer_type="hardshrink")


def softshrink(x, threshold=0.5, name=None):
    if threshold < 0:       # Paddle 2.0's and 3.3.1's F.softshrink refuse it
        raise ValueError("softshrink: the threshold must be no less than zero, got %s"
                         % threshold)
    return unary("softshrink", x, {"lambda": float(threshold)}, name)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x above `threshold`, else `value` (Paddle 3's argument)."""
    return unary("thresholded_relu", x, {"threshold": float(threshold), "value": float(value)},
                 name)


# -- Paddle 3's activations
def silu(x, inplace=False, name=None):
    """x sigmoid(x); `inplace` makes an eager x the result (layers.common.in_place)."""
    if inplace:
        return _silu_in_place(x, name=name)
    return unary("silu", x, None, name)


_silu_in_place = in_place(silu, "silu")


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    if alpha == 0:      # 3.3.1's error
        raise ZeroDivisionError("alpha cannot be 0 for celu")
    return unary("celu", x, {"alpha": float(alpha)}, name)


def paddle3_mish(x, name=None):
    """x tanh(softplus(x)), softplus(x) = x above 20 (the mish op's default threshold)."""
    return unary("mish", x, None, name)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky relu (the rrelu op): negative elements times a U(lower, upper)
    draw in training, times (lower + upper) / 2 otherwise. 3.3.1's argument checks."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError("rrelu: the lower and upper values must be float type. Received: "
                        "lower %r, upper %r." % (lower, upper))
    if not 0 <= lower <= 1:
        raise ValueError("rrelu: the lower value must be in [0, 1]. Received: %r." % lower)
    if upper < lower:
        raise ValueError("rrelu: the upper value must be greater than lower value. "
                         "Received: lower %r, upper %r." % (lower, upper))
    if upper > 1:
        raise ValueError("rrelu: the upper value must be no greater than one. Received: %r."
                         % upper)
    check_variable(x, "x", "rrelu")
    return append_op_out("rrelu", {"X": [x]}, {"lower": lower, "upper": upper,
                                               "is_test": not training}, name,
                         extra_outputs=[("Noise", None)])[0]


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + Gumbel noise) / temperature) along axis; `hard`: its one-hot argmax."""
    return unary("gumbel_softmax", x, {"temperature": float(temperature), "hard": bool(hard),
                                       "axis": int(axis)}, name)


def swiglu(x, y=None, name=None):
    """silu(x) * y; without y, x's last axis split in halves a, b: silu(a) * b. Composed:
    3.3.1 has a swiglu kernel for its eager and PIR modes but no legacy-IR op."""
    check_variables("swiglu", x=x, y=y)
    if y is None:
        if x.shape[-1] >= 0 and x.shape[-1] % 2:
            raise ValueError("swiglu: the last dim of x %r %s must be divisible by 2"
                             % (x.name, list(x.shape)))
        x, y = split(x, 2, axis=-1)
    elif list(x.shape) != list(y.shape):
        raise ValueError("swiglu: x %r %s and y %r %s must have one shape"
                         % (x.name, list(x.shape), y.name, list(y.shape)))
    return append_op_out("elementwise_mul", {"X": [silu(x)], "Y": [y]}, {"axis": -1}, name)


def softmax2d(x, name=None):
    """softmax over the channels of a [C, H, W] or [N, C, H, W] x (nn.Softmax2D)."""
    check_variable(x, "x", "Softmax2D")
    if len(x.shape) not in (3, 4):
        raise LayerAssertionError("Softmax2D requires a 3D or 4D tensor as input. Received: "
                                  "%dD." % len(x.shape))
    return softmax(x, -3, name=name)


def compat_softmax(input, dim=None, dtype=None, *, out=None):
    """paddle.softmax / Tensor.softmax (3.3.1's torch-style signature): dim None is 0 for
    a 0-D, 1-D or 3-D input, else 1; `out`, when given, receives the result."""
    if dim is None:
        dim = 0 if len(input.shape) in (0, 1, 3) else 1
    return written(softmax(input, dim, dtype), out)


# -- fluid.layers (1.8)
def fluid_leaky_relu(x, alpha=0.02, name=None):
    return unary("leaky_relu", x, {"alpha": float(alpha)}, name)


def fluid_softmax(input, use_cudnn=False, name=None, axis=-1):
    return unary("softmax", input, {"axis": axis}, name)


def fluid_log_softmax(input, axis=None, dtype=None, name=None):
    """Paddle 1.8's fluid.layers.log_softmax: axis None is the last."""
    return log_softmax(input, -1 if axis is None else axis, dtype, name)


def fluid_relu6(x, threshold=6.0, name=None):
    return unary("relu6", x, {"threshold": float(threshold)}, name)


def fluid_swish(x, beta=1.0, name=None):
    return unary("swish", x, {"beta": float(beta)}, name)


def fluid_hard_sigmoid(x, slope=0.2, offset=0.5, name=None):
    return unary("hard_sigmoid", x, {"slope": float(slope), "offset": float(offset)}, name)


def fluid_hard_swish(x, threshold=6.0, scale=6.0, offset=3.0, name=None):
    return unary("hard_swish", x, {"threshold": float(threshold), "scale": float(scale),
                                   "offset": float(offset)}, name)


def fluid_selu(x, scale=None, alpha=None, name=None):
    attrs = {k: float(v) for k, v in (("scale", scale), ("alpha", alpha)) if v is not None}
    return unary("selu", x, attrs, name)


def brelu(x, t_min=0.0, t_max=24.0, name=None):
    return unary("brelu", x, {"t_min": float(t_min), "t_max": float(t_max)}, name)


def soft_relu(x, threshold=40.0, name=None):
    return unary("soft_relu", x, {"threshold": float(threshold)}, name)


def fluid_hard_shrink(x, threshold=None):
    return unary("hard_shrink", x, {} if threshold is None else {"threshold": float(threshold)})


def fluid_softshrink(x, alpha=None):
    return unary("softshrink", x, {} if alpha is None else {"lambda": float(alpha)})


def fluid_thresholded_relu(x, threshold=None):
    return unary("thresholded_relu", x,
                 {} if threshold is None else {"threshold": float(threshold)})


def mish(x, threshold=20, name=None):
    """x tanh(softplus(x)) (Paddle 1.8's fluid.layers.mish); softplus(x) = x above
    `threshold`."""
    return unary("mish", x, {"threshold": float(threshold)}, name)


_BOTH = ["relu", "sigmoid", "tanh", "softsign"]
_LOG_SIGMOID = _simple("logsigmoid", "log_sigmoid")

EXPORTS = {
    "nn.functional": dict(
        {"leaky_relu": leaky_relu, "gelu": gelu, "softmax": softmax, "log_softmax": log_softmax,
         "relu6": relu6, "elu": elu, "selu": selu, "softplus": softplus, "swish": swish,
         "hardsigmoid": hardsigmoid, "hardswish": hardswish, "hardtanh": hardtanh,
         "hardshrink": hardshrink, "softshrink": softshrink,
         "thresholded_relu": thresholded_relu,
         "log_sigmoid": _LOG_SIGMOID, "logsigmoid": _LOG_SIGMOID,
         "silu": silu, "celu": celu, "mish": paddle3_mish, "rrelu": rrelu,
         "gumbel_softmax": gumbel_softmax, "swiglu": swiglu,
         "tanhshrink": _simple("tanh_shrink", "tanhshrink")},
        **{n: _simple(n) for n in _BOTH}),
    "fluid.layers": dict(
        {"leaky_relu": fluid_leaky_relu, "gelu": gelu, "softmax": fluid_softmax,
         "log_softmax": fluid_log_softmax, "relu6": fluid_relu6, "elu": elu, "selu": fluid_selu,
         "softplus": _simple("softplus"), "swish": fluid_swish,
         "hard_sigmoid": fluid_hard_sigmoid, "hard_swish": fluid_hard_swish, "brelu": brelu,
         "soft_relu": soft_relu, "hard_shrink": fluid_hard_shrink,
         "softshrink": fluid_softshrink, "thresholded_relu": fluid_thresholded_relu,
         "logsigmoid": _simple("logsigmoid"), "tanh_shrink": _simple("tanh_shrink"),
         "mish": mish},
        **{n: _simple(n) for n in _BOTH}),
    "paddle": {"tanh": _simple("tanh"), "sigmoid": _simple("sigmoid"),
               "softmax": compat_softmax},
}
