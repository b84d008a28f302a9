"""paddle.fluid.contrib.layers (1.8)."""
from . import nn, rnn_impl
from .nn import tree_conv
from .rnn_impl import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

__all__ = ["nn", "rnn_impl", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm",
           "tree_conv"]
