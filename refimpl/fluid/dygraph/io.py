"""fluid.dygraph.io (Paddle 2.0): the file suffixes of paddle.jit.save's model and
TranslatedLayer, which paddle.jit.load returns (refimpl/jit)."""
from ...jit import TranslatedLayer
from ...jit import INFO_SUFFIX as INFER_PARAMS_INFO_SUFFIX

INFER_MODEL_SUFFIX = ".pdmodel"
INFER_PARAMS_SUFFIX = ".pdiparams"

__all__ = ["TranslatedLayer", "INFER_MODEL_SUFFIX", "INFER_PARAMS_SUFFIX",
           "INFER_PARAMS_INFO_SUFFIX"]
