"""BatchNorm (fluid-style), BatchNorm1D/2D/3D, SyncBatchNorm, LayerNorm, InstanceNorm1D/2D/3D,
LocalResponseNorm, GroupNorm.

Batch norms own four parameters, created in Paddle's order so the names match:
weight (<name>.w_0, init 1), bias (.b_0, init 0), _mean (.w_1, init 0) and _variance
(.w_2, init 1); the last two are non-trainable and the op updates them in place while
training.
"""
import copy

import numpy as np

from ...framework.initializer import Constant
from ...framework.param_attr import ParamAttr
from ...layers.common import real_arg
from ...layers.functional_nn import instance_norm, local_response_norm
from ...layers.norm import (_append_batch_norm, _group_norm, functional_batch_norm,
                              functional_layer_norm)
from .base import Layer
from .spectral_norm import SpectralNorm  # noqa: F401  (Paddle 2.0's nn.layer.norm has it)

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm",
           "LayerNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
           "LocalResponseNorm", "GroupNorm"]


def _affine(layer, attr, size, is_bias, init):
    """Weight/bias of a norm layer. attr=False keeps a fixed, non-trainable one."""
    if attr is False:
        attr = ParamAttr(initializer=init, trainable=False)
    return layer.create_parameter([size], attr, is_bias=is_bias, default_initializer=init)


def _running_stats(layer, size, mean_name, variance_name, do_model_average=True):
    return [layer.create_parameter(
        [size], ParamAttr(name=stat_name, initializer=Constant(init), trainable=False,
                          do_model_average=do_model_average))
        for stat_name, init in ((mean_name, 0.0), (variance_name, 1.0))]


class BatchNorm(Layer):
    """paddle.nn.BatchNorm (the fluid.dygraph one): batch_norm over channel dim 1 (NCHW)
    or the last (NHWC), then `act`. The op's is_test is `is_test or not self.training`."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(dtype=dtype)
        if data_layout not in ("NCHW", "NHWC"):
            raise ValueError("BatchNorm: data_layout must be 'NCHW' or 'NHWC', got %r"
                             % (data_layout,))
        self._num_channels, self._act, self._is_test = num_channels, act, is_test
        self._momentum, self._epsilon, self._data_layout = momentum, epsilon, data_layout
        self._use_global_stats = use_global_stats
        self._trainable_statistics = trainable_statistics
        # False: fixed ones / zeros, as BatchNorm2D's (3.3.1 leaves the weight None and
        # runs batch_norm without Scale: the same values, specs/versions.md)
        self.weight = _affine(self, param_attr, num_channels, False, Constant(1.0))
        self.bias = _affine(self, bias_attr, num_channels, True, Constant(0.0))
        self._mean, self._variance = _running_stats(self, num_channels, moving_mean_name,
                                                    moving_variance_name,
                                                    do_model_average_for_mean_and_var)

    def forward(self, input):
        # the dtype first: 1.8.5 refuses an int32 input (TypeError) before any shape check
        self._expect_input(input, dtypes=("float16", "float32", "float64"))
        self._expect_dim(input, 1 if self._data_layout == "NCHW" else -1, self._num_channels,
                         "num_channels")
        y = _append_batch_norm(
            self._helper, input, self.weight, self.bias, self._mean, self._variance,
            {"momentum": float(self._momentum), "epsilon": float(self._epsilon),
             "is_test": self._is_test or not self.training, "data_layout": self._data_layout,
             "use_global_stats": self._use_global_stats,
             "trainable_statistics": self._trainable_statistics})
        return self._helper.append_activation(y, self._act)

    def extra_repr(self):
        return "num_channels=%d, momentum=%s, epsilon=%s" % (
            self._num_channels, self._momentum, self._epsilon)


class _BatchNormBase(Layer):
    """BatchNorm1D/2D/3D: nn.functional.batch_norm with training=self.training.
    use_global_stats=None: running statistics in eval mode, batch statistics in training."""
    _formats = {"NCHW": "NCHW", "NHWC": "NHWC"}   # accepted data_format -> op layout
    _ranks = None                                 # accepted input ranks (None: >= 2)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        if data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (type(self).__name__, list(self._formats), data_format))
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format = self._formats[data_format]
        self._use_global_stats, self._name = use_global_stats, name
        self.weight = _affine(self, weight_attr, num_features, False, Constant(1.0))
        self.bias = _affine(self, bias_attr, num_features, True, Constant(0.0))
        self._mean, self._variance = _running_stats(
            self, num_features, name and name + "_mean", name and name + "_variance")

    def _check_input(self, x):
        self._expect_input(x, ranks=self._ranks)
        if len(x.shape) < 2:
            raise ValueError("%s: input %r %s must have at least 2 dims"
                             % (self._where(), x.name, list(x.shape)))
        self._expect_dim(x, 1 if self._data_format == "NCHW" else len(x.shape) - 1,
                         self._num_features, "num_features")

    def forward(self, input):
        self._check_input(input)
        return functional_batch_norm(input, self._mean, self._variance, self.weight,
                                     self.bias, self.training, self._momentum, self._epsilon,
                                     self._data_format, self._use_global_stats, self._name)

    def extra_repr(self):
        return "num_features=%d, momentum=%s, epsilon=%s" % (
            self._num_features, self._momentum, self._epsilon)


class BatchNorm1D(_BatchNormBase):
    """Input [N, C] or [N, C, L] ('NC'/'NCL'), or [N, L, C] ('NLC')."""
    _formats = {"NC": "NCHW", "NCL": "NCHW", "NLC": "NHWC"}
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Input [N, C, H, W] ('NCHW') or [N, H, W, C] ('NHWC')."""
    _ranks = (4,)


