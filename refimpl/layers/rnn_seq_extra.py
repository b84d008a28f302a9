"""fluid.layers whole-sequence recurrent layers, CRF and the remaining sequence layers
(specs/ops/sequence.md): their sequence inputs are LoD tensors (specs/lod.md)."""
import numpy as np

from ..framework.layer_helper import LayerHelper
from ..framework.param_attr import ParamAttr
from ..framework.program import Variable
from .common import check_variable
from .creation import arange
from .functional_vision import unfold
from .math import cast
from .nn import fc
from .norm import fluid_dropout
from .tensor import concat, reshape, shape, slice, squeeze, stack, transpose

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
                 name=None):
    """LSTM over sequences of already-projected input [total, size] (size = 4 * hidden);
    returns (hidden, cell), both [total, size / 4] sequences with the input's LoD."""
    check_variable(input, "input", "dynamic_lstm")
    _check_activations("dynamic_lstm", gate_activation=gate_activation,
                       cell_activation=cell_activation,
                       candidate_activation=candidate_activation)
    width = _width("dynamic_lstm", size, 4)
    helper = LayerHelper("lstm", name=name)
    weight = helper.create_parameter(param_attr, [width, 4 * width], dtype)
    bias = helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * width], dtype,
                                   is_bias=True)
    hidden, cell = _append(
        helper, "lstm", {"Input": input, "H0": h_0, "C0": c_0, "Weight": weight, "Bias": bias},
        ("Hidden", "Cell"),
        {"use_peepholes": use_peepholes, "is_reverse": is_reverse,
         "gate_activation": gate_activation, "cell_activation": cell_activation,
         "candidate_activation": candidate_activation}, dtype)
    return hidden, cell


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False,
                gate_activation="sigmoid", candidate_activation="tanh", h_0=None,
                origin_mode=False):
    """GRU over sequences of already-projected input [total, 3 * size]; returns the hidden
    sequences [total, size] with the input's LoD."""
    check_variable(input, "input", "dynamic_gru")
    _check_activations("dynamic_gru", gate_activation=gate_activation,
                       candidate_activation=candidate_activation)
    helper = LayerHelper("gru")
    weight = helper.create_parameter(param_attr, [size, 3 * size], input.dtype)
    bias = helper.create_parameter(bias_attr, [1, 3 * size], input.dtype, is_bias=True)
    hidden, = _append(helper, "gru", {"Input": input, "H0": h_0, "Weight": weight, "Bias": bias},
                      ("Hidden",),
                      {"activation": candidate_activation, "gate_activation": gate_activation,
                       "is_reverse": is_reverse, "origin_mode": origin_mode}, input.dtype)
    return hidden


def linear_chain_crf(input, label, param_attr=None, length=None):
    """The CRF cost (negative log-likelihood) of each label sequence, [batch, 1]. Emissions
    [total, tags] with a LoD, or (length given: Paddle's padded form) [batch, max_len, tags]
    with labels [batch, max_len, 1]. The transition parameter is [tags + 2, tags] (start
    row, end row, then tag-to-tag weights)."""
    check_variable(input, "input", "linear_chain_crf")
    check_variable(label, "label", "linear_chain_crf")
    if length is not None:
        check_variable(length, "length", "linear_chain_crf")
    tags = input.shape[-1]
    helper = LayerHelper("linear_chain_crf")
    transition = helper.create_parameter(param_attr, [tags + 2, tags], input.dtype)
    *_, cost = _append(helper, "linear_chain_crf", {"Emission": input, "Transition": transition,
                                                     "Label": label, "Length": length},
                       ("Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"), {},
                       input.dtype)
    return cost


