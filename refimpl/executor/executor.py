"""Executor: runs a Program in a Scope.

A program is compiled once per (program version, feed names, fetch names, scope) into
a Plan: a flat list of closures, one per op, each with its kernel, its input/output
names and its attrs bound. Running a plan is a loop over those closures on one dict
(the scope's values), so the framework costs about a microsecond per op.
Temporaries are freed right after their last use (Paddle's eager deletion), which is
what makes RecomputeOptimizer and memory_optimize lower the peak. With `reuse_buffers`
(memory_optimize=True) their buffers go to a pool that later ops write their outputs into.
"""
import functools
import warnings

import numpy as np

from .. import versions
from ..framework.dtypes import convert_dtype
from ..framework.errors import FeedError, OpIndexError, names_its_op
from ..framework import mode
from ..framework.fetched import as_fetched
from ..framework.lod import check_lengths, describe_lod, lod_of, valid_for, with_lod
from ..framework.place import as_place, current_place, device_of
from ..framework.program import (EMPTY_VAR_NAME, OpRole, Operator, Program, Variable,
                                 default_main_program)
from ..framework.scope import LoDTensorArray, Tensor, global_scope
from ..framework.selected_rows import RowsValue
from ..ops.registry import BlockOpDef, lod_reaching, round_float32_attrs, with_lod_rules
from ..ops.reader_ops import READER_OPS
from ..ops.selected_rows import ROWS_ALIASED_SLOTS, ROWS_OUTPUT_BUFFERS, rows_forward
from ..parallel.group import process_group
from ..xp import (device as gpu_device, drop_deferred_checks, run_deferred_checks,
                  to_device, to_host)
from .binding import bind_kernel, describe_op, op_kernel, talks_to_places
from .buffer_pool import BufferPool
from .direct import DIRECT_BINDERS, LOD_AS_IS
from .folded_chains import bind_chain, folded_chains
from .folded_updates import bind_folded, folded_updates
from ._stand_in import stand_in
from .nan_inf import checked_runs, checking
from .op_events import timed_runs
from .hand_off import link_saved_for_grad
from .op_order import with_updates_early
from .reader_feeds import with_reader_feeds

__all__ = ["Executor", "Plan", "bind_op", "global_scope"]


def _phase(op):
    """forward, backward or optimize, from the op's role bits."""
    role = op.attrs.get("op_role", OpRole.Forward)
    return role & (OpRole.Backward | OpRole.Optimize)


def bind_op(op, wrap_kernel=None, inplace=False, alloc=None, saved=None, group=None,
            device="cpu", lod=False):
    """A closure `run(env)` that runs `op` on the dict `env` of name -> array.
    `inplace`: use the op's in-place kernel, which writes into its first input (the
    caller has checked that input is dead after this op). `alloc(shape, dtype)`: where
    ops with an out variant take their output buffers (memory_optimize's pool).
    `saved`: the SavedForGrad this op shares with its forward or grad op
    (link_saved_for_grad). `group`: the place's communicator group (DeviceGroup), given to
    collective ops labelled with the op, so a mismatch or a stall report names it.
    `device`: "cpu", or "gpu" for CuPy arrays (refimpl.dispatch.select_gpu_kernel).
    `wrap_kernel(op, fn) -> fn` instruments kernels (the profiler uses it). `lod`: the op
    may see values carrying a LoD, so it runs with its LoD rules (ops/registry.py
    with_lod_rules)."""
    op_def = op.op_def
    if group is not None and talks_to_places(op):
        group = group.for_op(describe_op(op))
    attrs = round_float32_attrs(op_def, {k: op.attrs[k] for k in op_def.attrs})
    attrs.update(op_def.bound_attrs(op))
    if _touches_selected_rows(op):
        # (the rules are numpy code: on a GPU they run on host copies)
        fn = rows_forward(op.type, op_kernel(op, device="cpu").fn)
        fn = _host_staged(fn) if device == "gpu" else fn
        fn = wrap_kernel(op, fn) if wrap_kernel is not None else fn
        return _bind_rows_op(fn, op, attrs)
    kernel = op_kernel(op, "inplace", device) if inplace else None
    if kernel is None and alloc is not None:
        kernel = op_kernel(op, "out", device)
    if kernel is None:
        kernel = op_kernel(op, device=device)
        # the direct binders run their members' CPU kernels on host arrays
        binder = DIRECT_BINDERS.get(op.type) if device == "cpu" else None
        # (a fused op that may see a LoD runs whole, with its chain's LoD rules)
        run = binder(op, group) if binder is not None and not kernel.compiled and \
            not (lod and op_def.lod_outputs and op.type not in LOD_AS_IS) else None
        if run is not None:    # a fused op's members, bound directly
            return wrap_kernel(op, run) if wrap_kernel is not None else run
    runtime = {"alloc": alloc, "saved": saved, "group": group,
               "need": tuple(bool(op.outputs.get(s)) for s in op_def.output_slots)}
    attrs.update((k, runtime[k]) for k in kernel.keywords if runtime[k] is not None)
    fn = with_lod_rules(kernel.fn, op_def, op.inputs, attrs, device) if lod else kernel.fn
    fn = wrap_kernel(op, fn) if wrap_kernel is not None else fn
    return bind_kernel(fn, op_def, op.inputs, op.outputs, attrs)


