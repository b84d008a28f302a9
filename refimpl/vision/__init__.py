"""paddle.vision (the data-pipeline transforms)."""
from . import transforms

__all__ = ["transforms"]
