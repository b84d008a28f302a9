"""paddle.vision: data-pipeline transforms, datasets, model definitions and the image
backend setting."""
from . import datasets, models, ops, transforms
from .image import get_image_backend, set_image_backend
from .models import *  # noqa: F401,F403  (paddle.vision.LeNet, ... as in Paddle)

__all__ = ["transforms", "datasets", "models", "ops", "set_image_backend",
           "get_image_backend"] + models.__all__
