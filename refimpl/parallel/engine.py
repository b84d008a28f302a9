"""Runs a CompiledProgram: build-strategy passes, data-parallel rewriting, one Plan per
device, one thread per device.

Pipeline:
  1. passes   sync_batch_norm's rename, then refimpl.compiler.passes.apply_passes, on a
              clone of the user's program
  2. rewrite  per device: scale loss@GRAD (gradient_scale_strategy), insert collectives
              after each parameter gradient (AllReduce) or reduce to the owner, keep the
              owner's update only and broadcast the parameter (Reduce)
  3. bind     one refimpl.executor.Plan per distinct device program
  4. run      each device's plan in its own thread on its own dict of values; device 0's
              dict is the scope's, so trained parameters are visible in the scope
"""
import os
import threading

import numpy as np

from ..compiler.passes import apply_passes
from ..compiler.scheduler import ThreadedRunner
from ..executor import Plan, _as_results, check_feed, known_feeds
from ..framework.fetched import as_fetched
from ..framework.errors import FeedError
from ..framework.lod import check_lengths, lod_of, sequence_slice
from ..framework.place import CUDAPlace, as_place, cpu_places, cuda_places
from ..framework.program import OpRole, grad_var_name
from ..framework.scope import Tensor
from ..layers.readers import reader_feeds
from ..ops.registry import get_op_def
from . import context, launch
from .communicator import (CollectiveMismatch, CommunicationAborted, HierarchicalCommunicator,
                           InProcessCommunicator)
from .stall import StallError, label_collectives

# errors about the run as a whole, which ops meet rather than cause
_RUN_ERRORS = (CommunicationAborted, CollectiveMismatch, StallError)

__all__ = ["run_compiled", "resolve_places", "split_feed", "owners_by_size"]

THREADS_PER_PLACE = 4   # ExecutionStrategy.num_threads = 0


def resolve_places(places, executor_place=None):
    """The places list: as given (Place objects or 'cpu' / 'gpu:x' strings), else CPU_NUM
    CPU places (every GPU when the Executor runs on one). All of one kind, the Executor's
    (Paddle: "Place type not match")."""
    if places is None:
        return cuda_places() if isinstance(executor_place, CUDAPlace) else cpu_places()
    resolved = [as_place(p) for p in (places if isinstance(places, (list, tuple)) else [places])]
    if not resolved:
        raise ValueError("places is empty")
    kinds = {type(p) for p in resolved}
    if len(kinds) > 1 or executor_place is not None and type(executor_place) not in kinds:
        raise ValueError("places %s: every place must be of one kind, the Executor's (%r); "
                         "Paddle says \"Place type not match. You may set wrong type of "
                         "places.\"" % (resolved, executor_place))
    return resolved


def _lod_feed(value):
    """(rows, LoD) of a feed that carries a LoD (a LoDTensor, an (array, lengths) pair), or
    None."""
    if isinstance(value, Tensor) and value.recursive_sequence_lengths():
        return np.asarray(value), check_lengths(value.recursive_sequence_lengths(), "feed")
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], (list, tuple)):
        return np.asarray(value[0]), check_lengths(value[1], "feed")
    return None


def _rows(value):
    """The samples of a feed: its top-level sequences when it carries a LoD, else dim 0."""
    lod_feed = _lod_feed(value)
    if lod_feed is not None:
        return len(lod_feed[1][0])
    shape = np.shape(np.asarray(value) if isinstance(value, Tensor) else value)
    return shape[0] if shape else 1     # (a LoDTensor's shape is a method: shape())


