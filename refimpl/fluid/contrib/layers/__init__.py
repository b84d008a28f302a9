"""paddle.fluid.contrib.layers (1.8)."""
from . import metric_op, nn, rnn_impl
from .metric_op import ctr_metric_bundle
from .nn import (batch_fc, bilateral_slice, fused_elemwise_activation,
                 fused_embedding_seq_pool, match_matrix_tensor,
                 multiclass_nms2, partial_concat, partial_sum, rank_attention,
                 sequence_topk_avg_pooling, shuffle_batch, tdm_child, tdm_sampler, tree_conv,
                 var_conv_2d)
from .rnn_impl import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

__all__ = ["nn", "rnn_impl", "metric_op", "ctr_metric_bundle", "fused_embedding_seq_pool",
           "tdm_child", "tdm_sampler", "var_conv_2d",
           "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm",
           "tree_conv", "fused_elemwise_activation", "multiclass_nms2", "partial_concat",
           "partial_sum", "shuffle_batch", "match_matrix_tensor", "sequence_topk_avg_pooling",
           "rank_attention", "bilateral_slice", "batch_fc"]
