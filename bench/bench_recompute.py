"""Recompute: peak bytes of live activations (and of all temporaries) and step time, deep
MLP with checkpoints every K layers vs no recompute. Prints JSON.

    python bench/bench_recompute.py [--layers 32] [--width 1024] [--batch 256] [--every 4]
"""
import argparse
import json
import statistics
import time

import numpy as np

import refimpl as paddle
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
            if every and i % every == 0:
                checkpoints.append(h)
        loss = fluid.layers.reduce_mean(
            fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
        opt = fluid.optimizer.SGD(0.01)
        if every:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints(checkpoints)
        opt.minimize(loss)
    return main, startup, loss


def measure(layers, width, batch, every, steps):
    main, startup, loss = build(layers, width, every)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(0)
    feed = {"x": rng.randn(batch, width).astype("float32"),
            "y": rng.randint(0, 10, (batch, 1)).astype("int64")}
    plan = Plan(main, list(feed), [loss.name])
    env = scope._values
    env.update(feed)
    peak_all = plan.run_measuring_memory(env)
    plan.drop_temporaries(env)
    env.update(feed)
    # activations: forward values and their recomputed copies, not gradients
    peak_activations = plan.run_measuring_memory(env, include=lambda n: "@GRAD" not in n)
    plan.drop_temporaries(env)
    times = []
    for _ in range(steps + 2):
        t0 = time.perf_counter()
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        times.append(time.perf_counter() - t0)
    return {"peak_activation_bytes": int(peak_activations),
            "peak_temporary_bytes": int(peak_all), "ms_per_step": 1e3 * statistics.median(times[2:]),
            "ops": len(main.global_block().ops)}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--layers", type=int, default=32)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--every", type=int, default=4)
    p.add_argument("--steps", type=int, default=5)
    a = p.parse_args()
    plain = measure(a.layers, a.width, a.batch, 0, a.steps)
    rc = measure(a.layers, a.width, a.batch, a.every, a.steps)
    print(json.dumps({"workload": "mlp %dx%d batch %d, checkpoint every %d"
                      % (a.layers, a.width, a.batch, a.every),
                      "plain": plain, "recompute": rc,
                      "activation_peak_ratio_plain_over_recompute":
                          round(plain["peak_activation_bytes"] / rc["peak_activation_bytes"], 2),
                      "time_overhead": round(rc["ms_per_step"] / plain["ms_per_step"] - 1, 3)}))


if __name__ == "__main__":
    main()
