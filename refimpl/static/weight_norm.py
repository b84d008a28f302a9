"""paddle.static.WeightNormParamAttr (built by LayerHelper.create_parameter)."""
from ..framework.param_attr import WeightNormParamAttr

__all__ = ["WeightNormParamAttr"]
