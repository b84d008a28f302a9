"""`python -m refimpl bench`: median ms per SGD training step on the standard workloads,
optionally beside PyTorch eager CPU (and PaddlePaddle) measured in the same run: the
frameworks in this process take blocks of steps in turn, so a change of load on the
machine reaches them alike and their ratio holds. Each also gets the median CPU ms a
step (`cpu_ms_per_step`, every thread of the process) and its ratio: on a machine other
jobs load, wall time is mostly waiting for the cores, CPU time much less so.

`--mode static` (default) times the workloads as static programs run by the Executor;
`--mode dynamic` the same models as nn.Layers trained eagerly (forward, loss.backward(),
opt.step(), opt.clear_grad()), plus the eager dispatch cost of one small op.
`--mode data-parallel` samples/s of LeNet and ResNet18 (CIFAR size) under paddle.DataParallel
on `mpirun -n 2` against one process, the DataLoader in the loop (bench_data_parallel.py).

Prints one JSON object per workload, then a table. `--profile` adds time per op type and
the framework overhead per op (step time minus time inside kernels, over op count).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from . import bench_data_parallel
from .bench_workloads import WORKLOADS


def _data(name, seed=0):
    return WORKLOADS[name].data(seed)


# -- refimpl (or any module with the paddle API)

def static_stepper(name, module="refimpl", device="cpu"):
    """(step(), program parts for the profiler) training workload `name` with the paddle
    API of `module` (refimpl, or real paddle), on `device` ('cpu' or 'gpu': GPU 0)."""
    import importlib
    if module == "paddle":   # Paddle 3.x: static.nn layers need the legacy (non-PIR) IR
        os.environ.setdefault("FLAGS_enable_pir_api", "0")
    paddle = importlib.import_module(module)
    paddle.enable_static()
    main, startup, loss = WORKLOADS[name].build_static(paddle)
    exe = paddle.static.Executor(paddle.CUDAPlace(0) if device == "gpu" else paddle.CPUPlace())
    scope = paddle.static.global_scope()
    exe.run(startup, scope=scope)
    feed = _data(name)

    def step():
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    return step, (exe, main, feed, loss, scope)


def time_steps(steppers, steps, warmup, block=10, settle=0.25):
    """{name: {"ms_per_step": median wall ms, "cpu_ms_per_step": median CPU ms of the
    process}} of each step function, timed in blocks of `block` steps taken in turn (the
    order rotating), so that load changes on the machine reach all of them alike. Before
    each block the machine is left idle for `settle` seconds: BLAS and OpenMP worker
    threads spin a while after their last job, and would slow the next framework's block
    (stepping frameworks alternately measured both 2x slower). The CPU time (every thread
    of the process, spinning included) is what a loaded machine distorts least: there a
    step's wall time is mostly waiting for the cores (issue 21)."""
    times = {k: [] for k in steppers}
    cpu = {k: [] for k in steppers}
    for k, step in steppers.items():
        for _ in range(warmup):
            step()
    names = list(steppers)
    for r in range(-(-steps // block)):
        for k in names[r % len(names):] + names[:r % len(names)]:
            time.sleep(settle)
            for _ in range(min(block, steps - len(times[k]))):
                t0, c0 = time.perf_counter(), time.process_time()
                steppers[k]()
                times[k].append(time.perf_counter() - t0)
                cpu[k].append(time.process_time() - c0)
    return {k: {"ms_per_step": 1e3 * statistics.median(times[k]),
                "cpu_ms_per_step": 1e3 * statistics.median(cpu[k])} for k in steppers}


def time_refimpl(name, steps, warmup, profile=False, module="refimpl"):
    step, parts = static_stepper(name, module)
    result = dict(time_steps({module: step}, steps, warmup)[module],
                  ops=len(parts[1].global_block().ops))
    if profile and module == "refimpl":
        result.update(_profile(*parts, steps, result))
    return result


def _profile(exe, main, feed, loss, scope, steps, result, device="cpu"):
    """Kernel time per op type, measured by wrapping every bound kernel with a timer (on a
    GPU, one that waits for the device after each kernel, so each op's time is its own)."""
    from refimpl import executor as executor_mod
    from refimpl import xp
    per_type = {}
    wait = xp.gpu_module().cuda.Device().synchronize if device == "gpu" else (lambda: None)

    def timed(op, fn):
        key = op.type

        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            wait()
            per_type[key] = per_type.get(key, 0.0) + time.perf_counter() - t0
            return out
        return wrapper

    plan = executor_mod.Plan(main, list(feed), [loss.name], wrap_kernel=timed, device=device)
    env = scope._values
    with xp.device(0 if device == "gpu" else None):
        for _ in range(steps):
            for k, v in feed.items():
                env[k] = v if device == "cpu" else xp.to_device(v)
            plan.run(env)
            plan.drop_temporaries(env)
    kernel_ms = {k: 1e3 * v / steps for k, v in sorted(per_type.items(), key=lambda kv: -kv[1])}
    total_kernel = sum(kernel_ms.values())
    overhead_us = 1e3 * (result["ms_per_step"] - total_kernel) / result["ops"]
    return {"kernel_ms_per_op_type": {k: round(v, 4) for k, v in kernel_ms.items()},
            "kernel_ms_total": round(total_kernel, 4),
            "overhead_us_per_op": round(overhead_us, 2)}


def time_in_subprocess(python, name, steps, warmup, module):
    """time_refimpl(module=...) run by another interpreter (one whose environment has that
    module), importing this refimpl checkout; its timing is the last line it prints."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
    code = ("import json; from refimpl.bench_cli import time_refimpl; "
            "print(json.dumps(time_refimpl(%r, %d, %d, module=%r)))"
            % (name, steps, warmup, module))
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s -c ... failed: %s" % (python, done.stderr.strip()[-500:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- memory and arithmetic

def peak_rss_mb(name, framework, mode="static", steps=3):
    """Peak resident memory (MB) of a fresh interpreter that builds workload `name` in
    `framework` (refimpl, or torch) and trains `steps` steps: the whole process, the
    framework's import included, as a user would see it."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
    make = {"torch": "torch_stepper(%r)" % name,
            "refimpl": "dynamic_stepper(%r)" % name if mode == "dynamic"
            else "static_stepper(%r)[0]" % name}[framework]
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's when it forks
    code = ("from refimpl.bench_cli import *; step = %s\n"
            "for _ in range(%d): step()\n"
            "print([l.split()[1] for l in open('/proc/self/status') "
            "if l.startswith('VmHWM')][0])" % (make, steps))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError("peak RSS of %s %s failed: %s"
                           % (framework, name, done.stderr.strip()[-500:]))
    return round(int(done.stdout.split()[-1]) / 1024.0, 1)


def _matmul_flops(x_shape, y_shape, trans_x=False, trans_y=False):
    x = list(x_shape) if len(x_shape) > 1 else [1] + list(x_shape)
    y = list(y_shape) if len(y_shape) > 1 else list(y_shape) + [1]
    m, k = (x[-1], x[-2]) if trans_x else (x[-2], x[-1])
    n = y[-2] if trans_y else y[-1]
    return 2 * int(np.prod(np.broadcast_shapes(tuple(x[:-2]), tuple(y[:-2])))) * m * k * n


def forward_flops(program, batch):
    """Multiply-add FLOPs (x2) of the forward GEMM-like ops (mul, matmul, conv2d, rnn) of
    one step, with the batch dim (-1) read as `batch`. A training step does about three
    times this (the forward, and two GEMMs of the same size per op backward)."""
    def shape(op, slot, i=0):
        var = op.block._find_var_recursive(op.inputs[slot][i])
        return [batch if d < 0 else d for d in var.shape]
    total = 0
    for op in program.global_block().ops:
        if op.type == "mul":
            x, y = shape(op, "X"), shape(op, "Y")
            rows = int(np.prod(x[:op.attrs["x_num_col_dims"]]))
            total += 2 * rows * int(np.prod(x[op.attrs["x_num_col_dims"]:])) * \
                int(np.prod(y[op.attrs["y_num_col_dims"]:]))
        elif op.type in ("matmul", "matmul_v2"):
            trans = ("trans_x", "trans_y") if op.type == "matmul_v2" else \
                ("transpose_X", "transpose_Y")
            total += _matmul_flops(shape(op, "X"), shape(op, "Y"), op.attrs[trans[0]],
                                   op.attrs[trans[1]])
        elif op.type in ("conv2d", "depthwise_conv2d"):
            out = op.block._find_var_recursive(op.outputs["Output"][0]).shape
            w = shape(op, "Filter")
            total += 2 * batch * int(np.prod(out[1:])) * int(np.prod(w[1:]))
        elif op.type == "rnn":
            x = shape(op, "Input")
            for w in op.inputs["WeightList"]:
                dims = op.block._find_var_recursive(w).shape
                if len(dims) == 2:
                    total += 2 * x[0] * x[1] * dims[0] * dims[1]
    return total


def gemm_peak_gflops(n=1024, repeat=5):
    """GFLOP/s of numpy's float32 GEMM (n x n x n), best of `repeat`: the machine's
    practical limit for the workloads' GEMMs."""
    a = np.random.RandomState(0).uniform(-1, 1, (n, n)).astype("float32")
    a @ a
    best = min(_timed(lambda: a @ a) for _ in range(repeat))
    return round(2.0 * n ** 3 / best / 1e9, 1)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# -- refimpl's dynamic mode, the same models as nn.Layers

def dynamic_stepper(name, device="cpu"):
    """step() training workload `name` eagerly on `device` ('cpu' or 'gpu': GPU 0): the
    model as nn.Layers, the loss as in the static workload, its optimizer; float(loss)
    waits for the GPU, as PyTorch's loss.item() does."""
    import refimpl as paddle
    from refimpl.framework import mode
    workload = WORKLOADS[name]
    old, previous = mode.dynamic, paddle.get_device()
    mode.disable_static()
    if device == "gpu":      # parameters and data made on the GPU
        paddle.set_device("gpu:0")
    try:
        model = workload.paddle_layers(paddle)
        opt = workload.paddle_optimizer(paddle, model.parameters())
        feed = _data(name)
        xt, yt = paddle.to_tensor(feed["x"]), paddle.to_tensor(feed["y"])
    finally:
        paddle.set_device(previous)
        mode.dynamic = old
    softmax_ce, mean = paddle.nn.functional.softmax_with_cross_entropy, paddle.mean

    def step():
        was, mode.dynamic = mode.dynamic, True
        try:
            loss = mean(softmax_ce(model(xt), yt))
            loss.backward()
            opt.step()
            opt.clear_grad()
            float(loss)
        finally:
            mode.dynamic = was
    return step


def _counting_kernels(timed):
    """Make the tracer select kernels wrapped by `timed(op_type, fn)` (its caches are
    emptied, so every kernel is selected again); returns the undo function."""
    from refimpl.dygraph import tracer
    original = tracer.select_kernel

    def select(op_type, which, attrs, dtype, device="cpu"):
        kernel = original(op_type, which, attrs, dtype, device)
        key = op_type if which == "forward" else op_type + "_grad"
        return kernel._replace(fn=timed(key, kernel.fn))
    tracer._LAYOUTS.clear()
    tracer.select_kernel = select

    def undo():
        tracer.select_kernel = original
        tracer._LAYOUTS.clear()
    return undo


def _dynamic_profile(name, steps, step_ms):
    """Kernel time per op type and ops per step of the eager workload, by wrapping every
    kernel the tracer selects (forward, backward and optimizer ops alike)."""
    per_type, calls = {}, [0]

    def timed(key, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            per_type[key] = per_type.get(key, 0.0) + time.perf_counter() - t0
            calls[0] += 1
            return out
        return wrapper
    undo = _counting_kernels(timed)
    try:
        step = dynamic_stepper(name)
        step()
        per_type.clear()
        calls[0] = 0
        for _ in range(steps):
            step()
    finally:
        undo()
    kernel_ms = {k: 1e3 * v / steps for k, v in sorted(per_type.items(), key=lambda kv: -kv[1])}
    total_kernel = sum(kernel_ms.values())
    ops = calls[0] // steps
    return {"kernel_ms_per_op_type": {k: round(v, 4) for k, v in kernel_ms.items()},
            "kernel_ms_total": round(total_kernel, 4), "ops": ops,
            "overhead_us_per_op": round(1e3 * (step_ms - total_kernel) / ops, 2)}


def count_dynamic_ops(name):
    """Ops one eager training step of `name` runs (forward, backward, optimizer)."""
    calls = [0]

    def counted(key, fn):
        def wrapper(*args, **kwargs):
            calls[0] += 1
            return fn(*args, **kwargs)
        return wrapper
    undo = _counting_kernels(counted)
    try:
        step = dynamic_stepper(name)
        step()
        calls[0] = 0
        step()
    finally:
        undo()
    return calls[0]


def dispatch_cost_us(repeat=2000):
    """Microseconds refimpl's dynamic mode adds to one small op (paddle.add of two [4]
    float32 tensors) over the time of the kernel it runs (called directly): without
    recording (stop_gradient inputs) and recording a tape node (an input needs a
    gradient)."""
    import refimpl as paddle
    from refimpl.framework import mode
    from refimpl.dygraph.tracer import layout
    was, mode.dynamic = mode.dynamic, True
    try:
        a = np.arange(4, dtype="float32")
        plain = paddle.to_tensor(a)
        tracked = paddle.to_tensor(a, stop_gradient=False)
        kernel = layout("elementwise_add").kernels.get({"axis": -1}, a.dtype)[0]

        def per_call(fn):
            fn()
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(repeat):
                    fn()
                best = min(best, (time.perf_counter() - t0) / repeat)
            return best * 1e6
        base = per_call(lambda: kernel(a, a, axis=-1))
        return {"kernel_us": round(base, 2),
                "dispatch_us": round(per_call(lambda: paddle.add(plain, plain)) - base, 2),
                "dispatch_recording_us": round(
                    per_call(lambda: paddle.add(tracked, plain)) - base, 2)}
    finally:
        mode.dynamic = was


# -- PyTorch eager, the same models

def torch_stepper(name, device="cpu"):
    """step() training workload `name` as the same model in PyTorch eager (on CUDA for
    device 'gpu'; loss.item() waits for the GPU, as refimpl's fetch does)."""
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    workload = WORKLOADS[name]
    where = "cuda" if device == "gpu" else "cpu"
    if device == "gpu":   # full float32 products, as refimpl's (PyTorch's cuDNN default: TF32)
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    model = workload.torch_layers(torch).to(where)
    opt = workload.torch_optimizer(torch, model.parameters())
    feed = _data(name)
    xt = torch.from_numpy(feed["x"]).to(where)
    yt = torch.from_numpy(feed["y"][:, 0]).to(where)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        loss.item()
    return step


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m refimpl bench", description=__doc__)
    parser.add_argument("workloads", nargs="*",
                        help="subset of: %s (--mode data-parallel: %s)"
                        % (", ".join(WORKLOADS), ", ".join(bench_data_parallel.WORKLOADS)))
    parser.add_argument("--steps", type=int,
                        help="timed steps per framework (default: 50, 12-20 for the large "
                             "workloads; data-parallel: per workload)")
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--rounds", type=int, default=2,
                        help="data-parallel: times each configuration runs, in turn")
    parser.add_argument("--comm-buffer-size", action="append", type=float, metavar="MB",
                        help="data-parallel: DataParallel's bucket size for the mpirun "
                             "runs (repeat it to time several; default Paddle's 25)")
    parser.add_argument("--compare", action="append", default=[], choices=["torch", "paddle"],
                        help="also time this framework in the same run")
    parser.add_argument("--profile", action="store_true",
                        help="time per op type and framework overhead per op")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the peak RSS of each framework (a fresh process each)")
    parser.add_argument("--mode", choices=["static", "dynamic", "data-parallel"],
                        default="static",
                        help="refimpl's static programs (default), its dynamic mode, or "
                             "DataParallel under mpirun -n 2 against one process")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                        help="gpu: refimpl on CUDAPlace(0) (CuPy), static programs or "
                             "eager Layers, torch on CUDA (--compare torch only)")
    parser.add_argument("--paddle-python", metavar="PYTHON",
                        help="with --compare paddle: time Paddle in a subprocess of this "
                             "interpreter (Paddle kept in its own environment)")
    args = parser.parse_args(argv)
    if args.device == "gpu" and (args.mode == "data-parallel" or "paddle" in args.compare):
        parser.error("--device gpu times refimpl against torch only (data-parallel and "
                     "Paddle runs are CPU-only here)")
    if args.device == "gpu" and args.mode == "dynamic" and args.profile:
        parser.error("--profile of the dynamic mode times CPU kernels; on a GPU profile "
                     "the static programs (--mode static --device gpu --profile)")
    if args.device == "gpu":
        from .framework.place import is_compiled_with_cuda
        if not is_compiled_with_cuda():
            parser.error("--device gpu: no GPU is usable here (CuPy and a CUDA device are "
                         "needed: pip install -e '.[gpu]')")
    if args.comm_buffer_size and (args.mode != "data-parallel" or
                                  min(args.comm_buffer_size) <= 0):
        parser.error("--comm-buffer-size is a number of MB > 0, for --mode data-parallel")
    if args.mode == "data-parallel":
        if args.compare or args.profile:
            parser.error("--mode data-parallel takes no --compare or --profile")
        return bench_data_parallel.main(args.workloads, args.steps,
                                        2 if args.warmup is None else args.warmup,
                                        args.rounds, args.comm_buffer_size)
    args.workloads = args.workloads or list(WORKLOADS)
    rows = []
    peak = gemm_peak_gflops()
    print(json.dumps({"gemm_peak_gflops": peak, "load": os.getloadavg()}))
    for name in args.workloads:
        if name not in WORKLOADS:
            parser.error("unknown workload %r" % name)
        steps = args.steps or WORKLOADS[name].steps
        warmup = WORKLOADS[name].warmup if args.warmup is None else args.warmup
        if args.mode == "dynamic":
            step, parts = dynamic_stepper(name, args.device), None
            row = {"workload": name, "mode": "dynamic", "device": args.device,
                   "refimpl": {"ops": count_dynamic_ops(name)}}
        else:
            step, parts = static_stepper(name, device=args.device)
            row = {"workload": name, "device": args.device,
                   "refimpl": {"ops": len(parts[1].global_block().ops)}}
        steppers = {"refimpl": step}
        for other in args.compare:   # in this process: stepped in turn with refimpl
            try:
                if other == "torch":
                    steppers["torch"] = torch_stepper(name, args.device)
                elif not args.paddle_python:
                    steppers["paddle"] = static_stepper(name, "paddle")[0]
            except ImportError as e:
                row[other] = {"error": "not importable: %s" % e}
        for k, timing in time_steps(steppers, steps, warmup).items():
            row.setdefault(k, {}).update(timing)
        if "paddle" in args.compare and args.paddle_python:
            try:   # one workload Paddle cannot build (3.x's layers and the legacy IR) costs one row
                row["paddle"] = time_in_subprocess(args.paddle_python, name, steps, warmup,
                                                   "paddle")
            except RuntimeError as e:
                row["paddle"] = {"error": str(e)}
        flops = 3 * forward_flops(parts[1] if parts else _static_program(name),
                                  WORKLOADS[name].batch)
        row["gflop_per_step"] = round(flops / 1e9, 3)
        for k in steppers:
            if "ms_per_step" in row[k]:
                row[k]["gflops"] = round(flops / row[k]["ms_per_step"] / 1e6, 1)
        if not args.no_memory:
            for k in steppers:
                if k in ("refimpl", "torch"):
                    row[k]["peak_rss_mb"] = peak_rss_mb(name, k, args.mode)
        if args.profile and parts is None:
            row["refimpl"].update(_dynamic_profile(name, steps,
                                                   row["refimpl"]["ms_per_step"]))
        elif args.profile:
            row["refimpl"].update(_profile(*parts, steps, row["refimpl"], args.device))
        for other in args.compare:
            for key, ratio in (("ms_per_step", "ratio_refimpl_over_"),
                               ("cpu_ms_per_step", "cpu_ratio_refimpl_over_"),
                               ("peak_rss_mb", "rss_ratio_refimpl_over_")):
                if key in row.get(other, {}) and key in row["refimpl"]:
                    row[ratio + other] = round(row["refimpl"][key] / row[other][key], 3)
        rows.append(row)
        print(json.dumps(row))
        sys.stdout.flush()
    if args.mode == "dynamic":
        print(json.dumps({"eager_dispatch": dispatch_cost_us()}))
    _table(rows, args.compare, peak)
    return 0


def _static_program(name):
    """Workload `name` built as a refimpl static program (for its FLOP count), whatever
    the mode."""
    import refimpl as paddle
    from refimpl.framework import mode
    was, mode.dynamic = mode.dynamic, False
    try:
        return WORKLOADS[name].build_static(paddle)[0]
    finally:
        mode.dynamic = was


def _table(rows, others, peak):
    header = ["workload", "ops", "refimpl ms"] + ["%s ms" % o for o in others] + \
             ["refimpl/%s" % o for o in others] + ["CPU refimpl/%s" % o for o in others] + \
             ["GFLOP/s (peak %s)" % peak] + \
             ["RSS MB refimpl"] + ["RSS %s" % o for o in others]
    print("\n" + " | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        cells = [r["workload"], str(r["refimpl"]["ops"]), "%.3f" % r["refimpl"]["ms_per_step"]]
        cells += ["%.3f" % r[o]["ms_per_step"] if "ms_per_step" in r.get(o, {}) else "n/a"
                  for o in others]
        cells += [str(r.get("%sratio_refimpl_over_%s" % (cpu, o), "n/a"))
                  for cpu in ("", "cpu_") for o in others]
        cells.append(str(r["refimpl"].get("gflops", "n/a")))
        cells += [str(r.get(k, {}).get("peak_rss_mb", "n/a")) for k in ["refimpl"] + others]
        print(" | ".join(cells))
    for r in rows:
        if "kernel_ms_per_op_type" in r["refimpl"]:
            top = list(r["refimpl"]["kernel_ms_per_op_type"].items())[:8]
            print("%s top ops (ms): %s" % (r["workload"], ", ".join(
                "%s %.2f" % kv for kv in top)))


if __name__ == "__main__":
    sys.exit(main())
