"""Allreduce bandwidth of refimpl's mpi4py communicator vs raw comm.Allreduce on the same
buffers (1, 16, 64 MB float32), in the same run. Run under mpirun; rank 0 prints JSON.

    mpirun -n 2 python bench/bench_allreduce.py
"""
import json
import statistics
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


if __name__ == "__main__":
    bandwidth()
