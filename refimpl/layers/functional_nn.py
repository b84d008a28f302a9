"""paddle.nn.functional (2.0) layers on given weights: linear, bilinear, prelu, maxout;
the in-place activations relu_/elu_/softmax_ (and Paddle 3's hardtanh_, leaky_relu_, tanh_,
thresholded_relu_); alpha_dropout, dropout2d/3d (Paddle 3's dropout1d,
feature_alpha_dropout). fluid.layers' maxout twin."""
import warnings

from .. import versions
from .activation import EXPORTS as _ACTIVATIONS
from .common import append_op_out, check_static_dtype, check_variables, in_place
from .math import matmul
from .norm import dropout
from .tensor import reshape, split, squeeze, unsqueeze


def linear_product(x, weight, name=None):
    """x @ weight as Paddle's linear computes it: matmul (2.0: the v1 op, alpha 1, which has
    a double grad there) or matmul_v2 (3.x), by switch `linear_op`."""
    if versions.switch("linear_op") == "matmul":
        return append_op_out("matmul", {"X": [x], "Y": [weight]},
                             {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}, name)
    return matmul(x, weight, name=name)


def linear(x, weight, bias=None, name=None):
    """x @ weight (+ bias): linear_product, then elementwise_add."""
    check_variables("linear", x=x, weight=weight, bias=bias)
    out = linear_product(x, weight)
    if bias is None:
        return out
    return append_op_out("elementwise_add", {"X": [out], "Y": [bias]}, {"axis": -1}, name)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, k] = x1[n] W[k] x2[n] + b[k] (bilinear_tensor_product); weight [K, M, P],
    bias [1, K]."""
    check_variables("bilinear", x1=x1, x2=x2, weight=weight, bias=bias)
    inputs = {"X": [x1], "Y": [x2], "Weight": [weight]}
    if bias is not None:
        inputs["Bias"] = [bias]
    return append_op_out("bilinear_tensor_product", inputs, name=name)


def prelu(x, weight, name=None):
    """x > 0 ? x : weight x; a 1-element weight is shared ('all'), otherwise one per
    channel (axis 1)."""
    check_variables("prelu", x=x, weight=weight)
    n = 1
    for d in weight.shape:
        n *= d
    mode = "all" if n == 1 else "channel"
    return append_op_out("prelu", {"X": [x], "Alpha": [weight]}, {"mode": mode}, name)


def maxout(x, groups, axis=1, name=None):
    """The max over each run of `groups` consecutive channels (axis 1 or -1)."""
    check_variables("maxout", x=x)
    return append_op_out("maxout", {"X": [x]}, {"groups": int(groups), "axis": int(axis)},
                         name)


def fluid_maxout(x, groups, name=None, axis=1):
    return maxout(x, groups, axis, name)


_F = _ACTIVATIONS["nn.functional"]
relu_ = in_place(_F["relu"], "relu_")
elu_ = in_place(_F["elu"], "elu_")
softmax_ = in_place(_F["softmax"], "softmax_")
# Paddle 3's
_IN_PLACE_3 = {name + "_": in_place(_F[name], name + "_")
               for name in ("hardtanh", "leaky_relu", "tanh", "thresholded_relu")}


def _check_p(p, layer):
    if not 0 <= p <= 1:
        raise ValueError("%s: p must be in [0, 1], got %r" % (layer, p))


def _keep_mask(like, p, mode):
    """A dropout of ones shaped like `like`: each element 1 (or 1/(1-p) with mode
    'upscale_in_train') with probability 1-p, else 0; no gradient flows through it."""
    ones = append_op_out("fill_any_like", {"X": [like]}, {"value": 1.0}, stop_gradient=True)
    mask = dropout(ones, p, training=True, mode=mode)
    mask.stop_gradient = True
    return mask


def alpha_dropout(x, p=0.5, training=True, name=None):
    """SELU-preserving dropout: dropped elements become -alpha*scale (SELU's negative
    saturation), then a x + b restores zero mean and unit variance (Paddle 2.0's formula)."""
    check_variables("alpha_dropout", x=x)
    _check_p(p, "alpha_dropout")
    return _alpha_dropout(x, p, training, name, x)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """alpha_dropout of whole feature maps (Paddle 3): one keep draw per (sample, channel)
    of an x of at least 2 dims, broadcast over the others."""
    check_variables("feature_alpha_dropout", x=x)
    if not isinstance(p, (float, int)):
        raise TypeError("feature_alpha_dropout: p must be a float or int, got %s"
                        % type(p).__name__)
    _check_p(p, "feature_alpha_dropout")
    if len(x.shape) < 2:
        raise ValueError("feature_alpha_dropout: x %r %s needs at least 2 dims"
                         % (x.name, list(x.shape)))
    per_channel = x
    if len(x.shape) > 2:
        per_channel = append_op_out("reduce_sum", {"X": [x]},
                                    {"dim": list(range(2, len(x.shape))), "keep_dim": True,
                                     "reduce_all": False}, stop_gradient=True)
    return _alpha_dropout(x, p, training, name, per_channel)


def _alpha_dropout(x, p, training, name, mask_like):
    """alpha dropout of x with a keep mask shaped like `mask_like` (x's, or one entry per
    channel), broadcast over x."""
    if not training or p == 0:
        return x
    if p == 1:      # every element dropped: zeros (Paddle 2.0), not the formula's 0 ** -0.5
        return append_op_out("scale", {"X": [x]}, {"scale": 0.0}, name)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p * alpha_p)) ** -0.5
    b = -a * alpha_p * p
    keep = _keep_mask(mask_like, p, "downscale_in_infer")
    y = x * keep + (1.0 - keep) * alpha_p
    return append_op_out("scale", {"X": [y]}, {"scale": a, "bias": b,
                                              "bias_after_scale": True}, name)


