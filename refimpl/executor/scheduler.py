"""Dependency-graph execution of a Plan on a thread pool (ExecutionStrategy.num_threads).

Ops become ready when every op they depend on has finished: the last writer of each
variable they read (read-after-write), and the last writer and the readers since then of
each variable they write (write-after-write, write-after-read). Ready ops run on
`num_threads` threads; numpy/BLAS and the Cython kernels release the GIL, so independent
heavy branches overlap. Temporaries are freed when their last user finishes.
"""
import threading
import time
from collections import deque

from ..framework.errors import names_its_op
from ..parallel.stall import StallError, StallWatch
from .binding import describe_op, talks_to_places

__all__ = ["op_dependencies", "max_parallelism", "ThreadedRunner"]


def op_dependencies(ops):
    """deps[i] = set of op indices op i must wait for. Collective ops also wait for the
    previous collective, so every device issues them in the same (program) order."""
    last_writer = {}
    readers_since_write = {}
    deps = []
    last_collective = None
    for i, op in enumerate(ops):
        d = set()
        if talks_to_places(op):
            if last_collective is not None:
                d.add(last_collective)
            last_collective = i
        for n in op.input_arg_names:
            if n in last_writer:
                d.add(last_writer[n])
        for n in op.output_arg_names:
            if n in last_writer:
                d.add(last_writer[n])
            d.update(readers_since_write.get(n, ()))
        d.discard(i)
        deps.append(d)
        for n in op.input_arg_names:
            readers_since_write.setdefault(n, set()).add(i)
        for n in op.output_arg_names:
            last_writer[n] = i
            readers_since_write[n] = set()
    return deps


def max_parallelism(deps):
    """Widest level of the dependency DAG (ops with the same longest-path depth)."""
    depth = []
    for d in deps:
        depth.append(1 + max((depth[j] for j in d), default=-1))
    widths = {}
    for level in depth:
        widths[level] = widths.get(level, 0) + 1
    return max(widths.values(), default=0)


# An op must take this long to be worth running on a helper thread: waking one costs tens
# of microseconds, and a helper can wait up to the interpreter's switch interval (5 ms) for
# the GIL while the caller runs Python code between kernels.
MIN_HANDOFF_S = 1e-3
# Runs that measure every op's cost before deciding whether helpers can ever pay.
MEASURED_RUNS = 2


