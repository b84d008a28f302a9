"""Paddle 3's pools beyond max / avg: paddle.nn.functional lp_pool1d / lp_pool2d (the
lp_pool2d op; the 1-D form over a unit height, as 3.3.1 builds it), max_unpool1d /
max_unpool2d / max_unpool3d (the unpool / unpool3d ops; 1-D over a unit height) and
fractional_max_pool2d / 3d (their ops). The argument checks and their error types are
3.3.1's (measured)."""
from ..dygraph.tensor import Tensor
from ..framework.program import Variable
from .common import append_op_out, check_variable
from .functional_conv import _ints, _padding
from .tensor import squeeze, unsqueeze

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_rank(x, nd, layer, what="x"):
    """A Variable of nd + 2 dims (3.3.1's words: 'The x should have [N, C, H, W] format')."""
    check_variable(x, what, layer)
    if len(x.shape) != nd + 2:
        raise ValueError("%s: The %s should have [N, C, %s] format, got shape %s"
                         % (layer, what, ", ".join("LHW" if nd == 1 else "DHW"[3 - nd:]),
                            list(x.shape)))


def _window(kernel_size, stride, nd, layer):
    kernel = _ints(kernel_size, nd, "kernel_size", layer)
    strides = kernel if stride is None else _ints(stride, nd, "stride", layer)
    if min(kernel + strides) <= 0:
        raise ValueError("%s: kernel_size %s and stride %s must be positive"
                         % (layer, kernel, strides))
    return kernel, strides


# -- power-average pooling
def _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, name, nd,
             layer):
    _check_rank(x, nd, layer)
    if norm_type == 0:
        raise ValueError("%s: norm_type cannot be 0" % layer)
    if data_format not in _FORMATS[nd]:
        raise ValueError("%s: data_format must be %s, got %r"
                         % (layer, " or ".join(map(repr, _FORMATS[nd])), data_format))
    kernel, strides = _window(kernel_size, stride, nd, layer)
    paddings, algorithm = _padding(padding, nd, data_format, layer)
    if nd == 1:   # a unit height in front of the length
        x = unsqueeze(x, [1 if data_format == "NLC" else 2])
        kernel, strides = [1] + kernel, [1] + strides
        paddings = [0, 0] + (paddings * 2 if len(paddings) == 1 else paddings)
    out = append_op_out("lp_pool2d", {"x": [x]},
                        {"kernel_size": kernel, "strides": strides, "paddings": paddings,
                         "ceil_mode": bool(ceil_mode), "exclusive": True,
                         "data_format": "NHWC" if data_format[-1] == "C" else "NCHW",
                         "pooling_type": "lp", "global_pooling": False, "adaptive": False,
                         "padding_algorithm": algorithm, "norm_type": float(norm_type)},
                        name, out_slot="out")
    return squeeze(out, [1 if data_format == "NLC" else 2]) if nd == 1 else out


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    return _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, name,
                    1, "lp_pool1d")


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    return _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, name,
                    2, "lp_pool2d")


# -- max unpooling
def _unpool_output_size(x, kernel, strides, paddings, output_size, layer):
    """3.3.1's rule: by default (S - 1) stride + k - 2 padding per dim; a given output_size
    (nd values, or nd + 2 with N and C first) must lie strictly within a stride of it."""
    nd = len(kernel)
    default = [(d - 1) * s + k - 2 * p
               for d, k, s, p in zip(x.shape[2:], kernel, strides, paddings)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):
        raise TypeError("%s: output_size must be None, a list or a tuple, got %r"
                        % (layer, output_size))
    if any(isinstance(v, Variable) and not isinstance(v, Tensor) for v in output_size):
        raise NotImplementedError("%s: an output_size of static Variables is not supported "
                                  "(3.3.1 passes them as an attribute of Variables); pass "
                                  "ints" % layer)
    size = [int(v.item()) if isinstance(v, Tensor) else int(v) for v in output_size]
    size = size[2:] if len(size) == nd + 2 else size
    if len(size) != nd:
        raise ValueError("%s: output_size must hold %d or %d values, got %s"
                         % (layer, nd, nd + 2, list(output_size)))
    for d, (want, base, s) in enumerate(zip(size, default, strides)):
        if not base - s < want < base + s:
            raise ValueError("%s: invalid output_size %s: dim %d must be between %d and %d "
                             "(exclusive)" % (layer, size, d, base - s, base + s))
    return size


