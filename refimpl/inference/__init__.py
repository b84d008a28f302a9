"""paddle.inference: serving saved inference models (Config, create_predictor, Predictor and
its Tensor handles, PredictorPool). The classes are fluid.core's (AnalysisConfig,
ZeroCopyTensor, ...: config.py, tensor.py, predictor.py). specs/inference.md."""
from .config import AnalysisConfig as Config
from .tensor import PaddleDType as DataType, PaddlePlace as PlaceType
from .tensor import ZeroCopyTensor as Tensor
from .predictor import (Predictor, PredictorPool, create_predictor,
                        get_num_bytes_of_data_type, get_version)

PrecisionType = Config.Precision

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor",
           "create_predictor", "get_version", "get_num_bytes_of_data_type", "PredictorPool"]
