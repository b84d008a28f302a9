"""Recompute: peak bytes of live activations (and of all temporaries) and step time, deep
MLP with checkpoints every K layers vs no recompute. Prints JSON.

    python bench/bench_recompute.py [--layers 32] [--width 1024] [--batch 256] [--every 4]
"""
import argparse
import json
import time

import numpy as np

from refimpl import fluid, static
from refimpl.executor import Plan
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope


def build(layers, width, every):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [width], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="int64")
        h, checkpoints = x, []
        for i in range(layers):
            h = fluid.layers.fc(h, width, act="relu")
            if every and (i + 1) % every == 0:   # the output of each block of `every` layers
                checkpoints.append(h)
        loss = fluid.layers.reduce_mean(
            fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
        opt = fluid.optimizer.SGD(0.01)
        if every:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints(checkpoints)
        opt.minimize(loss)
    return main, startup, loss


def prepare(layers, width, batch, every):
    """Build and initialize one variant; measure its peak bytes (one instrumented step)."""
    main, startup, loss = build(layers, width, every)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(0)
    feed = {"x": rng.randn(batch, width).astype("float32"),
            "y": rng.randint(0, 10, (batch, 1)).astype("int64")}
    plan = Plan(main, list(feed), [loss.name])
    env = scope._values
    peaks = {}
    # activations: forward values and their recomputed copies, not gradients
    for key, include in (("peak_temporary_bytes", None),
                         ("peak_activation_bytes", lambda n: "@GRAD" not in n)):
        env.update(feed)
        peaks[key] = int(plan.run_measuring_memory(env, include=include))
        plan.drop_temporaries(env)
    step = lambda: exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    return dict(peaks, ops=len(main.global_block().ops)), step


def time_interleaved(steps, n):
    """Best seconds per step of each variant over n, alternating them so that load from
    other processes hits both alike (the minimum is the least disturbed run)."""
    times = {name: [] for name in steps}
    for name, step in steps.items():
        step()   # warm up
    for _ in range(n):
        for name, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - t0)
    return {name: min(t) for name, t in times.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--layers", type=int, default=32)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--every", type=int, default=4)
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    results, steps = {}, {}
    for name, every in (("plain", 0), ("recompute", a.every)):
        results[name], steps[name] = prepare(a.layers, a.width, a.batch, every)
    for name, seconds in time_interleaved(steps, a.steps).items():
        results[name]["ms_per_step"] = round(1e3 * seconds, 1)
    plain, rc = results["plain"], results["recompute"]
    print(json.dumps({"workload": "mlp %dx%d batch %d, checkpoint every %d"
                      % (a.layers, a.width, a.batch, a.every),
                      "plain": plain, "recompute": rc,
                      "activation_peak_ratio_plain_over_recompute":
                          round(plain["peak_activation_bytes"] / rc["peak_activation_bytes"], 2),
                      "time_overhead": round(rc["ms_per_step"] / plain["ms_per_step"] - 1, 3)}))

if __name__ == "__main__":
    main()
