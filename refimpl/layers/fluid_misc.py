"""Paddle 1.8 fluid.layers odds and ends: thin layers over single ops (clip_by_norm, hash,
add_position_encoding, affine_channel, fsp_matrix, similarity_focus,
continuous_value_model, center_loss), the SelectedRows helpers (identities on the dense
tensors refimpl has) and inplace_abn (batch_norm + activation). See specs/ops/fluid_misc_ops.md."""
import numpy as np

from ..framework import unique_name
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from . import creation
from .common import append_op_out, check_dtype, check_variable
from .norm import named_batch_norm


def clip_by_norm(x, max_norm, name=None):
    """x scaled down to L2 norm `max_norm` when its norm is larger."""
    check_dtype(x, "x", "clip_by_norm", ("float32",))
    return append_op_out("clip_by_norm", {"X": [x]}, {"max_norm": float(max_norm)}, name)


def merge_selected_rows(x, name=None):
    """Merges duplicate rows of a SelectedRows (the merge_selected_rows op, as 1.8.5); a
    dense tensor's rows are already merged, so on one it is a copy."""
    check_variable(x, "x", "merge_selected_rows")
    out = append_op_out("merge_selected_rows", {"X": [x]}, {}, name)
    out.type = x.type       # a SelectedRows stays one, as Paddle infers its var type
    return out


def get_tensor_from_selected_rows(x, name=None):
    """The value tensor of a SelectedRows (its listed rows); of a dense tensor, a copy."""
    check_variable(x, "x", "get_tensor_from_selected_rows")
    return append_op_out("get_tensor_from_selected_rows", {"X": [x]}, name=name)


def get_places(device_count=None, device_type=None):
    """fluid.layers.device.get_places (deprecated in 1.8): a PLACE_LIST variable that the
    get_places op fills with the places (ops/get_places.py)."""
    helper = LayerHelper("get_places")
    out = helper.block().create_var(name=unique_name.generate("get_places.out"),
                                    type="PLACE_LIST", dtype="int64", shape=(-1,))
    attrs = {}
    if device_count is not None:
        attrs["device_count"] = int(device_count)
    if device_type is not None:
        attrs["device_type"] = str(device_type)
    helper.append_op(type="get_places", inputs={}, outputs={"Out": [out]}, attrs=attrs)
    out.stop_gradient = True
    return out