def _seq_op(op_type, x, attrs, extra=None, name=None):
    """Append a sequence op reading x (and `extra` inputs); returns its Out."""
    check_variable(x, "input", op_type)
    helper = LayerHelper(op_type, name=name)
    return _append(helper, op_type, dict({"X": x}, **(extra or {})), ("Out",), attrs,
                   x.dtype)[0]


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True,
                  padding_start=None, bias_attr=None, param_attr=None, act=None, name=None):
    """Convolution along each sequence: row k sees rows k + padding_start ... (default
    padding_start = -(filter_size // 2), zeros outside the sequence); [total, num_filters]."""
    check_variable(input, "input", "sequence_conv")
    if filter_stride != 1:
        raise ValueError("sequence_conv: filter_stride must be 1 (Paddle supports only 1), "
                         "got %r" % filter_stride)
    helper = LayerHelper("sequence_conv", name=name)
    filt = helper.create_parameter(param_attr, [filter_size * input.shape[-1], num_filters],
                                   input.dtype)
    start = -(filter_size // 2) if padding_start is None else padding_start
    out = _seq_op("sequence_conv", input,
                  {"contextLength": filter_size, "contextStart": start, "contextStride": 1,
                   "paddingTrainable": False}, {"Filter": filt}, name=name)
    return helper.append_activation(helper.append_bias_op(out, bias_attr), act)


def sequence_enumerate(input, win_size, pad_value=0, name=None):
    return _seq_op("sequence_enumerate", input,
                   {"win_size": int(win_size), "pad_value": int(pad_value)}, name=name)


def sequence_reshape(input, new_dim):
    return _seq_op("sequence_reshape", input, {"new_dim": int(new_dim)})


def sequence_scatter(input, index, updates, name=None):
    """input [batch, D] plus, for sequence i of index / updates, updates added at
    input[i, index]."""
    check_variable(input, "input", "sequence_scatter")
    check_variable(updates, "updates", "sequence_scatter")
    check_variable(index, "index", "sequence_scatter")
    helper = LayerHelper("sequence_scatter", name=name)
    out, = _append(helper, "sequence_scatter", {"X": input, "Ids": index, "Updates": updates},
                   ("Out",), {}, input.dtype)
    return out


def _lod_reset(fn, x, y, target_lod, append):
    check_variable(x, "x", fn)
    inputs = {"X": x}
    if y is not None:
        check_variable(y, "y", fn)
        inputs["Y"] = y
    elif not target_lod:
        raise ValueError("%s: give y or target_lod (offsets such as [0, 4, 6])" % fn)
    attrs = {"target_lod": [int(v) for v in (target_lod or [])], "append": append}
    helper = LayerHelper("lod_reset")
    out, = _append(helper, "lod_reset", inputs, ("Out",), attrs, x.dtype)
    if append:
        out.lod_level = x.lod_level + 1
    return out


def lod_reset(x, y=None, target_lod=None):
    """x with a new LoD: y's when y has one, else y's data or target_lod read as offsets
    ([0, 4, 6] = two sequences of 4 and 2 rows)."""
    return _lod_reset("lod_reset", x, y, target_lod, False)


def lod_append(x, level):
    """x with `level` (offsets, a list or an int Variable) appended below its LoD."""
    if isinstance(level, Variable):
        return _lod_reset("lod_append", x, level, None, True)
    if not isinstance(level, (list, tuple)):
        raise ValueError("lod_append: level must be a list, tuple or Variable, got %r"
                         % type(level).__name__)
    return _lod_reset("lod_append", x, None, list(level), True)


def fixed_length_sequences(x, length):
    """x's rows as sequences of `length` rows each: x with the LoD offsets [0, length,
    2 * length, ..., rows] (a lod_reset by a range computed at run time)."""
    rows = cast(slice(shape(x), [0], [0], [1]), "int64")
    return lod_reset(x, arange(0, rows + 1, length, "int64"))


def reorder_lod_tensor_by_rank(x, rank_table):
    """x's sequences (rows, when x has no LoD) sorted as Paddle's rank table sorts them:
    longest first, ties in order. rank_table is an int lengths Variable (refimpl's
    lod_rank_table, layers/control_flow.py, gives one)."""
    fn = "reorder_lod_tensor_by_rank"
    check_variable(x, "x", fn)
    check_variable(rank_table, "rank_table", fn)
    helper = LayerHelper(fn)
    out, = _append(helper, fn, {"X": x, "RankTable": rank_table}, ("Out",), {}, x.dtype)
    return out


def im2sequence(input, filter_size=1, stride=1, padding=0, input_image_size=None,
                out_stride=1, name=None):
    """Each image [C, H, W] becomes a sequence of its oh * ow patches, rows [C * kh * kw]:
    unfold, then the patches made rows (Paddle's im2sequence op, composed)."""
    check_variable(input, "input", "im2sequence")
    if input_image_size is not None or out_stride != 1:
        raise NotImplementedError("im2sequence: input_image_size / out_stride (per-image "
                                  "real sizes) are not supported")
    if len(input.shape) != 4 or min(input.shape[1:]) < 0:
        raise ValueError("im2sequence: input must be [N, C, H, W] with C, H, W known, got %s"
                         % list(input.shape))
    kh, kw = (filter_size, filter_size) if np.isscalar(filter_size) else filter_size
    sh, sw = (stride, stride) if np.isscalar(stride) else stride
    pads = [padding] * 4 if np.isscalar(padding) else list(padding) * (4 // len(padding))
    out_h = (input.shape[2] + pads[0] + pads[2] - kh) // sh + 1
    out_w = (input.shape[3] + pads[1] + pads[3] - kw) // sw + 1
    cols = unfold(input, [kh, kw], [sh, sw], pads)
    rows = reshape(transpose(cols, [0, 2, 1]), [-1, input.shape[1] * kh * kw], name=name)
    return fixed_length_sequences(rows, out_h * out_w)


def lstm(input, init_h, init_c, max_len, hidden_size, num_layers, dropout_prob=0.0,
         is_bidirec=False, is_test=False, name=None, default_initializer=None, seed=-1):
    """The cuDNN-style multi-layer LSTM over padded time-major input [max_len, batch, I]:
    (out [max_len, batch, hidden * dirs], last_h, last_c [num_layers * dirs, batch,
    hidden]). Composed: per layer and direction an fc projection and the lstm op (no
    peepholes) over the batch as sequences of length max_len."""
    for arg, v in (("input", input), ("init_h", init_h), ("init_c", init_c)):
        check_variable(v, arg, "lstm")
    if len(input.shape) != 3 or input.shape[0] not in (-1, max_len):
        raise ValueError("lstm: input must be [max_len=%d, batch, input_size], got %s"
                         % (max_len, list(input.shape)))
    dirs = 2 if is_bidirec else 1
    batch_major = transpose(input, [1, 0, 2])
    rows = fixed_length_sequences(reshape(batch_major, [-1, input.shape[2]]), max_len)
    attr = None if default_initializer is None else ParamAttr(initializer=default_initializer)
    last_h, last_c = [], []
    for layer in range(num_layers):
        outs = []
        for direction in range(dirs):
            k = layer * dirs + direction
            h0, c0 = (squeeze(slice(s, [0], [k], [k + 1]), [0]) for s in (init_h, init_c))
            proj = fc(rows, 4 * hidden_size, weight_attr=attr, bias_attr=False)
            hidden, cell = dynamic_lstm(proj, 4 * hidden_size, h0, c0, attr,
                                        use_peepholes=False, is_reverse=direction == 1,
                                        dtype=input.dtype)
            step = 0 if direction == 1 else max_len - 1  # where each direction ends
            for state, keep in ((hidden, last_h), (cell, last_c)):
                timed = reshape(state, [-1, max_len, hidden_size])
                keep.append(squeeze(slice(timed, [1], [step], [step + 1]), [1]))
            outs.append(hidden)
        rows = outs[0] if dirs == 1 else concat(outs, axis=1)
        if dropout_prob > 0 and layer < num_layers - 1:
            rows = fluid_dropout(rows, dropout_prob, is_test=is_test,
                           seed=None if seed == -1 else seed,
                           dropout_implementation="upscale_in_train")
    out = transpose(reshape(rows, [-1, max_len, hidden_size * dirs]), [1, 0, 2])
    return out, stack(last_h, axis=0), stack(last_c, axis=0)


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    dynamic_lstm, dynamic_gru, linear_chain_crf, sequence_conv, sequence_enumerate,
    sequence_reshape, sequence_scatter, lod_reset, lod_append, reorder_lod_tensor_by_rank,
    im2sequence, lstm)}}