class ThreadedRunner:
    """Runs a Plan's bound ops in dependency order on `num_threads` threads.

    The calling thread runs every op it can, inline, in a chain without hand-offs. Helper
    threads only take *heavy* ops (measured at least `min_handoff_s` on the last run) when
    another heavy op is ready beside the one the caller runs, so cheap ops never pay a
    hand-off. After MEASURED_RUNS runs, if no two heavy ops are independent (nothing could
    ever overlap), the runner runs the plan's plain loop from then on."""

    def __init__(self, plan, num_threads, min_handoff_s=None):
        self.plan = plan
        self.num_threads = num_threads
        self.min_handoff_s = MIN_HANDOFF_S if min_handoff_s is None else min_handoff_s
        ops = plan.ops
        self.deps = op_dependencies(ops)
        self.n_deps = [len(d) for d in self.deps]
        self.successors = [[] for _ in ops]
        for i, d in enumerate(self.deps):
            for j in d:
                self.successors[j].append(i)
        # A temporary is freed when the last op touching it finishes, whatever the order.
        freeable = {n for names in (plan.free_after or ()) for n in names}
        self.uses = {}
        for op in ops:
            for n in set(op.input_arg_names + op.output_arg_names):
                if n in freeable:
                    self.uses[n] = self.uses.get(n, 0) + 1
        self.touches = [[n for n in set(op.input_arg_names + op.output_arg_names)
                         if n in freeable] for op in ops]
        self.cost = [0.0] * len(ops)       # seconds each op took on its last run
        self.heavy = self._heavy()
        self.runs_measured = 0
        self.in_order = False              # decided after MEASURED_RUNS runs

        self._helpers = []                 # persistent threads, started on first use
        self._job = None                   # the run in progress, shared with the helpers
        self._job_ready = threading.Condition()
        self._watch = StallWatch()         # when no data-parallel run provides one

    def _heavy(self):
        return [c >= self.min_handoff_s for c in self.cost]

    def _heavy_ops_can_overlap(self):
        """Whether two heavy ops are independent (neither is an ancestor of the other)."""
        ancestors = []       # bit j of ancestors[i]: op j must finish before op i
        heavy_so_far = 0     # bits of the heavy ops before op i in program order
        for i, d in enumerate(self.deps):
            bits = 0
            for j in d:
                bits |= ancestors[j] | (1 << j)
            ancestors.append(bits)
            if self.heavy[i]:
                if heavy_so_far & ~bits:
                    return True
                heavy_so_far |= 1 << i
        return False

    def run(self, env):
        """Run every op once."""
        if self.in_order:
            return self.plan.run(env)
        device = self.plan.group    # the place's communicator group (None: one place)
        watch = device.watch if device is not None else self._watch
        if device is None:
            watch.begin_run()
        job = _Job(self, env, watch)
        self._start_helpers()
        with self._job_ready:
            self._job = job
            self._job_ready.notify_all()
        me = watch.join(device.local_rank if device is not None else None, "caller")
        try:
            job.work(helper=False)
            job.wait_done()
        finally:
            watch.leave(me)
            with self._job_ready:
                self._job = None
        self.plan.clear_pool()
        if names_its_op(job.error) or job.failed_op is None and job.error is not None:
            raise job.error
        if job.error is not None:
            raise self.plan._explain(job.failed_op, job.error, env) from job.error
        self.heavy = self._heavy()
        self.runs_measured += 1
        if self.runs_measured == MEASURED_RUNS:
            self.in_order = not self._heavy_ops_can_overlap()

    def _start_helpers(self):
        while len(self._helpers) < self.num_threads - 1:
            t = threading.Thread(target=self._helper_loop, args=(len(self._helpers) + 1,),
                                 name="scheduler helper %d" % (len(self._helpers) + 1),
                                 daemon=True)
            t.start()
            self._helpers.append(t)

    def _helper_loop(self, number):
        seen = None
        while True:
            with self._job_ready:
                while self._job is None or self._job is seen:
                    self._job_ready.wait()
                job = seen = self._job
            me = job.watch.join(job.device.local_rank if job.device is not None else None,
                                "helper %d" % number)
            try:
                job.work(helper=True)
            finally:
                job.watch.leave(me)