def _bind_rows_op(fn, op, attrs):
    """An op on SelectedRows bound; a rule that writes into its outputs' current tensors
    (ROWS_OUTPUT_BUFFERS) gets them, those that are not one of the op's inputs; one that
    asks (ROWS_ALIASED_SLOTS) is told which of its input / output slot pairs name one
    variable."""
    pairs = ROWS_ALIASED_SLOTS.get(op.type)
    if pairs:
        attrs = dict(attrs, powers_aliased=tuple(
            bool(op.inputs.get(i)) and op.inputs.get(i) == op.outputs.get(o) for i, o in pairs))
    slots = ROWS_OUTPUT_BUFFERS.get(op.type)
    if not slots:
        return bind_kernel(fn, op.op_def, op.inputs, op.outputs, attrs)
    read = set(op.input_arg_names)
    names = [n if n not in read else None for n in
             ((op.outputs.get(s) or [None])[0] for s in slots)]
    current = {}
    run_op = bind_kernel(lambda *args, **kw: fn(*args, out_buffers=current["buffers"], **kw),
                         op.op_def, op.inputs, op.outputs, attrs)

    def run(env):
        current["buffers"] = tuple(env.get(n) if n else None for n in names)
        run_op(env)
    return run


def _moved(value, move):
    """`value` (an array, a SelectedRows, a list or tuple of them, None) moved by `move`."""
    if value is None:
        return None
    if isinstance(value, RowsValue):
        return value._replace(value=_moved(value.value, move))
    if isinstance(value, (list, tuple)):
        return type(value)(_moved(v, move) for v in value)
    return move(value)


def _host_staged(fn):
    """`fn` run on host copies of its arguments, its results moved to the GPU."""
    def run(*args, **attrs):
        attrs = {k: _moved(v, to_host) for k, v in attrs.items()}
        return _moved(fn(*_moved(args, to_host), **attrs), to_device)
    return run


def _touches_selected_rows(op):
    """Whether `op` reads or writes a SELECTED_ROWS variable (ops/selected_rows.py runs
    it then)."""
    for names in list(op.inputs.values()) + list(op.outputs.values()):
        for n in names:
            var = op.block._find_var_recursive(n)
            if var is not None and var.type == "SELECTED_ROWS":
                return True
    return False


def bind_control_op(op, program, wrap_kernel=None, group=None, device="cpu", lod_names=()):
    """A control-flow op (conditional_block, while, their grads: a BlockOpDef) bound with a
    way to compile its sub-block: `compile(ops, keep)` is a nested Plan over `ops` run on
    the same dict, freeing only the names it makes that are not in `keep` (the op passes
    every name visible outside the sub-block). Ops never import the executor; this is how
    they run blocks (specs/control_flow.md). `lod_names`: the names outside that may carry
    a LoD."""
    def compile_ops(ops, keep):
        return Plan(program, (), keep, wrap_kernel=wrap_kernel, ops=ops, group=group,
                    device=device, lod_feeds=lod_names)
    return op.op_def.bind_control(op, compile_ops)


def _shape_only_inputs(op):
    """Names `op` reads only for their shape and dtype (its grad_shape_only slots), unless
    it also reads or writes them in another slot."""
    slots = getattr(op.op_def, "shape_only", ())
    if not slots:
        return ()
    names = {n for slot in slots for n in op.inputs.get(slot, ())}
    others = [n for slot, ns in op.inputs.items() if slot not in slots for n in ns]
    return names.difference(others, op.output_arg_names)


def _keep_shape_only(env, name):
    """Replace a host array only its shape is still needed for by a stand-in of the same
    shape and dtype that holds no buffer (_stand_in.py)."""
    value = env.get(name)
    if type(value) is np.ndarray and value.size > 1:
        env[name] = stand_in(value.shape, value.dtype)


def _done_by_previous_op(env):
    """The run of an op that an op before it runs (an update folded into its gradient, a
    member of a folded chain)."""


