"""BuildStrategy memory options, measured: peak bytes of the distinct buffers held by the
step's temporaries (and the reuse pool) and step time: nothing freed (memory_optimize False),
garbage collection (None), buffer reuse (True), and reuse with enable_inplace. Prints JSON.

    python bench/bench_memory.py [mlp_deep lenet]

Configurations are timed in alternation, step by step, so load from other processes on a
shared machine hits them alike; the figure is the median step.
"""
import json
import statistics
import sys
import time

import refimpl as paddle
from refimpl import static
from refimpl.bench_cli import WORKLOADS, _data
from refimpl.framework.scope import Scope


class Session:
    """One workload compiled with some BuildStrategy flags, in its own scope."""

    def __init__(self, name, num_threads=0, **flags):
        main, startup, self.loss = WORKLOADS[name].build_static(paddle)
        strategy = static.BuildStrategy()
        for k, v in flags.items():
            setattr(strategy, k, v)
        exec_strategy = static.ExecutionStrategy()
        exec_strategy.num_threads = num_threads
        self.program = static.CompiledProgram(main, build_strategy=strategy) \
            .with_data_parallel(self.loss.name, exec_strategy=exec_strategy, places=["cpu"])
        self.scope = Scope()
        self.exe = static.Executor()
        self.exe.run(startup, scope=self.scope)
        self.feed = _data(name)
        self.times = []

    def step(self):
        t0 = time.perf_counter()
        self.exe.run(self.program, feed=self.feed, fetch_list=[self.loss], scope=self.scope)
        self.times.append(time.perf_counter() - t0)

    def _plan(self):
        (programs, plans, _), = self.program._device_sets[id(self.scope)].plans.values()
        return programs[0], plans[0]

    def peak_bytes(self):
        """Peak bytes held by the step's temporaries (activations, gradients) and the
        reuse pool, and how many buffers the pool handed out during that step."""
        _, plan = self._plan()
        env = self.scope._values
        env.update(self.feed)
        reused = plan.pool.handed_out if plan.pool else 0
        peak = plan.run_measuring_memory(env)
        plan.drop_temporaries(env)
        return int(peak), (plan.pool.handed_out if plan.pool else 0) - reused

    def report(self, warmup=3):
        program, plan = self._plan()
        peak, reused = self.peak_bytes()
        return {"peak_temporary_bytes": peak,
                "ms_per_step": round(1e3 * statistics.median(self.times[warmup:]), 3),
                "ops": len(program.global_block().ops), "ops_in_place": plan.inplace_ops,
                "buffers_reused": reused}


def compare(name, configs, steps=30):
    """{label: report} for configurations {label: flags}, stepped in alternation."""
    sessions = {label: Session(name, **flags) for label, flags in configs.items()}
    for _ in range(steps + 3):
        for s in sessions.values():
            s.step()
    return {label: s.report() for label, s in sessions.items()}


def main(names):
    for name in names or ["mlp_deep", "lenet"]:
        r = compare(name, {"off": dict(memory_optimize=False),
                           "gc": dict(memory_optimize=None),
                           "memory_optimize": dict(memory_optimize=True),
                           "inplace+memory_optimize": dict(memory_optimize=True,
                                                           enable_inplace=True)})
        off = r["off"]
        for label in ("gc", "memory_optimize", "inplace+memory_optimize"):
            on = r[label]
            r[label]["peak_reduction"] = round(
                1 - on["peak_temporary_bytes"] / off["peak_temporary_bytes"], 3)
            r[label]["time_cost"] = round(on["ms_per_step"] / off["ms_per_step"] - 1, 3)
        print(json.dumps({"workload": name, "memory": r}))


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a in WORKLOADS])
