"""paddle.fluid.contrib.layers (1.8)."""
from . import rnn_impl
from .rnn_impl import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

__all__ = ["rnn_impl", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm"]
