"""paddle.fluid.layers: every layer module's fluid.layers exports, and the RNN and decoding
API (rnn.py), which is built on refimpl.nn."""
from ..layers import exports
from . import rnn

_NAMES = dict(exports("fluid.layers"), **rnn.EXPORTS["fluid.layers"])
globals().update(_NAMES)
__all__ = sorted(_NAMES)
