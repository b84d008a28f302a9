"""Linear, Bilinear, Embedding, Flatten, the dropouts, padding, resizing, pixel shuffle and
CosineSimilarity (PairwiseDistance is in distance.py, as in Paddle 2.0's paddle.nn.layer)."""
from ...framework.program import Variable
from ...layers import functional_nn, functional_vision
from ...layers.common import append_op_out
from ...layers.embedding import functional_embedding
from ...layers.functional_loss import cosine_similarity
from ...layers.norm import check_dropout_mode, dropout
from ...layers.tensor import flatten
from .base import Layer

__all__ = ["Linear", "Embedding", "Flatten", "Dropout", "Bilinear", "Dropout2D", "Dropout3D",
           "AlphaDropout", "Pad1D", "Pad2D", "Pad3D", "PixelShuffle", "Upsample",
           "UpsamplingNearest2D", "UpsamplingBilinear2D", "CosineSimilarity"]
__all__ += ["FeatureAlphaDropout", "Identity"]     # Paddle 3's


class Linear(Layer):
    """y = x @ weight + bias over the last dim of x (functional_nn.linear_product, then
    elementwise_add as Paddle builds it). weight: [in_features, out_features], XavierUniform by default; bias:
    [out_features], zeros by default; bias_attr=False -> no bias."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        self._in_features, self._out_features = in_features, out_features
        self._name = name
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input)
        last = len(input.shape) - 1
        if last < 0:
            raise ValueError("%s: input %r must have at least one dim" % (self._where(),
                                                                          input.name))
        self._expect_dim(input, last, self._in_features, "in_features")
        bias = self.bias     # (each parameter read goes through Layer.__getattr__)
        out = functional_nn.linear_product(input, self.weight,
                                           name=None if bias is not None else self._name)
        if bias is None:
            return out
        return append_op_out("elementwise_add", {"X": [out], "Y": [bias]}, {"axis": last},
                             self._name)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, dtype=%s" % (
            self._in_features, self._out_features, self._dtype)


class Embedding(Layer):
    """Rows of weight [num_embeddings, embedding_dim] (XavierUniform by default) picked by
    integer ids of any shape: out shape = ids shape + [embedding_dim] (lookup_table_v2).
    padding_idx (negative counts from the end) gives zero rows and no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None):
        super().__init__()
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise ValueError("Embedding: num_embeddings and embedding_dim must be positive, "
                             "got %d and %d" % (num_embeddings, embedding_dim))
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError("Embedding: padding_idx must be in [%d, %d), got %d"
                             % (-num_embeddings, num_embeddings, padding_idx))
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx, self._sparse, self._name = padding_idx, sparse, name
        self.weight = self.create_parameter([num_embeddings, embedding_dim], weight_attr)

    def forward(self, x):
        self._expect_input(x)
        return functional_embedding(x, self.weight, self._padding_idx, self._sparse,
                                    self._name)

    def extra_repr(self):
        padding = "" if self._padding_idx is None else ", padding_idx=%d" % self._padding_idx
        return "%d, %d%s, sparse=%s" % (self._num_embeddings, self._embedding_dim, padding,
                                        self._sparse)


class Flatten(Layer):
    """paddle.flatten(x, start_axis, stop_axis): dims start..stop merged into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        self._expect_input(input)
        return flatten(input, self.start_axis, self.stop_axis)


def _check_p(layer, p):
    if not 0 <= p <= 1:
        raise ValueError("%s: p must be in [0, 1], got %r" % (layer, p))


class Dropout(Layer):
    """nn.functional.dropout with training=self.training: after eval() the layer builds a
    dropout op with is_test=True (identity for upscale_in_train, x * (1 - p) for
    downscale_in_infer)."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        _check_p("Dropout", p)
        check_dropout_mode("Dropout", mode)
        self.p, self.axis, self.mode, self._name = p, axis, mode, name

    def forward(self, input):
        self._expect_input(input)
        return dropout(input, self.p, self.axis, self.training, self.mode, self._name)

    def extra_repr(self):
        return "p=%s, axis=%s, mode=%s" % (self.p, self.axis, self.mode)


