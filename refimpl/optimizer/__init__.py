"""paddle.optimizer: optimizers and learning-rate schedulers, and the submodules Paddle 2.0
keeps each optimizer in (paddle.optimizer.adam.Adam, ...)."""
from ..submodules import group
from . import lr
from .optimizer import Optimizer, SGD
from .optimizers import Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, RMSProp

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad",
           "Adadelta", "Lamb", "lr"]
globals().update(group(__name__, globals(), {
    "adadelta": ["Adadelta"], "adagrad": ["Adagrad"], "adam": ["Adam"], "adamax": ["Adamax"],
    "adamw": ["AdamW"], "lamb": ["Lamb"], "momentum": ["Momentum"], "rmsprop": ["RMSProp"],
    "sgd": ["SGD"]}))
