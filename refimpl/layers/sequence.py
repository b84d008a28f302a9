"""fluid.layers sequence ops (specs/ops/sequence.md): their sequence inputs are LoD tensors
(specs/lod.md); the ops read the LoD at run time and give their outputs theirs."""
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import check_variable
from .creation import fill_constant
from .functional_loss import fluid_warpctc
from .loss import fluid_topk
from .tensor import reshape, squeeze, transpose

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


def sequence_pad(x, pad_value, maxlen=None, name=None):
    """(Out [batch, maxlen, ...], Length [batch] int64)."""
    check_variable(x, "x", "sequence_pad")
    return _op("sequence_pad", {"X": [x], "PadValue": [pad_value]},
               {"padded_length": -1 if maxlen is None else int(maxlen)}, ("Out", "Length"),
               {"Length": "int64"}, name)


def sequence_unpad(x, length, name=None):
    check_variable(length, "length", "sequence_unpad")
    return _op("sequence_unpad", {"X": [x], "Length": [length]}, name=name)


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    check_variable(input, "input", "sequence_pool")
    out, _ = _op("sequence_pool", {"X": [input]},
                 {"pooltype": pool_type.upper(), "is_test": is_test, "pad_value": pad_value},
                 ("Out", "MaxIndex"), {"MaxIndex": "int32"})
    return out


def sequence_first_step(input):
    return sequence_pool(input, "first")


def sequence_last_step(input):
    return sequence_pool(input, "last")


def sequence_softmax(input, use_cudnn=False, name=None):
    check_variable(input, "input", "sequence_softmax")
    return _op("sequence_softmax", {"X": [input]}, {"use_cudnn": use_cudnn}, name=name)


def sequence_reverse(x, name=None):
    check_variable(x, "x", "sequence_reverse")
    return _op("sequence_reverse", {"X": [x]}, outputs=("Y",), name=name)


def sequence_expand(x, y, ref_level=-1, name=None):
    """x's sequences (its rows when x has no LoD) repeated as y's LoD at ref_level says."""
    check_variable(x, "x", "sequence_expand")
    check_variable(y, "y", "sequence_expand")
    return _op("sequence_expand", {"X": [x], "Y": [y]}, {"ref_level": ref_level}, name=name)


def sequence_expand_as(x, y, name=None):
    check_variable(x, "x", "sequence_expand_as")
    check_variable(y, "y", "sequence_expand_as")
    return _op("sequence_expand_as", {"X": [x], "Y": [y]}, name=name)


def sequence_concat(input, name=None):
    xs = list(input)
    for x in xs:
        check_variable(x, "input", "sequence_concat")
    return _op("sequence_concat", {"X": xs}, name=name)


def sequence_slice(input, offset, length, name=None):
    check_variable(input, "input", "sequence_slice")
    return _op("sequence_slice", {"X": [input], "Offset": [offset], "Length": [length]},
               name=name)


def _packed(x, length, fn, arg):
    """A sequence input as a LoD tensor: the padded form [batch, max_len, ...] unpadded
    when `length` is given (Paddle's padded mode), else x itself."""
    check_variable(x, arg, fn)
    if length is None:
        return x
    check_variable(length, arg + "_length", fn)
    return sequence_unpad(x, length)


def warpctc(input, label, blank=0, norm_by_times=False, input_length=None, label_length=None):
    """CTC loss [batch, 1]. Packed logits [total_time, C + 1] and labels [total(, 1)] with
    their lengths (padded here), or (input_length and label_length given) time-major padded
    logits [max_time, batch, C + 1] and labels [batch, max_label]: the warpctc op takes the
    padded form, as Paddle's does with LogitsLength (layers/functional_loss.py)."""
    if (input_length is None) != (label_length is None):
        raise ValueError("warpctc: give both input_length and label_length (padded input) "
                         "or neither (sequences with lengths)")
    if input_length is None:
        if len(input.shape) != 2:
            raise ValueError("warpctc: input %r has shape %s; without input_length it must be "
                             "a LoD tensor of rows [total_time, num_classes + 1]"
                             % (input.name, list(input.shape)))
        zero = fill_constant([1], input.dtype, 0.0)
        padded, input_length = sequence_pad(input, zero)
        input = transpose(padded, [1, 0, 2])
        padded_label, label_length = sequence_pad(label, fill_constant([1], label.dtype, 0))
        label = squeeze(padded_label, [2]) if len(label.shape) == 2 else padded_label
    return fluid_warpctc(input, label, blank, norm_by_times, input_length, label_length)


def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Best class per step, repeats merged, blanks dropped. Sequences in -> int64 [total, 1]
    sequences out; padded [batch, max_len, C + 1] with input_length -> (ids [batch, width]
    padded with padding_value, lengths [batch, 1])."""
    check_variable(input, "input", "ctc_greedy_decoder")
    _, ids = fluid_topk(input, 1)
    ids = _packed(ids, input_length, "ctc_greedy_decoder", "input")
    out, out_len = _op("ctc_align", {"Input": [ids]},
                       {"blank": blank, "merge_repeated": True, "padding_value": padding_value},
                       ("Output", "OutputLength"), {"OutputLength": "int64"}, name)
    if input_length is None:
        return out
    width = input.shape[1] if len(input.shape) > 1 and input.shape[1] > 0 else None
    padded, _ = sequence_pad(out, fill_constant([1], "int64", padding_value), maxlen=width)
    return squeeze(padded, [2]), reshape(out_len, [-1, 1])


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None):
    """(distances [batch, 1] float32, sequence count [1] int64)."""
    if ignored_tokens:
        raise NotImplementedError("edit_distance: ignored_tokens is not supported (refimpl "
                                  "has no sequence_erase op); drop those tokens before")
    hyps = _packed(input, input_length, "edit_distance", "input")
    refs = _packed(label, label_length, "edit_distance", "label")
    return _op("edit_distance", {"Hyps": [hyps], "Refs": [refs]}, {"normalized": normalized},
               ("Out", "SequenceNum"), {"Out": "float32", "SequenceNum": "int64"})


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    sequence_mask, sequence_pad, sequence_unpad, sequence_pool, sequence_first_step,
    sequence_last_step, sequence_softmax, sequence_reverse, sequence_expand,
    sequence_expand_as, sequence_concat, sequence_slice, warpctc, ctc_greedy_decoder,
    edit_distance)}}