class Plan:
    """A program compiled for one feed/fetch signature: bound ops plus a free list.
    `device`: "cpu", or "gpu": the ops run on CuPy arrays (the caller makes the GPU
    current and moves the inputs there: Executor._run_program)."""

    def __init__(self, program, feed_names, fetch_names, eager_delete=True, wrap_kernel=None,
                 inplace=False, reuse_buffers=False, addto=False, hand_off=True, ops=None,
                 group=None, device="cpu", lod_feeds=()):
        """`lod_feeds`: names fed (or visible, for a sub-block) with a LoD."""
        self.program = program
        self.device = device
        self.version = program._version
        self.group = group
        block = program.global_block()
        # `ops`: a sub-block's ops (control flow, see bind_control_op); else the global block
        # (reader ops mark where a PyReader's feed comes from: nothing to run)
        self.ops = [op for op in (block.ops if ops is None else ops)
                    if op.type not in READER_OPS]
        if ops is None:   # each update right after its gradient is final (op_order.py)
            self.ops = with_updates_early(self.ops)
        self.fetch_names = list(fetch_names)
        persistable = {n for n, v in block.vars.items() if v.persistable}
        produced = set(feed_names)
        for op in self.ops:
            produced.update(op.output_arg_names)
        produced.discard(EMPTY_VAR_NAME)
        # Temporaries: produced by this run and not persistable. Everything else in
        # the scope (parameters, values the user put there) is left alone.
        self.temporaries = [n for n in produced if n not in persistable]
        self.persistable_outputs = sorted(produced & persistable)
        # what the run reads from the scope (parameters, ...): a GPU run moves those
        # that are still host arrays (loaded, or set by the user) to the device first
        self.scope_inputs = self._read_before_written(set(feed_names))
        # a tensor array read before any write holds nothing yet (Paddle creates every
        # variable of the block before the run: an array starts empty)
        self.empty_arrays = sorted(n for n in self.scope_inputs
                                   if n in block.vars and not block.vars[n].persistable
                                   and block.vars[n].type == "LOD_TENSOR_ARRAY")
        dead_after, shrink_after = self._free_lists(set(self.temporaries) - set(fetch_names))
        self.free_after = dead_after if eager_delete else None
        self.shrink_after = shrink_after if eager_delete else None
        # enable_addto governs gradient accumulation (sum), enable_inplace the other ops
        reuse = [(addto if op.type == "sum" else inplace) and
                 self._can_reuse_input(op, dead, set(feed_names), persistable, device)
                 for op, dead in zip(self.ops, dead_after)]
        self.inplace_ops = sum(reuse)
        # hand_off="little" (memory_optimize=True): only forward ops whose hand-off is no
        # larger than their output keep it for their grad ops; the others' grad ops
        # recompute (conv2d's columns are kh*kw times its input)
        links = link_saved_for_grad(self.ops, little_only=hand_off == "little")
        self.saved_for_grad = list({id(h): h for h in links.values()}.values())
        declared = {n for n, v in block.vars.items() if v.lod_level}
        lod_names, touching = lod_reaching(self.ops, declared | set(lod_feeds))
        touching = set(touching)
        # FLAGS_check_nan_inf: each op checks its outputs, so none is folded into another
        self.check_nan_inf = checking()
        # a weight's sgd update inside the GEMM of its gradient (folded_updates.py)
        plain = [device == "cpu" and not self.check_nan_inf and not r and i not in links
                 and i not in touching and not _touches_selected_rows(op)
                 for i, (op, r) in enumerate(zip(self.ops, reuse))]
        folded = folded_updates(self.ops, dead_after, plain)
        # fc's forward chains and relu-and-bias gradients as one call each (folded_chains.py)
        chains = folded_chains(self.ops, dead_after, shrink_after, plain)
        inside = {i + k for i, (_, length, _) in chains.items() for k in range(1, length)}
        self.pool = BufferPool() if reuse_buffers and eager_delete else None
        self.recyclable = self._promised_buffers(
            dead_after, reuse, set(feed_names),
            {self.ops[i].output(slot + "@GRAD")[0] for i, (_, slot) in folded.items()}
            | {n for _, _, middle in chains.values() for n in middle}) \
            if self.pool else set()
        alloc = self.pool.take if self.pool else None
        shape_read = {n for names in shrink_after for n in names}

        def bind(i, op, in_place):
            in_scope = getattr(op.op_def, "run_in_scope", None)
            if in_scope is not None:   # an op on the scope's own objects (queue ops)
                return functools.partial(in_scope, op)
            if isinstance(op.op_def, BlockOpDef):
                return bind_control_op(op, program, wrap_kernel, group, device, lod_names)
            if i in folded:
                return bind_folded(op, self.ops[i + 1], *folded[i], alloc, wrap_kernel)
            if i in chains:
                kernel, length, middle = chains[i]
                return bind_chain(self.ops[i:i + length], kernel, middle, shape_read, alloc,
                                  wrap_kernel)
            if i - 1 in folded or i in inside:
                return _done_by_previous_op
            # group: the device's communicator group (collective ops), None on one place
            return bind_op(op, wrap_kernel, in_place, alloc, links.get(i), group, device,
                           i in touching)
        self.runs = [bind(i, op, r) for i, (op, r) in enumerate(zip(self.ops, reuse))]
        if self.check_nan_inf:
            self.runs = checked_runs(self.ops, self.runs)

    def _read_before_written(self, fed):
        written, read = set(fed), []
        for op in self.ops:
            read.extend(n for n in op.input_arg_names if n not in written)
            written.update(op.output_arg_names)
        return tuple(dict.fromkeys(n for n in read if n != EMPTY_VAR_NAME))

    def move_scope_inputs(self, env):
        """GPU plans: the scope values the run reads, as device arrays."""
        for n in self.scope_inputs:
            if type(env.get(n)) is np.ndarray:
                env[n] = to_device(env[n])

    def _promised_buffers(self, dead_after, inplace, fed, unmade):
        """memory_optimize: the dead temporaries whose buffers go to the pool. Only those a
        later op of the same phase (forward, backward, optimize) will want are kept: an op
        writing an output of the same build-time shape and dtype through an out variant. A
        pooled buffer nobody takes, or one held from the forward into the backward across
        the end of the forward (where every activation is alive: the peak), would raise the
        peak. Never the user's fed arrays, nor a buffer an in-place op passed on to its
        output (fetched and persistable values never die). BufferPool.give still checks at
        run time that nothing else holds the buffer. `unmade`: outputs no op writes (a
        folded update's gradient)."""
        block = self.program.global_block()

        def key(op, name):
            v = block._find_var_recursive(name)
            if v is None or v.shape is None:
                return None
            return _phase(op), tuple(v.shape), v.dtype

        waiting = {}    # key -> dead temporaries not yet promised to an op
        promised = set()
        for op, dead, in_place in zip(self.ops, dead_after, inplace):
            if in_place:
                dead = [n for n in dead if n != op.input(op.op_def.input_slots[0])[0]]
            elif op_kernel(op, "out", self.device) is not None:
                for n in op.output_arg_names:
                    candidates = waiting.get(key(op, n)) if n not in unmade else None
                    if candidates:
                        promised.add(candidates.pop())
            for n in dead:
                if n not in fed and key(op, n) is not None:
                    waiting.setdefault(key(op, n), []).append(n)
        return promised

    @staticmethod
    def _can_reuse_input(op, dead, fed, persistable, device):
        """enable_inplace: the op may overwrite its first input when that input dies here,
        is not a user's fed array or persistable, and is not read twice by the op."""
        if isinstance(op.op_def, BlockOpDef) or op_kernel(op, "inplace", device) is None:
            return False
        first = op.inputs.get(op.op_def.input_slots[0], [])
        if not first:
            return False
        x = first[0]
        var = op.block._find_var_recursive(x)
        if var is not None and var.type == "LOD_TENSOR_ARRAY":
            return False    # an array is a Python list: there is no buffer to write into
        return (x in dead and x not in fed and x not in persistable
                and op.input_arg_names.count(x) == 1 and x not in op.output_arg_names)

    def _free_lists(self, freeable):
        """(names dead after each op, names that only grad ops reading their shape need
        after each op: Plan.run keeps a buffer-less stand-in for those, so that a residual
        add's inputs, kept for elementwise_add_grad, do not hold activations)."""
        last_use, last_value_use = {}, {}
        for i, op in enumerate(self.ops):
            shape_only = _shape_only_inputs(op)
            for n in op.input_arg_names + op.output_arg_names:
                if n in freeable:
                    last_use[n] = i
                    if n not in shape_only:
                        last_value_use[n] = i
        dead, shrink = [[] for _ in self.ops], [[] for _ in self.ops]
        for n, i in last_use.items():
            dead[i].append(n)
            if last_value_use.get(n, i) < i:
                shrink[last_value_use[n]].append(n)
        return [tuple(names) for names in dead], [tuple(names) for names in shrink]

    def release(self, env, name):
        """`name` is dead: drop it, and pool its buffer when memory_optimize reuses them."""
        if name in self.recyclable:
            self.pool.give(env.pop(name, None))
        else:
            env.pop(name, None)

    def run(self, env, runs=None):
        """Run the ops on `env`; `runs`: closures to call instead of the plan's own (the
        profiler's timed ones, op_events.py), one per op."""
        runs = self.runs if runs is None else runs
        free_after, shrink_after = self.free_after, self.shrink_after
        i = 0
        try:
            if free_after is None:
                for i, run in enumerate(runs):
                    run(env)
            elif self.pool is None:
                for i, run in enumerate(runs):
                    run(env)
                    for n in free_after[i]:
                        env.pop(n, None)    # an optional output the kernel left unset
                    for n in shrink_after[i]:
                        _keep_shape_only(env, n)
            else:
                for i, run in enumerate(runs):
                    run(env)
                    for n in free_after[i]:
                        self.release(env, n)
                    for n in shrink_after[i]:
                        _keep_shape_only(env, n)
        except Exception as e:
            if names_its_op(e):
                raise
            raise self._explain(i, e, env) from e
        finally:
            self.clear_pool()

    def clear_pool(self):
        if self.pool is not None:
            self.pool.clear()

    def run_measuring_memory(self, env, include=None):
        """Run like `run`, returning the peak bytes of the distinct buffers held at any
        point by this run's temporaries (those whose name passes `include`, e.g.
        activations only), by the reuse pool and by forward ops for their grad ops
        (SavedForGrad): what recompute, eager deletion, inplace and buffer reuse lower. A
        buffer shared by several names (in place, views) counts once."""
        temporaries = [n for n in self.temporaries if include is None or include(n)]

        def held():
            buffers = [env.get(n) for n in temporaries]
            if self.pool is not None:
                buffers += self.pool.buffers()
            owners = {}
            for a in buffers:
                if isinstance(a, np.ndarray):
                    while isinstance(a.base, np.ndarray):
                        a = a.base
                    owners[id(a)] = a.nbytes
            return sum(owners.values()) + sum(h.nbytes for h in self.saved_for_grad)

        peak = held()
        try:
            for i, run in enumerate(self.runs):
                try:
                    run(env)
                except Exception as e:
                    raise self._explain(i, e, env) from e
                peak = max(peak, held())
                for n in (self.free_after[i] if self.free_after is not None else ()):
                    self.release(env, n)
                for n in (self.shrink_after[i] if self.shrink_after is not None else ()):
                    _keep_shape_only(env, n)
        finally:
            self.clear_pool()
        return peak

    def _explain(self, i, e, env):
        op = self.ops[i]
        for slot, names in op.inputs.items():
            for n in names:
                if env.get(n) is None:
                    return op.error(
                        "input %s %r has no value: it was not fed, not produced by an earlier "
                        "op, and not initialized (did you run the startup program?)" % (slot, n))
        shapes = ", ".join("%s=%s" % (n, getattr(env.get(n), "shape", None))
                           for n in op.input_arg_names)
        message = "%s: %s (inputs: %s)" % (type(e).__name__, e, shapes)
        if isinstance(e, IndexError):   # still an IndexError, as Paddle's OutOfRange
            return OpIndexError(op.type, message, op.created_at)
        return op.error(message)

    def drop_temporaries(self, env):
        for n in self.temporaries:
            env.pop(n, None)
        self.clear_pool()


