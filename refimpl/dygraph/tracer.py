"""The tracer: runs one op on eager Tensors now, with the same OpDef the static executor
runs (its compiled kernel or numpy reference), and records it for autograd when an input
needs a gradient.

Per op type the slot layout and the grad op's argument plan are worked out once
(`_Layout`); per (op type, dtype) the kernel (`select_kernel`: refimpl.dispatch's, the entry
point the executor's binder uses too). Build-time shape inference
runs once per signature (op type, attrs, input shapes and dtypes): its errors name the
op, the variable, expected vs got and the user's line, exactly as in static mode; after
that the kernel runs directly.

An op whose inputs live on a GPU (CuPy arrays) runs there with
`dispatch.select_gpu_kernel`; host inputs of such an op are copied to its GPU, and an op
without inputs runs on the place set_device chose (specs/gpu.md, dynamic mode). The CPU
path pays one type check for this.
"""
import contextlib
import functools
import weakref

import numpy as np

from .. import dispatch, versions, xp
from ..dispatch import SavedForGrad, kernels_of, map_arrays
from ..framework.dtypes import convert_dtype, dtype_attr_is_a_name
from ..framework.errors import OpError, OpIndexError, user_frame
from ..framework.place import CUDAPlace, current_place
from ..framework.program import Operator, Program, Variable
from ..framework.lod import LoDArray, as_plain, lod_of
from ..ops.registry import (bilinear_grad_op, fill_lengths, get_op_def, is_duplicable,
                            float32_attrs, lod_fills, lod_results, round_attrs, slot_name)
from ..framework import mode
from .inplace import sequence as _node_sequence
from .tensor import Tensor

__all__ = ["run_op", "select_kernel", "GradNode", "layout", "set_process_group",
           "device_arrays", "on_device", "recording"]

# open recordings (TracedLayer.trace): each a list that run_op appends (op_type, inputs,
# outputs, attrs) to, the tensors themselves, read once the traced call has returned
_recordings = []


@contextlib.contextmanager
def recording():
    """Inside, every op run eagerly is also listed (the list this yields)."""
    ops = []
    _recordings.append(ops)
    try:
        yield ops
    finally:
        _recordings.remove(ops)


def select_kernel(op_type, which, attrs, dtype, device="cpu"):
    """The one place the eager mode asks for a kernel: refimpl.dispatch.select_kernel
    (`which` forward, or backward for the grad op; `device` cpu or gpu). Cached by the
    callers per (op, dtype[, attrs]): the kernel backend (REFIMPL_KERNELS) is read when a
    kernel is first selected."""
    return dispatch.select_kernel(op_type, which, attrs, dtype, device)


class _Kernels:
    """The `which` kernels of forward op type `op_type` on `device` by dtype; by (dtype,
    attrs) when the kernel table's fast_ok reads attrs. Each is (function, takes `saved`,
    takes `need`)."""

    def __init__(self, op_type, which, device="cpu"):
        self.op_type, self.which, self.device = op_type, which, device
        self.by_attrs = kernels_of(op_type).fast_ok_reads_attrs
        self.cache = {}

    def get(self, kw, dtype):
        """The kernel for attrs `kw` and numpy dtype `dtype` (None: no input), under the
        current profile (a kernel gives one-number results in the profile's shape)."""
        char = None if dtype is None else dtype.char     # cheaper to hash than the dtype
        key = (versions.current(), char,
               tuple([tuple(v) if type(v) is list else v for v in kw.values()])
               if self.by_attrs else None)
        found = self.cache.get(key)
        if found is None:
            kernel = select_kernel(self.op_type, self.which, kw,
                                   None if dtype is None else dtype.name, self.device)
            if kernel is None:
                raise _no_kernel(self.op_type, self.which)
            found = self.cache[key] = (kernel.fn, "saved" in kernel.keywords,
                                       "need" in kernel.keywords)
        return found


