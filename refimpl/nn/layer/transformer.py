"""MultiHeadAttention, composed of Linear layers and existing ops as Paddle 2.0 builds it."""
from ...layers.activation import softmax
from ...layers.math import cast, fluid_matmul, matmul
from ...layers.norm import dropout
from ...layers.tensor import reshape, transpose
from .base import Layer
from .common import Linear

__all__ = ["MultiHeadAttention"]


def _additive_mask(mask, dtype):
    """bool/int masks (1 = attend) become 0 / -1e9 additions; float masks are additions."""
    if mask.dtype.name in ("bool", "int32", "int64", "uint8"):
        return (cast(mask, dtype) - 1.0) * 1e9
    return mask


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over `num_heads` heads of size embed_dim / num_heads:
    out_proj(concat_h(softmax(q_h k_h^T / sqrt(d) + mask) v_h)), with q, k, v the q/k/v
    projections of query, key and value (both default to query). Inputs
    [batch, seq, dim]; attn_mask broadcasts to [batch, num_heads, q_seq, k_seq]."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError("MultiHeadAttention: embed_dim (%d) must be a positive multiple "
                             "of num_heads (%d)" % (embed_dim, num_heads))
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, projection, x):
        """[batch, seq, embed] -> [batch, heads, seq, head_dim]."""
        self._expect_input(x, ranks=(3,))
        split = reshape(projection(x), [0, 0, self.num_heads, self.head_dim])
        return transpose(split, [0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise NotImplementedError("MultiHeadAttention: incremental decoding caches are "
                                      "not supported")
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj, query)
        k = self._heads(self.k_proj, key)
        v = self._heads(self.v_proj, value)
        product = fluid_matmul(q, k, transpose_y=True, alpha=self.head_dim ** -0.5)
        if attn_mask is not None:
            product = product + _additive_mask(attn_mask, product.dtype)
        weights = softmax(product)
        if self.dropout:
            weights = dropout(weights, self.dropout, training=self.training)
        out = transpose(matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(reshape(out, [0, 0, self.embed_dim]))
        return (out, weights) if self.need_weights else out
