"""paddle.optimizer: optimizers and learning-rate schedulers."""
from . import lr
from .optimizer import Optimizer, SGD
from .optimizers import Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, RMSProp

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad",
           "Adadelta", "Lamb", "lr"]