class _Layout:
    """What the tracer needs to know about one op type, computed once."""

    def __init__(self, op_def):
        self.op_def = op_def
        self.type = op_def.type
        # slots read only for their LoD are no kernel arguments (eager values carry none)
        self.ins = [(slot_name(s), is_duplicable(s)) for s in op_def.inputs
                    if slot_name(s) not in op_def.lod_only]
        self.outs = [(slot_name(s), is_duplicable(s)) for s in op_def.outputs]
        self.attr_items = list(op_def.attrs.items())
        # LoD, by the static rules (ops/registry.py): lengths slots the call leaves empty
        # are filled from their source's LoD; an op that reads a LoD or makes one always
        # runs so, the others when an input carries one (a 1.8 OpTest sets it)
        self.lod_fills = lod_fills(op_def, lambda slot: False)
        self.lod_always = bool(self.lod_fills or op_def.lod_only or any(
            rule.creates for rule in op_def.lod_outputs.values()))
        self.dtype_by_name = isinstance(op_def.attrs.get("dtype"), str)
        self.default_sig = [tuple(v) if type(v) is list else v for _, v in self.attr_items]
        self.single_out = len(self.outs) == 1
        # state an op updates in place (Param -> ParamOut, Mean -> MeanOut): (input
        # position, output slot); when the output is another tensor than the input, the
        # input is copied first so that it keeps its value, as Paddle's kernels leave it
        # (Ftrl's SquaredAccumulator -> SquaredAccumOut: the one input the name begins)
        self.state_pairs = []
        for out, _ in self.outs:
            prefix = out[:-len("Out")]
            if not prefix or not out.endswith("Out"):
                continue
            named = [i for i, (name, dup) in enumerate(self.ins)
                     if not dup and name.startswith(prefix)]
            exact = [i for i in named if self.ins[i][0] == prefix]
            if exact or len(named) == 1:
                self.state_pairs.append(((exact or named)[0], out))
        self.plain_outs = not any(dup for _, dup in self.outs)     # no list slot
        self.plain_single_out = self.single_out and self.plain_outs
        self.out_slot = self.outs[0][0] if self.outs else None
        self.signatures = {}    # run_op's signature -> (kernel, takes saved, grad kernels)
        self.float32_attrs = {}     # profile -> the attrs Paddle's eager op holds as float32
        self.kernels = _Kernels(op_def.type, "forward")
        self.gpu_kernels = _Kernels(op_def.type, "forward", "gpu")
        self.collective = kernels_of(op_def.type).collective    # its functions take group
        # (the grad op of a bilinear op is recorded too: double_backward records it whole)
        grad = get_op_def(op_def.type + "_grad") \
            if op_def.has_grad() or bilinear_grad_op(op_def) else None
        self.grad_def = grad
        # the outputs whose gradient the grad op reads (batch_norm's Y, not its MeanOut)
        self.grad_outs = frozenset()
        if grad is None:
            return
        self.grad_kernels = _Kernels(op_def.type, "backward")
        self.grad_gpu_kernels = _Kernels(op_def.type, "backward", "gpu")
        in_pos = {name: i for i, (name, _) in enumerate(self.ins)}
        out_pos = {name: k for k, (name, _) in enumerate(self.outs)}
        plan = []   # per grad-op input: ("in", i) | ("out", k) | ("dout", k)
        for s in op_def.grad_input_slots():
            name = slot_name(s)
            if name in op_def.lod_only or name in op_def.grad_lod_only:
                continue
            if name in in_pos:     # (a grad op's own inputs end in @GRAD too)
                plan.append(("in", in_pos[name]))
            elif name.endswith("@GRAD"):
                plan.append(("dout", out_pos[name[:-len("@GRAD")]]))
            else:
                plan.append(("out", out_pos[name]))
        self.grad_plan = plan
        self.grad_outs = frozenset(k for kind, k in plan if kind == "dout")
        # the two common plans, which autograd builds at once: every input in order then
        # the one output's gradient (matmul, add), or that output then its gradient (relu)
        one_out = self.plain_single_out
        self.grad_reads_ins = one_out and plan == [("in", i) for i in range(len(self.ins))] \
            + [("dout", 0)]
        self.grad_reads_out = one_out and plan == [("out", 0), ("dout", 0)]
        self.saved_ins = sorted({i for kind, i in plan if kind == "in"})
        # those whose values (not only shapes) it reads: their in-place versions are checked
        self.value_ins = [i for i in self.saved_ins
                          if self.ins[i][0] not in op_def.grad_shape_only]
        self.all_value_ins = self.value_ins == list(range(len(self.ins)))
        self.saves_all_ins = self.saved_ins == list(range(len(self.ins)))
        self.saved_outs = sorted({k for kind, k in plan if kind == "out"})
        # the outputs whose in-place versions are checked: those of a grad op that reads
        # outputs only (relu, tanh, softmax: Paddle's too); one that reads inputs as well
        # may list an output only as Paddle's default grad maker would (elementwise_pow),
        # where Paddle's grad op does not read it
        self.value_outs = [] if self.saved_ins else self.saved_outs
        # the forward input slots that receive a gradient, in the grad op's output order
        self.grad_targets = [i for i, (name, _) in enumerate(self.ins)
                             if name not in op_def.no_grad]
        self.single_grad = len(self.grad_targets) == 1
        # no list slot among them: a node's edges are flat already
        self.flat_grads = not any(self.ins[i][1] for i in self.grad_targets)
        entry = kernels_of(op_def.type)
        self.partial = entry.partial_grads            # its backward kernels may take need
        self.saves = entry.saves_for_grad is not None  # its kernels may take saved