class BatchNorm3D(_BatchNormBase):
    """Input [N, C, D, H, W] ('NCDHW') or [N, D, H, W, C] ('NDHWC')."""
    _formats = {"NCDHW": "NCHW", "NDHWC": "NHWC"}
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class SyncBatchNorm(_BatchNormBase):
    """Batch norm whose training statistics cover every data-parallel device's samples
    (the sync_batch_norm op; on one device it equals batch_norm). Input of rank >= 2."""
    _formats = {"NCHW": "NCHW", "NC": "NCHW", "NCL": "NCHW", "NCDHW": "NCHW",
                "NHWC": "NHWC", "NLC": "NHWC", "NDHWC": "NHWC"}

    def forward(self, x):
        self._check_input(x)
        return _append_batch_norm(
            self._helper, x, self.weight, self.bias, self._mean, self._variance,
            {"momentum": float(self._momentum), "epsilon": float(self._epsilon),
             "is_test": not self.training, "data_layout": self._data_format,
             "use_global_stats": False, "trainable_statistics": False},
            op_type="sync_batch_norm")

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """`layer` with every BatchNorm1D/2D/3D in it replaced by a SyncBatchNorm that
        shares its parameters and settings (no new parameters are created). Other layers
        are kept, their sublayers replaced in place."""
        converted = layer
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, cls):
            converted = object.__new__(cls)
            for key, value in layer.__dict__.items():
                copied = copy.copy(value) if isinstance(value, (dict, set)) else value
                object.__setattr__(converted, key, copied)
        for name, sublayer in list(layer.named_children()):
            converted.add_sublayer(name, cls.convert_sync_batchnorm(sublayer))
        return converted


class LayerNorm(Layer):
    """nn.functional.layer_norm over the trailing `normalized_shape` dims; weight (init 1)
    and bias (init 0) have prod(normalized_shape) elements; attr=False leaves one out."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._epsilon = real_arg("LayerNorm", "epsilon", epsilon)
        self._name = name
        size = int(np.prod(self._normalized_shape))
        self.weight = None if weight_attr is False else self.create_parameter(
            [size], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [size], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input)
        return functional_layer_norm(input, self._normalized_shape, self.weight, self.bias,
                                     self._epsilon, self._name)

    def extra_repr(self):
        return "normalized_shape=%s, epsilon=%s" % (self._normalized_shape, self._epsilon)


class _InstanceNormBase(Layer):
    """nn.functional.instance_norm: each (sample, channel) normalized by its own statistics,
    then `scale` (init 1) and `bias` (init 0), both [num_features]. weight_attr=False and
    bias_attr=False (together, as Paddle requires) leave both out. Paddle keeps no running
    statistics here either: `momentum` is accepted and unused."""
    _formats = ("NCHW",)
    _rank = 4

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        cls = type(self).__name__
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError("%s: weight_attr and bias_attr must be False together, got %r "
                             "and %r" % (cls, weight_attr, bias_attr))
        if data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (cls, list(self._formats), data_format))
        self._num_features, self._epsilon, self._momentum = num_features, epsilon, momentum
        self._data_format, self._name = data_format, name
        self.scale = None if weight_attr is False else self.create_parameter(
            [num_features], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_features], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input, ranks=(self._rank,))
        self._expect_dim(input, 1, self._num_features, "num_features")
        return instance_norm(input, weight=self.scale, bias=self.bias,
                             momentum=self._momentum, eps=self._epsilon,
                             data_format="NCHW", name=self._name)

    def extra_repr(self):
        return "num_features=%d, epsilon=%s" % (self._num_features, self._epsilon)


class InstanceNorm1D(_InstanceNormBase):
    """Input [N, C, L]."""
    _formats = ("NCL", "NC")
    _rank = 3

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr,
                         data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Input [N, C, H, W]."""


class InstanceNorm3D(_InstanceNormBase):
    """Input [N, C, D, H, W]."""
    _formats = ("NCDHW",)
    _rank = 5

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr,
                         data_format, name)


class LocalResponseNorm(Layer):
    """nn.functional.local_response_norm across channels: x / (k + alpha *
    mean of x^2 over `size` neighbouring channels) ** beta."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format, self._name = data_format, name

    def forward(self, input):
        self._expect_input(input, "input")
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                   self.data_format, self._name)

    def extra_repr(self):
        return "size=%s, alpha=%s, beta=%s, k=%s" % (self.size, self.alpha, self.beta,
                                                      self.k)


class GroupNorm(Layer):
    """The group_norm op: channels split into num_groups runs, each (sample, group)
    normalized by its own statistics, then weight (init 1) and bias (init 0), both
    [num_channels]; attr=False keeps a fixed, non-trainable one (as Paddle)."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError("GroupNorm: num_channels (%d) must be divisible by num_groups "
                             "(%d)" % (num_channels, num_groups))
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError("GroupNorm: data_format must be 'NCHW' or 'NHWC', got %r"
                             % (data_format,))
        self._num_groups, self._num_channels = num_groups, num_channels
        self._epsilon, self._data_format, self._name = epsilon, data_format, name
        self.weight = _affine(self, weight_attr, num_channels, False, Constant(1.0))
        self.bias = _affine(self, bias_attr, num_channels, True, Constant(0.0))

    def forward(self, input):
        self._expect_input(input, "input")
        if len(input.shape) < 2:
            raise ValueError("%s: input %r %s must have at least 2 dims"
                             % (self._where(), input.name, list(input.shape)))
        self._expect_dim(input, 1 if self._data_format == "NCHW" else len(input.shape) - 1,
                         self._num_channels, "num_channels")
        return _group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                           self._data_format, self._name)

    def extra_repr(self):
        return "num_groups=%d, num_channels=%d, epsilon=%s" % (
            self._num_groups, self._num_channels, self._epsilon)
