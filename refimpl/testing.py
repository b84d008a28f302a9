"""OpInfo-style helpers: call an op's reference/kernels on a Sample, finite differences.

Used by the generic op tests and by the conformance generator, so both agree on what
"the op's result for this sample" means.
"""
import copy

import numpy as np

from .framework.lod import lod_of
from .ops.registry import is_duplicable, slot_name

__all__ = ["forward_args", "call_forward", "call_backward", "numeric_grads", "float_slots",
           "as_tuple", "assert_close", "sample_lods", "program_inputs", "program_outputs",
           "output_lods"]


def forward_args(op_def, inputs):
    """Positional arguments for op_def.forward from {slot: array|list}; copies, so in-place
    kernels cannot change the sample. Slots read only for their LoD are no arguments."""
    return [copy.deepcopy(inputs.get(slot_name(s))) for s in op_def.inputs
            if slot_name(s) not in op_def.lod_only]


def as_tuple(op_def, result):
    return (result,) if len(op_def.outputs) == 1 else tuple(result)


def call_forward(op_def, inputs, attrs, fn=None):
    """The op's outputs from its reference (or `fn`), shaped as the version profile's
    programs see them (one-number results: scalar_shape())."""
    fn = op_def.with_version_shapes(fn or op_def.forward)
    full = dict(op_def.attrs)
    full.update(attrs)
    return as_tuple(op_def, fn(*forward_args(op_def, inputs), **full))


def call_backward(op_def, inputs, attrs, outputs, cotangents, fn=None):
    """Input gradients from op_def.backward (or `fn`), in grad_output_slots order."""
    from .ops.registry import get_op_def
    fn = get_op_def(op_def.type + "_grad").with_version_shapes(fn or op_def.backward)
    full = dict(op_def.attrs)
    full.update(attrs)
    out_by_slot = dict(zip(op_def.output_slots, outputs))
    args = []
    for s in op_def.grad_input_slots():
        name = slot_name(s)
        if name in op_def.lod_only or name in op_def.grad_lod_only:
            continue
        if name.endswith("@GRAD"):
            args.append(cotangents.get(name[:-5]))
        elif name in out_by_slot:
            args.append(copy.deepcopy(out_by_slot[name]))
        else:
            args.append(copy.deepcopy(inputs.get(name)))
    result = fn(*args, **full)
    n = len(op_def.grad_output_slots())
    return (result,) if n == 1 else tuple(result)


def float_slots(op_def, inputs):
    """Input slots that get gradients (derivatives) and hold floating-point data."""
    out = []
    for s in op_def.inputs:
        name = slot_name(s)
        if name in op_def.no_grad or name in op_def.statistic_grads or \
                inputs.get(name) is None:
            continue
        v = inputs[name]
        first = v[0] if is_duplicable(s) else v
        if np.issubdtype(np.asarray(first).dtype, np.floating):
            out.append(name)
    return out


def numeric_grads(op_def, inputs, attrs, cotangents, eps=1e-6):
    """d(sum_k <out_k, cot_k>)/d(input) by central differences, per float input slot."""
    def objective(ins):
        outs = call_forward(op_def, ins, attrs)
        total = 0.0
        for slot, out in zip(op_def.output_slots, outs):
            if slot in cotangents and cotangents[slot] is not None and out is not None:
                total += float(np.sum(np.asarray(out, np.float64) * cotangents[slot]))
        return total

    grads = {}
    for slot in float_slots(op_def, inputs):
        value = inputs[slot]
        arrays = value if isinstance(value, list) else [value]
        slot_grads = []
        for j, arr in enumerate(arrays):
            g = np.zeros(arr.shape, np.float64)
            flat = arr.reshape(-1)
            for i in range(flat.size):
                orig = flat[i]
                flat[i] = orig + eps
                plus = objective(inputs)
                flat[i] = orig - eps
                minus = objective(inputs)
                flat[i] = orig
                g.reshape(-1)[i] = (plus - minus) / (2 * eps)
            slot_grads.append(g)
        grads[slot] = slot_grads if isinstance(value, list) else slot_grads[0]
    return grads


