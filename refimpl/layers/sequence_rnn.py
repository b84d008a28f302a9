"""fluid.layers recurrent layers over whole sequences: dynamic_lstm, dynamic_gru,
dynamic_lstmp, linear_chain_crf on LoD tensors (specs/ops/sequence.md, specs/lod.md), and
the padded multi-layer lstm."""
from ..framework.layer_helper import LayerHelper
from ..framework.param_attr import ParamAttr
from .common import check_variable
from .nn import fc
from .norm import fluid_dropout
from .sequence import _outputs, fixed_length_sequences
from .tensor import concat, reshape, slice, squeeze, stack, transpose

_ACTIVATIONS = ("identity", "sigmoid", "tanh", "relu")


def _check_activations(fn, **acts):
    for arg, name in acts.items():
        if name not in _ACTIVATIONS:
            raise ValueError("%s: %s must be one of %s, got %r" % (fn, arg, _ACTIVATIONS, name))


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
    # with Paddle's intermediates bound, as Paddle's layer binds them: Paddle's kernel
    # requires them when it runs a program refimpl built
    hidden, cell, _, _ = _outputs(
        helper, "lstm", {"Input": input, "H0": h_0, "C0": c_0, "Weight": weight, "Bias": bias},
        ("Hidden", "Cell", "BatchGate", "BatchCellPreAct"),
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
    hidden, *_ = _outputs(helper, "gru", {"Input": input, "H0": h_0, "Weight": weight,
                                         "Bias": bias},
                          ("Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"),
                          {"activation": candidate_activation,
                           "gate_activation": gate_activation, "is_reverse": is_reverse,
                           "origin_mode": origin_mode}, input.dtype)
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
    *_, cost = _outputs(helper, "linear_chain_crf", {"Emission": input, "Transition": transition,
                                                     "Label": label, "Length": length},
                       ("Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"), {},
                       input.dtype)
    return cost


def crf_decoding(input, param_attr, label=None, length=None):
    """The Viterbi tag path [total, 1] int64 of each sequence of `input` (emissions with a
    LoD, or padded [batch, max_len, tags] with `length`) under the transition parameter
    named by param_attr (linear_chain_crf's); with `label`, 1 where it agrees, else 0."""
    check_variable(input, "input", "crf_decoding")
    attr = ParamAttr._to_attr(param_attr)
    block = LayerHelper("crf_decoding").main_program.global_block()
    if attr is None or attr.name is None or not block.has_var(attr.name):
        raise ValueError("crf_decoding: param_attr must name an existing transition "
                         "parameter (linear_chain_crf's), got %r" % (param_attr,))
    helper = LayerHelper("crf_decoding")
    path, = _outputs(helper, "crf_decoding", {"Emission": input,
                                              "Transition": block.var(attr.name),
                                              "Label": label, "Length": length},
                     ("ViterbiPath",), {}, "int64")
    path.stop_gradient = True
    return path


def chunk_eval(input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None,
               seq_length=None):
    """(precision, recall, f1_score, num_infer_chunks, num_label_chunks,
    num_correct_chunks) of the tagged sequences `input` against `label` (op chunk_eval)."""
    check_variable(input, "input", "chunk_eval")
    check_variable(label, "label", "chunk_eval")
    helper = LayerHelper("chunk_eval")
    outs = [helper.create_variable_for_type_inference(dtype, stop_gradient=True)
            for dtype in ("float32",) * 3 + ("int64",) * 3]
    slots = ("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
             "NumCorrectChunks")
    inputs = {"Inference": [input], "Label": [label]}
    if seq_length is not None:
        inputs["SeqLength"] = [seq_length]
    helper.append_op(type="chunk_eval", inputs=inputs,
                     outputs={slot: [v] for slot, v in zip(slots, outs)},
                     attrs={"num_chunk_types": int(num_chunk_types),
                            "chunk_scheme": chunk_scheme,
                            "excluded_chunk_types": list(excluded_chunk_types or [])})
    return tuple(outs)


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


def dynamic_lstmp(input, size, proj_size, param_attr=None, bias_attr=None,
                  use_peepholes=True, is_reverse=False, gate_activation="sigmoid",
                  cell_activation="tanh", candidate_activation="tanh",
                  proj_activation="tanh", dtype="float32", name=None, h_0=None, c_0=None,
                  cell_clip=None, proj_clip=None):
    """LSTM with a recurrent projection over sequences of already-projected input
    [total, size] (size = 4 * hidden); returns (projection [total, proj_size],
    cell [total, size / 4]), both with the input's lengths."""
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
    projection, cell = _outputs(
        helper, "lstmp", {"Input": input, "H0": h_0, "C0": c_0, "Weight": weight,
                          "ProjWeight": proj_weight, "Bias": bias},
        ("Projection", "Cell"),
        {"use_peepholes": use_peepholes, "is_reverse": is_reverse,
         "gate_activation": gate_activation, "cell_activation": cell_activation,
         "candidate_activation": candidate_activation, "proj_activation": proj_activation,
         "cell_clip": float(cell_clip or 0.0), "proj_clip": float(proj_clip or 0.0)}, dtype)
    return projection, cell


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    dynamic_lstm, dynamic_gru, dynamic_lstmp, linear_chain_crf, crf_decoding, chunk_eval,
    lstm)}}
