"""paddle.fluid.dygraph_utils (Paddle 1.8): what its dygraph Layers append after their
main op, in dynamic mode only (an AssertionError otherwise, as 1.8)."""
from ..framework import mode
from ..framework.layer_helper import LayerHelper
from ..layers.common import append_op_out

__all__ = ["_append_activation_in_dygraph", "_append_bias_in_dygraph"]


def _append_activation_in_dygraph(input, act=None, use_cudnn=None, use_mkldnn=None):
    """act(input) (the op named `act`; None: input itself); the cudnn / mkldnn hints
    change nothing on refimpl."""
    assert mode.dynamic, "_append_activation_in_dygraph runs in dynamic mode only"
    return LayerHelper(act or "activation").append_activation(input, act)


def _append_bias_in_dygraph(input, bias=None, axis=1):
    """input + bias, bias broadcast from dim `axis` (elementwise_add); None: input."""
    assert mode.dynamic, "_append_bias_in_dygraph runs in dynamic mode only"
    if bias is None:
        return input
    return append_op_out("elementwise_add", {"X": [input], "Y": [bias]}, {"axis": axis})
