"""Runs one program per place, one thread per place (a CompiledProgram's run; the programs
come from refimpl.compiler.compile_program).

  plans    one Plan per place program (memory_optimize, enable_inplace, enable_addto set
           how it frees and reuses buffers), run by a ThreadedRunner (scheduler.py) unless
           ExecutionStrategy.num_threads is 1 or execution is sequential
  values   place 0 runs on the scope's dict, so trained parameters are visible in the scope;
           the other places get copies of its persistable values at the first run (under
           MPI rank 0's values win), or share them with `share_vars_from`
  run      the feed split over the places (data parallel; the program's readers read a
           batch per place, reader_feeds.py), each place's plan in its own thread with its
           communicator group (refimpl.parallel), the fetches merged
"""
import collections
import threading

import numpy as np

from ..framework.errors import DeviceFeedError, FeedError
from ..framework.fetched import as_fetched
from ..framework.lod import as_plain, check_lengths, lod_of, sequence_slice, with_lod
from ..framework.scope import Scope, Tensor
from ..parallel import launch
from ..parallel.communicator import (CollectiveMismatch, CommunicationAborted,
                                     HierarchicalCommunicator, InProcessCommunicator)
from ..parallel.group import DeviceGroup
from ..parallel.nccl import NcclClique, nccl_available
from ..parallel.stall import StallError
from .direct import coalesce_optimizer_state
from .executor import (Plan, _as_results, check_feeds, feed_learning_rate, fetch_values,
                       known_feeds)
from .nan_inf import checking
from .op_events import timed_runs
from .reader_feeds import with_reader_feeds
from .scheduler import ThreadedRunner
from ..xp import (device as gpu_device, drop_deferred_checks, is_device_array,
                  run_deferred_checks, to_device, to_host)

__all__ = ["MultiPlaceRunner", "split_feed"]

