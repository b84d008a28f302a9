"""fluid.layers sequence ops on packed sequences plus lengths (specs/ops/sequence.md).
refimpl has no LoD: where Paddle reads groupings from a LoD (filter_by_instag's instances)
they are given as count vectors (extra keywords).

Every layer takes the lengths of a sequence input from (in order) its explicit `length=`
argument, the lengths the op that produced it recorded (`var._seq_length`), or, for a data
variable with lod_level > 0, the int64 variable `<name>@LENGTH` (fed automatically when a
LoDTensor is fed for `<name>`). Outputs that are sequences record their lengths the same way.
"""
import numpy as np

from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import append_op_outputs, check_variable
from .creation import fill_constant, fill_constant_batch_size_like
from .functional_loss import fluid_warpctc
from .functional_vision import unfold
from .loss import fluid_topk
from .tensor import reshape, squeeze, transpose

LENGTH_SUFFIX = "@LENGTH"


def seq_length(x, length, fn, arg="input"):
    """The lengths Variable of sequence input `x`."""
    check_variable(x, arg, fn)
    if length is not None:
        check_variable(length, "length", fn)
        return length
    known = getattr(x, "_seq_length", None)
    if known is not None:
        return known
    if x.lod_level > 0:
        block = x.block.program.global_block()
        name = x.name + LENGTH_SUFFIX
        if name not in block.vars:
            block.create_var(name=name, shape=[-1], dtype="int64", stop_gradient=True,
                             is_data=True)
        x._seq_length = block.vars[name]
        return x._seq_length
    raise ValueError("%s: %r %r carries no sequence lengths: pass length= (an int64 [batch] "
                     "Variable), or make it fluid.data(..., lod_level=1) and feed a LoDTensor"
                     % (fn, arg, x.name))


def with_length(var, length):
    var._seq_length = length
    return var


def _op(op_type, inputs, attrs=None, outputs=("Out",), dtypes=None, name=None):
    """Append `op_type` and return its outputs (one Variable or a tuple)."""
    helper = LayerHelper(op_type, name=name)
    first = inputs[next(iter(inputs))][0]
    outs = [helper.create_variable_for_type_inference((dtypes or {}).get(slot, first.dtype))
            for slot in outputs]
    helper.append_op(type=op_type, inputs=inputs,
                     outputs={slot: [v] for slot, v in zip(outputs, outs)}, attrs=attrs or {})
    return outs[0] if len(outs) == 1 else tuple(outs)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    check_variable(x, "x", "sequence_mask")
    inputs, attrs = {"X": [x]}, {"out_dtype": dtype, "maxlen": -1}
    if isinstance(maxlen, Variable):
        inputs["MaxLenTensor"] = [maxlen]
    elif maxlen is not None:
        attrs["maxlen"] = int(maxlen)
    return _op("sequence_mask", inputs, attrs, ("Y",), {"Y": dtype}, name)


def sequence_pad(x, pad_value, maxlen=None, name=None, length=None):
    """(Out [batch, maxlen, ...], Length [batch] int64)."""
    lens = seq_length(x, length, "sequence_pad", "x")
    out = _op("sequence_pad", {"X": [x], "PadValue": [pad_value], "XLength": [lens]},
              {"padded_length": -1 if maxlen is None else int(maxlen)}, name=name)
    return out, lens


def sequence_unpad(x, length, name=None):
    check_variable(length, "length", "sequence_unpad")
    return with_length(_op("sequence_unpad", {"X": [x], "Length": [length]}, name=name), length)


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0, length=None):
    lens = seq_length(input, length, "sequence_pool")
    out, _ = _op("sequence_pool", {"X": [input], "XLength": [lens]},
                 {"pooltype": pool_type.upper(), "is_test": is_test, "pad_value": pad_value},
                 ("Out", "MaxIndex"), {"MaxIndex": "int32"})
    return out


def sequence_first_step(input, length=None):
    return sequence_pool(input, "first", length=length)


def sequence_last_step(input, length=None):
    return sequence_pool(input, "last", length=length)


def sequence_softmax(input, use_cudnn=False, name=None, length=None):
    lens = seq_length(input, length, "sequence_softmax")
    return with_length(_op("sequence_softmax", {"X": [input], "XLength": [lens]},
                           {"use_cudnn": use_cudnn}, name=name), lens)


