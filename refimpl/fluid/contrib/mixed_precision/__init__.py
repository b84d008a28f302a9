"""fluid.contrib.mixed_precision (Paddle 1.8): decorate (decorator.py),
AutoMixedPrecisionLists (fp16_lists.py) and the program rewrite (fp16_utils.py)."""
from . import decorator, fp16_lists, fp16_utils
from .decorator import decorate
from .fp16_lists import AutoMixedPrecisionLists

__all__ = ["decorate", "AutoMixedPrecisionLists"]
