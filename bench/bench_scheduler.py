"""ExecutionStrategy.num_threads, measured on one place: step time in program order
(enable_sequential_execution), with num_threads 1 (ops one by one) and with the default 0
(4 threads: the thread-pool scheduler). Prints JSON.

    python bench/bench_scheduler.py [mlp_deep lenet]
"""
import json
import sys

from bench_memory import compare
from refimpl.bench_cli import WORKLOADS


def main(names):
    for name in names or ["mlp_deep", "lenet"]:
        r = compare(name, {"in_order": dict(enable_sequential_execution=True),
                           "num_threads=1": dict(num_threads=1),
                           "num_threads=0": dict(num_threads=0)})
        r["slowdown_of_0_vs_in_order"] = round(
            r["num_threads=0"]["ms_per_step"] / r["in_order"]["ms_per_step"] - 1, 3)
        print(json.dumps({"workload": name, "scheduler": r}))


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a in WORKLOADS])
