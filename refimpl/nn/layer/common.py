"""Linear, Embedding, Flatten, Dropout."""
from ...layers.common import append_op_out
from ...layers.embedding import functional_embedding
from ...layers.math import matmul
from ...layers.norm import dropout
from ...layers.tensor import flatten
from .base import Layer

__all__ = ["Linear", "Embedding", "Flatten", "Dropout"]


class Linear(Layer):
    """y = x @ weight + bias over the last dim of x (matmul_v2, then elementwise_add as
    Paddle builds it). weight: [in_features, out_features], XavierUniform by default; bias:
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
        if len(input.shape) == 0:
            raise ValueError("%s: input %r must have at least one dim" % (self._where(),
                                                                          input.name))
        self._expect_dim(input, len(input.shape) - 1, self._in_features, "in_features")
        out = matmul(input, self.weight, name=None if self.bias is not None else self._name)
        if self.bias is None:
            return out
        return append_op_out("elementwise_add", {"X": [out], "Y": [self.bias]},
                             {"axis": len(input.shape) - 1}, self._name)

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


class Dropout(Layer):
    """nn.functional.dropout with training=self.training: after eval() the layer builds a
    dropout op with is_test=True (identity for upscale_in_train, x * (1 - p) for
    downscale_in_infer)."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError("Dropout: p must be in [0, 1], got %r" % (p,))
        self.p, self.axis, self.mode, self._name = p, axis, mode, name

    def forward(self, input):
        self._expect_input(input)
        return dropout(input, self.p, self.axis, self.training, self.mode, self._name)

    def extra_repr(self):
        return "p=%s, axis=%s, mode=%s" % (self.p, self.axis, self.mode)