def check_feed(var, value, lod=()):
    """The fed value as an array of the variable's dtype, or a FeedError saying why not
    (Paddle's messages). A LoDTensor or an (array, recursive sequence lengths) pair feeds
    its LoD too; the rows of such a feed are its sequences' items, so its dim 0 is not
    checked against the variable's shape (Paddle reports it as -1)."""
    if isinstance(value, Tensor):
        lod = tuple(tuple(level) for level in value.recursive_sequence_lengths())
        value = check_feed(var, np.asarray(value), lod)
        return _with_checked_lod(var, value, lod) if lod else value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], (list, tuple)):
        try:
            lod = check_lengths(value[1], "feed %r" % var.name)
        except TypeError as e:
            raise FeedError(str(e)) from None
        return _with_checked_lod(var, check_feed(var, value[0], lod), lod)
    if not isinstance(value, np.ndarray):
        value = _feed_array(var, value)
    if value.ndim == 0 and var.shape is not None and len(var.shape) == 1 and \
            var.shape[0] in (1, -1):
        value = value.reshape(1)   # a number (or 0-d array) feeds a [1] variable, as in Paddle
    if var.dtype is not None and value.dtype != var.dtype.np and not var.need_check_feed:
        # Paddle does not check feeds of fluid.layers.data variables and computes in the
        # fed dtype. refimpl's plans pick kernels by the declared dtype, so a value of the
        # same kind is converted to it (float64 into float32) unless its ints do not fit
        # (an int64 2**31 into int32 would wrap); one of another kind (int64 ids into a
        # variable declared float64) or such ints are passed as fed, as Paddle does.
        if value.dtype.kind == var.dtype.np.kind:
            converted = value.astype(var.dtype.np)
            if value.dtype.kind not in "iu" or np.array_equal(converted, value):
                value = converted
        return value
    if var.dtype is not None and value.dtype != var.dtype.np:
        raise FeedError("The data type of fed Variable %r must be %r, but received %r"
                        % (var.name, var.dtype.name, convert_dtype(value.dtype)
                           if value.dtype.name in ("float16", "float32", "float64", "int8",
                                                   "int16", "int32", "int64", "uint8", "bool")
                           else str(value.dtype)))
    shape = var.shape
    if shape and shape[0] == -1 and value.ndim and value.shape[0] == 0 and var.is_data \
            and not var.lod_level:
        # Paddle 1.8.5 fails inside the first op ("numel must be equal or larger than zero")
        raise FeedError("feed %r: the batch is empty (shape %s): feed at least one sample"
                        % (var.name, list(value.shape)))
    if shape is not None and var.need_check_feed:
        got = [-1 if lod and i == 0 else d for i, d in enumerate(value.shape)]
        # Paddle (1.8.5, 3.3.1's legacy executor) compares the fed dims with the leading
        # declared ones: a [5] feeds a [-1, 1] variable, a [4, 2] a [-1, 2, 3]
        if len(got) > len(shape) or (shape and not got) or any(
                d >= 0 and g >= 0 and d != g for d, g in zip(shape, got)):
            raise FeedError("The fed Variable %r should have dimensions = %d, shape = %r, but "
                            "received fed shape %r on each device"
                            % (var.name, len(shape), var.shape, got))
    return value