def sequence_reverse(x, name=None, length=None):
    lens = seq_length(x, length, "sequence_reverse", "x")
    return with_length(_op("sequence_reverse", {"X": [x], "XLength": [lens]}, outputs=("Y",),
                           name=name), lens)


def sequence_expand(x, y, ref_level=-1, name=None, x_length=None, y_length=None):
    """x's sequences (its rows when x has no lengths) repeated as y's lengths say."""
    inputs = {"X": [x], "YLength": [seq_length(y, y_length, "sequence_expand", "y")]}
    if x_length is not None or getattr(x, "_seq_length", None) is not None or x.lod_level:
        inputs["XLength"] = [seq_length(x, x_length, "sequence_expand", "x")]
    out, out_len = _op("sequence_expand", inputs, {"ref_level": ref_level},
                       ("Out", "OutLength"), {"OutLength": "int64"}, name)
    return with_length(out, out_len)


def sequence_expand_as(x, y, name=None, y_length=None):
    lens = seq_length(y, y_length, "sequence_expand_as", "y")
    return with_length(_op("sequence_expand_as", {"X": [x], "YLength": [lens]}, name=name),
                       lens)


def sequence_concat(input, name=None, lengths=None):
    xs = list(input)
    lens = [seq_length(x, n, "sequence_concat") for x, n in zip(xs, lengths or [None] * len(xs))]
    out, out_len = _op("sequence_concat", {"X": xs, "XLength": lens}, None,
                       ("Out", "OutLength"), {"OutLength": "int64"}, name)
    return with_length(out, out_len)


def sequence_slice(input, offset, length, name=None, input_length=None):
    lens = seq_length(input, input_length, "sequence_slice")
    out = _op("sequence_slice", {"X": [input], "Offset": [offset], "Length": [length],
                                 "XLength": [lens]}, name=name)
    return with_length(out, length)


def _packed(x, length, fn, arg):
    """(packed rows, lengths) of a sequence input: the padded form [batch, max_len, ...]
    when `length` is given (Paddle's padded mode), else x with its own lengths."""
    if length is None:
        return x, seq_length(x, None, fn, arg)
    check_variable(length, arg + "_length", fn)
    return sequence_unpad(x, length), length


def warpctc(input, label, blank=0, norm_by_times=False, input_length=None, label_length=None):
    """CTC loss [batch, 1]. Packed logits [total_time, C + 1] and labels [total(, 1)] with
    their lengths (padded here), or (input_length and label_length given) time-major padded
    logits [max_time, batch, C + 1] and labels [batch, max_label]: the warpctc op takes the
    padded form, as Paddle's does with LogitsLength (layers/functional_loss.py)."""
    if (input_length is None) != (label_length is None):
        raise ValueError("warpctc: give both input_length and label_length (padded input) "
                         "or neither (sequences with lengths)")
    if input_length is None:
        zero = fill_constant([1], input.dtype, 0.0)
        padded, input_length = sequence_pad(input, zero, length=seq_length(input, None,
                                                                          "warpctc", "input"))
        input = transpose(padded, [1, 0, 2])
        label_lens = seq_length(label, None, "warpctc", "label")
        padded_label, label_length = sequence_pad(label, fill_constant([1], label.dtype, 0),
                                                  length=label_lens)
        label = squeeze(padded_label, [2]) if len(label.shape) == 2 else padded_label
    return fluid_warpctc(input, label, blank, norm_by_times, input_length, label_length)


