"""fluid.contrib.mixed_precision (Paddle 1.8): decorate (decorator.py),
AutoMixedPrecisionLists (fp16_lists.py) and the program rewrite (fp16_utils.py); Paddle
2.0's amp_nn (its AMP ops' layer functions)."""
from . import amp_nn, decorator, fp16_lists, fp16_utils
from .decorator import decorate
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists

__all__ = ["decorate", "AutoMixedPrecisionLists", "CustomOpLists"]