def split_feed(feed, n, persistable=(), partial=False):
    """A dict feed split along dim 0 over n devices; later devices take the extra samples
    (seed 001: 3 samples on 2 devices -> [0] | [1, 2]). A variable named in `persistable`
    fed one sample (a scalar, or dim 0 of 1) goes whole to every device, as Paddle 1.8.5
    copies it (n samples are split like any other). A list feed is one dict per device.
    `partial` (an inference program, Paddle's partial feed): a batch of k < n samples, or a
    list of k < n dicts, feeds only the first k devices: fewer than n parts come back."""
    if isinstance(feed, (list, tuple)):
        if len(feed) != n and not (partial and 0 < len(feed) < n):
            raise ValueError("feed is a list of %d dicts but there are %d devices; give one "
                             "dict per device" % (len(feed), n))
        for i, f in enumerate(feed):
            if not isinstance(f, dict):
                raise TypeError("feed[%d] must be a dict of name -> array, got %s"
                                % (i, type(f).__name__))
        return [dict(f) for f in feed]
    if not isinstance(feed, dict):
        raise ValueError("feed must be a dict (split over devices) or a list of dicts, got %s"
                         % type(feed).__name__)
    if partial:
        n = _partial_count(feed, n, persistable)
    parts = [{} for _ in range(n)]
    for name, value in feed.items():
        total = _rows(value)
        lod_feed = _lod_feed(value)
        if lod_feed is not None and n > 1:
            _split_sequences(name, lod_feed, total, parts)
            continue
        if total == 1 and (n == 1 or name in persistable):
            for i, part in enumerate(parts):   # own copies: optimizer ops update in place
                part[name] = value if i == 0 or np.isscalar(value) else \
                    np.array(value, copy=True)
            continue
        value = np.asarray(value)
        if value.ndim == 0:
            raise FeedError("feed %r is a scalar: a feed split over places needs a batch "
                            "dimension (or feed a list with one dict per place)" % name)
        if total == 0:
            raise FeedError("feed %r: the batch is empty (shape %s): feed at least one "
                            "sample per place" % (name, list(value.shape)))
        if name in persistable and total != n:
            raise FeedError("feed %r is persistable: feed 1 sample (copied to each of the %d "
                            "devices) or %d (one each), got %d" % (name, n, n, total))
        if total < n:
            raise FeedError("feed %r has %d samples, fewer than the %d devices; drop this "
                            "batch or feed a list with one dict per device" % (name, total, n))
        start = 0
        for part, size in zip(parts, _shares(total, n)):
            part[name] = value[start:start + size]
            start += size
    return parts


def _shares(total, n):
    """How many of `total` samples each of n devices takes: later devices the extras."""
    base, extra = divmod(total, n)
    return [base + (1 if i >= n - extra else 0) for i in range(n)]


def _split_sequences(name, lod_feed, total, parts):
    """A LoD feed split by whole top-level sequences, as dim 0 is split (specs/lod.md):
    each device gets its sequences' rows and their LoD."""
    rows, lod = lod_feed
    if total < len(parts):
        raise FeedError("feed %r has %d sequences, fewer than the %d devices; drop this "
                        "batch or feed a list with one dict per device"
                        % (name, total, len(parts)))
    start = 0
    for part, size in zip(parts, _shares(total, len(parts))):
        part_rows, part_lod = sequence_slice(rows, lod, start, start + size)
        part[name] = (part_rows, [list(level) for level in part_lod])
        start += size


def _partial_count(feed, n, persistable):
    """How many devices a partial feed fills: min(samples, n) of the non-persistable feeds,
    the same for all of them (Paddle 1.8.5's rule); persistable ones of more than one
    sample must reach at least as many devices."""
    counts = {name: min(_rows(v), n) for name, v in feed.items() if name not in persistable}
    if len(set(counts.values())) > 1:
        raise FeedError("partial feed: the non-persistable feeds fill different numbers of "
                        "devices %s; feed the same number of samples to each" % counts)
    active = next(iter(counts.values()), n)
    for name, value in feed.items():
        rows = _rows(value)
        if name in persistable and rows != 1 and min(rows, n) < active:
            raise FeedError("partial feed: persistable %r has %d samples, fewer than the %d "
                            "devices the other feeds fill" % (name, rows, active))
    return max(active, 1)


def owners_by_size(params, n_devices):
    """Reduce strategy: each parameter's owner, balancing total size; ties by name, so every
    process computes the same assignment."""
    load = [0] * n_devices
    owner = {}
    for p in sorted(params, key=lambda v: (-int(np.prod(v.shape)), v.name)):
        d = min(range(n_devices), key=lambda i: (load[i], i))
        owner[p.name] = d
        load[d] += int(np.prod(p.shape))
    return owner


