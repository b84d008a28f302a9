"""`python -m refimpl bench --mode data-parallel`: training samples/s of paddle.DataParallel
under `mpirun -n 2` against one process, the DataLoader in the loop.

Each workload trains in dynamic mode on a synthetic in-memory dataset read through
`paddle.io.DataLoader` with a `DistributedBatchSampler` (each rank its share of every
global batch; no worker processes: on 2 cores one would take a rank's core, and on one
thread a rank reads its batches in its own thread, specs/io_dataloader.md), SGD with
momentum. Each run is a fresh `python -m refimpl run` of this file as the worker; the runs
go in turn, repeated `--rounds` times (ABC ABC ...) so that a change of load reaches them
alike:

    processes_1          one process on all the cores (OMP_NUM_THREADS = cores)
    processes_1_thread   one process on one rank's share of the cores (1 thread on 2 cores)
    processes_2          mpirun -n 2 with no thread setting: each rank takes its share of
                         the cores by itself (refimpl/parallel/cores.py); with
                         `--comm-buffer-size MB` (repeatable) one such run per bucket size,
                         processes_2_bucket_<MB>mb
    processes_2_no_exchange
                         mpirun -n 2, each rank training alone on its share of the batch
                         (no DataParallel): what two ranks on these cores can reach, the
                         exchange aside (two processes at once share the memory bandwidth
                         and caches)

"The cores" are those the bench may run on (its affinity: `taskset -c 0,1` makes a
2-core machine of a larger one). Per workload one JSON line: each run's median samples/s,
what it is (`what`: processes, threads, bucket size) and the ratios of every mpirun run
over both baselines, named for them: `ratio_2_over_1` (over the one process using every
core its own way, by threads) and `ratio_2_over_1_thread` (over one process on one core:
what adding a process on a second core gives); the 1-minute load average after each
round; and, for each run's last round, per rank, ms per step of wall time (`ms`) and of
CPU time (`cpu_ms`, less sensitive to other load on the machine) in each phase: data,
forward, backward (its own compute), bucket_fill (the gradients copied, divided by the
world size, into the buckets), hook_progress (the sums moving on inside the backward's
hooks: MPI's allreduces, or on one machine this rank's shares of the shared-memory sum;
in a short hook, which never blocks, their cpu_ms is their wall time: the reducer reads
the CPU clock only around large gradients and sums in flight), allreduce_wait (the sums left after backward ended, and waiting for the other ranks'),
optimizer, and the whole step.
"""
import json
import os
import statistics
import subprocess
import sys
import time

# name: (model, sample shape, global batch, default timed steps)
WORKLOADS = {
    "lenet": ("lenet", (1, 28, 28), 128, 30),
    "resnet18": ("resnet18", (3, 32, 32), 64, 8),
}
CLASSES = 10
PHASES = ("data", "forward", "backward", "optimizer")
# the reducer's phases inside backward (reducer.PHASES), as the bench names them
REDUCER_PHASES = {"fill": "bucket_fill", "progress": "hook_progress",
                  "wait": "allreduce_wait"}
DATASET_BATCHES = 4     # the dataset holds this many global batches (epochs repeat it)


def _model(kind):
    from refimpl.vision import models
    return models.LeNet(CLASSES) if kind == "lenet" else models.resnet18(num_classes=CLASSES)


