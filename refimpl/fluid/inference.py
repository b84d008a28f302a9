"""paddle.fluid.inference (2.0): paddle.inference's names (refimpl/inference,
specs/inference.md)."""
from ..inference import (Config, DataType, PlaceType, PrecisionType, Predictor, PredictorPool,
                         Tensor, create_predictor, get_num_bytes_of_data_type, get_version)

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor",
           "create_predictor", "get_version", "get_num_bytes_of_data_type", "PredictorPool"]
