"""`python -m refimpl bench --mode data-parallel`: training samples/s of paddle.DataParallel
under `mpirun -n 2` against one process, the DataLoader in the loop.

Each workload trains in dynamic mode on a synthetic in-memory dataset read through
`paddle.io.DataLoader` with a `DistributedBatchSampler` (each rank its share of every
global batch), SGD with momentum. Three runs, each a fresh `python -m refimpl run` of
this file as the worker, in turn and repeated `--rounds` times (ABC ABC ...) so that a
change of load reaches them alike:

    processes_1          one process on all the cores (OMP_NUM_THREADS = cores)
    processes_1_thread   one process on one rank's share of the cores
    processes_2          mpirun -n 2 with no thread setting: each rank takes its share of
                         the cores by itself (refimpl/parallel/cores.py)

"The cores" are those the bench may run on (its affinity: `taskset -c 0,1` makes a
2-core machine of a larger one). Per workload one JSON line: median samples/s of each run
and the ratios `ratio_2_over_1` (the speedup of data parallelism over the one process
using every core its own way, by threads) and `ratio_2_over_1_thread` (the scaling per
core: what adding a process on a second core gives); with each run's last round, per rank,
the ms per step in each phase (data, forward, backward, optimizer), the part of backward
spent waiting for the gradients' sums after it ended (allreduce_wait), and the CPU ms
per step.
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
DATASET_BATCHES = 4     # the dataset holds this many global batches (epochs repeat it)


def _model(kind):
    from refimpl.vision import models
    return models.LeNet(CLASSES) if kind == "lenet" else models.resnet18(num_classes=CLASSES)


def worker(name, steps, warmup):
    """One training loop, alone or as a rank of mpirun; rank 0 prints samples/s of the
    whole job (the slowest rank's time)."""
    import numpy as np

    import refimpl as paddle
    import refimpl.distributed as dist
    from refimpl.io import DataLoader, Dataset, DistributedBatchSampler

    kind, shape, global_batch, _ = WORKLOADS[name]
    dist.init_parallel_env()
    world = dist.get_world_size()
    paddle.seed(0)
    model = _model(kind)
    if world > 1:
        model = paddle.DataParallel(model)
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
    phases = dict.fromkeys(PHASES, 0.0)

    def step():
        t0 = time.perf_counter()
        x, y = next(feed)
        t1 = time.perf_counter()
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        opt.clear_grad()
        t4 = time.perf_counter()
        for k, dt in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            phases[k] += dt

    reducer = getattr(model, "_reducer", None)
    for _ in range(warmup):
        step()
    dist.barrier()
    phases.update(dict.fromkeys(PHASES, 0.0))
    waited = reducer.wait_seconds if reducer is not None else 0.0
    cpu = time.process_time()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    cpu = time.process_time() - cpu
    dist.barrier()
    elapsed = paddle.to_tensor(np.array([time.perf_counter() - t0]))
    dist.all_reduce(elapsed, dist.ReduceOp.MAX)
    seconds = float(elapsed.numpy()[0])
    # this rank's ms per step: each phase, of which the wait for the gradients' sums after
    # backward, and the CPU time (a rank that waits without spinning uses less than wall)
    mine = [1e3 * phases[k] / steps for k in PHASES] + [
        1e3 * ((reducer.wait_seconds - waited) if reducer is not None else 0.0) / steps,
        1e3 * cpu / steps]
    rows = []
    dist.all_gather(rows, paddle.to_tensor(np.array(mine)))
    every = [[round(float(v), 2) for v in r.numpy()] for r in rows]
    if dist.get_rank() == 0:
        print(json.dumps({"samples_per_s": round(steps * global_batch / seconds, 2),
                          "ms_per_step": round(1e3 * seconds / steps, 2),
                          "threads": os.environ.get("OMP_NUM_THREADS"),
                          "ranks_ms": [dict(zip(PHASES + ("allreduce_wait", "cpu"), row))
                                       for row in every]}))


def _cores():
    """The cores this bench may use (its affinity: taskset shrinks it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1


def _run(name, processes, threads, steps, warmup):
    """One job; `threads` None: the count refimpl gives each rank by itself."""
    cmd = [sys.executable, "-m", "refimpl", "run", os.path.abspath(__file__), "--worker",
           name, str(steps), str(warmup)]
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


def measure(name, steps=None, warmup=2, rounds=2):
    """The JSON row of workload `name` (see the module doc)."""
    cores = _cores()
    steps = steps or WORKLOADS[name][3]
    runs = {"processes_1": (1, cores), "processes_1_thread": (1, max(1, cores // 2)),
            "processes_2": (2, None)}
    samples = {k: [] for k in runs}
    last = {}
    for _ in range(rounds):
        for k, (processes, threads) in runs.items():
            last[k] = _run(name, processes, threads, steps, warmup)
            samples[k].append(last[k]["samples_per_s"])
    row = {"workload": name, "mode": "data-parallel", "cores": cores,
           "global_batch": WORKLOADS[name][2], "steps": steps, "rounds": rounds,
           "load_average_1min": round(os.getloadavg()[0], 2)}
    for k, values in samples.items():
        row[k] = {"samples_per_s": round(statistics.median(values), 2), "each_round": values,
                  "threads": last[k]["threads"], "last_round_ranks_ms": last[k]["ranks_ms"]}
    for base in ("processes_1", "processes_1_thread"):
        row["ratio_2_over_" + base[len("processes_"):]] = round(
            row["processes_2"]["samples_per_s"] / row[base]["samples_per_s"], 3)
    return row


def main(workloads, steps=None, warmup=2, rounds=2):
    rows = []
    for name in workloads or list(WORKLOADS):
        if name not in WORKLOADS:
            raise SystemExit("bench --mode data-parallel: unknown workload %r; expected one "
                             "of %s" % (name, ", ".join(WORKLOADS)))
        rows.append(measure(name, steps, warmup, rounds))
        print(json.dumps(rows[-1]))
        sys.stdout.flush()
    print("\nworkload | 1 process samples/s | 1 process, 1 thread | mpirun -n 2 | "
          "2 / 1 | 2 / 1 thread")
    print(" | ".join(["---"] * 6))
    for r in rows:
        print(" | ".join([r["workload"]] + ["%.1f" % r[k]["samples_per_s"] for k in
                                            ("processes_1", "processes_1_thread",
                                             "processes_2")]
                         + [str(r["ratio_2_over_1"]), str(r["ratio_2_over_1_thread"])]))
    return 0


if __name__ == "__main__":
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], int(sys.argv[i + 2]), int(sys.argv[i + 3]))