def _feed_array(var, value):
    """A fed list / number as an array of the variable's dtype, or a FeedError naming it."""
    dtype = var.dtype.np if var.dtype is not None else None
    if value is None:
        raise FeedError("feed %r: the value is None, expected an array%s"
                        % (var.name, " of %s" % var.dtype.name if dtype else ""))
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise FeedError("feed %r: the fed %s is not an array%s (%s)"
                        % (var.name, type(value).__name__,
                           " of %s" % var.dtype.name if dtype else "", e)) from None


def _with_checked_lod(var, value, lod):
    if not (value.ndim and valid_for(lod, len(value))):
        raise FeedError("feed %r: its LoD %s (recursive sequence lengths %s) does not fit "
                        "the data of shape %s: each level must add up to the next level's "
                        "count, the last to the number of rows"
                        % (var.name, describe_lod(lod), [list(level) for level in lod],
                           list(value.shape)))
    return with_lod(value, lod)


def known_feeds(block, feed):
    """`feed` without the names the program has no variable of, each with a warning, as
    Paddle's Executor drops them ("not declared or pruned")."""
    unknown = [name for name in feed if block._find_var_recursive(name) is None]
    for name in unknown:
        warnings.warn("The variable %s is not found in program. It is not declared or is "
                      "pruned." % name)
    return {k: v for k, v in feed.items() if k not in unknown} if unknown else feed