# -- program rewriting -----------------------------------------------------------------

def _param_grads(block):
    """[(param, grad, index of the last backward op writing grad)] in program order."""
    last = {}
    for i, op in enumerate(block.ops):
        role_var = op.attrs.get("op_role_var") or []
        if op.attrs.get("op_role", 0) & OpRole.Backward and role_var:
            for p, g in zip(role_var[0::2], role_var[1::2]):
                if g in op.output_arg_names:
                    last[(p, g)] = i
    return sorted(((p, g, i) for (p, g), i in last.items()), key=lambda t: t[2])


def _scale_loss_grad(block, loss_name, strategy, total_devices):
    from ..compiler.strategy import BuildStrategy
    scale = strategy.gradient_scale_strategy
    target = grad_var_name(loss_name)
    for i, op in enumerate(block.ops):
        if op.attrs.get("op_role") == OpRole.Backward | OpRole.Loss and \
                op.output_arg_names == [target]:
            if scale == BuildStrategy.GradientScaleStrategy.Customized:
                block._remove_op(i)       # the user feeds loss@GRAD
            elif scale == BuildStrategy.GradientScaleStrategy.One:
                op._set_attr("value", 1.0)
            else:
                op._set_attr("value", 1.0 / total_devices)
            return


def _sync_batch_norm(program):
    """sync_batch_norm: batch_norm (and its grad) become sync_batch_norm, before the fusion
    passes, which then fuse the synchronized op (fusing first left fused batch norms
    unsynchronized, each place normalizing its own rows)."""
    for op in program.global_block().ops:
        if op.type in ("batch_norm", "batch_norm_grad"):
            op.type = "sync_" + op.type
            op.op_def = get_op_def(op.type)
    return program


def _rewrite(program, loss_name, strategy, device, total_devices, owner):
    """This device's program: collectives inserted, Reduce-mode updates kept by owners."""
    from ..compiler.strategy import BuildStrategy
    block = program.global_block()
    if loss_name is None or total_devices == 1:
        return program
    _scale_loss_grad(block, loss_name, strategy, total_devices)
    pgs = _param_grads(block)
    if not pgs:
        return program
    reduce_mode = strategy.reduce_strategy == BuildStrategy.ReduceStrategy.Reduce
    comm_type = "c_reduce_sum" if reduce_mode else "c_allreduce_sum"

    def attrs(names):
        a = {"op_role": OpRole.Backward}
        if reduce_mode:
            a["roots"] = [owner[p] for p in names]
        return a

    if strategy.fuse_all_reduce_ops:
        # one bucket for every gradient, before the first update
        first_opt = next((i for i, op in enumerate(block.ops)
                          if op.attrs.get("op_role", 0) & OpRole.Optimize), len(block.ops))
        grads = [g for _, g, _ in pgs]
        block._insert_op(first_opt, type=comm_type, inputs={"X": grads},
                         outputs={"Out": grads}, attrs=attrs([p for p, _, _ in pgs]))
    else:
        for p, g, i in reversed(pgs):
            block._insert_op(i + 1, type=comm_type, inputs={"X": [g]}, outputs={"Out": [g]},
                             attrs=attrs([p]))
    if reduce_mode:
        _keep_owned_updates(block, owner, device, strategy.fuse_broadcast_ops)
    return program


def _keep_owned_updates(block, owner, device, fuse_broadcast):
    last_update = {}
    for i in reversed(range(len(block.ops))):
        op = block.ops[i]
        role_var = op.attrs.get("op_role_var") or []
        if op.attrs.get("op_role", 0) & OpRole.Optimize and role_var and role_var[0] in owner:
            if owner[role_var[0]] != device:
                block._remove_op(i)
            else:
                last_update.setdefault(role_var[0], i)
    params = sorted(owner, key=lambda p: owner[p])
    if fuse_broadcast:
        block.append_op(type="c_broadcast", inputs={"X": params}, outputs={"Out": params},
                        attrs={"roots": [owner[p] for p in params], "op_role": OpRole.Optimize})
        return
    # Non-owners have no update op to follow: their broadcasts go where the owner's would,
    # i.e. all at the end in one fixed order, identical on every device.
    for p in sorted(owner):
        block.append_op(type="c_broadcast", inputs={"X": [p]}, outputs={"Out": [p]},
                        attrs={"roots": [owner[p]], "op_role": OpRole.Optimize})