THREADS_PER_PLACE = 4   # ExecutionStrategy.num_threads = 0
# errors about the run as a whole, which ops meet rather than cause
_RUN_ERRORS = (CommunicationAborted, CollectiveMismatch, StallError)


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
        if lod_feed is not None:
            if n > 1:
                _split_sequences(name, lod_feed, total, parts)
            else:                       # one place: the feed whole, its LoD with it
                parts[0][name] = value
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
            raise DeviceFeedError("feed %r is persistable: feed 1 sample (copied to each of "
                                  "the %d devices) or %d (one each), got %d"
                                  % (name, n, n, total))
        if total < n:
            raise DeviceFeedError("feed %r has %d samples, fewer than the %d devices; drop "
                                  "this batch or feed a list with one dict per device"
                                  % (name, total, n))
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
        raise DeviceFeedError("feed %r has %d sequences, fewer than the %d devices; drop "
                              "this batch or feed a list with one dict per device"
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


# what a runner builds once per (feed names, fetch names): per place its program, plan and
# plan runner, and the names of the program's non-persistable variables (the execution
# scope's, see MultiPlaceRunner._record_exec_scopes)
PlacePlans = collections.namedtuple("PlacePlans", "programs plans runners temporaries")


class MultiPlaceRunner:
    """The running state of one compiled program in one scope: per place its values, and
    per (feed names, fetch names) its programs, plans and plan runners.

    compile(fetch_names, ranks, nranks) -> [one program per place]
    n_places, data_parallel    data_parallel splits the feed and concatenates fetches
    build_strategy             the finalized BuildStrategy (num_trainers, trainer_id,
                               memory_optimize, enable_inplace, enable_addto, sequential)
    exec_strategy              ExecutionStrategy or None
    share_from()               the runner whose persistable values to share, or None
                               (`share_vars_from`, looked up at the first run)
    required_feeds             {name: message}: names every run must feed
    persistable                the program's persistable names (a feed of one sample
                               goes whole to every place: split_feed)
    version                    the version of the program compiled (its owner's staleness
                               check)
    source_program             the program as the user built it (its variables take feeds,
                               its started readers feed runs)
    inference                  a program without backward or optimizer ops: its places run
                               independently, so a batch smaller than the places feeds only
                               some of them (Paddle's partial feed)
    """

    def __init__(self, compile, n_places, data_parallel, build_strategy, exec_strategy, scope,
                 share_from=None, required_feeds=None, persistable=(), version=None,
                 source_program=None, inference=False, device_ids=None):
        self.compile = compile
        self.source_program = source_program
        self.inference = inference and n_places > 1
        # per place: the GPU it runs on, None for the CPU (specs/gpu.md)
        self.device_ids = list(device_ids or [None] * n_places)
        self.version = version
        self.persistable = frozenset(persistable)
        self.data_parallel = data_parallel
        self.strategy = build_strategy
        self.exec_strategy = exec_strategy
        self.scope = scope
        self.share_from = share_from
        self.required_feeds = dict(required_feeds or {})
        mpi = launch.mpi_comm() if data_parallel else None
        if mpi is not None:
            self.comm = HierarchicalCommunicator(n_places, mpi)
        else:
            trainers = build_strategy.num_trainers if data_parallel else 1
            self.comm = InProcessCommunicator(n_places, build_strategy.trainer_id, trainers)
            if trainers > 1:
                raise ValueError("num_trainers=%d needs one process per trainer: launch with "
                                 "`mpirun -n %d python -m refimpl run ...`" % (trainers, trainers))
        self.mpi = mpi
        on_gpus = n_places > 1 and mpi is None and None not in self.device_ids
        self.nccl = NcclClique(self.device_ids) if on_gpus and nccl_available() else None
        self.envs = [scope._values] + [{} for _ in range(n_places - 1)]
        # each place's values seen as a Scope (Paddle's local scopes); after a run, each has
        # one kid, the run's execution scope (see _record_exec_scopes)
        self.place_scopes = [Scope(values=env) for env in self.envs]
        self.initialized = False
        self.iterations = 0
        self.plans = {}
        self.has_local_scopes = False   # temporaries of a run kept (until dropped)

    @property
    def n_local(self):
        return len(self.envs)

    def plans_for(self, feed_names, fetch_names):
        # (plans built while FLAGS_check_nan_inf is on check each op's outputs)
        key = (tuple(sorted(feed_names)), tuple(fetch_names), checking())
        if key not in self.plans:
            ranks = [self.comm.global_rank(d) for d in range(self.n_local)]
            programs = self.compile(fetch_names, ranks, self.comm.nranks)
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
                          group=DeviceGroup(self.comm, d, device_id=self.device_ids[d],
                                            nccl=self.nccl),
                          device="cpu" if self.device_ids[d] is None else "gpu")
                     for d, p in enumerate(programs)]
            runners = [self._runner(plan) for plan in plans]
            temporaries = [[n for n, v in p.global_block().vars.items() if not v.persistable]
                           for p in programs]
            self.plans[key] = PlacePlans(programs, plans, runners, temporaries)
        return self.plans[key]

    def _runner(self, plan):
        if plan.device == "gpu":
            return plan    # one stream per GPU: its ops are queued in order anyway
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
        if self.share_from is not None:
            other = self.share_from()
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
                    with gpu_device(self.device_ids[d]):   # a copy on place d's device
                        self.envs[d][n] = _copy_here(scope_values[n])
        if self.share_from is None and self.device_ids[0] is None:
            for env in self.envs:
                coalesce_optimizer_state(program, env)
        self.initialized = True

    def run(self, feed, fetch_names, return_numpy, return_merged=True):
        n = self.n_local
        # the program's readers feed the run, a batch per place
        feed = with_reader_feeds(self.source_program, feed, n if self.data_parallel else 1)
        if not self.data_parallel and isinstance(feed, (list, tuple)) and len(feed) == 1:
            feed = feed[0]      # one place: a loader's step of one dict, as Executor.run
        if isinstance(feed, dict):
            feed = known_feeds(self.source_program.global_block(), feed)
        elif isinstance(feed, (list, tuple)):
            feed = [known_feeds(self.source_program.global_block(), f) for f in feed]
        feeds = split_feed(feed or {}, n, self.persistable, self.inference) \
            if self.data_parallel else [feed or {}]
        active = len(feeds)          # fewer than n: a partial feed (inference)
        programs, plans, runners, temporaries = self.plans_for(list(feeds[0]), fetch_names)
        if not self.initialized:
            self.initialize(programs[0])
        self.has_local_scopes = True
        block = programs[0].global_block()
        feeds = [check_feeds(block, f) for f in feeds]
        for name, message in self.required_feeds.items():
            if name not in feeds[0]:
                raise FeedError(message)
        es = self.exec_strategy
        iterations = es.num_iteration_per_run if es else 1
        drop_every = max(1, es.num_iteration_per_drop_scope if es else 1)
        results = [None] * active
        errors = [None] * active
        self.comm.begin_run()

        def work(d):
            env = self.envs[d]
            me = self.comm.watch.join(d, "place thread")
            try:
                for k in range(max(1, iterations)):
                    env.update(feeds[d])
                    feed_learning_rate(programs[d], env)
                    if self.device_ids[d] is not None:
                        with gpu_device(self.device_ids[d]):
                            plans[d].move_scope_inputs(env)
                            for name in feeds[d]:    # (a LoD stays on the host)
                                if not lod_of(env[name]):
                                    env[name] = to_device(env[name])
                            drop_deferred_checks()
                            runners[d].run(env)
                            run_deferred_checks()
                            results[d] = fetch_values(block, env, fetch_names)
                    else:
                        timed = timed_runs(plans[d], d)     # the profiler's: in order
                        if timed is None:
                            runners[d].run(env)
                        else:
                            plans[d].run(env, timed)
                        results[d] = fetch_values(block, env, fetch_names)
                    # seed 002: temporaries are dropped every num_iteration_per_drop_scope
                    # iterations, and at the end of any iteration that fetches
                    if fetch_names or (self.iterations * iterations + k + 1) % drop_every == 0:
                        plans[d].drop_temporaries(env)
            except BaseException as e:   # reported below; the others must not wait for us
                errors[d] = e
                self.comm.abort()
            finally:
                self.comm.watch.leave(me)

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
        self._record_exec_scopes(temporaries, fetch_names, results,
                                 self.iterations * max(1, iterations) % drop_every == 0)
        return self._merge(results, return_numpy, return_merged)

    def _record_exec_scopes(self, temporaries, fetch_names, results, dropped):
        """Paddle runs each place in an execution scope, a kid of the place's scope holding
        the program's non-persistable variables, kept until num_iteration_per_drop_scope
        iterations have run. Its garbage collector has freed all of them but the fetched
        ones by then, as refimpl's plans have: the kid records that, each variable present,
        None but the fetched values. `temporaries`: per place, the names of its program's
        non-persistable variables; `dropped`: the scope's drop is due."""
        for d, place in enumerate(self.place_scopes):
            place.drop_kids()
            if dropped or d >= len(results):
                continue
            kid = place.new_scope()
            kid._values.update(dict.fromkeys(temporaries[d]))
            kid._values.update(zip(fetch_names, results[d]))

    def _merge(self, results, return_numpy, return_merged=True):
        """One value per fetch: the places' values concatenated along dim 0 (0-D stacked),
        or, return_merged=False, a list of them; with return_numpy=False as Tensors (one
        merged Tensor per fetch, or a list of them), as Paddle's FetchList."""
        if not self.data_parallel:
            return _as_results(results[0], return_numpy)
        fetches = list(zip(*results))
        if return_numpy:
            for parts in fetches:
                _as_results(parts, True)     # refuses values that carry a LoD, as Paddle
        return [_merged_fetch(parts, return_numpy, return_merged) for parts in fetches]

    def drop_local_scopes(self):
        """Forget everything but persistable values on every device."""
        self.has_local_scopes = False
        for place in self.place_scopes:
            place.drop_kids()
        for place_plans in self.plans.values():
            for env, plan in zip(self.envs, place_plans.plans):
                plan.drop_temporaries(env)