class Bilinear(Layer):
    """out[n, k] = x1[n] @ weight[k] @ x2[n] + bias[k] (nn.functional.bilinear); weight
    [out_features, in1_features, in2_features] (XavierUniform), bias [1, out_features]
    (zeros; bias_attr=False -> none)."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        for what, n in (("in1_features", in1_features), ("in2_features", in2_features),
                        ("out_features", out_features)):
            if n <= 0:
                raise ValueError("Bilinear: %s must be positive, got %r" % (what, n))
        self._in1_features, self._in2_features = in1_features, in2_features
        self._out_features, self._name = out_features, name
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr)
        self.bias = self.create_parameter([1, out_features], bias_attr, is_bias=True)

    def forward(self, x1, x2):
        self._expect_input(x1, "x1", ranks=(2,))
        self._expect_input(x2, "x2", ranks=(2,))
        self._expect_dim(x1, 1, self._in1_features, "in1_features")
        self._expect_dim(x2, 1, self._in2_features, "in2_features")
        return functional_nn.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self):
        return "in1_features=%d, in2_features=%d, out_features=%d, dtype=%s" % (
            self._in1_features, self._in2_features, self._out_features, self._dtype)


class _ChannelDropout(Layer):
    """Whole feature maps dropped (upscale_in_train) in training; identity after eval()."""
    _function = None

    def __init__(self, p, data_format, name):
        super().__init__()
        _check_p(type(self).__name__, p)
        self.p, self.data_format, self._name = p, data_format, name

    def forward(self, input):
        self._expect_input(input, "input")
        return type(self)._function(input, self.p, self.training, self.data_format,
                                    self._name)

    def extra_repr(self):
        return "p=%s, data_format=%s" % (self.p, self.data_format)


class Dropout2D(_ChannelDropout):
    _function = functional_nn.dropout2d

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__(p, data_format, name)


class Dropout3D(_ChannelDropout):
    _function = functional_nn.dropout3d

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """nn.functional.alpha_dropout (keeps SELU's mean and variance) in training; identity
    after eval()."""
    _function = functional_nn.alpha_dropout

    def __init__(self, p=0.5, name=None):
        super().__init__()
        _check_p(type(self).__name__, p)
        self.p, self._name = p, name

    def forward(self, input):
        self._expect_input(input, "input")
        return type(self)._function(input, self.p, self.training, self._name)

    def extra_repr(self):
        return "p=%s" % (self.p,)


class FeatureAlphaDropout(AlphaDropout):
    """nn.functional.feature_alpha_dropout (Paddle 3): alpha dropout of whole channels."""
    _function = functional_nn.feature_alpha_dropout


class Identity(Layer):
    """Returns its input (Paddle 3); the constructor takes any arguments and ignores them."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class _Pad(Layer):
    """nn.functional.pad over the `_nd` spatial dims: padding an int (all sides), 2 * nd
    ints, innermost dim first ([left, right, top, bottom, front, back]), or an int32 Tensor
    of them. x's rank is pad's to check against data_format (an AssertionError, as Paddle
    2.0's Pad1D given a 4-D x with 'NCL')."""
    _nd = 2
    _modes = ("constant", "reflect", "replicate", "circular")

    def __init__(self, padding, mode, value, data_format, name):
        super().__init__()
        cls = type(self).__name__
        if isinstance(padding, int):
            padding = [padding] * (2 * self._nd)
        if not isinstance(padding, Variable):
            if len(padding) != 2 * self._nd:
                raise ValueError("%s: padding must be an int or %d ints, got %r"
                                 % (cls, 2 * self._nd, padding))
            padding = list(padding)
        if mode not in self._modes:
            raise ValueError("%s: mode must be one of %s, got %r"
                             % (cls, list(self._modes), mode))
        self._padding, self._mode, self._value = padding, mode, value
        self._data_format, self._name = data_format, name

    def forward(self, x):
        self._expect_input(x)
        return functional_vision.pad(x, self._padding, self._mode, self._value,
                                     self._data_format, self._name)

    def extra_repr(self):
        return "padding=%s, mode=%s, value=%s, data_format=%s" % (
            self._padding, self._mode, self._value, self._data_format)


class Pad1D(_Pad):
    _nd = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_Pad):
    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_Pad):
    _nd = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class PixelShuffle(Layer):
    """[N, C r^2, H, W] -> [N, C, H r, W r] (nn.functional.pixel_shuffle)."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        functional_vision.check_pixel_shuffle_args(upscale_factor, data_format,
                                                   "PixelShuffle")
        self._upscale_factor, self._data_format, self._name = upscale_factor, data_format, \
            name

    def forward(self, x):
        self._expect_input(x, ranks=(4,))
        return functional_vision.pixel_shuffle(x, self._upscale_factor, self._data_format,
                                               self._name)

    def extra_repr(self):
        return "upscale_factor=%s" % (self._upscale_factor,)


class Upsample(Layer):
    """nn.functional.interpolate with the settings given here: exactly one of size and
    scale_factor; mode nearest / bilinear / bicubic (4-D), linear (3-D), trilinear (5-D)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self._name = data_format, name

    def forward(self, x):
        self._expect_input(x)
        return functional_vision.interpolate(x, self.size, self.scale_factor, self.mode,
                                             self.align_corners, self.align_mode,
                                             self.data_format, self._name)

    def extra_repr(self):
        scale = "size=%s" % (self.size,) if self.scale_factor is None else \
            "scale_factor=%s" % (self.scale_factor,)
        return "%s, mode=%s, align_corners=%s, align_mode=%s, data_format=%s" % (
            scale, self.mode, self.align_corners, self.align_mode, self.data_format)


class UpsamplingNearest2D(Upsample):
    """Upsample with mode 'nearest' on 4-D input."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    """Upsample with mode 'bilinear' and align_corners=True (as Paddle) on 4-D input."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format, name)


class CosineSimilarity(Layer):
    """nn.functional.cosine_similarity of x1 and x2 along axis."""

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        self._expect_input(x1, "x1")
        self._expect_input(x2, "x2")
        return cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self):
        return "axis=%s, eps=%s" % (self._axis, self._eps)