_LAYOUTS = {}
# the group collective ops talk through: this process's device in the job once
# paddle.distributed.init_parallel_env has set it (dygraph never imports parallel)
_process_group = None


def set_process_group(group):
    global _process_group
    _process_group = group


def layout(op_type):
    lay = _LAYOUTS.get(op_type)
    if lay is None:
        lay = _LAYOUTS[op_type] = _Layout(get_op_def(op_type))
    return lay


class GradNode:
    """One recorded op: what its grad op reads (the forward values it saved), where each
    input's gradient goes (`edges`: per grad-receiving input slot, a leaf Tensor, a
    (node, output index) pair or None; a list for a list slot), and its outputs' shapes
    and dtypes (`out_meta`, to fill a gradient nobody produced with zeros); `sources`:
    the Tensor (or list of Tensors) given to each input slot whose value the grad op
    reads (`lay.value_ins`; their in-place versions are checked before the grad op runs:
    dygraph/inplace.py), None when it reads none.
    `grad_kernels`: {dtype char: grad kernel}, shared by the nodes of one forward
    signature (its attrs fixed), filled by autograd."""
    __slots__ = ("lay", "kw", "ins", "outs", "edges", "flat_edges", "out_meta", "n_out",
                 "hooks", "retained", "saved", "released", "device", "grad_kernels", "seq",
                 "sources", "__weakref__")

    def __init__(self, lay, kw, ins, outs, edges, flat_edges, out_meta, n_out, device=None,
                 saved=None, grad_kernels=None, sources=None):
        self.lay, self.kw, self.ins, self.outs = lay, kw, ins, outs
        self.sources = sources
        self.edges, self.flat_edges = edges, flat_edges
        self.out_meta, self.n_out = out_meta, n_out
        self.hooks = None       # {flat output index: [hook]}
        self.retained = None    # {flat output index: weakref of a tensor keeping its grad}
        self.saved = saved
        self.released = False
        self.device = device    # the GPU its op ran on (its grad op runs there); None: CPU
        self.grad_kernels = {} if grad_kernels is None else grad_kernels
        # the recording order: the gradients reaching one tensor add up latest op first
        self.seq = next(_node_sequence)

    @property
    def type(self):
        return self.lay.type

    def release(self):
        """Free what the backward needed (backward without retain_graph)."""
        self.ins = self.outs = self.saved = self.sources = None
        self.released = True

    def out_offsets(self):
        """The flat index of each output slot's first output."""
        offsets, n = [], 0
        for meta in self.out_meta:
            offsets.append(n)
            n += len(meta) if type(meta) is list else 1
        return offsets


class StaticInput(OpError):
    """An eager op met a static Variable among its inputs (dispatch.eager_append_op sends
    the op to the program instead when all its inputs are static)."""

    def __init__(self, op_type, slot, var):
        super().__init__(op_type, "input %s %r is a static Variable of a Program while the "
                         "other inputs are eager Tensors: one operation takes either "
                         "(build the program in static mode, or pass Tensors)"
                         % (slot, var.name), user_frame())


