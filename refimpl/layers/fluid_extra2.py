"""The last Paddle 1.8 fluid.layers names: deformable_conv, sampled_softmax_with_cross_entropy,
dynamic_lstmp, image_resize_short. See specs/ops/fluid_extra2.md."""
import math

from ..framework.initializer import Normal
from ..framework.layer_helper import LayerHelper
from .common import append_op_out, check_variable
from .functional_vision import image_resize
from .rnn_seq_extra import _append, _check_activations, _width


def _pair(value, what, layer):
    values = list(value) if isinstance(value, (list, tuple)) else [value, value]
    if len(values) != 2:
        raise ValueError("%s: %s must be an int or 2 ints, got %s" % (layer, what, value))
    return [int(v) for v in values]


def deformable_conv(input, offset, mask, num_filters, filter_size, stride=1, padding=0,
                    dilation=1, groups=None, deformable_groups=None, im2col_step=None,
                    param_attr=None, bias_attr=None, modulated=True, name=None):
    """Deformable convolution v2 (modulated: deformable_conv op, reads `mask`) or v1
    (deformable_conv_v1, mask ignored). Filter [num_filters, C/groups, kh, kw] initialized
    N(0, sqrt(2 / (kh * kw * C))) as conv2d; bias added on the channel axis."""
    layer = "deformable_conv"
    for arg, v in (("input", input), ("offset", offset)):
        check_variable(v, arg, layer)
    if modulated:
        check_variable(mask, "mask", layer)
    channels = input.shape[1]
    groups = groups or 1
    if channels < 0 or channels % groups:
        raise ValueError("%s: input channels %d must be known and divisible by groups=%d"
                         % (layer, channels, groups))
    kh, kw = _pair(filter_size, "filter_size", layer)
    helper = LayerHelper(layer, name=name)
    std = math.sqrt(2.0 / (kh * kw * channels))
    weight = helper.create_parameter(param_attr, [num_filters, channels // groups, kh, kw],
                                     input.dtype, default_initializer=Normal(0.0, std))
    inputs = {"Input": [input], "Offset": [offset], "Filter": [weight]}
    if modulated:
        inputs["Mask"] = [mask]
    out = append_op_out("deformable_conv" if modulated else "deformable_conv_v1", inputs,
                        {"strides": _pair(stride, "stride", layer),
                         "paddings": _pair(padding, "padding", layer),
                         "dilations": _pair(dilation, "dilation", layer),
                         "groups": groups, "deformable_groups": deformable_groups or 1,
                         "im2col_step": im2col_step or 64},
                        out_slot="Output", layer_type=layer)
    return helper.append_bias_op(out, bias_attr, dim_start=1)


def sampled_softmax_with_cross_entropy(logits, label, num_samples, num_true=1,
                                       remove_accidental_hits=True,
                                       use_customized_samples=False, customized_samples=None,
                                       customized_probabilities=None, seed=0):
    """Softmax cross entropy over the true classes plus `num_samples` classes drawn from
    the log-uniform distribution (sample_logits op), as Paddle 1.8 builds it: the sampled
    labels one-hot (summed over the num_true columns) as a soft label, loss / num_true.
    Returns [N, 1]."""
    layer = "sampled_softmax_with_cross_entropy"
    check_variable(logits, "logits", layer)
    check_variable(label, "label", layer)
    if len(label.shape) != 2 or label.shape[1] != num_true:
        raise ValueError("%s: label must be [N, num_true=%d], got %s"
                         % (layer, num_true, list(label.shape)))
    inputs = {"Logits": [logits], "Labels": [label]}
    if use_customized_samples:
        check_variable(customized_samples, "customized_samples", layer)
        check_variable(customized_probabilities, "customized_probabilities", layer)
        inputs.update(CustomizedSamples=[customized_samples],
                      CustomizedProbabilities=[customized_probabilities])
    helper = LayerHelper("sample_logits")
    outputs = {slot: helper.create_variable_for_type_inference(dtype, stop_gradient=stop)
               for slot, dtype, stop in (("Samples", "int64", True),
                                         ("Probabilities", logits.dtype, True),
                                         ("SampledLogits", logits.dtype, False),
                                         ("SampledLabels", "int64", True))}
    helper.append_op(type="sample_logits", inputs=inputs,
                     outputs={k: [v] for k, v in outputs.items()},
                     attrs={"use_customized_samples": bool(use_customized_samples),
                            "uniq": True, "remove_accidental_hits": bool(remove_accidental_hits),
                            "num_samples": int(num_samples), "seed": int(seed)})
    one_hot = append_op_out("one_hot_v2", {"X": [outputs["SampledLabels"]]},
                            {"depth": num_true + int(num_samples), "dtype": logits.dtype.name},
                            out_dtype=logits.dtype, stop_gradient=True)
    soft_label = append_op_out("reduce_sum", {"X": [one_hot]},
                               {"dim": [1], "keep_dim": False, "reduce_all": False},
                               stop_gradient=True)
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax, loss = (helper.create_variable_for_type_inference(logits.dtype) for _ in "ab")
    helper.append_op(type="softmax_with_cross_entropy",
                     inputs={"Logits": [outputs["SampledLogits"]], "Label": [soft_label]},
                     outputs={"Softmax": [softmax], "Loss": [loss]},
                     attrs={"soft_label": True, "ignore_index": -100,
                            "numeric_stable_mode": False, "axis": -1})
    return append_op_out("scale", {"X": [loss]}, {"scale": 1.0 / num_true, "bias": 0.0,
                                                  "bias_after_scale": True})


def dynamic_lstmp(input, size, proj_size, param_attr=None, bias_attr=None,
                  use_peepholes=True, is_reverse=False, gate_activation="sigmoid",
                  cell_activation="tanh", candidate_activation="tanh",
                  proj_activation="tanh", dtype="float32", name=None, h_0=None, c_0=None,
                  cell_clip=None, proj_clip=None):
    """LSTM with a recurrent projection over sequences of already-projected input
    [total, size] (size = 4 * hidden); returns (projection [total, proj_size],
    cell [total, size / 4]), both with the input's LoD."""
    layer = "dynamic_lstmp"
    check_variable(input, "input", layer)
    _check_activations(layer, gate_activation=gate_activation,
                       cell_activation=cell_activation,
                       candidate_activation=candidate_activation,
                       proj_activation=proj_activation)
    width = _width(layer, size, 4)
    helper = LayerHelper("lstmp", name=name)
    weight = helper.create_parameter(param_attr, [proj_size, 4 * width], dtype)
    proj_weight = helper.create_parameter(param_attr, [width, proj_size], dtype)
    bias = helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * width], dtype,
                                   is_bias=True)
    projection, cell = _append(
        helper, "lstmp", {"Input": input, "H0": h_0, "C0": c_0, "Weight": weight,
                          "ProjWeight": proj_weight, "Bias": bias},
        ("Projection", "Cell"),
        {"use_peepholes": use_peepholes, "is_reverse": is_reverse,
         "gate_activation": gate_activation, "cell_activation": cell_activation,
         "candidate_activation": candidate_activation, "proj_activation": proj_activation,
         "cell_clip": float(cell_clip or 0.0), "proj_clip": float(proj_clip or 0.0)}, dtype)
    return projection, cell


def image_resize_short(input, out_short_len, resample="BILINEAR"):
    """Resize [N, C, H, W] so its shorter side is out_short_len, the other side scaled by
    the same ratio (rounded half up), through image_resize."""
    check_variable(input, "input", "image_resize_short")
    if len(input.shape) != 4:
        raise ValueError("image_resize_short: input must be 4-D [N, C, H, W], got %s"
                         % list(input.shape))
    hw = list(input.shape[2:])
    if min(hw) <= 0:
        raise ValueError("image_resize_short: input's H and W must be known, got %s" % hw)
    short = hw.index(min(hw))
    out_shape = list(hw)
    out_shape[short] = int(out_short_len)
    out_shape[1 - short] = int(hw[1 - short] * (float(out_short_len) / hw[short]) + 0.5)
    return image_resize(input, out_shape=out_shape, resample=resample)


EXPORTS = {"fluid.layers": {
    "deformable_conv": deformable_conv,
    "sampled_softmax_with_cross_entropy": sampled_softmax_with_cross_entropy,
    "dynamic_lstmp": dynamic_lstmp,
    "image_resize_short": image_resize_short,
}}