def _channel_dropout(x, p, training, data_format, spatial, layer):
    """Zero whole feature maps: one upscaled keep-mask entry per (sample, channel)."""
    check_variables(layer, x=x)
    _check_p(p, layer)
    if len(x.shape) != 2 + spatial:
        raise ValueError("%s: x must be %d-D, got %s" % (layer, 2 + spatial, list(x.shape)))
    channels_last = data_format in ("NHWC", "NDHWC")
    if data_format not in (("NCHW", "NHWC") if spatial == 2 else ("NCDHW", "NDHWC")):
        raise ValueError("%s: unsupported data_format %r" % (layer, data_format))
    if not training or p == 0:
        return x
    dims = list(range(1, 1 + spatial)) if channels_last else list(range(2, 2 + spatial))
    per_channel = append_op_out("reduce_sum", {"X": [x]}, {"dim": dims, "keep_dim": True,
                                                           "reduce_all": False},
                                stop_gradient=True)
    return x * _keep_mask(per_channel, p, "upscale_in_train")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an [N, C, L] or [C, L] input, each kept one scaled by
    1 / (1 - p): F.dropout along the channel axis, so (as in 3.3.1, measured) one draw per
    channel shared by the batch's samples. `inplace` is accepted and ignored, as there."""
    check_variables("dropout1d", input=input)
    _check_p(p, "dropout1d")
    if len(input.shape) not in (2, 3):
        raise RuntimeError("dropout1d expects 2D or 3D input, got %dD" % len(input.shape))
    if inplace:
        warnings.warn("dropout1d: inplace=True is not supported and is ignored (as in "
                      "Paddle 3.3.1)", stacklevel=2)
    return dropout(input, p, axis=len(input.shape) - 2, training=training)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    return _channel_dropout(x, p, training, data_format, 2, "dropout2d")


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    return _channel_dropout(x, p, training, data_format, 3, "dropout3d")


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW",
                  name=None):
    """Each (sample, channel) normalized by its own statistics, then weight/bias [C]
    (instance_norm op). Running statistics are not used (use_input_stats must be True)."""
    check_variables("instance_norm", x=x, weight=weight, bias=bias)
    if not use_input_stats:
        raise NotImplementedError("instance_norm: use_input_stats=False (normalizing by "
                                  "running statistics) is not supported")
    if data_format[1] != "C":
        raise ValueError("instance_norm: data_format must be channels-first (NC...), got %r"
                         % (data_format,))
    inputs = {"X": [x]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    return append_op_out("instance_norm", inputs, {"epsilon": float(eps)}, name,
                         out_slot="Y", extra_outputs=[("SavedMean", None),
                                                      ("SavedVariance", None)])[0]


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW",
                        name=None):
    """x / (k + alpha mean_{window} x^2)^beta, the window being channels c - size//2 ...
    c + (size-1)//2 (zeros beyond). Composed as Paddle 2.0 does: x^2 viewed as 5-D with a
    unit channel dim (a 5-D x's two dims beside its channels merged into one), pad3d along
    the real channels, an avg pool3d of `size` there. data_format only says whether the
    channels come first or last, as in 2.0."""
    check_variables("local_response_norm", x=x)
    ndim = len(x.shape)
    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ValueError("local_response_norm: data_format should be in one of [NCL, NCHW, "
                         "NCDHW, NLC, NHWC, NDHWC], but got %r" % (data_format,))
    if ndim not in (3, 4, 5):
        raise ValueError("local_response_norm: x must be 3-D, 4-D or 5-D, got %s"
                         % list(x.shape))
    channels_last = data_format[-1] == "C"
    if ndim == 5:   # [N, 1, C, D, H*W] or [N, 1, D, H*W, C]
        extra = [1]
        channel = 4 if channels_last else 2
        square = reshape(unsqueeze(x * x, [1]), [0, 0, 0, -1, x.shape[-1]] if channels_last
                         else [0, 0, 0, 0, -1])
    else:           # a unit channel first, units at the end
        extra = [1] + list(range(ndim + 1, 5))
        channel = (ndim - 1 if channels_last else 1) + 1    # C's position in the 5-D view
        square = unsqueeze(x * x, extra)
    pads, ksize = [0] * 6, [1, 1, 1]
    pair = 2 * (4 - channel)                        # pad3d lists W, H, D innermost first
    pads[pair:pair + 2] = [size // 2, (size - 1) // 2]
    ksize[channel - 2] = size
    padded = append_op_out("pad3d", {"X": [square]}, {"paddings": pads, "mode": "constant",
                                                      "value": 0.0, "data_format": "NCDHW"})
    mean = append_op_out("pool3d", {"X": [padded]},
                         {"pooling_type": "avg", "ksize": ksize, "strides": [1, 1, 1],
                          "paddings": [0, 0, 0], "exclusive": False})
    mean = squeeze(mean, extra)
    if ndim == 5:
        mean = reshape(mean, [0] + list(x.shape[1:]))
    div = mean * float(alpha) + float(k)
    return append_op_out("elementwise_div", {"X": [x], "Y": [
        append_op_out("pow", {"X": [div]}, {"factor": float(beta)})]}, {"axis": -1}, name)


def lrn(input, n=5, k=1.0, alpha=1e-4, beta=0.75, name=None, data_format="NCHW"):
    """fluid.layers.lrn (lrn op): input / (k + alpha sum_{window of n} input^2)^beta."""
    check_variables("lrn", input=input)
    if len(input.shape) != 4:
        raise ValueError("lrn: input must be 4-D, got %s" % list(input.shape))
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("lrn: data_format must be 'NCHW' or 'NHWC', got %r" % (data_format,))
    return append_op_out("lrn", {"X": [input]},
                         {"n": int(n), "k": float(k), "alpha": float(alpha),
                          "beta": float(beta), "data_format": data_format}, name,
                         extra_outputs=[("MidOut", None)])[0]


def gather_tree(ids, parents):
    """Backtrack beam search: the full id sequence of every final beam (gather_tree op,
    no gradient); ids and parents [T, B, beam] int."""
    check_variables("gather_tree", ids=ids, parents=parents)
    return append_op_out("gather_tree", {"Ids": [ids], "Parents": [parents]},
                         stop_gradient=True)


def glu(x, axis=-1, name=None):
    """The gated linear unit (Paddle 3's F.glu): x split in two halves a, b along `axis`,
    a * sigmoid(b). `axis` must be in [-rank, rank) (a ValueError) and the size there
    even (split's ValueError); a static x of float16/32/64 (a TypeError)."""
    check_variables("glu", x=x)
    check_static_dtype(x, "x", "glu", ("float16", "float32", "float64"))
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("glu: expected axis in [%d, %d), got %s" % (-rank, rank, axis))
    a, b = split(x, 2, axis)
    return append_op_out("elementwise_mul", {"X": [a], "Y": [append_op_out("sigmoid", {"X": [b]})]},
                         {"axis": -1}, name)


EXPORTS = {
    "nn.functional": {"linear": linear, "glu": glu, "bilinear": bilinear, "prelu": prelu,
                      "maxout": maxout, "relu_": relu_, "elu_": elu_, "softmax_": softmax_,
                      "alpha_dropout": alpha_dropout, "dropout2d": dropout2d,
                      "dropout1d": dropout1d, "feature_alpha_dropout": feature_alpha_dropout,
                      **_IN_PLACE_3,
                      "dropout3d": dropout3d, "instance_norm": instance_norm,
                      "local_response_norm": local_response_norm,
                      "gather_tree": gather_tree},
    "fluid.layers": {"maxout": fluid_maxout, "lrn": lrn},
}