def _no_kernel(op_type, which):
    return OpError(op_type, "has no %s kernel in eager (dygraph) mode: the executor of a "
                   "static Program runs it (control flow over sub-blocks, readers, feed and "
                   "fetch); build the program after paddle.enable_static()" % which,
                   user_frame())


def _bad_input(lay, slot, t):
    if isinstance(t, Variable):
        if isinstance(t, Tensor):
            return OpError(lay.type, "input %s %r holds no value" % (slot, t.name),
                           user_frame())
        return StaticInput(lay.type, slot, t)
    return OpError(lay.type, "input %s must be a Tensor, got %s"
                   % (slot, type(t).__name__), user_frame())


def _array(lay, slot, t, sig):
    """Input `t`'s value, its shape and dtype added to the signature."""
    a = getattr(t, "_value", None)
    if a is None:
        raise _bad_input(lay, slot, t)
    sig.append(a.shape)
    sig.append(a.dtype.char)
    return a


def _signature_entry(lay, sig, kw, dtype, device, inputs, outputs):
    """(kernel, takes saved, grad kernels) for signature `sig`, found once: shape
    inference (for its errors, see the module doc), then the kernel for the first input's
    dtype and the device. An unhashable signature (nested list attrs) is worked out every
    time."""
    op = _infer_once(lay, kw, inputs, outputs)
    kernels = lay.kernels if device is None else lay.gpu_kernels
    fn, takes_saved, _ = kernels.get(kw, dtype)
    # what the executor's binding adds to the attrs (batch_norm: whether the profile reads
    # MomentumTensor, which the kernels do not look up themselves)
    bound = lay.op_def.bound_attrs(op)
    if bound:
        fn = functools.partial(fn, **bound)
    entry = (fn, takes_saved, {})    # {}: its nodes' grad kernels by dtype (autograd)
    try:
        if len(lay.signatures) > 10000:
            lay.signatures.clear()
        lay.signatures[sig] = entry
    except TypeError:
        pass
    return entry


def _infer_once(lay, kw, inputs, outputs):
    """Build the op in a scratch program over variables shaped like the inputs, which runs
    the op's slot checks and infer_shape; returns it."""
    block = Program().global_block()

    def declare(t):
        if t._value is not None and not block.has_var(t.name):
            block.create_var(name=t.name, shape=t._value.shape, dtype=t._value.dtype.name,
                             lod_level=len(lod_of(t._value)))
        return t.name

    def listed(v):
        return v if isinstance(v, (list, tuple)) else [v]

    ins = {slot: [declare(t) for t in listed(v) if t is not None]
           for slot, v in (inputs or {}).items() if v is not None}
    outs = {slot: [declare(t) for t in listed(v) if t is not None]
            for slot, v in (outputs or {}).items() if v is not None}
    return Operator(block, lay.type, ins, outs, dict(kw, op_callstack=user_frame()))


def _explain(lay, e, args):
    def desc(a):
        if type(a) is list:
            return "[%s]" % ", ".join(desc(x) for x in a)
        return "None" if a is None else "%s %s" % (list(a.shape), a.dtype)
    shapes = ", ".join("%s=%s" % (name, desc(a)) for (name, _), a in zip(lay.ins, args))
    # an index out of range stays an IndexError, as Paddle's OutOfRange (the executor's too)
    error = OpIndexError if isinstance(e, IndexError) else OpError
    return error(lay.type, "%s: %s (inputs: %s)" % (type(e).__name__, e, shapes), user_frame())