def _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, nd,
                layer):
    _check_rank(x, nd, layer)
    _check_rank(indices, nd, layer, "indices")
    if list(x.shape) != list(indices.shape):
        raise ValueError("%s: The dimensions of Input(X) must equal to the dimensions of "
                         "Input(Indices): x %s, indices %s"
                         % (layer, list(x.shape), list(indices.shape)))
    if data_format != _FORMATS[nd][0]:
        raise ValueError("%s: Attr(data_format) should be %r, got %r"
                         % (layer, _FORMATS[nd][0], data_format))
    kernel, strides = _window(kernel_size, stride, nd, layer)
    paddings = _ints(padding, nd, "padding", layer)
    size = _unpool_output_size(x, kernel, strides, paddings, output_size, layer)
    if nd == 1:   # as 3.3.1: the 2-D op over a unit height
        x, indices = unsqueeze(x, [2]), unsqueeze(indices, [2])
        kernel, strides, paddings, size = [1] + kernel, [1] + strides, [0] + paddings, \
            [1] + size
    attrs = {"ksize": kernel, "strides": strides, "paddings": paddings, "output_size": size,
             "data_format": "NCDHW" if nd == 3 else "NCHW"}
    if nd < 3:
        attrs["unpooling_type"] = "max"
    out = append_op_out("unpool3d" if nd == 3 else "unpool", {"X": [x], "Indices": [indices]},
                        attrs)
    return squeeze(out, [2]) if nd == 1 else out


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 1,
                       "max_unpool1d")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 2,
                       "max_unpool2d")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 3,
                       "max_unpool3d")


# -- fractional max pooling
def _fractional_max_pool(x, output_size, kernel_size, random_u, return_mask, name, nd,
                         layer):
    """random_u None: 0 to the op, which draws u each run (3.3.1's kernel does)."""
    _check_rank(x, nd, layer)
    if random_u is None:
        random_u = 0.0
    elif not 0 < random_u < 1:
        raise ValueError("%s: random_u must be a float in (0, 1), got %r" % (layer, random_u))
    kernel = [0] * nd if kernel_size is None else _ints(kernel_size, nd, "kernel_size", layer)
    if isinstance(output_size, int):
        sizes = [output_size] * nd
    else:   # None keeps that dim's size (3.3.1)
        sizes = [d if o is None else o for o, d in zip(output_size, x.shape[2:])]
        if len(output_size) != nd:
            raise ValueError("%s: output_size must have %d values, got %s"
                             % (layer, nd, list(output_size)))
    out, mask = append_op_out("fractional_max_pool%dd" % nd, {"x": [x]},
                              {"output_size": [int(v) for v in sizes], "kernel_size": kernel,
                               "random_u": float(random_u), "return_mask": bool(return_mask)},
                              name, out_slot="out", extra_outputs=[("mask", "int32")])
    return (out, mask) if return_mask else out


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    return _fractional_max_pool(x, output_size, kernel_size, random_u, return_mask, name, 2,
                                "fractional_max_pool2d")


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    return _fractional_max_pool(x, output_size, kernel_size, random_u, return_mask, name, 3,
                                "fractional_max_pool3d")


EXPORTS = {
    "nn.functional": {"lp_pool1d": lp_pool1d, "lp_pool2d": lp_pool2d,
                      "max_unpool1d": max_unpool1d, "max_unpool2d": max_unpool2d,
                      "max_unpool3d": max_unpool3d,
                      "fractional_max_pool2d": fractional_max_pool2d,
                      "fractional_max_pool3d": fractional_max_pool3d},
}
