"""MultiHeadAttention and the Transformer encoder/decoder stacks, composed of Linear,
LayerNorm and Dropout layers and existing ops as Paddle 2.0 builds them."""
import collections
import copy

import numpy as np

from ...framework.dtypes import convert_dtype
from ...framework.param_attr import ParamAttr
from ...framework.program import Variable
from ...layers.activation import softmax
from ...layers.math import cast, fluid_matmul, matmul
from ...layers.norm import dropout
from ...layers.creation import assign, fill_constant_batch_size_like, ones
from ...layers.manipulation import triu
from ...layers.tensor import concat, reshape, transpose
from .. import functional
from .base import Layer
from .common import Dropout, Linear
from .container import LayerList
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _additive_mask(mask, dtype):
    """bool/int masks (1 = attend) become 0 / -1e9 additions; float masks are additions,
    cast to the scores' dtype (Paddle 2.0's _convert_attention_mask: its
    test_transformer_api adds a float64 mask to float32 scores)."""
    if mask.dtype.name in ("bool", "int32", "int64", "uint8"):
        return (cast(mask, dtype) - 1.0) * 1e9
    return mask if mask.dtype == dtype else cast(mask, dtype)


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over `num_heads` heads of size embed_dim / num_heads:
    out_proj(concat_h(softmax(q_h k_h^T / sqrt(d) + mask) v_h)), with q, k, v the q/k/v
    projections of query, key and value (both default to query). Inputs
    [batch, seq, dim]; attn_mask broadcasts to [batch, num_heads, q_seq, k_seq].
    Incremental decoding (Paddle 2.0's caches, keys and values as [batch, heads, seq,
    head_dim]): a `Cache` holds the keys and values of the steps so far, which this call's
    are appended to (the updated Cache is returned after the output); a `StaticCache`
    holds the keys and values of a fixed memory, used instead of projecting key and value
    (returned unchanged). gen_cache makes either."""
    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

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

    def compute_kv(self, key, value):
        """The keys and values of key / value: [batch, heads, seq, head_dim] each."""
        return self._heads(self.k_proj, key), self._heads(self.v_proj, value)

    def gen_cache(self, key, value=None, type=Cache):
        """A StaticCache of compute_kv(key, value); a Cache given k and v as key and value;
        or (value None) an empty Cache: [batch of key, heads, 0, head_dim] zeros."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if type is not MultiHeadAttention.Cache:
            raise TypeError("MultiHeadAttention.gen_cache: type must be "
                            "MultiHeadAttention.Cache or StaticCache, got %r" % (type,))
        if value is not None:
            return self.Cache(key, value)
        empty = [fill_constant_batch_size_like(key, [-1, self.num_heads, 0, self.head_dim],
                                               key.dtype, 0.0) for _ in range(2)]
        return self.Cache(*empty)

    def _keys_values(self, key, value, cache):
        """k, v of this call and the cache to return with the output."""
        if isinstance(cache, self.StaticCache):
            return cache.k, cache.v, cache
        k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k, v = concat([cache.k, k], axis=2), concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        elif cache is not None:
            raise TypeError("MultiHeadAttention: cache must be a MultiHeadAttention.Cache or "
                            "StaticCache, got %s" % type(cache).__name__)
        return k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj, query)
        k, v, cache = self._keys_values(key, value, cache)
        product = fluid_matmul(q, k, transpose_y=True, alpha=self.head_dim ** -0.5)
        if attn_mask is not None:
            product = product + _additive_mask(attn_mask, product.dtype)
        weights = softmax(product)
        if self.dropout:
            weights = dropout(weights, self.dropout, training=self.training)
        out = transpose(matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(reshape(out, [0, 0, self.embed_dim]))
        outs = [out] + ([weights] if self.need_weights else []) + \
            ([cache] if cache is not None else [])
        return outs[0] if len(outs) == 1 else tuple(outs)


def _attr_list(attr, n, where):
    """One weight/bias attr per sublayer group: a list/tuple of n as given; False for all;
    otherwise a copy per group (a named attr gets suffixes _0, _1, ... to stay unique)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise ValueError("%s: a list of weight/bias attrs must have %d entries, got %d"
                             % (where, n, len(attr)))
        return [None if a is True else a for a in attr]
    if attr is False or attr is None or attr is True:
        return [None if attr is True else attr] * n
    attr = ParamAttr._to_attr(attr)
    attrs = [copy.deepcopy(attr) for _ in range(n)]
    if attr.name:
        for i, a in enumerate(attrs):
            a.name = "%s_%d" % (attr.name, i)
    return attrs


class _TransformerLayerBase(Layer):
    """Shared pieces of the encoder and decoder layers: the feed-forward block
    linear2(dropout(act(linear1(x)))) and the residual + norm wiring (pre-norm when
    normalize_before, post-norm otherwise). A subclass names its attention sublayers;
    each of them and the feed-forward block sit in a residual with norm<i> and
    dropout<i>."""
    attention_names = ()

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None):
        config = dict(locals())
        config.pop("self")
        config.pop("__class__", None)
        super().__init__()
        blocks = len(self.attention_names) + 1
        attention, weight, bias, act_dropout, dropout = self._setup(config, blocks)
        for name, layer in zip(self.attention_names, attention):
            setattr(self, name, layer)
        self._feed_forward_layers(weight, bias, act_dropout)
        for i in range(1, blocks + 1):
            setattr(self, "norm%d" % i, LayerNorm(d_model))
        for i in range(1, blocks + 1):
            setattr(self, "dropout%d" % i, Dropout(dropout, mode="upscale_in_train"))

    def _setup(self, config, n_attrs):
        if config["d_model"] <= 0 or config["nhead"] <= 0 or config["dim_feedforward"] <= 0:
            raise ValueError("%s: d_model, nhead and dim_feedforward must be positive, got "
                             "%d, %d, %d" % (type(self).__name__, config["d_model"],
                                             config["nhead"], config["dim_feedforward"]))
        activation = config["activation"]
        if not hasattr(functional, activation):
            raise ValueError("%s: unknown activation %r" % (type(self).__name__, activation))
        self._config = config
        dropout = config["dropout"]
        attn_dropout = dropout if config["attn_dropout"] is None else config["attn_dropout"]
        act_dropout = dropout if config["act_dropout"] is None else config["act_dropout"]
        self.normalize_before = config["normalize_before"]
        weights = _attr_list(config["weight_attr"], n_attrs, type(self).__name__)
        biases = _attr_list(config["bias_attr"], n_attrs, type(self).__name__)
        d_model, nhead = config["d_model"], config["nhead"]
        attention = [MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                        weight_attr=weights[i], bias_attr=biases[i])
                     for i in range(n_attrs - 1)]
        return attention, weights[-1], biases[-1], act_dropout, dropout

    def _feed_forward_layers(self, weight, bias, act_dropout):
        d_model, hidden = self._config["d_model"], self._config["dim_feedforward"]
        self.linear1 = Linear(d_model, hidden, weight, bias)
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(hidden, d_model, weight, bias)
        self._activation = getattr(functional, self._config["activation"])

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self._activation(self.linear1(x))))

    def _residual(self, x, norm, dropout, block):
        """x + dropout(block(x)) with `norm` before block (pre-norm) or after the sum."""
        y = block(norm(x) if self.normalize_before else x)
        y = x + dropout(y)
        return y if self.normalize_before else norm(y)


class TransformerEncoderLayer(_TransformerLayerBase):
    """Self-attention then a feed-forward block, each inside a residual connection with
    layer norm (norm1, norm2) and dropout (dropout1, dropout2). Weight/bias attrs: one, or
    a list of 2 (attention, feed-forward)."""
    attention_names = ("self_attn",)

    def forward(self, src, src_mask=None, cache=None):
        """The output, or (output, the updated self-attention Cache) given `cache`."""
        self._expect_input(src, "src", ranks=(3,))
        attention = _CachedAttention(self.self_attn, src_mask, cache, self_attention=True)
        src = self._residual(src, self.norm1, self.dropout1, attention)
        src = self._residual(src, self.norm2, self.dropout2, self._feed_forward)
        return src if cache is None else (src, attention.cache)

    def gen_cache(self, src):
        """An empty self-attention Cache for src's batch."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


class TransformerDecoderLayer(_TransformerLayerBase):
    """Self-attention, cross-attention over `memory`, then a feed-forward block, each in a
    residual connection with layer norm (norm1..3) and dropout (dropout1..3). Weight/bias
    attrs: one, or a list of 3 (self-attention, cross-attention, feed-forward)."""
    attention_names = ("self_attn", "cross_attn")

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """The output, or (output, (self-attention Cache, cross-attention StaticCache))
        given `cache` (gen_cache's pair)."""
        self._expect_input(tgt, "tgt", ranks=(3,))
        self._expect_input(memory, "memory", ranks=(3,))
        incremental, static = (None, None) if cache is None else cache
        attention = _CachedAttention(self.self_attn, tgt_mask, incremental,
                                     self_attention=True)
        tgt = self._residual(tgt, self.norm1, self.dropout1, attention)
        cross = _CachedAttention(self.cross_attn, memory_mask, static, memory=memory)
        tgt = self._residual(tgt, self.norm2, self.dropout2, cross)
        tgt = self._residual(tgt, self.norm3, self.dropout3, self._feed_forward)
        return tgt if cache is None else (tgt, (attention.cache, cross.cache))

    def gen_cache(self, memory):
        """(an empty self-attention Cache, the cross-attention StaticCache of memory)."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory,
                                          type=MultiHeadAttention.StaticCache))


class _CachedAttention:
    """A residual block calling `attention` (on x itself, or on `memory`) with `cache`,
    keeping the cache it returns."""

    def __init__(self, attention, mask, cache, self_attention=False, memory=None):
        self.attention, self.mask, self.cache = attention, mask, cache
        self.self_attention, self.memory = self_attention, memory

    def __call__(self, x):
        source = x if self.self_attention else self.memory
        if self.cache is None:
            return self.attention(x, source, source, self.mask)
        out, self.cache = self.attention(x, source, source, self.mask, self.cache)
        return out


def _clones(layer, num_layers, where):
    """`layer` then num_layers - 1 new layers built from its constructor arguments (fresh
    parameters, as Paddle does)."""
    if num_layers < 1:
        raise ValueError("%s: num_layers must be >= 1, got %d" % (where, num_layers))
    return LayerList([layer] + [type(layer)(**layer._config) for _ in range(num_layers - 1)])


def _through_layers(layers, x, cache, call):
    """x through each layer (call(layer, x, its cache or None)); with caches, each layer
    returns (x, its new cache): (x, the new caches)."""
    new_caches = []
    for i, layer in enumerate(layers):
        if cache is None:
            x = call(layer, x, None)
        else:
            x, layer_cache = call(layer, x, cache[i])
            new_caches.append(layer_cache)
    return x, new_caches


class TransformerEncoder(Layer):
    """num_layers encoder layers (the given one and fresh copies of its configuration),
    then `norm` if given. forward(src, src_mask=None)."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        """The output, or (output, each layer's updated Cache) given a cache per layer."""
        src, caches = _through_layers(self.layers, src, cache, lambda layer, x, c: layer(
            x, src_mask, c))
        src = src if self.norm is None else self.norm(src)
        return src if cache is None else (src, caches)

    def gen_cache(self, src):
        """Each layer's empty Cache."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoder(Layer):
    """num_layers decoder layers (the given one and fresh copies of its configuration),
    then `norm` if given. forward(tgt, memory, tgt_mask=None, memory_mask=None)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """The output, or (output, each layer's updated caches) given gen_cache's list."""
        tgt, caches = _through_layers(self.layers, tgt, cache, lambda layer, x, c: layer(
            x, memory, tgt_mask, memory_mask, c))
        tgt = tgt if self.norm is None else self.norm(tgt)
        return tgt if cache is None else (tgt, caches)

    def gen_cache(self, memory, do_zip=False):
        """Each layer's (Cache, StaticCache); do_zip: ([the Caches], [the StaticCaches])."""
        caches = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*caches)) if do_zip else caches


