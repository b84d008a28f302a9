"""fluid.dygraph's Layer classes with their Paddle 1.8 signatures and ops: Linear (the
matmul op, bias, act), Conv2D (weights N(0, sqrt(2 / (kh kw C)))), Pool2D (pool2d),
Embedding (lookup_table_v2, size=[vocab, dim]) and BatchNorm (= paddle.nn.BatchNorm, which
kept the 1.8 signature). They run eagerly, or build ops in static mode, like every Layer."""
from ...framework.initializer import Normal
from ...layers.common import append_op_out
from ...layers.conv import functional_conv2d, pool2d
from ...layers.embedding import functional_embedding
from ...layers.math import fluid_matmul
from ...nn.layer.base import Layer
from ...nn.layer.norm import BatchNorm

__all__ = ["Linear", "Conv2D", "Pool2D", "Embedding", "BatchNorm"]


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(d) for d in v]


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
        if pool_type not in ("max", "avg"):
            raise ValueError("Pool2D: pool_type must be 'max' or 'avg', got %r" % (pool_type,))
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

    def forward(self, input):
        self._expect_input(input)
        return functional_embedding(input, self.weight, self._padding_idx, self._is_sparse)
