"""fluid.layers whole-sequence recurrent layers, CRF and the remaining sequence layers, on
packed rows plus lengths (specs/ops/sequence.md): every sequence input's lengths come from
`length=`, the producing layer, or `<name>@LENGTH` (layers/sequence.py: seq_length)."""
from ..framework.layer_helper import LayerHelper
from .common import check_variable
from .sequence import seq_length, with_length

_ACTIVATIONS = ("identity", "sigmoid", "tanh", "relu")


def _check_activations(fn, **acts):
    for arg, name in acts.items():
        if name not in _ACTIVATIONS:
            raise ValueError("%s: %s must be one of %s, got %r" % (fn, arg, _ACTIVATIONS, name))


def _append(helper, op_type, inputs, outputs, attrs, dtype):
    """Append op_type with fresh output variables; returns them in `outputs` order."""
    outs = [helper.create_variable_for_type_inference(dtype) for _ in outputs]
    helper.append_op(type=op_type, inputs={k: [v] for k, v in inputs.items() if v is not None},
                     outputs={slot: [v] for slot, v in zip(outputs, outs)}, attrs=attrs)
    return outs


def _width(fn, size, parts):
    if size % parts:
        raise ValueError("%s: size must be a multiple of %d, got %d" % (fn, parts, size))
    return size // parts


def dynamic_lstm(input, size, h_0=None, c_0=None, param_attr=None, bias_attr=None,
                 use_peepholes=True, is_reverse=False, gate_activation="sigmoid",
                 cell_activation="tanh", candidate_activation="tanh", dtype="float32",
                 name=None, length=None):
    """LSTM over sequences of already-projected input [total, size] (size = 4 * hidden);
    returns (hidden, cell), both [total, size / 4] sequences with the input's lengths."""
    lens = seq_length(input, length, "dynamic_lstm")
    _check_activations("dynamic_lstm", gate_activation=gate_activation,
                       cell_activation=cell_activation,
                       candidate_activation=candidate_activation)
    width = _width("dynamic_lstm", size, 4)
    helper = LayerHelper("lstm", name=name)
    weight = helper.create_parameter(param_attr, [width, 4 * width], dtype)
    bias = helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * width], dtype,
                                   is_bias=True)
    hidden, cell = _append(
        helper, "lstm", {"Input": input, "H0": h_0, "C0": c_0, "Weight": weight, "Bias": bias,
                         "XLength": lens}, ("Hidden", "Cell"),
        {"use_peepholes": use_peepholes, "is_reverse": is_reverse,
         "gate_activation": gate_activation, "cell_activation": cell_activation,
         "candidate_activation": candidate_activation}, dtype)
    return with_length(hidden, lens), with_length(cell, lens)


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False,
                gate_activation="sigmoid", candidate_activation="tanh", h_0=None,
                origin_mode=False, length=None):
    """GRU over sequences of already-projected input [total, 3 * size]; returns the hidden
    sequences [total, size] with the input's lengths."""
    lens = seq_length(input, length, "dynamic_gru")
    _check_activations("dynamic_gru", gate_activation=gate_activation,
                       candidate_activation=candidate_activation)
    helper = LayerHelper("gru")
    weight = helper.create_parameter(param_attr, [size, 3 * size], input.dtype)
    bias = helper.create_parameter(bias_attr, [1, 3 * size], input.dtype, is_bias=True)
    hidden, = _append(helper, "gru", {"Input": input, "H0": h_0, "Weight": weight, "Bias": bias,
                                      "XLength": lens}, ("Hidden",),
                      {"activation": candidate_activation, "gate_activation": gate_activation,
                       "is_reverse": is_reverse, "origin_mode": origin_mode}, input.dtype)
    return with_length(hidden, lens)


def linear_chain_crf(input, label, param_attr=None, length=None):
    """The CRF cost (negative log-likelihood) of each label sequence, [batch, 1]. Packed
    emissions [total, tags] with their lengths, or (length given: Paddle's padded form)
    [batch, max_len, tags] with labels [batch, max_len, 1]. The transition parameter is
    [tags + 2, tags] (start row, end row, then tag-to-tag weights)."""
    check_variable(label, "label", "linear_chain_crf")
    if length is not None and len(input.shape) == 3:
        check_variable(length, "length", "linear_chain_crf")
        lens = length
    else:
        lens = seq_length(input, length, "linear_chain_crf")
    tags = input.shape[-1]
    helper = LayerHelper("linear_chain_crf")
    transition = helper.create_parameter(param_attr, [tags + 2, tags], input.dtype)
    *_, cost = _append(helper, "linear_chain_crf", {"Emission": input, "Transition": transition,
                                                     "Label": label, "Length": lens},
                       ("Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"), {},
                       input.dtype)
    return cost


EXPORTS = {"fluid.layers": {f.__name__: f for f in (dynamic_lstm, dynamic_gru,
                                                    linear_chain_crf)}}