def _split_transformer_attr(attr, where):
    """Transformer's weight/bias attr(s) -> (encoder layer's, decoder layer's): a list of 1
    is shared, of 2 is (attention, feed-forward), of 3 is (self-attention, cross-attention,
    feed-forward); the encoder takes the first and last."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError("%s: a list of weight/bias attrs must have 1, 2 or 3 entries, got %d"
                     % (where, len(attr)))


class Transformer(Layer):
    """Encoder-decoder Transformer: encoder = TransformerEncoder(num_encoder_layers, with a
    final LayerNorm), decoder likewise, unless custom_encoder / custom_decoder are given.
    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None) -> decoder output."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        encoder_weight, decoder_weight = _split_transformer_attr(weight_attr, "Transformer")
        encoder_bias, decoder_bias = _split_transformer_attr(bias_attr, "Transformer")
        settings = (d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                    act_dropout, normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*settings, encoder_weight, encoder_bias),
                num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*settings, decoder_weight, decoder_bias),
                num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    def generate_square_subsequent_mask(self, length):
        """A [length, length] float32 mask: 0 on and below the diagonal, -inf above
        (position i attends to positions <= i). An int length gives a constant; a
        one-element int Tensor (PaddleNLP's `paddle.shape(trg_word)[-1]`) the same mask built
        from it, as Paddle 2.0 builds it (triu of ones((length, length)) * -inf)."""
        if isinstance(length, Variable):
            if convert_dtype(length.dtype) not in ("int32", "int64") or \
                    int(np.prod(length.shape)) != 1:
                raise ValueError("Transformer.generate_square_subsequent_mask: a Tensor length "
                                 "must hold one int32 / int64, got dtype %s shape %s"
                                 % (convert_dtype(length.dtype), list(length.shape)))
            return triu(ones([length, length], "float32") * -np.inf, 1)
        if not isinstance(length, (int, np.integer)) or length <= 0:
            raise ValueError("Transformer.generate_square_subsequent_mask: length must be a "
                             "positive int or a one-element int Tensor, got %r" % (length,))
        length = int(length)
        return assign(np.triu(np.full([length, length], -np.inf, np.float32), 1))
