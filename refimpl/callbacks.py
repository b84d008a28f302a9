"""paddle.callbacks: the callbacks of paddle.Model (refimpl/hapi/callbacks.py)."""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,
                             ProgBarLogger, ReduceLROnPlateau, VisualDL)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau"]