def hash(input, hash_size, num_hash=1, name=None):
    """`num_hash` XXH64 digests (seeds 0..num_hash-1) of each last-axis row of the int
    `input`, modulo hash_size: int64 [..., num_hash, 1]."""
    check_dtype(input, "input", "hash", ("int32", "int64"))
    for arg, value in (("hash_size", hash_size), ("num_hash", num_hash)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError("hash: %s must be an int, got %s %r"
                            % (arg, type(value).__name__, value))
    return append_op_out("hash", {"X": [input]},
                         {"num_hash": int(num_hash), "mod_by": int(hash_size)}, name,
                         out_dtype="int64", stop_gradient=True)


def add_position_encoding(input, alpha, beta, name=None):
    """alpha * input + beta * sinusoid position encoding, input [batch, seq_len, size]."""
    check_dtype(input, "input", "add_position_encoding", ("float32", "float64"))
    return append_op_out("add_position_encoding", {"X": [input]},
                         {"alpha": float(alpha), "beta": float(beta)}, name)


def affine_channel(x, scale=None, bias=None, data_layout="NCHW", name=None, act=None):
    """x * scale + bias per channel (scale and bias: [C] Variables)."""
    check_dtype(x, "x", "affine_channel", ("float32", "float64"))
    for arg, v in (("scale", scale), ("bias", bias)):
        check_variable(v, arg, "affine_channel")
    out = append_op_out("affine_channel", {"X": [x], "Scale": [scale], "Bias": [bias]},
                        {"data_layout": data_layout}, name)
    return LayerHelper("affine_channel").append_activation(out, act)


def fsp_matrix(x, y):
    """[N, C1, C2] Gram matrix of the feature maps x [N, C1, H, W] and y [N, C2, H, W]
    over H*W, divided by H*W."""
    check_dtype(x, "x", "fsp_matrix", ("float32", "float64"))
    check_variable(y, "y", "fsp_matrix")
    return append_op_out("fsp", {"X": [x], "Y": [y]}, layer_type="fsp_matrix")


def similarity_focus(input, axis, indexes, name=None):
    """0/1 mask of the row- and column-unique maxima of input's slices at `indexes`."""
    check_variable(input, "input", "similarity_focus")
    return append_op_out("similarity_focus", {"X": [input]},
                         {"axis": int(axis), "indexes": [int(i) for i in indexes]}, name,
                         stop_gradient=True)


def continuous_value_model(input, cvm, use_cvm=True):
    """The cvm op: log-transformed show/click columns (use_cvm) or the columns after them."""
    check_dtype(input, "input", "continuous_value_model", ("float32", "float64"))
    check_variable(cvm, "cvm", "continuous_value_model")
    return append_op_out("cvm", {"X": [input], "CVM": [cvm]}, {"use_cvm": bool(use_cvm)},
                         out_slot="Y", layer_type="cvm")


def center_loss(input, label, num_classes, alpha, param_attr, update_center=True):
    """0.5 ||input - center[label]||^2 per sample ([N, 1]); with update_center the centers
    parameter (a [num_classes, D] non-trainable parameter) moves towards its samples by
    rate `alpha` (a float or a [1] Variable) every run."""
    check_dtype(input, "input", "center_loss", ("float32", "float64"))
    check_dtype(label, "label", "center_loss", ("int32", "int64"))
    helper = LayerHelper("center_loss")
    centers = helper.create_parameter(param_attr, [int(num_classes), input.shape[1]],
                                      input.dtype, default_initializer=Constant(0.0))
    centers.stop_gradient = True
    if not isinstance(alpha, Variable):
        alpha = creation.create_global_var([1], float(alpha), input.dtype, persistable=True,
                                           name=unique_name.generate("centerloss_alpha"))
    diff = helper.create_variable_for_type_inference(input.dtype)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="center_loss",
                     inputs={"X": [input], "Label": [label], "Centers": [centers],
                             "CenterUpdateRate": [alpha]},
                     outputs={"CentersOut": [centers], "SampleCenterDiff": [diff],
                              "Loss": [loss]},
                     attrs={"cluster_num": int(num_classes),
                            "need_update": bool(update_center)})
    return loss


_ABN_ACTS = ("identity", "leaky_relu", "elu")


def inplace_abn(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                bias_attr=None, data_layout="NCHW", name=None, moving_mean_name=None,
                moving_variance_name=None, do_model_average_for_mean_and_var=True,
                use_global_stats=False, act_alpha=1.0):
    """batch_norm followed by `act` (identity, leaky_relu or elu with alpha `act_alpha`).
    Paddle fuses them and reuses the input buffer; here they are two ops and new buffers
    (same values and gradients)."""
    if act is not None and act not in _ABN_ACTS:
        raise ValueError("inplace_abn: act must be None or one of %s, got %r"
                         % (list(_ABN_ACTS), act))
    out = named_batch_norm("inplace_abn", input, None, is_test, momentum, epsilon,
                           param_attr, bias_attr, data_layout, name, moving_mean_name,
                           moving_variance_name, do_model_average_for_mean_and_var,
                           use_global_stats)
    if act in (None, "identity"):
        return out
    return LayerHelper("inplace_abn").append_activation(
        out, {"type": act, "alpha": float(act_alpha)})


EXPORTS = {
    "fluid.layers": {
        "clip_by_norm": clip_by_norm, "merge_selected_rows": merge_selected_rows,
        "get_tensor_from_selected_rows": get_tensor_from_selected_rows, "hash": hash,
        "add_position_encoding": add_position_encoding, "affine_channel": affine_channel,
        "fsp_matrix": fsp_matrix, "similarity_focus": similarity_focus,
        "continuous_value_model": continuous_value_model, "center_loss": center_loss,
        "inplace_abn": inplace_abn,
    },
    # outside fluid.layers' names, as in 1.8 (device.py's __all__ is empty)
    "fluid.layers.device": {"get_places": get_places},
}
