"""fluid.layers sequence ops (specs/ops/sequence.md): their sequence inputs are LoD tensors
(specs/lod.md); the ops read the LoD at run time and give their outputs theirs."""
import numpy as np

from ..framework import unique_name
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import append_op_outputs, check_dtype, check_variable
from .creation import arange, fill_constant
from .functional_loss import fluid_warpctc
from .loss import fluid_topk
from .math import cast
from .tensor import reshape, shape, slice, squeeze, transpose

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
    if not isinstance(input, list):
        raise TypeError("sequence_concat: input must be a list of Variables, got %s"
                        % type(input).__name__)
    xs = list(input)
    for i, x in enumerate(xs):
        check_dtype(x, "input[%d]" % i, "sequence_concat", ("int64", "float32", "float64"))
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
    hyps = _packed(input, input_length, "edit_distance", "input")
    refs = _packed(label, label_length, "edit_distance", "label")
    if ignored_tokens:
        tokens = {"tokens": [int(t) for t in ignored_tokens]}
        hyps = _op("sequence_erase", {"X": [hyps]}, tokens, ("Out", "OutLength"),
                   {"OutLength": "int64"})[0]
        refs = _op("sequence_erase", {"X": [refs]}, tokens, ("Out", "OutLength"),
                   {"OutLength": "int64"})[0]
    return _op("edit_distance", {"Hyps": [hyps], "Refs": [refs]}, {"normalized": normalized},
               ("Out", "SequenceNum"), {"Out": "float32", "SequenceNum": "int64"})


def _outputs(helper, op_type, inputs, slots, attrs, dtype):
    """Append op_type with a fresh `dtype` variable per slot of `slots`; returns them."""
    return append_op_outputs(op_type, inputs, [(slot, dtype, False) for slot in slots], attrs,
                             helper)