class _Job:
    """One run of a ThreadedRunner: dependency counters, the ready queues, the free list.

    Wake-up rule: a thread that leaves ops in the ready queues wakes whoever can run them
    -- the caller for light ops (only it runs them), helpers for heavy ones -- under the
    lock, right after it takes its own op and before it may wait itself. (A helper that
    finished an op making only light ops ready used to wait for heavy work first and wake
    the caller afterwards, i.e. never: the caller slept on ready work, and its place never
    reached the next collective, where the other places waited forever. Issue #13.)"""

    def __init__(self, runner, env, watch):
        self.runner = runner
        self.env = env
        self.watch = watch
        self.device = runner.plan.group   # helpers take part in the run for this place
        self.remaining_deps = list(runner.n_deps)
        self.remaining_uses = dict(runner.uses)
        self.ready_heavy, self.ready_light = deque(), deque()
        for i, n in enumerate(self.remaining_deps):
            if n == 0:
                self._make_ready(i)
        self.lock = threading.Lock()
        self.caller_wakes = threading.Condition(self.lock)   # any op ready, or the end
        self.helper_wakes = threading.Condition(self.lock)   # a heavy op ready, or the end
        self.running = set()      # ops taken and not finished
        self.done = 0
        self.total = len(runner.plan.runs)
        self.error = None
        self.failed_op = None

    def _make_ready(self, i):
        (self.ready_heavy if self.runner.heavy[i] else self.ready_light).append(i)

    def _finish(self, i):
        """Under the lock: free dead temporaries, release successors."""
        env, runner = self.env, self.runner
        self.running.discard(i)
        for n in runner.touches[i]:
            self.remaining_uses[n] -= 1
            if self.remaining_uses[n] == 0:
                runner.plan.release(env, n)
        for j in runner.successors[i]:
            self.remaining_deps[j] -= 1
            if self.remaining_deps[j] == 0:
                self._make_ready(j)
        self.done += 1

    def _over(self):
        return self.error is not None or self.done >= self.total

    def _take(self, helper):
        """Under the lock: an op this thread may run, or None. Helpers take heavy ops
        only; the caller takes heavy ones first."""
        if self.ready_heavy:
            return self.ready_heavy.popleft()
        if self.ready_light and not helper:
            return self.ready_light.popleft()
        return None

    def _wake_for_queued(self, helper):
        """Under the lock: wake whoever can run what is still queued."""
        if self.ready_heavy:
            self.helper_wakes.notify(len(self.ready_heavy))
        if helper and (self.ready_light or self.ready_heavy):
            self.caller_wakes.notify()

    def _next(self, helper):
        """Under the lock: the next op for this thread, waiting if needed; None when the run
        is over."""
        wakes = self.helper_wakes if helper else self.caller_wakes
        while not self._over():
            i = self._take(helper)
            self._wake_for_queued(helper)
            if i is not None:
                self.running.add(i)
                return i
            self.watch.wait(wakes, lambda: self._over() or self.ready_heavy or
                            (self.ready_light and not helper),
                            lambda: self._describe_wait(helper))
        self.caller_wakes.notify_all()
        self.helper_wakes.notify_all()
        return None

    def work(self, helper):
        runs, cost = self.runner.plan.runs, self.runner.cost
        i = None
        while True:
            with self.lock:
                if i is not None:
                    self._finish(i)
                try:
                    i = self._next(helper)
                except StallError as e:
                    self._fail(e, None)
                    return
                if i is None:
                    return
            start = time.perf_counter()
            try:
                runs[i](self.env)
            except Exception as e:  # reported once, by the caller, with the op's context
                with self.lock:
                    self.running.discard(i)
                    self._fail(e, i)
                return
            cost[i] = time.perf_counter() - start

    def _fail(self, error, i):
        """Under the lock: the run fails (the first error wins); wake every thread."""
        if self.error is None:
            self.error, self.failed_op = error, i
        self.caller_wakes.notify_all()
        self.helper_wakes.notify_all()

    def wait_done(self):
        """Until the run is over and no helper still runs one of its ops (after an error,
        helpers finish the op they are in before the caller may report it)."""
        with self.lock:
            self.watch.wait(self.caller_wakes, lambda: self._over() and not self.running,
                            lambda: "waiting for ops still running on helpers: %s"
                                    % self._describe_ops(self.running))

    # -- stall reports -------------------------------------------------------------------

    def _describe_ops(self, indices):
        ops = self.runner.plan.ops
        return ", ".join("#%d %s" % (i, describe_op(ops[i])) for i in sorted(indices)) \
            or "none"

    def _describe_wait(self, helper):
        if helper:
            return "idle, waiting for a heavy op to become ready"
        waiting_on = [i for i in range(self.total) if self.remaining_deps[i] > 0][:3]
        return ("waiting for an op to become ready (%d of %d finished); running on this "
                "place: %s; ready: %s; next ops still waiting for inputs: %s"
                % (self.done, self.total, self._describe_ops(self.running),
                   self._describe_ops(list(self.ready_light) + list(self.ready_heavy)),
                   self._describe_ops(waiting_on)))