def worker(name, steps, warmup, comm_buffer_size=None, exchange=True):
    """One training loop, alone or as a rank of mpirun (DataParallel's buckets of
    `comm_buffer_size` MB, None: its default; not `exchange`: each rank trains alone on
    its share, no DataParallel); rank 0 prints samples/s of the whole job (the slowest
    rank's time) and every rank's phases."""
    import numpy as np

    import refimpl as paddle
    import refimpl.distributed as dist
    from refimpl.io import DataLoader, Dataset, DistributedBatchSampler

    kind, shape, global_batch, _ = WORKLOADS[name]
    dist.init_parallel_env()
    world = dist.get_world_size()
    paddle.seed(0)
    model = _model(kind)
    if world > 1 and exchange:
        model = paddle.DataParallel(model, **({} if comm_buffer_size is None else
                                              {"comm_buffer_size": comm_buffer_size}))
    opt = paddle.optimizer.Momentum(0.01, 0.9, parameters=model.parameters())

    rng = np.random.RandomState(0)
    images = rng.uniform(-1, 1, (DATASET_BATCHES * global_batch,) + shape).astype("float32")
    labels = rng.randint(0, CLASSES, (len(images), 1)).astype("int64")

    class Synthetic(Dataset):
        def __getitem__(self, i):
            return images[i], labels[i]

        def __len__(self):
            return len(images)

    sampler = DistributedBatchSampler(Synthetic(), global_batch // world, shuffle=True,
                                      drop_last=True)
    loader = DataLoader(Synthetic(), batch_sampler=sampler)

    def batches():
        epoch = 0
        while True:
            sampler.set_epoch(epoch)
            yield from loader
            epoch += 1

    feed = batches()
    wall, cpu = dict.fromkeys(PHASES, 0.0), dict.fromkeys(PHASES, 0.0)

    def clocks():
        return time.perf_counter(), time.process_time()

    def step():
        marks = [clocks()]
        x, y = next(feed)
        marks.append(clocks())
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        marks.append(clocks())
        loss.backward()
        marks.append(clocks())
        opt.step()
        opt.clear_grad()
        marks.append(clocks())
        for k, (w0, c0), (w1, c1) in zip(PHASES, marks, marks[1:]):
            wall[k] += w1 - w0
            cpu[k] += c1 - c0

    reducer = getattr(model, "_reducer", None)
    for _ in range(warmup):
        step()
    dist.barrier()
    for totals in (wall, cpu):
        totals.update(dict.fromkeys(PHASES, 0.0))
    before = (dict(reducer.seconds), dict(reducer.cpu_seconds)) if reducer else None
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    dist.barrier()
    elapsed = paddle.to_tensor(np.array([time.perf_counter() - t0]))
    dist.all_reduce(elapsed, dist.ReduceOp.MAX)
    seconds = float(elapsed.numpy()[0])
    mine = []
    for i, totals in enumerate((wall, cpu)):
        reducing = [(reducer.seconds, reducer.cpu_seconds)[i][k] - before[i][k]
                    if reducer else 0.0 for k in REDUCER_PHASES]
        # backward's own compute: backward less what the reducer did inside it
        own = [totals[k] for k in PHASES]
        own[PHASES.index("backward")] -= sum(reducing)
        mine += [1e3 * v / steps for v in own + reducing + [sum(totals.values())]]
    rows = []
    dist.all_gather(rows, paddle.to_tensor(np.array(mine)))
    if dist.get_rank() == 0:
        keys = PHASES + tuple(REDUCER_PHASES.values()) + ("step",)
        ranks = [{"ms": dict(zip(keys, (round(float(v), 2) for v in r.numpy()[:len(keys)]))),
                  "cpu_ms": dict(zip(keys, (round(float(v), 2)
                                            for v in r.numpy()[len(keys):])))}
                 for r in rows]
        print(json.dumps({"samples_per_s": round(steps * global_batch / seconds, 2),
                          "ms_per_step": round(1e3 * seconds / steps, 2),
                          "threads": os.environ.get("OMP_NUM_THREADS"),
                          "ranks": ranks}))


