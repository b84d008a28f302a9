"""Data-parallel training throughput: an MLP 784-512-512-10 on a global batch of 256,
at 1 process and at 2 processes (`mpirun -n 2`, each rank training on half the batch).
Prints JSON with samples/s for each and their ratio.

    python bench/bench_dp_throughput.py            # launches both runs itself
    mpirun -n 2 python -m refimpl run bench/bench_dp_throughput.py --worker   # one run
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

GLOBAL_BATCH = 256
WARMUP_STEPS, TIMED_STEPS = 3, 20


def worker():
    """One training loop under `python -m refimpl run` (alone or under mpirun); rank 0
    prints samples/s of the whole job."""
    import paddle
    import paddle.static as static
    paddle.enable_static()
    rank, world = paddle.distributed.get_rank(), paddle.distributed.get_world_size()
    x = static.data("x", [None, 784], "float32")
    y = static.data("y", [None, 1], "int64")
    h = static.nn.fc(static.nn.fc(x, 512, activation="relu"), 512, activation="relu")
    loss = paddle.nn.functional.cross_entropy(static.nn.fc(h, 10), y)
    paddle.optimizer.SGD(0.01).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    prog = static.CompiledProgram(static.default_main_program()).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()])
    local_batch = GLOBAL_BATCH // world
    rng = np.random.RandomState(rank)
    feed = {"x": rng.randn(local_batch, 784).astype("float32"),
            "y": rng.randint(0, 10, (local_batch, 1)).astype("int64")}
    for _ in range(WARMUP_STEPS):
        exe.run(prog, feed=feed, fetch_list=[loss])
    t0 = time.perf_counter()
    for _ in range(TIMED_STEPS):
        exe.run(prog, feed=feed, fetch_list=[loss])
    elapsed = time.perf_counter() - t0
    if rank == 0:
        print(json.dumps({"samples_per_s": TIMED_STEPS * GLOBAL_BATCH / elapsed,
                          "ms_per_step": 1e3 * elapsed / TIMED_STEPS}))


def _run(processes, blas_threads):
    cmd = [sys.executable, "-m", "refimpl", "run", __file__, "--worker"]
    if processes > 1:
        cmd = ["mpirun", "-n", str(processes)] + cmd
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(blas_threads))
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode or not lines:
        raise RuntimeError(out.stdout + out.stderr)
    return json.loads(lines[0])


def main():
    cpus = os.cpu_count()
    # the cores are shared out among the ranks (more BLAS threads would oversubscribe);
    # one process on one rank's share of the cores shows the scaling per core
    result = {"cpus": cpus,
              "processes_1": _run(1, cpus),
              "processes_2": _run(2, max(1, cpus // 2)),
              "processes_1_on_half_the_cores": _run(1, max(1, cpus // 2))}
    result["ratio_2_over_1"] = round(result["processes_2"]["samples_per_s"]
                                     / result["processes_1"]["samples_per_s"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
