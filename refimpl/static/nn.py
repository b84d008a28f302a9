"""paddle.static.nn: Paddle 2.0's static layers. Besides those refimpl's layers export
under this name, Paddle 2.0 re-exports these fluid.layers functions as they are."""
from ..layers import exports

_FLUID_LAYERS = ("bilinear_tensor_product", "case", "conv2d_transpose", "conv3d",
                 "conv3d_transpose", "create_parameter", "crf_decoding", "data_norm",
                 "instance_norm", "multi_box_head", "nce", "prelu", "py_func", "row_conv",
                 "spectral_norm", "switch_case")


def _from_fluid_layers():
    from ..fluid import layers
    return {name: getattr(layers, name) for name in _FLUID_LAYERS}


globals().update(_from_fluid_layers())
globals().update(exports("static.nn"))
__all__ = sorted(set(exports("static.nn")) | set(_FLUID_LAYERS))
