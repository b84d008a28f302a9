"""paddle.static.nn: Paddle 2.0's static layers. Besides those refimpl's layers export
under this name, Paddle 2.0 re-exports these fluid.layers functions as they are. Paddle 3
also keeps them in submodules, paddle.static.nn.common (fc, conv2d, ...) and .control_flow
(its Assert and Print there only) and .sequence_lod (the LoD sequence layers); the tables are
3.3.1's, limited to what refimpl has."""
from ..layers import exports
from ..submodules import group

_FLUID_LAYERS = ("bilinear_tensor_product", "case", "conv2d_transpose", "conv3d",
                 "conv3d_transpose", "create_parameter", "crf_decoding", "data_norm",
                 "instance_norm", "multi_box_head", "nce", "prelu", "py_func", "row_conv",
                 "spectral_norm", "switch_case",
                 "continuous_value_model")     # (Paddle 3's; fluid.layers' in 2.0)
_CONTROL_FLOW = ("Assert", "Print", "While", "case", "cond", "switch_case", "while_loop")


def _taken(module, names):
    return {name: getattr(module, name) for name in names}


def _from_fluid_layers(names):
    from ..fluid import layers
    return _taken(layers, names)


globals().update(_from_fluid_layers(_FLUID_LAYERS))
globals().update(exports("static.nn"))
__all__ = sorted(set(exports("static.nn")) | set(_FLUID_LAYERS))
_COMMON = ("batch_norm", "bilinear_tensor_product", "continuous_value_model", "conv2d",
           "conv2d_transpose", "conv3d", "conv3d_transpose", "deform_conv2d", "embedding", "fc",
           "group_norm", "instance_norm", "layer_norm", "prelu", "py_func", "row_conv",
           "spectral_norm")
_SEQUENCE_LOD = ("sequence_conv", "sequence_expand", "sequence_first_step",
                 "sequence_last_step", "sequence_mask", "sequence_pool", "sequence_softmax")
# (in control_flow only, as 3.3.1: fluid.layers.control_flow's before)
_CONTROL_FLOW_ONLY = ("ConditionalBlock", "select_input", "select_output")


def _from_fluid_control_flow(names):
    from ..fluid.layers import control_flow
    return _taken(control_flow, names)


globals().update(group(__name__, {**_from_fluid_layers(_CONTROL_FLOW + _SEQUENCE_LOD),
                                  **_from_fluid_control_flow(_CONTROL_FLOW_ONLY),
                                  **globals()},
                       {"control_flow": _CONTROL_FLOW + _CONTROL_FLOW_ONLY, "common": _COMMON,
                        "sequence_lod": _SEQUENCE_LOD}))
