"""Dependency-graph execution of a Plan on a thread pool (ExecutionStrategy.num_threads).

Ops become ready when every op they depend on has finished: the last writer of each
variable they read (read-after-write), and the last writer and the readers since then of
each variable they write (write-after-write, write-after-read). Ready ops run on
`num_threads` worker threads; numpy/BLAS and the Cython kernels release the GIL, so
independent branches overlap. Temporaries are freed when their last user finishes.
"""
import threading
from collections import deque

from ..framework.errors import OpError
from ..ops.registry import get_op_def
from ..parallel import context

__all__ = ["op_dependencies", "max_parallelism", "ThreadedRunner"]


def _is_collective(op):
    return op.op_def.collective or any(get_op_def(t).collective
                                       for t in op.attrs.get("functor_list", ()))


def op_dependencies(ops):
    """deps[i] = set of op indices op i must wait for. Collective ops also wait for the
    previous collective, so every device issues them in the same (program) order."""
    last_writer = {}
    readers_since_write = {}
    deps = []
    last_collective = None
    for i, op in enumerate(ops):
        d = set()
        if _is_collective(op):
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


class ThreadedRunner:
    """Runs a Plan's bound ops in dependency order on `num_threads` threads."""

    def __init__(self, plan, num_threads):
        self.plan = plan
        self.num_threads = num_threads
        ops = plan.ops
        deps = op_dependencies(ops)
        self.n_deps = [len(d) for d in deps]
        self.successors = [[] for _ in ops]
        for i, d in enumerate(deps):
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

        self._helpers = []                 # persistent threads, started on first use
        self._job = None                   # the run in progress, shared with the helpers
        self._job_ready = threading.Condition()

    def run(self, env):
        """Run every op once. The calling thread works too and keeps the next ready op for
        itself, so a chain of ops runs without any hand-off; only when several ops are
        ready at once do the helper threads take the extra ones."""
        job = _Job(self, env)
        self._start_helpers()
        with self._job_ready:
            self._job = job
            self._job_ready.notify_all()
        job.work()
        job.wait_done()
        with self._job_ready:
            self._job = None
        self.plan.clear_pool()
        if isinstance(job.error, OpError):
            raise job.error
        if job.error is not None:
            raise self.plan._explain(job.failed_op, job.error, env) from job.error

    def _start_helpers(self):
        while len(self._helpers) < self.num_threads - 1:
            t = threading.Thread(target=self._helper_loop, daemon=True)
            t.start()
            self._helpers.append(t)

    def _helper_loop(self):
        seen = None
        while True:
            with self._job_ready:
                while self._job is None or self._job is seen:
                    self._job_ready.wait()
                job = seen = self._job
            context.set_current(job.device)
            try:
                job.work()
            finally:
                context.set_current(None)


class _Job:
    """One run of a ThreadedRunner: dependency counters, the ready queue, the free list."""

    def __init__(self, runner, env):
        self.runner = runner
        self.env = env
        # helpers act for the caller's device (collective ops look it up per thread)
        self.device = context.current()
        self.remaining_deps = list(runner.n_deps)
        self.remaining_uses = dict(runner.uses)
        self.ready = deque(i for i, n in enumerate(self.remaining_deps) if n == 0)
        self.lock = threading.Condition()
        self.done = 0
        self.total = len(runner.plan.runs)
        self.error = None
        self.failed_op = None

    def _finish(self, i):
        """Under the lock: free dead temporaries, release successors; True if any is ready."""
        env, runner = self.env, self.runner
        for n in runner.touches[i]:
            self.remaining_uses[n] -= 1
            if self.remaining_uses[n] == 0:
                runner.plan.release(env, n)
        for j in runner.successors[i]:
            self.remaining_deps[j] -= 1
            if self.remaining_deps[j] == 0:
                self.ready.append(j)
        self.done += 1

    def work(self):
        runs = self.runner.plan.runs
        while True:
            with self.lock:
                while not self.ready and self.done < self.total and self.error is None:
                    self.lock.wait()
                if self.error is not None or self.done >= self.total:
                    self.lock.notify_all()
                    return
                i = self.ready.popleft()
            try:
                runs[i](self.env)
            except Exception as e:  # reported once, by the caller, with the op's context
                with self.lock:
                    if self.error is None:
                        self.error, self.failed_op = e, i
                    self.lock.notify_all()
                return
            with self.lock:
                self._finish(i)
                if len(self.ready) > 1 or self.done >= self.total:
                    self.lock.notify_all()   # wake helpers only when there is spare work

    def wait_done(self):
        with self.lock:
            while self.done < self.total and self.error is None:
                self.lock.wait()