def run_op(op_type, inputs, outputs, attrs, find_device=False):
    """Run `op_type` on the eager tensors of `inputs` ({slot: Tensor or [Tensor]}), write
    its results into the tensors of `outputs` and record it for autograd when an input
    needs a gradient (and recording is on: see no_grad). It runs on the GPU its first
    input lives on, or `find_device`: on the GPU any input lives on."""
    lay = _LAYOUTS.get(op_type) or layout(op_type)
    if _recordings and not find_device:
        _recordings[-1].append((op_type, inputs, outputs, attrs))
    args = []
    given = []           # per input slot: its Tensor, list of Tensors, or None
    sig = []             # the signature: input shapes and dtypes, attr values, device
    requires = False
    lod_seen = False     # an input carries a LoD
    first = None         # the first input array: its dtype picks the kernel
    get = inputs.get if inputs else {}.get
    for slot, dup in lay.ins:
        v = get(slot)
        if dup:
            listed = [] if v is None else v if type(v) is list or type(v) is tuple else [v]
            arrays = [_array(lay, slot, t, sig) for t in listed]
            for a in arrays:
                if type(a) is LoDArray:
                    lod_seen = True
            args.append(arrays)
            given.append(listed)
            sig.append(len(arrays))
            for t in listed:
                if not t.stop_gradient:
                    requires = True
            if first is None and arrays:
                first = arrays[0]
            continue
        if type(v) is list or type(v) is tuple:
            v = v[0] if v else None
        if v is None:
            args.append(None)
            given.append(None)
            sig.append(None)
            continue
        try:
            a = v._value
        except AttributeError:
            a = None
        if a is None:
            raise _bad_input(lay, slot, v)
        sig += (a.shape, a.dtype.char)
        if type(a) is LoDArray:
            lod_seen = True
        args.append(a)
        given.append(v)
        if not requires and not v.stop_gradient:
            requires = True
        if first is None:
            first = a
    if attrs:
        kw = {}
        for k, d in lay.attr_items:
            value = kw[k] = attrs.get(k, d)
            sig.append(tuple(value) if type(value) is list else value)
        if lay.dtype_by_name and dtype_attr_is_a_name(lay.op_def.attrs, kw["dtype"]):
            kw["dtype"] = convert_dtype(kw["dtype"])
    else:
        kw = dict(lay.attr_items)
        sig.extend(lay.default_sig)
    profile = versions.current()
    rounded = lay.float32_attrs.get(profile)
    if rounded is None:
        rounded = lay.float32_attrs[profile] = float32_attrs(lay.op_def, True, profile)
    if rounded:
        round_attrs(rounded, kw)
    if lay.state_pairs and outputs:
        _keep_state_inputs(lay, args, given, outputs)
    lods = None
    if lod_seen or lay.lod_always:
        lods = _take_lods(lay, inputs, args, kw)
        first = as_plain(first)
        sig.append(lod_seen)     # build-time checks may read the inputs' lod_level
    record = requires and mode.grad_enabled and lay.grad_def is not None
    device = None
    if type(first) is not np.ndarray or find_device:
        device, args = _placement(lay, first, args)
    sig.append(device)
    sig.append(profile)     # a profile switch may change the build-time checks
    sig = tuple(sig)
    try:
        entry = lay.signatures.get(sig)
    except TypeError:     # an unhashable attr (nested lists)
        entry = None
    if entry is None:
        entry = _signature_entry(lay, sig, kw, None if first is None else first.dtype,
                                 device, inputs, outputs)
    fn, takes_saved, grad_kernels = entry
    if lay.collective:     # (its grad op, run by autograd from node.kw, gets it too)
        kw["group"] = _process_group
    saved = None
    if record and takes_saved:   # the forward hands work to its grad op (conv's columns)
        saved = kw["saved"] = SavedForGrad()
    try:
        result = fn(*args, **kw) if device is None else on_device(device, fn, args, kw)
    except OpError:
        raise
    except Exception as e:
        if device is None and device_arrays(args):    # a GPU input after a host one
            return run_op(op_type, inputs, outputs, attrs, find_device=True)
        raise _explain(lay, e, args) from e
    if saved is not None:
        del kw["saved"]
    if lay.single_out:
        result = (result,)
    node = _record(lay, kw, args, given, result, saved, device, grad_kernels) \
        if record else None
    if lods is not None and lay.op_def.lod_outputs:
        result = tuple(lod_results(lay.op_def, lods, _slot_values(lay, args, result), kw,
                                   list(result)))
    if not outputs:
        return
    if lay.plain_single_out:    # the common case: one output, not a list
        t = outputs.get(lay.out_slot)
        if type(t) is list or type(t) is tuple:
            t = t[0] if t else None
        if t is not None and result[0] is not None:
            _fill(t, result[0], node, 0, 0 in lay.grad_outs)
        return
    flat = 0
    for k, (slot, dup) in enumerate(lay.outs):
        targets = outputs.get(slot)
        value = result[k]
        if not dup:
            if targets is not None and value is not None:
                t = targets[0] if type(targets) is list or type(targets) is tuple \
                    else targets
                if t is not None:
                    _fill(t, value, node, flat, k in lay.grad_outs)
            flat += 1
            continue
        values = value if value is not None else ()
        if targets is not None:
            targets = targets if type(targets) is list or type(targets) is tuple \
                else [targets]
            for j, t in enumerate(targets):
                if j < len(values) and t is not None and values[j] is not None:
                    _fill(t, values[j], node, flat + j, k in lay.grad_outs)
        flat += len(values)