def check_feeds(block, feed):
    """{name: checked array} for a feed dict (check_feed), or a FeedError naming a fed name
    the program has no variable for."""
    checked = {}
    for name, value in feed.items():
        var = block._find_var_recursive(name)
        if var is None:
            raise FeedError("feed %r: the program has no variable of that name" % name)
        checked[name] = check_feed(var, value)
    return checked


def feed_learning_rate(program, env):
    """Before every run: the current value of the program's LRScheduler (an optimizer given
    one sets program.lr_scheduler) into its learning-rate variable."""
    sched = program.lr_scheduler
    if sched is not None:
        env[sched._var_name] = np.array([sched._run_value()], dtype=np.float32)


def fetch_values(block, env, fetch_names):
    """The fetched values after a run; persistable ones copied (later runs update them in
    place). A ValueError for a fetch that has no value."""
    outs = []
    for name in fetch_names:
        value = env.get(name)
        if value is None:
            raise ValueError("fetch %r has no value after the run: no op produced it "
                             "and it was not fed" % name)
        if isinstance(value, RowsValue):
            raise TypeError("fetch %r: it is a SelectedRows (an is_sparse embedding's "
                            "gradient: rows %s of a [%d, ...] tensor); Paddle fetches "
                            "LoDTensors only" % (name, list(value.rows)[:10], value.height))
        if block._find_var_recursive(name).persistable:
            value = with_lod(value.copy(), lod_of(value))
        outs.append(value)
    return outs