# -- running ---------------------------------------------------------------------------

class _DeviceSet:
    """The compiled state of one CompiledProgram in one scope."""

    def __init__(self, compiled, scope, executor_place):
        self.compiled = compiled
        self.scope = scope
        self.version = compiled._program._version
        self.places = resolve_places(compiled._places, executor_place) \
            if compiled._is_data_parallel else [None]
        n_local = len(self.places)
        strategy = compiled._build_strategy or _default_strategy()
        strategy._finalize()
        self.strategy = strategy
        self.exec_strategy = compiled._exec_strategy
        mpi = launch.mpi_comm() if compiled._is_data_parallel else None
        if mpi is not None:
            self.comm = HierarchicalCommunicator(n_local, mpi)
        else:
            trainers = strategy.num_trainers if compiled._is_data_parallel else 1
            self.comm = InProcessCommunicator(n_local, strategy.trainer_id, trainers)
            if trainers > 1:
                raise ValueError("num_trainers=%d needs one process per trainer: launch with "
                                 "`mpirun -n %d python -m refimpl run ...`" % (trainers, trainers))
        self.mpi = mpi
        self.envs = [scope._values] + [{} for _ in range(n_local - 1)]
        self.initialized = False
        self.iterations = 0
        self.plans = {}
        self.has_local_scopes = False   # temporaries of a run kept (until dropped)

    @property
    def n_local(self):
        return len(self.envs)

    def _programs(self, protected):
        compiled = self.compiled
        source = compiled._program
        if self.strategy.sync_batch_norm:
            source = _sync_batch_norm(source.clone())
        base = apply_passes(source, self.strategy, protected)
        if base is compiled._program:
            base = base.clone()
        params = base.global_block().all_parameters()
        total = self.comm.nranks
        owner = owners_by_size([p for p in params if p.trainable], total)
        programs = []
        for d in range(self.n_local):
            prog = base.clone() if d < self.n_local - 1 else base
            programs.append(_rewrite(prog, compiled._loss_name, self.strategy,
                                     self.comm.global_rank(d), total, owner))
        return programs

    def plans_for(self, feed_names, fetch_names):
        key = (tuple(sorted(feed_names)), tuple(fetch_names))
        if key not in self.plans:
            programs = self._programs(set(fetch_names) | {self.compiled._loss_name} - {None})
            # memory_optimize False keeps every temporary until the run ends; None frees
            # each after its last use (garbage collection, on by default in Paddle too);
            # True also hands the freed buffers to later ops of the same shape and dtype,
            # and keeps no large forward work (im2col columns) for the grad ops.
            memory_optimize = self.strategy.memory_optimize
            plans = [Plan(p, feed_names, fetch_names, eager_delete=memory_optimize is not False,
                          inplace=self.strategy.enable_inplace,
                          reuse_buffers=memory_optimize is True,
                          addto=self.strategy.enable_addto,
                          hand_off="little" if memory_optimize is True else True,
                          wrap_kernel=label_collectives)
                     for p in programs]
            runners = [self._runner(plan) for plan in plans]
            self.plans[key] = (programs, plans, runners)
        return self.plans[key]

    def _runner(self, plan):
        es = self.exec_strategy
        threads = es.num_threads if es is not None else 0
        if threads == 0:
            # seed 002: device_count x 4 threads in all, i.e. 4 for each place
            threads = THREADS_PER_PLACE
        if threads > 1 and not self.strategy.enable_sequential_execution:
            return ThreadedRunner(plan, threads)
        return plan

    def initialize(self, program):
        """First run: parameters go from device 0 (the scope) to the other devices, or are
        shared with `share_vars_from`; under MPI rank 0's values win."""
        persistable = [n for n, v in program.global_block().vars.items() if v.persistable]
        scope_values = self.scope._values
        if self.mpi is not None:
            arrays = [scope_values[n] for n in sorted(persistable)
                      if scope_values.get(n) is not None]
            self.comm.broadcast_from_rank0(arrays)
        source = self.compiled._share_vars_from
        if source is not None:
            other = source._device_sets.get(id(self.scope))
            if other is None or not other.initialized:
                raise RuntimeError("share_vars_from: the CompiledProgram to share parameters "
                                   "with has not run yet; run it before this one")
            if other.n_local != self.n_local:
                raise ValueError("share_vars_from: %d places here, %d there"
                                 % (self.n_local, other.n_local))
            for d in range(1, self.n_local):
                for n in persistable:
                    if n in other.envs[d]:
                        self.envs[d][n] = other.envs[d][n]
        for d in range(1, self.n_local):
            for n in persistable:
                if n not in self.envs[d] and scope_values.get(n) is not None:
                    self.envs[d][n] = scope_values[n].copy()
        if source is None:
            for env in self.envs:
                _coalesce_optimizer_state(program, env)
        self.initialized = True

    def _is_inference(self, block):
        """A program without backward or optimizer ops: its places run independently, so a
        batch smaller than the places feeds only some of them (Paddle's partial feed)."""
        return self.n_local > 1 and not any(
            op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize)
            for op in block.ops)

    def run(self, feed, fetch_names, return_numpy, return_merged=True):
        n = self.n_local
        block = self.compiled._program.global_block()
        if not feed:     # started fluid readers feed the run, a batch per place
            feed = reader_feeds(self.compiled._program,
                                n if self.compiled._is_data_parallel else 1) or feed
        if isinstance(feed, dict):
            feed = known_feeds(block, feed)
        elif isinstance(feed, (list, tuple)):
            feed = [known_feeds(block, f) for f in feed]
        persistable = {name for name, v in block.vars.items() if v.persistable}
        feeds = split_feed(feed or {}, n, persistable, self._is_inference(block)) \
            if self.compiled._is_data_parallel else [feed or {}]
        active = len(feeds)          # fewer than n: a partial feed (inference)
        programs, plans, runners = self.plans_for(list(feeds[0]), fetch_names)
        if not self.initialized:
            self.initialize(programs[0])
        self.has_local_scopes = True
        block = programs[0].global_block()
        for f in feeds:
            for name, value in f.items():
                var = block._find_var_recursive(name)
                if var is None:    # not in the program the passes produced
                    raise FeedError("feed %r: the program has no variable of that name" % name)
                f[name] = check_feed(var, value)
        self._check_customized_loss_grad(feeds[0])
        es = self.exec_strategy
        iterations = es.num_iteration_per_run if es else 1
        drop_every = max(1, es.num_iteration_per_drop_scope if es else 1)
        results = [None] * active
        errors = [None] * active

        self.comm.begin_run()

        def work(d):
            context.set_current(context.DeviceContext(self.comm, d))
            env = self.envs[d]
            me = self.comm.watch.join(d, "place thread")
            try:
                sched = programs[d].lr_scheduler
                for k in range(max(1, iterations)):
                    env.update(feeds[d])
                    if sched is not None:
                        env[sched._var_name] = np.array([sched._run_value()], dtype=np.float32)
                    runners[d].run(env)
                    outs = [env.get(name) for name in fetch_names]
                    results[d] = [o.copy() if o is not None and block._find_var_recursive(
                        name).persistable else o for o, name in zip(outs, fetch_names)]
                    # seed 002: temporaries are dropped every num_iteration_per_drop_scope
                    # iterations, and at the end of any iteration that fetches
                    if fetch_names or (self.iterations * iterations + k + 1) % drop_every == 0:
                        plans[d].drop_temporaries(env)
            except BaseException as e:   # reported below; the others must not wait for us
                errors[d] = e
                self.comm.abort()
            finally:
                self.comm.watch.leave(me)
                context.set_current(None)

        if active == 1:
            work(0)
        else:
            threads = [threading.Thread(target=work, args=(d,)) for d in range(active)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        failures = [e for e in errors if e is not None]
        if failures:
            self.comm.reset()
            raise _first_cause(failures)
        self.iterations += 1
        return self._merge(results, fetch_names, return_numpy, return_merged)

    def _check_customized_loss_grad(self, feed):
        from ..compiler.strategy import BuildStrategy
        loss = self.compiled._loss_name
        if self.compiled._is_data_parallel and loss is not None and \
                self.strategy.gradient_scale_strategy == \
                BuildStrategy.GradientScaleStrategy.Customized and \
                grad_var_name(loss) not in feed:
            raise FeedError("gradient_scale_strategy is Customized: feed %r (one value per "
                            "device)" % grad_var_name(loss))

    def _merge(self, results, fetch_names, return_numpy, return_merged=True):
        """Per fetch: the places' values concatenated (return_merged), or a list of them."""
        merged = []
        for i, name in enumerate(fetch_names):
            parts = [r[i] for r in results]
            if any(p is None for p in parts):
                raise ValueError("fetch %r has no value after the run: no op produced it and "
                                 "it was not fed" % name)
            if not self.compiled._is_data_parallel:
                merged.append(parts[0])
            elif not return_numpy:
                merged.append([Tensor(value=p) for p in parts])
                continue
            elif any(lod_of(p) for p in parts):
                _as_results(parts, True)     # refuses values that carry a LoD, as Paddle
            elif not return_merged:
                merged.append([np.asarray(p) for p in parts])
                continue
            else:
                merged.append(np.stack(parts) if parts[0].ndim == 0
                              else np.concatenate(parts, axis=0))
        if not return_numpy and not self.compiled._is_data_parallel:
            return _as_results(merged, False)
        return [as_fetched(m) if not isinstance(m, list) else m for m in merged]

    def drop_local_scopes(self):
        """Forget everything but persistable values on every device."""
        self.has_local_scopes = False
        for env, plans in ((env, p) for env in self.envs for p in self.plans.values()):
            for plan in plans[1]:
                plan.drop_temporaries(env)


def _first_cause(failures):
    """The error to report: a place's own failure rather than the aborts it caused in the
    others' collectives; a stall or collective mismatch as itself, not wrapped in the op
    that met it."""
    causes = [e.__cause__ if isinstance(e.__cause__, _RUN_ERRORS) else e for e in failures]
    own = [e for e in causes if not isinstance(e, CommunicationAborted)]
    return (own or causes)[0]


def _coalesce_optimizer_state(program, env):
    """fuse_all_optimizer_ops: put the variables a fused_optimizer updates (its parameters,
    momentum's velocities) into one flat buffer per slot, as views, so the update is one
    kernel call. The values are unchanged; the scope holds the views from now on."""
    from ..ops.fused import COALESCED_SLOTS
    for op in program.global_block().ops:
        if op.type != "fused_optimizer":
            continue
        sub_ops = op.attrs["sub_ops"]
        for slot in COALESCED_SLOTS.get(sub_ops[0][0], ()):
            names = [sub[1][slot][0] for sub in sub_ops]
            arrays = [env.get(n) for n in names]
            if any(a is None for a in arrays) or len({a.dtype for a in arrays}) != 1:
                continue
            flat = np.concatenate([a.reshape(-1) for a in arrays])
            offset = 0
            for n, a in zip(names, arrays):
                env[n] = flat[offset:offset + a.size].reshape(a.shape)
                offset += a.size


def _default_strategy():
    from ..compiler.strategy import BuildStrategy
    return BuildStrategy()


def run_compiled(compiled, executor, feed, fetch_names, scope, return_numpy,
                 return_merged=True):
    strategy = compiled._exec_strategy
    if strategy is not None and strategy._dry_run:
        if fetch_names:
            raise ValueError("ExecutionStrategy._dry_run runs no op, so nothing can be "
                             "fetched; got fetch_list %s" % list(fetch_names))
        return []
    sets = compiled._device_sets
    ds = sets.get(id(scope))
    if ds is None or ds.version != compiled._program._version or ds.scope is not scope:
        ds = _DeviceSet(compiled, scope, executor.place)
        sets[id(scope)] = ds
    return ds.run(feed, fetch_names, return_numpy, return_merged)
