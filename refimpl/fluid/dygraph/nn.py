"""fluid.dygraph's Layer classes with their Paddle 1.8 signatures and ops: Linear (the
matmul op, bias, act), Conv2D (weights N(0, sqrt(2 / (kh kw C)))), Conv3D,
Conv2DTranspose, Conv3DTranspose, Pool2D (pool2d), Embedding (lookup_table_v2, size=[vocab, dim]), BatchNorm
(= paddle.nn.BatchNorm, which kept the 1.8 signature), Dropout, LayerNorm, InstanceNorm,
GroupNorm, PRelu, GRUUnit, NCE, TreeConv, BilinearTensorProduct, SpectralNorm, the
static-only SequenceConv and RowConv, and the
losses MSELoss, L1Loss, BCELoss and NLLLoss (paddle.nn's, with 1.8's argument order).
Parameters are created and named as 1.8 does (shapes, default initializers). They run
eagerly, or build ops in static mode, like every Layer."""
import numpy as np

from ... import versions
from ...framework.initializer import Constant, NumpyArrayInitializer, Normal
from ...layers.common import append_op_out, append_op_outputs
from ...layers.conv import functional_conv2d, pool2d
from ...layers.embedding import functional_embedding
from ...layers.functional_conv import conv3d, conv_transpose_op
from ...layers.functional_nn import bilinear, instance_norm
from ...layers.math import fluid_matmul
from ...layers.norm import fluid_dropout, functional_layer_norm
from ...layers.sequence import (row_conv_filter_shape, row_conv_of, sequence_conv_filter_shape,
                                sequence_conv_of)
from ...nn.layer import common, loss
from ...nn.layer.base import Layer
from ...nn.layer.norm import BatchNorm
from ...nn.layer.spectral_norm import SpectralNorm
from ...ops.gru_unit import ACTIVATIONS
from ...ops.nce import CUSTOM, LOG_UNIFORM, UNIFORM, alias_table

__all__ = ["Linear", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Pool2D", "Embedding",
           "BatchNorm", "Dropout", "LayerNorm", "InstanceNorm", "GroupNorm", "PRelu",
           "GRUUnit", "NCE", "TreeConv", "BilinearTensorProduct", "SpectralNorm", "MSELoss",
           "L1Loss", "BCELoss", "NLLLoss", "Flatten"]     # SequenceConv, RowConv: only here, as in 1.8


def _ints(v, n=2):
    return [int(v)] * n if isinstance(v, int) else [int(d) for d in v]


_pair = _ints


class Linear(Layer):
    """y = act(x @ weight + bias) over the last dim: weight [input_dim, output_dim]
    (XavierUniform), bias [output_dim] (zeros; bias_attr=False: none)."""

    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        self._act = act
        self._input_dim = input_dim
        self.weight = self.create_parameter([input_dim, output_dim], param_attr)
        self.bias = self.create_parameter([output_dim], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input)
        self._expect_dim(input, len(input.shape) - 1, self._input_dim, "input_dim")
        out = fluid_matmul(input, self.weight)
        if self.bias is not None:
            out = append_op_out("elementwise_add", {"X": [out], "Y": [self.bias]},
                                {"axis": len(input.shape) - 1})
        return self._helper.append_activation(out, self._act)


