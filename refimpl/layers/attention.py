"""Paddle 3's paddle.nn.functional.scaled_dot_product_attention, its math backend (the one
3.3.1 runs on a CPU; flash and memory-efficient attention are GPU kernels), composed of
layer functions as 3.3.1 composes it, so static mode and gradients come with them.

query [B, Sq, Hq, D], key and value [B, Sk, Hk, D] (3-D: one unbatched sample): with
enable_gqa, Hq a multiple of Hk, each key / value head serving Hq / Hk query heads in turn;
softmax(q k^T scale + mask) v per head, scale 1 / sqrt(D) by default. A bool attn_mask
keeps True (0) and drops False (-inf); is_causal adds -1e4 above the diagonal of each
[Sq, Sk] block and then ignores attn_mask (3.3.1's math path, measured); dropout_p drops
attention weights while training (upscale_in_train)."""
from .activation import softmax
from .common import check_variable
from .creation import full_like
from .manipulation import triu
from .math import matmul, scale as scaled
from .norm import dropout
from .reshaping import repeat_interleave
from .tensor import squeeze, transpose, unsqueeze, where

CAUSAL_MASK = -1e4   # 3.3.1's get_triangle_upper_mask value


def _check_heads(query, key, value, enable_gqa):
    q_heads, k_heads, v_heads = query.shape[2], key.shape[2], value.shape[2]
    if enable_gqa:
        if k_heads and q_heads % k_heads:
            raise AssertionError("scaled_dot_product_attention: the query's %d heads must be "
                                 "a multiple of the key's %d with enable_gqa"
                                 % (q_heads, k_heads))
        if k_heads != v_heads:
            raise AssertionError("scaled_dot_product_attention: key and value must have as "
                                 "many heads, got %d and %d" % (k_heads, v_heads))
    elif not q_heads == k_heads == v_heads:
        raise AssertionError("scaled_dot_product_attention: query, key and value must have "
                             "as many heads without enable_gqa, got %d, %d and %d"
                             % (q_heads, k_heads, v_heads))
    return q_heads // k_heads if k_heads else 1


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    for arg, what in ((query, "query"), (key, "key"), (value, "value")):
        check_variable(arg, what, "scaled_dot_product_attention")
        if len(arg.shape) not in (3, 4):
            raise ValueError("scaled_dot_product_attention: %s must be [batch, seq_len, "
                             "num_heads, head_dim] or unbatched 3-D, got shape %s"
                             % (what, list(arg.shape)))
    batched = len(query.shape) == 4
    if not batched:
        query, key, value = (unsqueeze(a, [0]) for a in (query, key, value))
    repeats = _check_heads(query, key, value, enable_gqa)
    if repeats > 1:     # each of key / value's heads serves `repeats` query heads
        key, value = (repeat_interleave(t, repeats, axis=2) for t in (key, value))
    head_dim = query.shape[-1]
    factor = scale or (head_dim ** -0.5 if head_dim else 1.0)
    query, key, value = (transpose(a, [0, 2, 1, 3]) for a in (query, key, value))
    product = matmul(scaled(query, factor), key, transpose_y=True)
    if is_causal:
        product = product + triu(full_like(product, CAUSAL_MASK), 1)
    elif attn_mask is not None:
        if attn_mask.dtype == "bool":
            ones = full_like(attn_mask, 1.0, query.dtype)
            attn_mask = where(attn_mask, scaled(ones, 0.0), scaled(ones, float("-inf")))
        product = product + attn_mask
    weights = softmax(product)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training)
    out = transpose(matmul(weights, value), [0, 2, 1, 3])
    return out if batched else squeeze(out, [0])


EXPORTS = {
    "nn.functional": {"scaled_dot_product_attention": scaled_dot_product_attention},
}
