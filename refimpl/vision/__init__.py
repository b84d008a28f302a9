"""paddle.vision: data-pipeline transforms, datasets, model definitions and the image
backend setting; as in Paddle 2.0, the names of models, transforms, datasets and image
are paddle.vision's too."""
from . import datasets, image, models, ops, transforms
from .datasets import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

__all__ = (["transforms", "datasets", "models", "ops", "image"] + models.__all__
           + transforms.__all__ + datasets.__all__ + image.__all__)