def _take_lods(lay, inputs, args, kw):
    """The LoD of each input slot (a list for a list slot), read off the eager values as
    static mode reads them off the run-time ones; `args` (changed in place) become plain
    arrays, with the lengths slots the call left empty filled from their source's LoD."""
    lods = {}
    for s in lay.op_def.inputs:
        slot = slot_name(s)
        v = inputs.get(slot) if inputs else None
        if type(v) is list or type(v) is tuple:
            lods[slot] = [lod_of(getattr(t, "_value", None)) for t in v] \
                if is_duplicable(s) else lod_of(getattr(v[0], "_value", None)) if v else ()
        else:
            lods[slot] = lod_of(getattr(v, "_value", None))
    position = {name: i for i, (name, _) in enumerate(lay.ins)}
    for fill in lay.lod_fills:
        pos = position[fill[0]]
        if args[pos] is None or (type(args[pos]) is list and not args[pos]):   # list slot
            source = inputs.get(fill[1]) if inputs else None
            name = getattr(source[0] if type(source) in (list, tuple) and source
                           else source, "name", None)
            try:
                args[pos] = fill_lengths(lay.op_def, fill, lods[fill[1]], kw, name)
            except ValueError as e:
                raise OpError(lay.type, str(e), user_frame()) from None
    for i, (name, _) in enumerate(lay.ins):    # lod_whole inputs keep their LoD
        a = args[i]
        if name not in lay.op_def.lod_whole:
            args[i] = [as_plain(v) for v in a] if type(a) is list else as_plain(a)
    return lods


def _slot_values(lay, args, result):
    """slot -> value of an eager op's inputs and results (what LoD rules read)."""
    values = {name: a for (name, _), a in zip(lay.ins, args)}
    values.update((name, r) for (name, _), r in zip(lay.outs, result))
    return values


def _keep_state_inputs(lay, args, given, outputs):
    """Copy each in-place-updated input whose output is another tensor (an OpTest's
    distinct ParamOut; an optimizer's own update passes the parameter itself)."""
    for i, out_slot in lay.state_pairs:
        target = outputs.get(out_slot)
        if type(target) is list or type(target) is tuple:
            target = target[0] if target else None
        if target is not None and target is not given[i] and args[i] is not None:
            args[i] = args[i].copy()


def device_arrays(args):
    """The device arrays among an op's arguments (arrays, lists of arrays, None)."""
    found = []
    for a in args:
        for v in (a if type(a) is list else (a,)):
            if v is not None and type(v) is not np.ndarray and xp.is_device_array(v):
                found.append(v)
    return found


def _placement(lay, first, args):
    """(the GPU the op runs on or None for the CPU, its arguments there). An op runs where
    its device inputs live, its host inputs copied there (as Paddle's kernel choice and
    data transform do); inputs on two GPUs are an error. An op without inputs (a creation
    or initializer op) runs on the place set_device chose."""
    if first is None:
        place = current_place()
        return (place.device_id if type(place) is CUDAPlace else None), args
    held = device_arrays(args)
    if not held:
        return None, args
    devices = sorted({a.device.id for a in held})
    if len(devices) > 1:
        raise OpError(lay.type, "its inputs live on CUDAPlace(%d) and CUDAPlace(%d): one "
                      "operation runs on one GPU; move a tensor with .cuda(device_id) first"
                      % tuple(devices[:2]), user_frame())
    device = devices[0]
    if len(held) < sum(len(a) if type(a) is list else a is not None for a in args):
        with xp.device(device):
            args = map_arrays(xp.to_device, args)
    return device, args


