"""paddle.fluid.contrib (1.8): the parts users import -- contrib.layers' basic RNN units
and networks (layers/rnn_impl.py), tree_conv and the other contrib ops' layers
(layers/nn.py), program statistics (program_statistics.py), decoupled weight decay
(decoupled_weight_decay.py), mixed_precision, reader.distributed_batch_reader, the
decoder API (decoder/), and 2.0's optimizer.Momentum (optimizer.py)."""
from . import decoder, layers, mixed_precision, optimizer, program_statistics, reader, slim
from .decoder import BeamSearchDecoder, InitState, StateCell, TrainingDecoder
from .decoupled_weight_decay import extend_with_decoupled_weight_decay
from .layers import (BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm, batch_fc,
                     bilateral_slice,
                     ctr_metric_bundle,
                     fused_elemwise_activation, fused_embedding_seq_pool, match_matrix_tensor,
                     multiclass_nms2, partial_concat, partial_sum, rank_attention,
                     sequence_topk_avg_pooling, shuffle_batch, tdm_child, tdm_sampler,
                     tree_conv, var_conv_2d)
from .program_statistics import memory_usage, op_freq_statistic

__all__ = ["decoder", "InitState", "StateCell", "TrainingDecoder", "BeamSearchDecoder",
           "layers", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm", "tree_conv",
           "fused_elemwise_activation", "multiclass_nms2", "partial_concat", "partial_sum",
           "shuffle_batch", "match_matrix_tensor", "sequence_topk_avg_pooling",
           "rank_attention", "ctr_metric_bundle", "fused_embedding_seq_pool", "tdm_child",
           "tdm_sampler", "var_conv_2d", "memory_usage", "op_freq_statistic",
           "extend_with_decoupled_weight_decay", "mixed_precision", "optimizer", "reader",
           "slim", "bilateral_slice", "batch_fc"]
