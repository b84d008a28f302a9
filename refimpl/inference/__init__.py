"""paddle.inference: serving saved inference models (Config, create_predictor, Predictor and
its Tensor handles, PredictorPool) and the fluid.core classes they are (AnalysisConfig,
create_paddle_predictor, AnalysisPredictor, PaddleTensor, ZeroCopyTensor, ...).
specs/inference.md."""
from .config import AnalysisConfig, NativeConfig, PaddlePassBuilder
from .tensor import PaddleBuf, PaddleDType, PaddlePlace, PaddleTensor, ZeroCopyTensor
from .predictor import (AnalysisPredictor, NativePaddlePredictor, Predictor, PredictorPool,
                        create_paddle_predictor, create_predictor, get_num_bytes_of_data_type,
                        get_version)

Config = AnalysisConfig
DataType = PaddleDType
PlaceType = PaddlePlace
PrecisionType = AnalysisConfig.Precision
Tensor = ZeroCopyTensor

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor",
           "create_predictor", "get_version", "get_num_bytes_of_data_type", "PredictorPool"]
