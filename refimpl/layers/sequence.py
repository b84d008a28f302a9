"""fluid.layers sequence ops on packed sequences plus lengths (specs/ops/sequence.md).

Every layer takes the lengths of a sequence input from (in order) its explicit `length=`
argument, the lengths the op that produced it recorded (`var._seq_length`), or, for a data
variable with lod_level > 0, the int64 variable `<name>@LENGTH` (fed automatically when a
LoDTensor is fed for `<name>`). Outputs that are sequences record their lengths the same way.
"""
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import check_variable
from .creation import fill_constant
from .functional_loss import fluid_warpctc
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


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    sequence_mask, sequence_pad, sequence_unpad, sequence_pool, sequence_first_step,
    sequence_last_step, sequence_softmax, sequence_reverse, sequence_expand,
    sequence_expand_as, sequence_concat, sequence_slice, warpctc, ctc_greedy_decoder,
    edit_distance)}}
