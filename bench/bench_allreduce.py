"""Allreduce bandwidth of refimpl's mpi4py communicator vs raw comm.Allreduce on the same
buffers, and data-parallel training throughput. Run under mpirun; rank 0 prints JSON.

    mpirun -n 2 python bench/bench_allreduce.py
    python bench/bench_allreduce.py --throughput     # launches 1 and 2 processes itself
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def bandwidth():
    from mpi4py import MPI
    from refimpl.parallel.communicator import MPICommunicator
    comm = MPI.COMM_WORLD
    ours = MPICommunicator(comm)
    rows = []
    for mb in (1, 16, 64):
        n = mb * (1 << 20) // 4
        buf = np.ones(n, np.float32)
        # the same bytes as 64 small gradients, which refimpl packs into one bucket
        pieces = [np.ones(n // 64, np.float32) for _ in range(64)]

        def timed(fn, reps=5):
            fn()
            comm.Barrier()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                comm.Barrier()
                ts.append(time.perf_counter() - t0)
            return statistics.median(ts)

        raw = timed(lambda: comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM))
        one = timed(lambda: ours.allreduce([buf]))
        bucketed = timed(lambda: ours.allreduce(pieces))
        rows.append({"MB": mb, "raw_GBps": mb / 1024 / raw, "refimpl_GBps": mb / 1024 / one,
                     "refimpl_64_pieces_GBps": mb / 1024 / bucketed,
                     "refimpl_over_raw": round(raw / one, 3),
                     "bucketed_over_raw": round(raw / bucketed, 3)})
    if comm.Get_rank() == 0:
        print(json.dumps({"allreduce": rows, "processes": comm.Get_size()}))


TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dp_mnist_step.py")


def throughput():
    """samples/s of an MLP 784-512-512-10 (global batch 256) at 1 and 2 processes."""
    result = {}
    for n in (1, 2):
        cmd = [sys.executable, "-m", "refimpl", "run", TRAIN]
        if n > 1:
            cmd = ["mpirun", "-n", str(n)] + cmd
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        line = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if out.returncode or not line:
            raise RuntimeError(out.stdout + out.stderr)
        result["processes_%d" % n] = json.loads(line[0])
    result["ratio_2_over_1"] = round(result["processes_2"]["samples_per_s"]
                                     / result["processes_1"]["samples_per_s"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    throughput() if "--throughput" in sys.argv else bandwidth()