class Conv2D(Layer):
    """conv2d of NCHW input with weight [num_filters, num_channels / groups, kh, kw]
    (N(0, sqrt(2 / (kh kw num_channels))) by default), plus bias, then act."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0,
                 dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn=True,
                 act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        groups = groups or 1
        if num_channels % groups:
            raise ValueError("Conv2D: num_channels (%d) must be divisible by groups (%d)"
                             % (num_channels, groups))
        size = _pair(filter_size)
        self._num_channels, self._groups, self._act = num_channels, groups, act
        self._stride, self._padding, self._dilation = stride, padding, dilation
        std = (2.0 / (size[0] * size[1] * num_channels)) ** 0.5
        self.weight = self.create_parameter([num_filters, num_channels // groups] + size,
                                            param_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input, ranks=(4,))
        self._expect_dim(input, 1, self._num_channels, "num_channels")
        out = functional_conv2d(input, self.weight, self.bias, self._stride, self._padding,
                                self._dilation, self._groups)
        return self._helper.append_activation(out, self._act)


class Pool2D(Layer):
    """fluid.layers.pool2d with these settings."""

    def __init__(self, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
                 global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True,
                 data_format="NCHW"):
        super().__init__()
        if versions.switch("pool2d_layer_case_folding"):
            pool_type, data_format = pool_type.lower(), data_format.upper()
        if pool_type not in ("max", "avg"):
            raise ValueError("Pool2D: pool_type must be 'max' or 'avg', got %r" % (pool_type,))
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError("Pool2D: data_format must be 'NCHW' or 'NHWC', got %r"
                             % (data_format,))
        self._args = dict(pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                          pool_padding=pool_padding, global_pooling=global_pooling,
                          ceil_mode=ceil_mode, exclusive=exclusive, data_format=data_format)

    def forward(self, input):
        self._expect_input(input, ranks=(4,), dtypes=("float16", "float32", "float64"))
        return pool2d(input, **self._args)


class Embedding(Layer):
    """Rows of weight [size[0], size[1]] (XavierUniform) picked by integer ids
    (lookup_table_v2: out shape = ids shape + [size[1]]); padding_idx rows are zero."""

    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype="float32"):
        super().__init__(dtype=dtype)
        if len(size) != 2:
            raise ValueError("Embedding: size must be [vocab_size, embedding_dim], got %r"
                             % (size,))
        self._size, self._is_sparse = list(size), is_sparse
        self._padding_idx = padding_idx
        self.weight = self.create_parameter(list(size), param_attr)
        self.weight._sparse_grad = is_sparse

    def forward(self, input):
        self._expect_input(input, dtypes=("int64",))     # as 1.8 checks
        return functional_embedding(input, self.weight, self._padding_idx, self._is_sparse)


class Conv3D(Layer):
    """conv3d of NCDHW input with weight [num_filters, num_channels / groups, kd, kh, kw]
    (N(0, sqrt(2 / (kd kh kw num_channels))) by default), plus bias, then act.
    (fluid.layers.conv3d sets `_data_format` NDHWC for channels-last input.)"""
    _data_format = "NCDHW"

    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0,
                 dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn=True,
                 act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        groups = groups or 1
        size = _ints(filter_size, 3)
        self._groups, self._act = groups, act
        self._stride, self._padding, self._dilation = stride, padding, dilation
        std = (2.0 / (int(np.prod(size)) * num_channels)) ** 0.5
        self.weight = self.create_parameter([num_filters, num_channels // groups] + size,
                                            param_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input, ranks=(5,))
        # named after this layer (conv3d_0.tmp_N), as 1.8: no second conv3d_N name
        out = conv3d(input, self.weight, self.bias, self._stride, self._padding,
                     self._dilation, self._groups, data_format=self._data_format,
                     name=self._helper.name)
        return self._helper.append_activation(out, self._act)


class _ConvTranspose(Layer):
    """conv{nd}d_transpose with weight [num_channels, num_filters / groups] + filter_size
    (XavierUniform), plus bias, then act; output_size picks among the possible sizes.
    (fluid.layers.conv*d_transpose set `_data_format` for channels-last input.)"""
    _ND = None
    _data_format = None
    _op_type = None     # fluid.layers.conv2d_transpose may pick depthwise_conv2d_transpose

    def __init__(self, num_channels, num_filters, filter_size, output_size=None, padding=0,
                 stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                 use_cudnn=True, act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        if param_attr is False:
            raise ValueError("%s: param_attr should not be False" % type(self).__name__)
        self._groups, self._act = groups or 1, act
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._output_size = output_size
        self.weight = self.create_parameter(
            [num_channels, num_filters // self._groups] + _ints(filter_size, self._ND),
            param_attr)
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input, ranks=(self._ND + 2,))
        out = conv_transpose_op(self._op_type or "conv%dd_transpose" % self._ND, self._ND,
                                input, self.weight, self.bias, self._stride, self._padding, 0,
                                self._groups, self._dilation, self._data_format,
                                self._output_size, self._helper.name)
        return self._helper.append_activation(out, self._act)


class Conv2DTranspose(_ConvTranspose):
    __doc__ = _ConvTranspose.__doc__.format(nd=2)
    _ND = 2
    _data_format = "NCHW"


class Conv3DTranspose(_ConvTranspose):
    __doc__ = _ConvTranspose.__doc__.format(nd=3)
    _ND = 3
    _data_format = "NCDHW"


class Dropout(Layer):
    """fluid.layers.dropout with these settings; no-op-like (is_test) in eval mode or when
    is_test=True."""

    def __init__(self, p=0.5, seed=None, dropout_implementation="downgrade_in_infer",
                 is_test=False):
        super().__init__()
        if not isinstance(p, (float, int)) or not 0 <= p <= 1:
            raise ValueError("Dropout: p must be a number in [0, 1], got %r" % (p,))
        self._p, self._seed, self._impl, self._is_test = p, seed, dropout_implementation, \
            is_test

    def forward(self, input):
        return fluid_dropout(input, self._p, is_test=self._is_test or not self.training,
                             seed=self._seed, dropout_implementation=self._impl)


class LayerNorm(Layer):
    """layer_norm over the trailing `normalized_shape` dims: scale (ones) and shift (zeros)
    of prod(normalized_shape) values when `scale` / `shift`, then act."""

    def __init__(self, normalized_shape, scale=True, shift=True, epsilon=1e-05,
                 param_attr=None, bias_attr=None, act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._normalized_shape = _ints(normalized_shape, 1)
        self._epsilon, self._act = epsilon, act
        size = [int(np.prod(self._normalized_shape))]
        self.weight = self.create_parameter(size, param_attr, default_initializer=Constant(
            1.0)) if scale else None
        self.bias = self.create_parameter(size, bias_attr, is_bias=True) if shift else None

    def forward(self, input):
        self._expect_input(input)
        out = functional_layer_norm(input, self._normalized_shape, self.weight, self.bias,
                                    self._epsilon)
        return self._helper.append_activation(out, self._act)


class InstanceNorm(Layer):
    """instance_norm: each (sample, channel) normalized by its own statistics, then scale
    (ones) and bias (zeros), both [num_channels]."""

    def __init__(self, num_channels, epsilon=1e-05, param_attr=None, bias_attr=None,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        self._epsilon = epsilon
        self.scale = self.create_parameter([num_channels], param_attr,
                                           default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_channels], bias_attr, is_bias=True)

    def forward(self, input):
        self._expect_input(input)
        return instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon)


class GroupNorm(Layer):
    """group_norm over `groups` runs of channels, then act. As 1.8.5 (measured), the scale
    (ones) and the bias (zeros) of [channels] exist only when param_attr / bias_attr is
    given (truthy): by default the groups are normalized and nothing more."""

    def __init__(self, channels, groups, epsilon=1e-05, param_attr=None, bias_attr=None,
                 act=None, data_layout="NCHW", dtype="float32"):
        super().__init__(dtype=dtype)
        if data_layout != "NCHW":
            raise ValueError("GroupNorm: data_layout must be 'NCHW', got %r" % (data_layout,))
        self._groups, self._epsilon, self._act = groups, epsilon, act
        self._data_layout = data_layout     # fluid.layers.group_norm also sets 'NHWC'
        self.weight = self.create_parameter([channels], param_attr or False,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([channels], bias_attr or False, is_bias=True)

    def forward(self, input):
        self._expect_input(input)
        out, _, _ = append_op_outputs(
            "group_norm", {"X": input, "Scale": self.weight, "Bias": self.bias},
            [("Y", input.dtype, False), ("Mean", input.dtype, True),
             ("Variance", input.dtype, True)],
            {"epsilon": float(self._epsilon), "groups": self._groups,
             "data_layout": self._data_layout}, self._helper)
        return self._helper.append_activation(out, self._act)


class PRelu(Layer):
    """prelu: x > 0 ? x : alpha x, with alpha (Constant 0.25) shared ('all'), one per
    channel ('channel', [channel]) or one per element ('element', input_shape[1:])."""

    def __init__(self, mode, channel=None, input_shape=None, param_attr=None,
                 dtype="float32"):
        super().__init__(name_scope="prelu", dtype=dtype)
        shapes = {"all": lambda: [1], "channel": lambda: [1, channel, 1, 1],
                  "element": lambda: [1] + list(input_shape[1:])}
        if mode not in shapes:
            raise ValueError("PRelu: mode must be 'all', 'channel' or 'element', got %r"
                             % (mode,))
        if (mode == "channel" and channel is None) or (mode == "element" and
                                                       input_shape is None):
            raise ValueError("PRelu: mode %r needs %s" % (
                mode, "channel" if mode == "channel" else "input_shape"))
        self._mode = mode
        self.weight = self.create_parameter(shapes[mode](), param_attr,
                                            default_initializer=Constant(0.25))

    def forward(self, input):
        self._expect_input(input)
        out, = append_op_outputs("prelu", {"X": input, "Alpha": self.weight},
                                 [("Out", input.dtype, False)], {"mode": self._mode},
                                 self._helper)
        return out


class GRUUnit(Layer):
    """One GRU step (the gru_unit op): input [batch, size] holds the three input
    projections, hidden [batch, size / 3]; weight [size / 3, size], bias [1, size].
    Returns (updated hidden, reset hidden, gate), as 1.8."""
    _CODES = {name: code for code, name in ACTIVATIONS.items()}

    def __init__(self, size, param_attr=None, bias_attr=None, activation="tanh",
                 gate_activation="sigmoid", origin_mode=False, dtype="float32"):
        super().__init__(dtype=dtype)
        for arg, value in (("activation", activation), ("gate_activation", gate_activation)):
            if value not in self._CODES:
                raise ValueError("GRUUnit: %s must be one of %s, got %r"
                                 % (arg, sorted(self._CODES), value))
        self._attrs = {"activation": self._CODES[activation],
                       "gate_activation": self._CODES[gate_activation],
                       "origin_mode": origin_mode}
        width = size // 3
        self.weight = self.create_parameter([width, 3 * width], param_attr)
        self.bias = self.create_parameter([1, 3 * width], bias_attr, is_bias=True)

    def forward(self, input, hidden):
        self._expect_input(input, "input", dtypes=("float32", "float64"))
        self._expect_input(hidden, "hidden", dtypes=("float32", "float64"))
        gate, reset_hidden, hidden = append_op_outputs(
            "gru_unit", {"Input": input, "HiddenPrev": hidden, "Weight": self.weight,
                         "Bias": self.bias},
            [(slot, input.dtype, False) for slot in ("Gate", "ResetHiddenPrev", "Hidden")],
            self._attrs, self._helper)
        return hidden, reset_hidden, gate


class NCE(Layer):
    """Noise-contrastive estimation (the nce op, refimpl/ops/nce.py): weight
    [num_total_classes, dim] (XavierUniform) and, only when bias_attr is given (truthy; 1.8's
    rule for this layer, while fluid.layers.nce has one by default), bias
    [num_total_classes, 1] (zeros). Called with input [N, dim] and label [N, num_true] int64, it
    returns the cost [N, 1] divided by num_neg_samples + 1, as 1.8. sampler 'custom_dist'
    takes custom_dist (one probability per class) and keeps it and its alias table as three
    parameters that never train, as 1.8."""
    _SAMPLERS = {"uniform": UNIFORM, "log_uniform": LOG_UNIFORM, "custom_dist": CUSTOM}

    def __init__(self, num_total_classes, dim, sample_weight=None, param_attr=None,
                 bias_attr=None, num_neg_samples=None, sampler="uniform", custom_dist=None,
                 seed=0, is_sparse=False, dtype="float32"):
        super().__init__(name_scope="nce", dtype=dtype)
        if sampler not in self._SAMPLERS:
            raise ValueError("NCE: sampler must be one of %s, got %r"
                             % (sorted(self._SAMPLERS), sampler))
        self._num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
        self._sample_weight = sample_weight
        self._tables = {}
        if sampler == "custom_dist":
            self._tables = self._custom_dist_tables(custom_dist, num_total_classes)
        self._attrs = {"num_total_classes": int(num_total_classes),
                       "num_neg_samples": self._num_neg_samples,
                       "sampler": self._SAMPLERS[sampler], "seed": int(seed),
                       "is_sparse": bool(is_sparse), "remote_prefetch": bool(is_sparse)}
        self.weight = self.create_parameter([num_total_classes, dim], param_attr)
        self.bias = self.create_parameter([num_total_classes, 1], bias_attr, is_bias=True) \
            if bias_attr else None

    def _custom_dist_tables(self, custom_dist, num_total_classes):
        if custom_dist is None or len(custom_dist) != num_total_classes:
            raise ValueError("NCE: sampler 'custom_dist' needs custom_dist with one "
                             "probability per class (%d), got %r"
                             % (num_total_classes, None if custom_dist is None
                                else "%d values" % len(custom_dist)))
        probs = np.asarray(custom_dist, np.float32)
        alias, alias_probs = alias_table(custom_dist)
        tables = {}
        for slot, value in (("CustomDistProbs", probs), ("CustomDistAlias", alias),
                            ("CustomDistAliasProbs", alias_probs)):
            tables[slot] = self.create_parameter(
                value.shape, dtype=value.dtype.name,
                default_initializer=NumpyArrayInitializer(value))
            tables[slot].stop_gradient = True
        return tables

    def forward(self, input, label, sample_weight=None):
        floats = ("float32", "float64")
        self._expect_input(input, "input", dtypes=floats)
        self._expect_input(label, "label", dtypes=("int64",))
        sample_weight = self._sample_weight if sample_weight is None else sample_weight
        if sample_weight is not None:
            self._expect_input(sample_weight, "sample_weight", dtypes=floats)
        inputs = dict(self._tables, Input=input, Label=label, Weight=self.weight,
                      Bias=self.bias, SampleWeight=sample_weight)
        cost, _, _ = append_op_outputs(
            "nce", inputs, [("Cost", input.dtype, False), ("SampleLogits", input.dtype, True),
                            ("SampleLabels", "int64", True)], self._attrs, self._helper)
        return cost / (self._num_neg_samples + 1)


class TreeConv(Layer):
    """Tree-based convolution (the tree_conv op, refimpl/ops/tree_conv.py): weight
    [feature_size, 3, output_size, num_filters] (XavierUniform) and, only when bias_attr is
    given (truthy), bias [num_filters] added on axis 1, as 1.8.5; then act.
    fluid.contrib.layers.tree_conv builds its bias otherwise (see there)."""

    def __init__(self, feature_size, output_size, num_filters=1, max_depth=2, act="tanh",
                 param_attr=None, bias_attr=None, name=None, dtype="float32"):
        super().__init__(name_scope="tree_conv", dtype=dtype)
        self._max_depth, self._act = int(max_depth), act
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True) \
            if bias_attr else None
        self.weight = self.create_parameter(
            [feature_size, 3, output_size, num_filters], param_attr)

    def forward(self, nodes_vector, edge_set):
        self._expect_input(nodes_vector, "nodes_vector", dtypes=("float32", "float64"))
        self._expect_input(edge_set, "edge_set")
        out, = append_op_outputs(
            "tree_conv", {"NodesVector": nodes_vector, "EdgeSet": edge_set,
                          "Filter": self.weight}, [("Out", nodes_vector.dtype, False)],
            {"max_depth": self._max_depth}, self._helper)
        if self.bias is not None:
            out = append_op_out("elementwise_add", {"X": [out], "Y": [self.bias]},
                                {"axis": 1}, name=self._helper.name)
        return self._helper.append_activation(out, self._act)


class BilinearTensorProduct(Layer):
    """out[n, k] = x[n] W[k] y[n] + b[k] (bilinear_tensor_product), then act: weight
    [output_dim, input1_dim, input2_dim] (XavierUniform), bias [1, output_dim] (zeros)."""

    def __init__(self, input1_dim, input2_dim, output_dim, name=None, act=None,
                 param_attr=None, bias_attr=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._act, self._name = act, name
        self.weight = self.create_parameter([output_dim, input1_dim, input2_dim], param_attr)
        self.bias = self.create_parameter([1, output_dim], bias_attr, is_bias=True)

    def forward(self, x, y):
        self._expect_input(x, "x", dtypes=("float32", "float64"))
        self._expect_input(y, "y", dtypes=("float32", "float64"))
        out = bilinear(x, y, self.weight, self.bias,
                       name=None if self._name is None else
                       "%s.%s" % (self.full_name(), self._name))
        return self._helper.append_activation(out, self._act)


class _StaticOnlySequenceLayer(Layer):
    """1.8's LoD layers (static mode only: an AssertionError in dynamic mode, as 1.8). The
    filter is created at the first call, from the input's width, in the input's dtype."""

    def __init__(self, name_scope):
        from ...framework import mode
        assert not mode.in_dynamic_mode(), \
            "%s is not supported by dynamic graph mode yet" % type(self).__name__
        super().__init__(name_scope=name_scope)
        self.weight = None

    def forward(self, input):
        self._expect_input(input, "input", dtypes=("float32", "float64"))
        if self.weight is None:
            self._create_parameters(input)
        return self._helper.append_activation(self._build(input), self._act)


class SequenceConv(_StaticOnlySequenceLayer):
    """fluid.layers.sequence_conv as a layer: filter [filter_size * D, num_filters], bias
    [num_filters] (unless bias_attr is False), context centred on each row (contextStart
    -(filter_size // 2)), then act."""

    def __init__(self, name_scope, num_filters, filter_size=3, filter_stride=1, padding=None,
                 bias_attr=None, param_attr=None, act=None):
        super().__init__(name_scope)
        if filter_stride != 1:
            raise ValueError("SequenceConv: filter_stride must be 1 (Paddle supports only 1), "
                             "got %r" % (filter_stride,))
        self._num_filters, self._filter_size, self._act = num_filters, filter_size, act
        self._param_attr, self._bias_attr = param_attr, bias_attr

    def _create_parameters(self, input):
        self.weight = self.create_parameter(
            sequence_conv_filter_shape(input, self._filter_size, self._num_filters),
            self._param_attr, input.dtype)
        self.bias = self.create_parameter([self._num_filters], self._bias_attr, input.dtype,
                                          is_bias=True)

    def _build(self, input):
        out = sequence_conv_of(input, self.weight, self._filter_size)
        if self.bias is None:
            return out
        return append_op_out("elementwise_add", {"X": [out], "Y": [self.bias]}, {"axis": 1})


class RowConv(_StaticOnlySequenceLayer):
    """fluid.layers.row_conv as a layer: filter [future_context_size + 1, D], then act."""

    def __init__(self, name_scope, future_context_size, param_attr=None, act=None):
        super().__init__(name_scope)
        self._future_context_size, self._param_attr, self._act = \
            future_context_size, param_attr, act

    def _create_parameters(self, input):
        self.weight = self.create_parameter(
            row_conv_filter_shape(input, self._future_context_size), self._param_attr,
            input.dtype)

    def _build(self, input):
        return row_conv_of(input, self.weight)


# 1.8's signatures are 2.0's: SpectralNorm(weight_shape, dim, power_iters, eps, dtype),
# MSELoss(reduction), L1Loss(reduction), BCELoss(weight, reduction)
MSELoss, L1Loss, BCELoss = loss.MSELoss, loss.L1Loss, loss.BCELoss
# 2.0's fluid.dygraph.Flatten(start_axis=1, stop_axis=-1) is paddle.nn.Flatten
Flatten = common.Flatten


class NLLLoss(loss.NLLLoss):
    __doc__ = loss.NLLLoss.__doc__ + " 1.8's argument order: weight, reduction, ignore_index."

    def __init__(self, weight=None, reduction="mean", ignore_index=-100):
        super().__init__(weight, ignore_index, reduction)
