"""fluid.contrib.mixed_precision (Paddle 1.8): decorate (decorator.py),
AutoMixedPrecisionLists (fp16_lists.py) and the program rewrite (fp16_utils.py); Paddle
2.0's amp_nn (its AMP ops' layer functions) and pure float16 helpers (fp16_utils.py)."""
from . import amp_nn, decorator, fp16_lists, fp16_utils
from .decorator import decorate
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard

__all__ = ["decorate", "AutoMixedPrecisionLists", "CustomOpLists", "fp16_guard",
           "cast_model_to_fp16", "cast_parameters_to_fp16"]