class Executor:
    def __init__(self, place=None):
        self.place = as_place(place) if place is not None else current_place()
        self.device_id = device_of(self.place)   # None: the CPU
        self._plans = {}
        self._pruned_programs = {}

    @property
    def _default_executor(self):
        """Paddle's C++ executor under this one, which core functions take
        (core._create_loaded_parameter); refimpl's Executor runs programs itself."""
        return self

    def close(self):
        self._plans.clear()
        self._pruned_programs.clear()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=False,
            return_merged=True, use_prune=False):
        if program is None:
            program = default_main_program()
        if scope is None:
            scope = global_scope()
        fetch_list, update_ops = _split_update_ops(fetch_list)
        if update_ops or use_prune:    # fetching update ops prunes (Paddle 1.8)
            program, feed = self._pruned(program, feed, fetch_list, update_ops)
        fetch_names = _fetch_names(fetch_list)
        if getattr(program, "_graph", None) is not None:
            # fleet's data-parallel version of this program (Paddle: Program._graph)
            program = program._graph
        if not isinstance(program, Program):
            if hasattr(program, "_run"):  # CompiledProgram
                return program._run(self, feed, fetch_names, scope, return_numpy,
                                    return_merged)
            raise TypeError("Executor.run: program must be a Program or CompiledProgram, got %s"
                            % type(program).__name__)
        feed = feed or {}
        if isinstance(feed, (list, tuple)):  # one dict per place, as a DataLoader yields
            if len(feed) != 1:
                raise TypeError("Executor.run: feed is a list of %d dicts (one per place), but "
                                "a Program runs on one place; compile it with_data_parallel "
                                "or feed one dict" % len(feed))
            feed = feed[0]
        if not isinstance(feed, dict):
            raise TypeError("Executor.run: feed must be a dict of name -> array, got %s"
                            % type(feed).__name__)
        if any(block._pending_descs for block in program.blocks):
            # ops appended through block.desc.append_op() run as in Paddle, whose executor
            # runs the desc (its OpTest-style tests append grad op descs so)
            program._sync_with_cpp()
        # started fluid.layers.py_reader readers feed their variables (layers/readers.py)
        feed = with_reader_feeds(program, feed, 1)
        outs = self._run_program(program, feed, fetch_names, scope)
        return _as_results(outs, return_numpy)

    def train_from_dataset(self, program=None, dataset=None, scope=None, thread=0, debug=False,
                           fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """Run `program` once per batch of a fluid.dataset dataset (Paddle 1.8), printing
        the fetched values every `print_period` batches as `info: value`. refimpl runs
        the batches in order on one thread (`thread` and the dataset's threads are
        Paddle's trainer threads)."""
        self._run_from_dataset(program, dataset, scope, fetch_list, fetch_info, print_period,
                               fetch_handler)

    def infer_from_dataset(self, program=None, dataset=None, scope=None, thread=0,
                           debug=False, fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """train_from_dataset for a program without an optimizer (Paddle 1.8)."""
        self._run_from_dataset(program, dataset, scope, fetch_list, fetch_info, print_period,
                               fetch_handler)

    def _run_from_dataset(self, program, dataset, scope, fetch_list, fetch_info, print_period,
                          fetch_handler):
        if dataset is None:
            raise RuntimeError("dataset is need and should be initialized")
        if fetch_handler is not None:
            raise NotImplementedError("train_from_dataset: fetch_handler (a FetchHandler "
                                      "polled by a monitor thread) is not implemented; use "
                                      "fetch_list and fetch_info")
        fetch_list = list(fetch_list or [])
        fetch_info = list(fetch_info or [v if isinstance(v, str) else v.name
                                         for v in fetch_list])
        if len(fetch_info) != len(fetch_list):
            raise ValueError("train_from_dataset: fetch_info names %d values but fetch_list "
                             "has %d" % (len(fetch_info), len(fetch_list)))
        for step, feed in enumerate(dataset._feeds(), 1):
            values = self.run(program, feed=feed, fetch_list=fetch_list, scope=scope)
            if fetch_list and step % print_period == 0:
                print(", ".join("%s: %s" % (info, np.asarray(v).ravel())
                                for info, v in zip(fetch_info, values)))

    def _pruned(self, program, feed, fetch_list, update_ops):
        """Executor.run(use_prune=True): the program (or CompiledProgram) pruned by
        _prune_program, cached per program, feed names and fetch list as in Paddle 1.8, and
        the feed less the variables the pruned program no longer has (with a warning)."""
        feeds = _feed_dicts(feed)
        feed_names = tuple(n for each in feeds for n in each)
        version = _source_program(program)._version
        key = (id(program), feed_names, tuple(_fetch_names(fetch_list)),
               tuple(id(op) for op in update_ops))
        cached = self._pruned_programs.get(key)
        if cached is None or cached[0] is not program or cached[1] != version:
            cached = (program, version,
                      self._prune_program(program, feed, fetch_list, list(update_ops)))
            self._pruned_programs[key] = cached
        pruned = cached[2]
        block = _source_program(pruned).global_block()
        kept = [{n: v for n, v in each.items() if n in block.vars} for each in feeds]
        for name in feed_names:
            if name not in block.vars:
                warnings.warn("The variable %s is not found in program. It is not declared or "
                              "is pruned." % name, stacklevel=3)
        return pruned, kept if isinstance(feed, (list, tuple)) else kept[0]

    def _prune_program(self, program, feed, fetch_list, update_ops):
        """`program` pruned to what computes `fetch_list` from the feed, and to
        `update_ops` (every update op of the program when there are none); Paddle 1.8's
        Executor._prune_program, which its test_prune replaces to count the calls."""
        source = _source_program(program)
        if not update_ops:
            update_ops = [op for block in source.blocks for op in block.ops
                          if op._is_optimize_op()]
        fetches = [fetch_list] if isinstance(fetch_list, (Variable, str)) else list(fetch_list)
        pruned = source._prune_with_input([n for each in _feed_dicts(feed) for n in each],
                                          fetches + update_ops)
        return program._with_program(pruned) if program is not source else pruned

    def _plan(self, program, feed_names, fetch_names, scope):
        lod_feeds = tuple(sorted(n for n in feed_names if lod_of(feed_names[n])))
        key = (id(program), tuple(sorted(feed_names)), tuple(fetch_names), id(scope), lod_feeds)
        plan = self._plans.get(key)
        group = process_group()     # this process's device in the job, once initialized
        if plan is None or plan.program is not program or plan.version != program._version \
                or plan.group is not group or plan.check_nan_inf != checking():
            plan = Plan(program, feed_names, fetch_names, lod_feeds=lod_feeds, group=group,
                        device="cpu" if self.device_id is None else "gpu")
            self._plans[key] = plan
        return plan

    def _run_program(self, program, feed, fetch_names, scope):
        block = program.global_block()
        feed = known_feeds(block, feed)
        env = scope._values
        checked = check_feeds(block, feed)
        for name in fetch_names:
            if block._find_var_recursive(name) is None:
                raise ValueError("fetch %r: the program has no variable of that name" % name)
        plan = self._plan(program, checked, fetch_names, scope)
        with gpu_device(self.device_id):
            env.update(checked if self.device_id is None else   # (a LoD stays on the host)
                       {n: v if lod_of(v) else to_device(v) for n, v in checked.items()})
            feed_learning_rate(program, env)
            for name in plan.empty_arrays:
                env.setdefault(name, [])
            on_gpu = self.device_id is not None    # (only GPU kernels defer checks)
            if on_gpu:
                plan.move_scope_inputs(env)
                drop_deferred_checks()
            for name in plan.persistable_outputs:
                if name not in env:   # declared before the run, as Paddle's executor does,
                    scope.var(name)   # so a run that fails leaves them uninitialized
            try:
                plan.run(env, timed_runs(plan))
                if on_gpu:
                    run_deferred_checks()
                return fetch_values(block, env, fetch_names)
            finally:
                plan.drop_temporaries(env)


def _feed_dicts(feed):
    """The feed as a list of dicts: one per place (a CompiledProgram's list), or the one."""
    return list(feed) if isinstance(feed, (list, tuple)) else [feed or {}]


def _source_program(program):
    """The Program a Program or CompiledProgram runs."""
    if isinstance(program, Program):
        return program
    if getattr(program, "_program", None) is None:
        raise TypeError("Executor.run(use_prune=True): %s holds no Program to prune (a "
                        "CompiledProgram of a Graph cannot be pruned)" % type(program).__name__)
    return program._program


def _split_update_ops(fetch_list):
    """(the fetch list's variables and names, its update ops). As in Paddle 1.8 the list
    may hold what Optimizer.minimize returns: a list of update ops, or its (update ops,
    params_grads) tuple; any other op is a TypeError."""
    if fetch_list is None or isinstance(fetch_list, (Variable, str)):
        return fetch_list, []
    fetches, update_ops = [], []
    for item in fetch_list:
        group = item[0] if isinstance(item, tuple) else item
        for f in group if isinstance(group, list) else [group]:
            if isinstance(f, Operator):
                if not f._is_optimize_op():
                    raise TypeError("fetch_list: the operator %s is not an optimizer's "
                                    "update op (op_role Optimize)" % f.type)
                update_ops.append(f)
            else:
                fetches.append(f)
    return fetches, update_ops


def _fetch_names(fetch_list):
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (Variable, str)):
        fetch_list = [fetch_list]
    names = []
    for f in fetch_list:
        if mode.eager is not None and isinstance(f, mode.eager.Tensor):
            raise TypeError("fetch_list: %r is an eager Tensor, made in dynamic mode (Paddle "
                            "2.0's default), which no Program holds; build the program after "
                            "paddle.enable_static() and fetch its Variables" % f.name)
        if isinstance(f, Variable):
            names.append(f.name)
        elif isinstance(f, str):
            names.append(f)
        else:
            raise TypeError("fetch_list items must be Variables or names, got %s"
                            % type(f).__name__)
    return names


def _fetched_shape(value):
    """`value` as the profile's fetch op hands it on: Paddle 2.0's copies a tensor without
    elements as dims [0], its LoD kept (fetch_op.cc's DataCopy; switch fetch_empty_flat)."""
    if isinstance(value, np.ndarray) and value.size == 0 and value.ndim != 1 and \
            versions.switch("fetch_empty_flat"):
        return with_lod(value.reshape(0), lod_of(value))
    return value


def _as_results(outs, return_numpy):
    """Fetched values as numpy arrays, or as LoDTensors (return_numpy=False). A tensor array's
    value (a list) comes back as a list of arrays, or a LoDTensorArray, as in Paddle. A value
    carrying a LoD cannot become an array (Paddle raises the same)."""
    outs = [[to_host(t) for t in o] if isinstance(o, list) else _fetched_shape(to_host(o))
            for o in outs]
    if return_numpy:
        if any(lod_of(o) for o in outs):
            raise RuntimeError("Some of your fetched tensors hold LoD information. They can "
                               "not be completely cast to Python ndarray. Please set the "
                               "parameter 'return_numpy' as 'False' to return LoDTensor "
                               "itself directly.")
        return [[np.asarray(t) for t in o] if isinstance(o, list) else as_fetched(o)
                for o in outs]
    return [LoDTensorArray(Tensor(value=t) for t in o) if isinstance(o, list)
            else Tensor(value=o) for o in outs]
