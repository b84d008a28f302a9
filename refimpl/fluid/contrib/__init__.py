"""paddle.fluid.contrib (1.8): the parts users import -- contrib.layers' basic RNN units
and networks (layers/rnn_impl.py)."""
from . import layers
from .layers import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

__all__ = ["layers", "BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm"]
