"""paddle.optimizer: optimizers and learning-rate schedulers."""
from . import lr
from .optimizer import Optimizer, SGD
from .optimizers import Adagrad, Adam, AdamW, Lamb, Momentum, RMSProp

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Lamb", "lr"]