def _seq_op(op_type, x, attrs, extra=None, name=None):
    """Append a sequence op reading x (and `extra` inputs); returns its Out."""
    check_variable(x, "input", op_type)
    helper = LayerHelper(op_type, name=name)
    return _outputs(helper, op_type, dict({"X": x}, **(extra or {})), ("Out",), attrs,
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
    filt = helper.create_parameter(param_attr, sequence_conv_filter_shape(input, filter_size,
                                                                          num_filters),
                                   input.dtype)
    out = sequence_conv_of(input, filt, filter_size, padding_start, name)
    return helper.append_activation(helper.append_bias_op(out, bias_attr), act)


def sequence_conv_filter_shape(input, filter_size, num_filters):
    return [filter_size * input.shape[-1], num_filters]


def sequence_conv_of(input, filt, filter_size, padding_start=None, name=None):
    """The sequence_conv op of `input` with the Filter parameter `filt` (no bias, no act);
    fluid.layers.sequence_conv and fluid.dygraph.SequenceConv build it."""
    start = -(filter_size // 2) if padding_start is None else padding_start
    return _seq_op("sequence_conv", input,
                   {"contextLength": filter_size, "contextStart": start, "contextStride": 1,
                    "paddingTrainable": False}, {"Filter": filt}, name=name)


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead convolution (Paddle 1.8): out[t] = sum_k input[t + k] * w[k] over k = 0 ..
    future_context_size inside t's sequence; w [future_context_size + 1, D] (param_attr)."""
    check_variable(input, "input", "row_conv")
    helper = LayerHelper("row_conv")
    filt = helper.create_parameter(param_attr, row_conv_filter_shape(input, future_context_size),
                                   input.dtype)
    return helper.append_activation(row_conv_of(input, filt), act)


def row_conv_filter_shape(input, future_context_size):
    return [future_context_size + 1, input.shape[-1]]


def row_conv_of(input, filt):
    """The row_conv op of `input` with the Filter parameter `filt` (no act)."""
    return _seq_op("row_conv", input, {}, {"Filter": filt})


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
    out, = _outputs(helper, "sequence_scatter", {"X": input, "Ids": index, "Updates": updates},
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
    out, = _outputs(helper, "lod_reset", inputs, ("Out",), attrs, x.dtype)
    return out      # (its lod_level: the op's, ops/lod_reset.py)


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


def _check_rank_table(table, arg, fn):
    check_variable(table, arg, fn)
    if table.type != "LOD_RANK_TABLE":
        raise TypeError("%s: %s must be a rank table (fluid.layers.lod_rank_table), got %r "
                        "of type %s" % (fn, arg, table.name, table.type))


def reorder_lod_tensor_by_rank(x, rank_table):
    """x's sequences (rows, when x has no LoD) sorted as the rank table sorts them:
    longest first, ties in order."""
    fn = "reorder_lod_tensor_by_rank"
    check_variable(x, "x", fn)
    _check_rank_table(rank_table, "rank_table", fn)
    helper = LayerHelper(fn)
    out, = _outputs(helper, fn, {"X": x, "RankTable": rank_table}, ("Out",), {}, x.dtype)
    return out


def lod_rank_table(x, level=0):
    """The rank table of x's LoD level `level` (a LOD_RANK_TABLE variable, ops/_rank_table.py:
    its sequences' lengths, ordered longest first by its users). x: a Variable, or a list
    holding one, as Paddle 1.8 takes it."""
    for k, one in enumerate(x if isinstance(x, list) else [x]):
        check_variable(one, "x" if not isinstance(x, list) else "x[%d]" % k, "lod_rank_table")
    helper = LayerHelper("lod_rank_table")
    table = helper.block().create_var(name=unique_name.generate("lod_rank_table"),
                                      type="LOD_RANK_TABLE", dtype="int64", shape=(-1,))
    helper.append_op(type="lod_rank_table", inputs={"X": x if isinstance(x, list) else [x]},
                     outputs={"Out": [table]}, attrs={"level": int(level)})
    table.stop_gradient = True
    return table


def max_sequence_len(rank_table):
    """The longest sequence length in the rank table (int64 [1])."""
    _check_rank_table(rank_table, "rank_table", "max_sequence_len")
    out = _op("max_sequence_len", {"RankTable": [rank_table]}, dtypes={"Out": "int64"})
    out.stop_gradient = True
    return out


def lod_tensor_to_array(x, table):
    """x's sequences (at the table's level) as a tensor array of time steps, element t
    the t-th entries of the sequences longer than t, longest first."""
    check_variable(x, "x", "lod_tensor_to_array")
    _check_rank_table(table, "table", "lod_tensor_to_array")
    helper = LayerHelper("lod_tensor_to_array")
    array = helper.block().create_var(name=unique_name.generate("lod_tensor_to_array"),
                                      type="LOD_TENSOR_ARRAY", dtype=x.dtype)
    helper.append_op(type="lod_tensor_to_array", inputs={"X": [x], "RankTable": [table]},
                     outputs={"Out": [array]})
    return array


def array_to_lod_tensor(x, table):
    """lod_tensor_to_array undone: the steps back to the sequences, in their order."""
    check_variable(x, "x", "array_to_lod_tensor")
    _check_rank_table(table, "table", "array_to_lod_tensor")
    return _op("array_to_lod_tensor", {"X": [x], "RankTable": [table]})


def shrink_memory(x, i, table):
    """x's first rows (sequences when x has a LoD): one per sequence of `table` longer
    than step i (op shrink_rnn_memory)."""
    for arg, var in (("x", x), ("i", i), ("table", table)):
        check_variable(var, arg, "shrink_memory")
    out, _ = _op("shrink_rnn_memory", {"X": [x], "RankTable": [table], "I": [i]},
                 outputs=("Out", "OutLength"), dtypes={"OutLength": "int64"})
    return out


def im2sequence(input, filter_size=1, stride=1, padding=0, input_image_size=None,
                out_stride=1, name=None):
    """Each image [C, H, W] becomes a sequence of its oh * ow patches, rows [C * kh * kw]
    (op im2sequence); input_image_size [N, 2] gives the images' real sizes, divided
    (rounding up) by out_stride."""
    check_variable(input, "input", "im2sequence")
    pair = (lambda v: [int(v)] * 2 if np.isscalar(v) else [int(a) for a in v])
    padding = pair(padding) if np.isscalar(padding) else [int(p) for p in padding]
    if len(padding) == 2:
        padding = padding * 2
    if len(padding) != 4:
        raise ValueError("im2sequence: padding must be an int, [ph, pw] or [up, left, down, "
                         "right], got %r" % (padding,))
    inputs = {"X": [input]}
    attrs = {"kernels": pair(filter_size), "strides": pair(stride), "paddings": padding}
    if input_image_size is not None:
        check_variable(input_image_size, "input_image_size", "im2sequence")
        inputs["Y"] = [input_image_size]
        attrs["out_stride"] = pair(out_stride)
    out, _ = _op("im2sequence", inputs, attrs,
                 ("Out", "OutLength"), {"OutLength": "int64"}, name)
    return out


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0,
                     ins_tag_length=None, ins_length=None):
    """-> (out, loss_weight): the instances of `ins` with a tag in `filter_tag`. An
    instance is a row of ins, or with is_lod one sequence of ins' LoD; `ins_tag` holds the
    instances' tags, its LoD counting them per instance (absent: one tag each). refimpl
    also takes the counts as variables: `ins_length` (with is_lod) and `ins_tag_length`.
    out, loss_weight (one row per kept instance) and the index map carry LoD (ops/
    filter_by_instag.py), so fetch them with return_numpy=False."""
    where = "filter_by_instag"
    for arg, var in (("ins", ins), ("ins_tag", ins_tag), ("filter_tag", filter_tag)):
        check_variable(var, arg, where)
    if ins_length is not None and not is_lod:
        raise ValueError("filter_by_instag: ins_length (rows per instance) needs is_lod=True")
    out, loss_weight, _ = append_op_outputs(
        "filter_by_instag",
        {"Ins": ins, "Ins_tag": ins_tag, "Filter_tag": filter_tag,
         "Ins_tagLength": ins_tag_length, "InsLength": ins_length},
        [("Out", ins.dtype, False), ("LossWeight", "float32", True),
         ("IndexMap", "int64", True)],
        {"is_lod": bool(is_lod), "out_val_if_empty": int(out_val_if_empty)})
    return out, loss_weight


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    row_conv, sequence_mask, sequence_pad, sequence_unpad, sequence_pool, sequence_first_step,
    sequence_last_step, sequence_softmax, sequence_reverse, sequence_expand,
    sequence_expand_as, sequence_concat, sequence_slice, warpctc, ctc_greedy_decoder,
    edit_distance, sequence_conv, sequence_enumerate, sequence_reshape, sequence_scatter,
    lod_reset, lod_append, reorder_lod_tensor_by_rank, lod_rank_table, max_sequence_len,
    lod_tensor_to_array, array_to_lod_tensor, shrink_memory,
    im2sequence, filter_by_instag)},
    "nn.functional": {"sequence_mask": sequence_mask}}   # Paddle 3's name