def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Best class per step, repeats merged, blanks dropped. Sequences in -> int64 [total, 1]
    sequences out; padded [batch, max_len, C + 1] with input_length -> (ids [batch, width]
    padded with padding_value, lengths [batch, 1])."""
    check_variable(input, "input", "ctc_greedy_decoder")
    _, ids = fluid_topk(input, 1)
    if input_length is None:
        lens = seq_length(input, None, "ctc_greedy_decoder")
    else:
        ids, lens = _packed(ids, input_length, "ctc_greedy_decoder", "input")
    out, out_len = _op("ctc_align", {"Input": [ids], "InputLength": [lens]},
                       {"blank": blank, "merge_repeated": True, "padding_value": padding_value},
                       ("Output", "OutputLength"), {"OutputLength": "int64"}, name)
    if input_length is None:
        return with_length(out, out_len)
    width = input.shape[1] if len(input.shape) > 1 and input.shape[1] > 0 else None
    padded, _ = sequence_pad(reshape(out, [-1]), fill_constant([1], "int64", padding_value),
                             maxlen=width, length=out_len)
    return padded, reshape(out_len, [-1, 1])


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None):
    """(distances [batch, 1] float32, sequence count [1] int64)."""
    if ignored_tokens:
        raise NotImplementedError("edit_distance: ignored_tokens is not supported (refimpl "
                                  "has no sequence_erase op); drop those tokens before")
    hyps, hyps_len = _packed(input, input_length, "edit_distance", "input")
    refs, refs_len = _packed(label, label_length, "edit_distance", "label")
    return _op("edit_distance", {"Hyps": [hyps], "Refs": [refs], "HypsLength": [hyps_len],
                                 "RefsLength": [refs_len]}, {"normalized": normalized},
               ("Out", "SequenceNum"), {"Out": "float32", "SequenceNum": "int64"})


def _outputs(helper, op_type, inputs, slots, attrs, dtype):
    """Append op_type with a fresh `dtype` variable per slot of `slots`; returns them."""
    return append_op_outputs(op_type, inputs, [(slot, dtype, False) for slot in slots], attrs,
                             helper)


def _seq_op(fn, op_type, x, lens, attrs, extra=None, outputs=("Out",), name=None):
    """Append a sequence op reading x and its lengths; returns its outputs, the first with
    the lengths it keeps (or its OutLength output when it has one)."""
    helper = LayerHelper(op_type, name=name)
    inputs = dict({"X": x, "XLength": lens}, **(extra or {}))
    outs = _outputs(helper, op_type, inputs, outputs, attrs, x.dtype)
    new_lens = outs[outputs.index("OutLength")] if "OutLength" in outputs else lens
    return with_length(outs[0], new_lens)


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True,
                  padding_start=None, bias_attr=None, param_attr=None, act=None, name=None,
                  length=None):
    """Convolution along each sequence: row k sees rows k + padding_start ... (default
    padding_start = -(filter_size // 2), zeros outside the sequence); [total, num_filters]."""
    lens = seq_length(input, length, "sequence_conv")
    if filter_stride != 1:
        raise ValueError("sequence_conv: filter_stride must be 1 (Paddle supports only 1), "
                         "got %r" % filter_stride)
    helper = LayerHelper("sequence_conv", name=name)
    filt = helper.create_parameter(param_attr, [filter_size * input.shape[-1], num_filters],
                                   input.dtype)
    start = -(filter_size // 2) if padding_start is None else padding_start
    out = _seq_op("sequence_conv", "sequence_conv", input, lens,
                  {"contextLength": filter_size, "contextStart": start, "contextStride": 1,
                   "paddingTrainable": False}, {"Filter": filt}, name=name)
    out = helper.append_activation(helper.append_bias_op(out, bias_attr), act)
    return with_length(out, lens)


def sequence_enumerate(input, win_size, pad_value=0, name=None, length=None):
    lens = seq_length(input, length, "sequence_enumerate")
    return _seq_op("sequence_enumerate", "sequence_enumerate", input, lens,
                   {"win_size": int(win_size), "pad_value": int(pad_value)}, name=name)


def sequence_reshape(input, new_dim, length=None):
    lens = seq_length(input, length, "sequence_reshape")
    return _seq_op("sequence_reshape", "sequence_reshape", input, lens,
                   {"new_dim": int(new_dim)}, outputs=("Out", "OutLength"))


def sequence_scatter(input, index, updates, name=None, length=None):
    """input [batch, D] plus, for sequence i of index / updates, updates added at
    input[i, index]."""
    check_variable(input, "input", "sequence_scatter")
    check_variable(updates, "updates", "sequence_scatter")
    lens = seq_length(index, length, "sequence_scatter", "index")
    helper = LayerHelper("sequence_scatter", name=name)
    out, = _outputs(helper, "sequence_scatter", {"X": input, "Ids": index, "Updates": updates,
                                                "IdsLength": lens}, ("Out",), {}, input.dtype)
    return out


def _lod_reset(fn, x, y, target_lod, append):
    check_variable(x, "x", fn)
    inputs = {"X": x}
    if y is not None:
        check_variable(y, "y", fn)
        if getattr(y, "_seq_length", None) is not None or y.lod_level > 0:
            inputs["YLength"] = seq_length(y, None, fn, "y")
        else:
            inputs["Y"] = y
    elif not target_lod:
        raise ValueError("%s: give y or target_lod (offsets such as [0, 4, 6])" % fn)
    attrs = {"target_lod": [int(v) for v in (target_lod or [])], "append": append}
    helper = LayerHelper("lod_reset")
    out, out_lens = _outputs(helper, "lod_reset", inputs, ("Out", "OutLength"), attrs, x.dtype)
    return with_length(out, out_lens)


def lod_reset(x, y=None, target_lod=None):
    """x with new sequence lengths: y's lengths when y is a sequence, else y's data or
    target_lod read as offsets ([0, 4, 6] = lengths [4, 2])."""
    return _lod_reset("lod_reset", x, y, target_lod, False)


def lod_append(x, level):
    """x with `level` (offsets, a list or an int Variable) as its sequence lengths: refimpl
    keeps one level, so the appended level replaces x's own."""
    if isinstance(level, Variable):
        return _lod_reset("lod_append", x, level, None, True)
    if not isinstance(level, (list, tuple)):
        raise ValueError("lod_append: level must be a list, tuple or Variable, got %r"
                         % type(level).__name__)
    return _lod_reset("lod_append", x, None, list(level), True)


def reorder_lod_tensor_by_rank(x, rank_table):
    """x's sequences (rows, when x has no lengths) sorted as Paddle's rank table sorts
    them: longest first, ties in order. rank_table is a sequence variable (its lengths
    rank) or an int lengths Variable (refimpl has no lod_rank_table)."""
    fn = "reorder_lod_tensor_by_rank"
    check_variable(x, "x", fn)
    check_variable(rank_table, "rank_table", fn)
    if getattr(rank_table, "_seq_length", None) is not None or rank_table.lod_level > 0:
        rank_table = seq_length(rank_table, None, fn, "rank_table")
    inputs = {"X": x, "RankTable": rank_table}
    if getattr(x, "_seq_length", None) is not None or x.lod_level > 0:
        inputs["XLength"] = seq_length(x, None, fn, "x")
    helper = LayerHelper(fn)
    out, out_lens = _outputs(helper, fn, inputs, ("Out", "OutLength"), {}, x.dtype)
    return with_length(out, out_lens) if "XLength" in inputs else out


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
    lens = fill_constant_batch_size_like(input, [-1], "int64", out_h * out_w)
    return with_length(rows, lens)


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0,
                     ins_tag_length=None, ins_length=None):
    """-> (out, loss_weight): the instances of `ins` with a tag in `filter_tag`. An
    instance is a row of ins, or with is_lod a run of `ins_length` rows (refimpl's stand-in
    for ins' LoD); `ins_tag` holds the instances' tags packed, `ins_tag_length` counting
    them per instance (absent: one tag each)."""
    where = "filter_by_instag"
    for arg, var in (("ins", ins), ("ins_tag", ins_tag), ("filter_tag", filter_tag)):
        check_variable(var, arg, where)
    if bool(is_lod) != (ins_length is not None):
        raise ValueError("filter_by_instag: is_lod=%s needs ins_length %s (refimpl's rows per "
                         "instance, in place of ins' LoD)"
                         % (is_lod, "given" if is_lod else "left out"))
    out, loss_weight, _ = append_op_outputs(
        "filter_by_instag",
        {"Ins": ins, "Ins_tag": ins_tag, "Filter_tag": filter_tag,
         "Ins_tagLength": ins_tag_length, "InsLength": ins_length},
        [("Out", ins.dtype, False), ("LossWeight", ins.dtype, True),
         ("IndexMap", "int64", True)],
        {"is_lod": bool(is_lod), "out_val_if_empty": int(out_val_if_empty)})
    return out, loss_weight


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    sequence_mask, sequence_pad, sequence_unpad, sequence_pool, sequence_first_step,
    sequence_last_step, sequence_softmax, sequence_reverse, sequence_expand,
    sequence_expand_as, sequence_concat, sequence_slice, warpctc, ctc_greedy_decoder,
    edit_distance, sequence_conv, sequence_enumerate, sequence_reshape, sequence_scatter,
    lod_reset, lod_append, reorder_lod_tensor_by_rank, im2sequence, filter_by_instag)}}
