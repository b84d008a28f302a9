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

__all__ = ["op_dependencies", "max_parallelism", "ThreadedRunner"]


def op_dependencies(ops):
    """deps[i] = set of op indices op i must wait for."""
    last_writer = {}
    readers_since_write = {}
    deps = []
    for i, op in enumerate(ops):
        d = set()
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

    def run(self, env):
        runs = self.plan.runs
        remaining_deps = list(self.n_deps)
        remaining_uses = dict(self.uses)
        ready = deque(i for i, n in enumerate(remaining_deps) if n == 0)
        lock = threading.Condition()
        state = {"done": 0, "error": None, "failed_op": None}
        total = len(runs)

        def finish(i):
            for n in self.touches[i]:
                remaining_uses[n] -= 1
                if remaining_uses[n] == 0:
                    env.pop(n, None)
            for j in self.successors[i]:
                remaining_deps[j] -= 1
                if remaining_deps[j] == 0:
                    ready.append(j)
            state["done"] += 1

        def worker():
            while True:
                with lock:
                    while not ready and state["done"] < total and state["error"] is None:
                        lock.wait()
                    if state["error"] is not None or state["done"] >= total:
                        lock.notify_all()
                        return
                    i = ready.popleft()
                try:
                    runs[i](env)
                except Exception as e:  # reported once, by the caller, with the op's context
                    with lock:
                        if state["error"] is None:
                            state["error"], state["failed_op"] = e, i
                        lock.notify_all()
                    return
                with lock:
                    finish(i)
                    lock.notify_all()

        threads = [threading.Thread(target=worker, daemon=True)
                   for _ in range(max(1, min(self.num_threads, total)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        error = state["error"]
        if isinstance(error, OpError):
            raise error
        if error is not None:
            raise self.plan._explain(state["failed_op"], error, env) from error
