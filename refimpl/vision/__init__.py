"""paddle.vision: data-pipeline transforms, datasets and model definitions."""
from . import models, transforms
from .models import *  # noqa: F401,F403  (paddle.vision.LeNet, ... as in Paddle)

__all__ = ["transforms", "models"] + models.__all__
