"""paddle.fluid.contrib.layers (1.8)."""
from . import nn, rnn_impl
from .nn import (fused_elemwise_activation, match_matrix_tensor, multiclass_nms2,
                 partial_concat, partial_sum, rank_attention, sequence_topk_avg_pooling,
                 shuffle_batch, tree_conv)
from .rnn_impl import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

__all__ = ["nn", "rnn_impl", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm",
           "tree_conv", "fused_elemwise_activation", "multiclass_nms2", "partial_concat",
           "partial_sum", "shuffle_batch", "match_matrix_tensor", "sequence_topk_avg_pooling",
           "rank_attention"]
