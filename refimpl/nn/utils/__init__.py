"""paddle.nn.utils: weight_norm / remove_weight_norm (Paddle 2.0), parameters_to_vector /
vector_to_parameters (2.1 on), spectral_norm (Paddle 3)."""
from .spectral_norm_hook import spectral_norm
from .transform_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm_hook import remove_weight_norm, weight_norm

__all__ = ["weight_norm", "remove_weight_norm", "parameters_to_vector", "vector_to_parameters",
           "spectral_norm"]