def _merged_fetch(parts, return_numpy, return_merged):
    """One fetch's value from the places' `parts`. A tensor array's (a list per place)
    merges element by element, or stays one array per place (as Paddle 1.8.5 returns
    them: its test_fetch_lod_tensor_array)."""
    if isinstance(parts[0], list):
        if return_merged:
            parts = [[_merged([to_host(e) for e in elements]) for elements in zip(*parts)]]
            return _as_results(parts, return_numpy)[0]
        return _as_results(parts, return_numpy)
    parts = [to_host(p) for p in parts]
    if not return_numpy:
        return Tensor(value=_merged(parts)) if return_merged else \
            [Tensor(value=p) for p in parts]
    return as_fetched(_merged(parts)) if return_merged else [np.asarray(p) for p in parts]


def _merged(parts):
    """The places' values of one fetch joined along dim 0 (0-D values stacked); values
    that all carry a LoD of the same depth join their sequences (Paddle's MergeLoDTensor)."""
    lods = [lod_of(p) for p in parts]
    arrays = [as_plain(np.asarray(p)) for p in parts]
    joined = np.stack(arrays) if arrays[0].ndim == 0 else np.concatenate(arrays, axis=0)
    if all(lods) and len({len(lod) for lod in lods}) == 1:
        return with_lod(joined, tuple(tuple(n for lod in lods for n in lod[level])
                                      for level in range(len(lods[0]))))
    return joined


def _copy_here(value):
    """A copy of `value`: a host array's on the host, a GPU array's on the current GPU
    (staged through the host: this runs once, at the first run)."""
    return to_device(to_host(value)) if is_device_array(value) else value.copy()


def _first_cause(failures):
    """The error to report: a place's own failure rather than the aborts it caused in the
    others' collectives; a stall or collective mismatch as itself, not wrapped in the op
    that met it."""
    causes = [e.__cause__ if isinstance(e.__cause__, _RUN_ERRORS) else e for e in failures]
    own = [e for e in causes if not isinstance(e, CommunicationAborted)]
    return (own or causes)[0]