def _cores():
    """The cores this bench may use (its affinity: taskset shrinks it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1


def _run(name, processes, threads, steps, warmup, comm_buffer_size=None, exchange=True):
    """One job; `threads` None: the count refimpl gives each rank by itself."""
    cmd = [sys.executable, "-m", "refimpl", "run", os.path.abspath(__file__), "--worker",
           name, str(steps), str(warmup), str(comm_buffer_size), str(exchange)]
    if processes > 1:
        cmd = ["mpirun", "-n", str(processes)] + cmd
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if threads is not None:
        env.update(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), done.returncode,
                                                         done.stdout[-2000:],
                                                         done.stderr[-4000:]))
    return json.loads(lines[-1])


def _configurations(cores, bucket_sizes):
    """{run name: (processes, threads, comm_buffer_size, exchange, what it is)} (module
    doc)."""
    share = max(1, cores // 2)
    threads = "%d thread%s" % (share, "" if share == 1 else "s")
    runs = {"processes_1": (1, cores, None, True,
                            "1 process, %d thread%s (all the cores)"
                            % (cores, "" if cores == 1 else "s")),
            "processes_1_thread": (1, share, None, True,
                                   "1 process, %s (one rank's share of the cores)" % threads)}
    for mb in bucket_sizes or [None]:
        what = "mpirun -n 2, %s a rank, buckets of %s MB" % (
            threads, "25 (the default)" if mb is None else "%g" % mb)
        runs["processes_2" if mb is None else "processes_2_bucket_%gmb" % mb] = \
            (2, None, mb, True, what)
    runs["processes_2_no_exchange"] = (
        2, None, None, False, "mpirun -n 2, %s a rank, each rank alone on its share of the "
        "batch (no DataParallel: what two ranks could reach)" % threads)
    return runs


def measure(name, steps=None, warmup=2, rounds=2, bucket_sizes=None):
    """The JSON row of workload `name` (see the module doc)."""
    cores = _cores()
    steps = steps or WORKLOADS[name][3]
    runs = _configurations(cores, bucket_sizes)
    samples = {k: [] for k in runs}
    last = {}
    loads = []
    for _ in range(rounds):
        for k, (processes, threads, mb, exchange, _) in runs.items():
            last[k] = _run(name, processes, threads, steps, warmup, mb, exchange)
            samples[k].append(last[k]["samples_per_s"])
        loads.append(round(os.getloadavg()[0], 2))
    row = {"workload": name, "mode": "data-parallel", "cores": cores,
           "global_batch": WORKLOADS[name][2], "steps": steps, "rounds": rounds,
           "load_average_1min_each_round": loads}
    for k, values in samples.items():
        row[k] = {"what": runs[k][-1], "samples_per_s": round(statistics.median(values), 2),
                  "each_round": values, "threads": last[k]["threads"],
                  "last_round_ranks": last[k]["ranks"]}
    for two in (k for k in runs if k.startswith("processes_2")):
        for base in ("processes_1", "processes_1_thread"):
            row["ratio_%s_over_%s" % (two[len("processes_"):], base[len("processes_"):])] = \
                round(row[two]["samples_per_s"] / row[base]["samples_per_s"], 3)
    return row


def main(workloads, steps=None, warmup=2, rounds=2, bucket_sizes=None):
    rows = []
    for name in workloads or list(WORKLOADS):
        if name not in WORKLOADS:
            raise SystemExit("bench --mode data-parallel: unknown workload %r; expected one "
                             "of %s" % (name, ", ".join(WORKLOADS)))
        rows.append(measure(name, steps, warmup, rounds, bucket_sizes))
        print(json.dumps(rows[-1]))
        sys.stdout.flush()
    print("\nworkload | run | samples/s (median) | over 1 process, all cores | "
          "over 1 process, 1 rank's share")
    print(" | ".join(["---"] * 5))
    for r in rows:
        for k in (k for k in r if k.startswith("processes_")):
            two = k.startswith("processes_2")
            ratios = [str(r["ratio_%s_over_%s" % (k[len("processes_"):], base)]) if two
                      else "" for base in ("1", "1_thread")]
            print(" | ".join([r["workload"], r[k]["what"], "%.1f" % r[k]["samples_per_s"]]
                             + ratios))
    return 0


if __name__ == "__main__":
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], int(sys.argv[i + 2]), int(sys.argv[i + 3]),
               None if sys.argv[i + 4] == "None" else float(sys.argv[i + 4]),
               sys.argv[i + 5] == "True")