def on_device(device, fn, args, kw):
    """`fn(*args, **kw)` with GPU `device` current, its array results on that GPU (an
    array-generic reference without array inputs computes on the host)."""
    with xp.device(device):
        return map_arrays(xp.to_device, fn(*args, **kw))


def _records_gradient(t, value):
    """An integer or bool result written in place records no gradient: an `increment` of an
    int64 counter whose stop_gradient a 1.8 script set False. A fresh integer result does
    (1.8.5's dygraph gives int `x ** y` its gradients)."""
    dtype = getattr(value, "dtype", None)
    return t._value is None or dtype is None or dtype.kind in "fc"


def _fill(t, value, node, index, grad_read):
    """Write an op's result into output tensor `t`: a fresh placeholder, or an existing
    tensor written in place (batch_norm's running mean, an optimizer's parameter, tanh_).
    A recorded result makes `t` non-leaf, unless `t` stops gradients (a buffer). An
    existing leaf that does not stop gradients may only be written by an output whose
    gradient the grad op does not read (`grad_read` False): it stays a leaf, as batch_norm's
    running statistics do in Paddle after PaddleGAN sets every parameter trainable."""
    if not isinstance(t, Tensor):
        raise TypeError("eager op output must be a Tensor, got %s %r"
                        % (type(t).__name__, getattr(t, "name", t)))
    if node is not None and not t.stop_gradient and _records_gradient(t, value):
        if t._value is not None and t._node is None:
            if not grad_read:
                t._value = value
                return
            raise ValueError("Leaf Tensor %r that doesn't stop gradient can't be written "
                             "in place by op %s" % (t.name, node.lay.type))
        t._node = node
        t._index = index
        if mode.legacy_grads:     # Paddle <= 2.0: every such tensor keeps its gradient
            if node.retained is None:
                node.retained = {}
            node.retained[index] = weakref.ref(t)
    elif t._value is None:
        t.stop_gradient = True
    t._value = value


def _edge(t):
    """Where the gradient of input `t` goes: nowhere (None) when it stops gradients, its
    producer (node, output index), or the leaf itself."""
    if t is None or t.stop_gradient:
        return None
    node = t._node
    return t if node is None else (node, t._index)


def _record(lay, kw, args, given, result, saved, device, grad_kernels):
    """The GradNode of this run: saved forward values the grad op reads, gradient edges.
    `given`: per input slot, its Tensor, list of Tensors or None."""
    if lay.saves_all_ins:     # (args is this run's own list)
        ins = args
    else:
        ins = [None] * len(lay.ins)
        for i in lay.saved_ins:
            ins[i] = args[i]
    outs = None     # (most grad ops read no forward output)
    if lay.saved_outs:
        outs = [None] * len(lay.outs)
        for k in lay.saved_outs:
            outs[k] = result[k]
    if lay.flat_grads:    # no list slot: the edges are flat already
        edges = flat_edges = []
        for i in lay.grad_targets:     # _edge, inlined: this runs for every recorded op
            t = given[i]
            if t is None or t.stop_gradient:
                edges.append(None)
            else:
                node = t._node
                edges.append(t if node is None else (node, t._index))
    else:
        edges, flat_edges = [], []
        for i in lay.grad_targets:
            v = given[i]
            if type(v) is list:
                e = [_edge(t) for t in v]
                flat_edges.extend(e)
            else:
                e = _edge(v)
                flat_edges.append(e)
            edges.append(e)
    if lay.plain_single_out:
        v = result[0]
        meta, n_out = [None if v is None else (v.shape, v.dtype)], 1
    elif lay.plain_outs:
        meta = [None if v is None else (v.shape, v.dtype)
                for _, v in zip(lay.outs, result)]
        n_out = len(meta)
    else:
        meta, n_out = [], 0
        for (slot, dup), value in zip(lay.outs, result):
            if dup:
                m = [None if v is None else (v.shape, v.dtype) for v in (value or ())]
                n_out += len(m)
            else:
                m = None if value is None else (value.shape, value.dtype)
                n_out += 1
            meta.append(m)
    if lay.all_value_ins:
        sources = given
    else:
        sources = [given[i] for i in lay.value_ins] if lay.value_ins else None
    return GradNode(lay, kw, ins, outs, edges, flat_edges, meta, n_out, device, saved,
                    grad_kernels, sources)
