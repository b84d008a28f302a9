"""BuildStrategy effects, measured: peak bytes of live temporaries and step time with and
without enable_inplace + memory_optimize, and with fusion on vs off. Prints JSON.

    python bench/bench_memory.py [mlp_deep lenet]
"""
import json
import statistics
import sys
import time

import numpy as np

import refimpl as paddle
from refimpl import static
from refimpl.bench_cli import WORKLOADS, _data, build_static
from refimpl.framework.scope import Scope

FUSIONS = ("fuse_elewise_add_act_ops", "fuse_bn_act_ops", "fuse_all_optimizer_ops")


def measure(name, steps=20, **flags):
    main, startup, loss = build_static(paddle, name)
    strategy = static.BuildStrategy()
    for k, v in flags.items():
        setattr(strategy, k, v)
    prog = static.CompiledProgram(main, build_strategy=strategy)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    x, y = _data(name)
    feed = {"x": x, "y": y}
    times = []
    for _ in range(steps + 3):
        t0 = time.perf_counter()
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
        times.append(time.perf_counter() - t0)
    (programs, plans, _), = prog._device_sets[id(scope)].plans.values()
    env = scope._values
    env.update(feed)
    peak = plans[0].run_measuring_memory(env)
    plans[0].drop_temporaries(env)
    return {"peak_temporary_bytes": int(peak), "ms_per_step": 1e3 * statistics.median(times[3:]),
            "ops": len(programs[0].global_block().ops)}


def main(names):
    for name in names or ["mlp_deep", "lenet"]:
        off = measure(name, memory_optimize=False, enable_inplace=False)
        on = measure(name, memory_optimize=True, enable_inplace=True)
        unfused = measure(name)
        fused = measure(name, **{f: True for f in FUSIONS})
        print(json.dumps({
            "workload": name,
            "memory": {"off": off, "inplace+memory_optimize": on,
                       "peak_reduction": round(1 - on["peak_temporary_bytes"]
                                               / off["peak_temporary_bytes"], 3),
                       "time_cost": round(on["ms_per_step"] / off["ms_per_step"] - 1, 3)},
            "fusion": {"off": unfused, "on": fused,
                       "speedup": round(unfused["ms_per_step"] / fused["ms_per_step"], 3)}}))


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a in WORKLOADS])
