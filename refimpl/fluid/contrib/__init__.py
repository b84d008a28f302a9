"""paddle.fluid.contrib (1.8): the parts users import -- contrib.layers' basic RNN units
and networks (layers/rnn_impl.py), tree_conv, program statistics (program_statistics.py),
the decoder API (decoder/)."""
from . import decoder, layers, program_statistics
from .decoder import BeamSearchDecoder, InitState, StateCell, TrainingDecoder
from .layers import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm, tree_conv
from .program_statistics import memory_usage, op_freq_statistic

__all__ = ["decoder", "InitState", "StateCell", "TrainingDecoder", "BeamSearchDecoder",
           "layers", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm", "tree_conv",
           "memory_usage", "op_freq_statistic"]