def assert_close(actual, expected, rtol, atol, what=""):
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), what
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, rtol, atol, "%s[%d]" % (what, i))
        return
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, "%s: shape %s != %s" % (what, a.shape, e.shape)
    np.testing.assert_allclose(_widened(a), _widened(e), rtol=rtol, atol=atol, err_msg=what)


def _widened(a):
    """float64 (complex128 for complex values, bools as they are) for the comparison."""
    if a.dtype == bool:
        return a
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _lengths_source(op_def, slot):
    return op_def.lod_lengths[slot].partition(":")[0].split("|")[0]


def _padded_form(sample, slot, source):
    """Lengths that do not add up to the input's rows are a padded form's (Paddle's Length
    inputs): those stay variables."""
    lengths, data = sample.inputs.get(slot), sample.inputs.get(source)
    if data is None or lengths is None:
        return False
    if isinstance(lengths, list):
        return any(np.sum(n) != len(d) for n, d in zip(lengths, data))
    return np.sum(lengths) != len(data)


def sample_lods(op_def, sample):
    """{input slot: LoD (a list for a list slot)} that a sample's lengths slots
    (op_def.lod_lengths) give the inputs they are read from, one level each, and the
    inputs a sample gives as LoDArrays (the lod_whole ops') carry."""
    lods = {}
    for slot in op_def.lod_lengths:
        lengths = sample.inputs.get(slot)
        source = _lengths_source(op_def, slot)
        if lengths is None or _padded_form(sample, slot, source):
            continue
        if isinstance(lengths, list):
            lods[source] = [((tuple(int(n) for n in np.ravel(one)),)) for one in lengths]
        else:
            lods[source] = (tuple(int(n) for n in np.ravel(lengths)),)
    for slot, value in sample.inputs.items():    # inputs given with their whole LoD
        if lod_of(value):
            lods.setdefault(slot, lod_of(value))
    return lods


def program_inputs(op_def, sample):
    """(inputs, lods): the sample as a program feeds it. Lengths slots are no variables:
    their lengths become the LoD of the inputs they are read from (`lods`, from
    sample_lods; op_def.lod_alike inputs get the same), and an input read only for its
    LoD gets one zero row per position."""
    lods = sample_lods(op_def, sample)
    inputs = {}
    for s in op_def.inputs:
        name = slot_name(s)
        value = sample.inputs.get(name)
        if name in op_def.lod_lengths and not _padded_form(
                sample, name, _lengths_source(op_def, name)):
            continue
        if value is None and name in lods:
            value = np.zeros((sum(lods[name][-1]), 1), np.float32)
        if value is not None:
            inputs[name] = value
    for slot, source in op_def.lod_alike.items():
        if slot in inputs and source in lods:
            lods[slot] = lods[source]
    return inputs, lods


def program_outputs(op_def, sample):
    """The output slots a program binds for the sample: all but the lengths results
    (OpDef.lengths_results) unless the sample is in a padded form (a lengths slot that
    gives no LoD: Paddle binds e.g. ctc_align's OutputLength then)."""
    lods = sample_lods(op_def, sample)
    padded = any(slot in sample.inputs and _lengths_source(op_def, slot) not in lods
                 for slot in op_def.lod_lengths if sample.inputs.get(slot) is not None)
    internal = set() if padded else op_def.lengths_results
    return [slot for slot in op_def.output_slots if slot not in internal]


def output_lods(op_def, sample, lods, outputs):
    """{output slot: [LoD of each variable]} each output carries by its rule for the
    sample whose inputs carry `lods` (program_inputs) and whose reference results are
    `outputs`."""
    values = dict(sample.inputs, **dict(zip(op_def.output_slots, outputs)))
    full = {slot_name(s): lods.get(slot_name(s), [()] * len(sample.inputs[slot_name(s)])
                                   if is_duplicable(s) else ())
            for s in op_def.inputs if slot_name(s) in sample.inputs or slot_name(s) in lods}
    attrs = dict(op_def.attrs, **sample.attrs)
    found = {}
    for slot, out in zip(op_def.output_slots, outputs):
        count = len(out) if isinstance(out, list) else 1
        rule = op_def.lod_outputs.get(slot)
        lod = rule.lod(full, values, attrs) if rule is not None else ()
        found[slot] = [tuple(one) for one in lod] if isinstance(lod, list) else \
            [tuple(lod)] * count
    return found
