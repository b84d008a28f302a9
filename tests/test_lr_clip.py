"""Learning-rate schedules (paddle.optimizer.lr value sequences vs Paddle 2.0's formulas;
fluid.layers decays as graph ops advancing once per run) and gradient clipping values."""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework.program import OpRole
from refimpl.framework.scope import Scope
from test_optimizers import GRAD_B, GRAD_W, W0, B0, X, assert_steps, run_fc

lr = paddle.optimizer.lr


def values(sched, n):
    """The scheduler's value at epochs 0..n-1, stepping once between them."""
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


@pytest.mark.parametrize("make,formula", [
    (lambda: lr.ExponentialDecay(1.0, 0.5), lambda e: 0.5 ** e),
    (lambda: lr.NaturalExpDecay(0.5, 0.3), lambda e: 0.5 * math.exp(-0.3 * e)),
    (lambda: lr.InverseTimeDecay(0.5, 0.3), lambda e: 0.5 / (1 + 0.3 * e)),
    (lambda: lr.StepDecay(1.0, 2, 0.1), lambda e: 0.1 ** (e // 2)),
    (lambda: lr.MultiStepDecay(1.0, [1, 3], 0.5), lambda e: 0.5 ** ((e >= 1) + (e >= 3))),
    (lambda: lr.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1]),
     lambda e: 1.0 if e < 2 else 0.5 if e < 4 else 0.1),
    (lambda: lr.PolynomialDecay(1.0, 4, end_lr=0.1, power=2.0),
     lambda e: 0.9 * (1 - min(e, 4) / 4) ** 2 + 0.1),
    (lambda: lr.PolynomialDecay(1.0, 2, end_lr=0.0, cycle=True),
     lambda e: 1 - e / (2 * max(1, math.ceil(e / 2)))),
    (lambda: lr.LambdaDecay(2.0, lambda e: 0.5 ** e), lambda e: 2.0 * 0.5 ** e),
    (lambda: lr.NoamDecay(64, 3, learning_rate=2.0),   # 0 at epoch 0, as Paddle 2.0
     lambda e: 2.0 * 64 ** -0.5 * min(e ** -0.5 if e else 1.0, e * 3 ** -1.5)),
    (lambda: lr.CosineAnnealingDecay(1.0, 3, eta_min=0.1),      # two full periods
     lambda e: 0.1 + 0.9 * (1 + math.cos(math.pi * e / 3)) / 2),
    (lambda: lr.LinearWarmup(0.5, 4, 0.0, 0.4), lambda e: 0.1 * e if e < 4 else 0.5),
    (lambda: lr.LinearWarmup(lr.ExponentialDecay(1.0, 0.5), 2, 0.2, 1.0),
     lambda e: 0.2 + 0.4 * e if e < 2 else 0.5 ** (e - 2)),
])
def test_scheduler_values_follow_the_formula(make, formula):
    n = 13
    np.testing.assert_allclose(values(make(), n), [formula(e) for e in range(n)],
                               rtol=1e-12, atol=1e-15)


def test_step_to_an_epoch_uses_the_closed_form():
    s = lr.CosineAnnealingDecay(1.0, 4)
    s.step(6)
    assert s.last_epoch == 6
    assert s() == pytest.approx((1 + math.cos(math.pi * 6 / 4)) / 2, abs=1e-15)
    s = lr.StepDecay(1.0, 3, 0.5, last_epoch=5)       # resumes: the first value is epoch 6
    assert s() == 0.25


def test_scheduler_argument_checks():
    with pytest.raises(ValueError, match="gamma must be < 1.0"):
        lr.StepDecay(1.0, 2, gamma=2.0)
    with pytest.raises(ValueError, match="milestones must be increasing"):
        lr.MultiStepDecay(1.0, [3, 1])
    with pytest.raises(TypeError, match="milestones must be a list or tuple, got str"):
        lr.MultiStepDecay(0.5, "test")
    # 2.0's message, or 3.3.1's rule (switch piecewise_decay_values)
    with pytest.raises(ValueError, match=r"a value for each boundary|need len\(values\) == "
                                         r"len\(boundaries\) \+ 1, got 1 and 2"):
        lr.PiecewiseDecay([1, 2], [1.0])
    with pytest.raises(TypeError, match="learning_rate must be a float"):
        lr.ExponentialDecay("1", 0.5)
    with pytest.raises(ValueError, match="mode must be"):
        lr.ReduceOnPlateau(1.0, mode="up")


def test_piecewise_decay_values_by_version(paddle_version):
    # Paddle 2.0 checks nothing: one value per boundary, the last one also after them
    # all (2.0's test_callback_reduce_lr_on_plateau builds PiecewiseDecay([0.001, 0.0001],
    # [5, 10])); 3.3.1 wants one value more than boundaries
    with paddle_version("2.0"):
        assert values(lr.PiecewiseDecay([2, 4], [1.0, 0.5]), 6) == [1.0, 1.0, 0.5, 0.5, 0.5,
                                                                   0.5]
        assert values(lr.PiecewiseDecay([0.001, 0.0001], [5, 10]), 3) == [5, 10, 10]
        with pytest.raises(ValueError, match="a value for each boundary"):
            lr.PiecewiseDecay([], [])
    with paddle_version("3"):
        with pytest.raises(ValueError, match="len\\(values\\) == len\\(boundaries\\) \\+ 1"):
            lr.PiecewiseDecay([2, 4], [1.0, 0.5])


def test_reduce_on_plateau_patience_cooldown_and_min_lr():
    s = lr.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1, min_lr=0.2)
    seen = []
    # no improvement on 1.0 for 2 > patience epochs halves the lr, then one epoch of cooldown
    # is not watched; the third halving stops at min_lr
    for metric in [1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]:
        s.step(np.array([metric], "float32"))
        seen.append(s())
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2]


def test_reduce_on_plateau_max_mode_and_abs_threshold():
    s = lr.ReduceOnPlateau(1.0, mode="max", patience=0, factor=0.1, threshold=0.5,
                           threshold_mode="abs")
    s.step(1.0)
    s.step(1.4)               # not above best + 0.5: one bad epoch > patience 0
    assert s() == pytest.approx(0.1)
    s.step(2.0)               # improves on best 1.0 by more than 0.5
    assert s() == pytest.approx(0.1)


def test_executor_writes_the_scheduler_value_before_each_run():
    sched = lr.PiecewiseDecay([1, 2], [0.1, 0.01, 0.001])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Assign(W0))
        loss = paddle.mean(static.nn.fc(x, 2, weight_attr=attr, bias_attr=False))
        paddle.optimizer.SGD(sched).minimize(loss)
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    ws = []
    for _ in range(4):
        exe.run(main, feed={"x": X}, scope=scope)
        ws.append(np.array(scope.find_var("w").get_tensor()))
        sched.step()
    rates = np.cumsum([0.1, 0.01, 0.001, 0.001])
    assert_steps(ws, [W0 - r * GRAD_W for r in rates])


# -- fluid.layers decays: ops driven by the @LR_DECAY_COUNTER@ step counter

def decay_values(build, runs=7):
    """Run a program holding only the decay `runs` times; the fetched lr of each run."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        rate = build()
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    got = [float(np.asarray(exe.run(main, fetch_list=[rate], scope=scope)[0]).reshape(-1)[0])
           for _ in range(runs)]
    return got, main


L = fluid.layers


@pytest.mark.parametrize("build,formula", [
    (lambda: L.exponential_decay(0.1, 2, 0.5), lambda s: 0.1 * 0.5 ** (s / 2)),
    (lambda: L.exponential_decay(0.1, 2, 0.5, staircase=True), lambda s: 0.1 * 0.5 ** (s // 2)),
    (lambda: L.natural_exp_decay(0.1, 3, 0.4), lambda s: 0.1 * math.exp(-0.4 * s / 3)),
    (lambda: L.natural_exp_decay(0.1, 3, 0.4, True), lambda s: 0.1 * math.exp(-0.4 * (s // 3))),
    (lambda: L.inverse_time_decay(0.1, 2, 0.5), lambda s: 0.1 / (1 + 0.5 * s / 2)),
    (lambda: L.inverse_time_decay(0.1, 2, 0.5, True), lambda s: 0.1 / (1 + 0.5 * (s // 2))),
    (lambda: L.polynomial_decay(1.0, 4, 0.1, power=2.0),
     lambda s: 0.9 * (1 - min(s, 4) / 4) ** 2 + 0.1),
    (lambda: L.polynomial_decay(1.0, 2, 0.0, cycle=True),
     lambda s: 1 - s / (2 * max(1, math.ceil(s / 2)))),
    (lambda: L.piecewise_decay([2, 4], [1.0, 0.5, 0.1]),
     lambda s: 1.0 if s < 2 else 0.5 if s < 4 else 0.1),
    (lambda: L.cosine_decay(1.0, 2, 5), lambda s: 0.5 * (math.cos((s // 2) * math.pi / 5) + 1)),
    (lambda: L.noam_decay(64, 3, 2.0),                     # the counter starts at 1 here
     lambda s: 2.0 * 64 ** -0.5 * min((s + 1) ** -0.5, (s + 1) * 3 ** -1.5)),
    (lambda: L.linear_lr_warmup(0.5, 4, 0.1, 0.3), lambda s: 0.1 + 0.05 * s if s < 4 else 0.5),
    # after the warmup the wrapped decay continues from the same global step
    (lambda: L.linear_lr_warmup(L.exponential_decay(1.0, 1, 0.5), 3, 0.0, 0.3),
     lambda s: 0.1 * s if s < 3 else 0.5 ** s),
])
def test_fluid_decay_sequence_over_runs(build, formula):
    got, _ = decay_values(build)
    np.testing.assert_allclose(got, [formula(s) for s in range(len(got))], rtol=2e-6)


def test_fluid_decay_ops_are_lr_sched_and_share_one_counter():
    def build():
        return [L.exponential_decay(0.1, 1, 0.5), L.piecewise_decay([1], [1.0, 2.0])]
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        build()
    ops = main.global_block().ops
    assert ops[0].type == "increment"
    assert ops[0].input("X") == ops[0].output("Out") == ["@LR_DECAY_COUNTER@"]
    assert [op.type for op in ops].count("increment") == 1
    assert all(op.attr("op_role") == OpRole.LRSched for op in ops)
    counter = main.global_block().var("@LR_DECAY_COUNTER@")
    assert counter.persistable and counter.dtype.name == "int64"
    assert main.clone(for_test=True).global_block().ops == []


def test_fluid_decay_drives_the_optimizer_once_per_run():
    def make():
        return fluid.optimizer.SGD(L.piecewise_decay([1, 2], [0.1, 0.01, 0.001]))
    history, main, _, _ = run_fc(make, steps=4)
    rates = np.cumsum([0.1, 0.01, 0.001, 0.001])
    assert_steps(history["w"], [W0 - r * GRAD_W for r in rates])
    assert main.lr_scheduler is None


def test_decay_from_another_program_is_refused():
    rate = L.exponential_decay(0.1, 1, 0.5)      # lands in the default program
    with pytest.raises(ValueError, match="belongs to another program"):
        run_fc(lambda: fluid.optimizer.SGD(rate))


# -- gradient clipping

NORM_W = np.sqrt((GRAD_W ** 2).sum())
NORM_WB = np.sqrt((GRAD_W ** 2).sum() + (GRAD_B ** 2).sum())


def sgd_one_step(clip, weight_attr=None):
    """w and b after one SGD(1.0) step, and the program's ops."""
    history, main, _, _ = run_fc(lambda: paddle.optimizer.SGD(1.0, grad_clip=clip),
                                 steps=1, bias=True, weight_attr=weight_attr)
    return history["w"][0], history["b"][0], main.global_block().ops


@pytest.mark.parametrize("clip", [paddle.nn.ClipGradByGlobalNorm(0.3),
                                  fluid.clip.GradientClipByGlobalNorm(clip_norm=0.3)])
def test_global_norm_scales_every_gradient_by_one_factor(clip):
    w, b, ops = sgd_one_step(clip)
    scale = 0.3 / max(NORM_WB, 0.3)
    assert scale < 1
    np.testing.assert_allclose(w, W0 - scale * GRAD_W, rtol=1e-5)
    np.testing.assert_allclose(b, B0 - scale * GRAD_B, rtol=1e-5)
    # each gradient's squared norm: squared_l2_norm, or 1.8.5's square and reduce_sum
    # (switch global_norm_clip_ops)
    norm = "squared_l2_norm" if versions.switch("global_norm_clip_ops") == "squared_l2_norm" \
        else "square"
    clip_ops = [op for op in ops if op.type in (norm, "sqrt", "elementwise_max")]
    assert [op.type for op in clip_ops].count(norm) == 2
    assert all(op.attr("op_role") == OpRole.Optimize for op in clip_ops)


def test_global_norm_above_the_norm_changes_nothing():
    w, b, _ = sgd_one_step(paddle.nn.ClipGradByGlobalNorm(100.0))
    np.testing.assert_allclose(w, W0 - GRAD_W, rtol=1e-6)
    np.testing.assert_allclose(b, B0 - GRAD_B, rtol=1e-6)


def test_need_clip_false_leaves_the_gradient_and_the_norm_alone():
    attr = paddle.ParamAttr(name="w", need_clip=False)
    w, b, _ = sgd_one_step(paddle.nn.ClipGradByGlobalNorm(0.2), weight_attr=attr)
    norm_b = np.sqrt((GRAD_B ** 2).sum())
    np.testing.assert_allclose(w, W0 - GRAD_W, rtol=1e-6)
    np.testing.assert_allclose(b, B0 - GRAD_B * 0.2 / norm_b, rtol=1e-5)
    # the 1.8 spelling: a function of the parameter
    w, b, _ = sgd_one_step(fluid.clip.GradientClipByGlobalNorm(
        0.2, need_clip=lambda p: p.name != "b"))
    np.testing.assert_allclose(w, W0 - GRAD_W * 0.2 / NORM_W, rtol=1e-5)
    np.testing.assert_allclose(b, B0 - GRAD_B, rtol=1e-6)


def test_clip_by_norm_is_per_gradient():
    norm_b = np.sqrt((GRAD_B ** 2).sum())
    limit = (NORM_W + norm_b) / 2
    assert NORM_W < limit < norm_b
    w, b, ops = sgd_one_step(paddle.nn.ClipGradByNorm(limit))
    np.testing.assert_allclose(w, W0 - GRAD_W, rtol=1e-6)
    np.testing.assert_allclose(b, B0 - GRAD_B * limit / norm_b, rtol=1e-5)
    assert [op.type for op in ops].count("clip_by_norm") == 2


def test_clip_by_value():
    w, b, _ = sgd_one_step(paddle.nn.ClipGradByValue(0.3, min=-0.1))
    np.testing.assert_allclose(w, W0 - np.clip(GRAD_W, -0.1, 0.3), rtol=1e-6)
    np.testing.assert_allclose(b, B0 - np.clip(GRAD_B, -0.1, 0.3), rtol=1e-6)
    w, _, _ = sgd_one_step(fluid.clip.GradientClipByValue(0.2))      # min defaults to -max
    np.testing.assert_allclose(w, W0 - np.clip(GRAD_W, -0.2, 0.2), rtol=1e-6)
    with pytest.raises(ValueError, match="min 1.0 must be <= max 0.5"):
        paddle.nn.ClipGradByValue(0.5, min=1.0)


def test_clipping_happens_before_regularization():
    clip = paddle.nn.ClipGradByValue(0.1)
    make = lambda: paddle.optimizer.SGD(1.0, weight_decay=0.5, grad_clip=clip)  # noqa: E731
    history, _, _, _ = run_fc(make, steps=1)
    assert_steps(history["w"], [W0 - (np.clip(GRAD_W, -0.1, 0.1) + 0.5 * W0)])


# -- the same schedules and clipping on two data-parallel places

def train(make_optimizer, places, runs=3, after_run=None):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Assign(W0))
        loss = paddle.mean(static.nn.fc(x, 2, weight_attr=attr, bias_attr=False) ** 2)
        make_optimizer().minimize(loss)
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    prog = main if places == 1 else static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * places)
    for _ in range(runs):
        exe.run(prog, feed={"x": X}, scope=scope)
        if after_run:
            after_run()
    return np.array(scope.find_var("w").get_tensor())


@pytest.mark.parametrize("make", [
    lambda: fluid.optimizer.Momentum(L.piecewise_decay([1, 2], [0.3, 0.1, 0.05]), 0.9,
                                     grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)),
    lambda: fluid.optimizer.Adam(L.noam_decay(8, 2), grad_clip=paddle.nn.ClipGradByNorm(0.2)),
])
def test_data_parallel_matches_one_place(make):
    np.testing.assert_allclose(train(make, 2), train(make, 1), rtol=1e-5)


def test_data_parallel_scheduler_steps_like_one_place():
    def run(places):
        sched = lr.StepDecay(0.2, 1, 0.5)
        return train(lambda: paddle.optimizer.SGD(sched), places, after_run=sched.step)
    w1 = run(1)
    assert not np.allclose(w1, W0)
    np.testing.assert_allclose(run(2), w1, rtol=1e-5)


@pytest.mark.parametrize("make", [lambda: paddle.nn.ClipGradByGlobalNorm(1.0),
                                  lambda: paddle.nn.ClipGradByNorm(1.0),
                                  lambda: paddle.nn.ClipGradByValue(1.0)])
def test_a_parameter_without_a_gradient_leaves_the_clipped_list(make):
    """Paddle 1.8.5's and 2.0's clips drop (param, None) pairs (1.8.5's test_gradient_clip
    asserts it); the others keep their order."""
    block = static.default_main_program().global_block()
    x = block.create_parameter(name="x", shape=[2, 3], dtype="float32")
    y = block.create_parameter(name="y", shape=[2, 3], dtype="float32")
    clipped = make()([(x, None), (x, y), (y, x)])
    assert [p.name for p, _ in clipped] == ["x", "y"]
    assert make()([(x, None)]) == []


def test_an_eager_parameter_without_a_gradient_leaves_the_clipped_list(dygraph):
    x = paddle.to_tensor(np.array([2.0, 3.0], "float32"))
    assert paddle.nn.ClipGradByNorm(0.8)([(x, None)]) == []


def test_fluid_decay_step_counter_is_importable_and_counts_from_begin():
    # Paddle 1.8.5's seresnext_net imports it from fluid.layers.learning_rate_scheduler
    from refimpl.fluid.layers.learning_rate_scheduler import _decay_step_counter
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        step = _decay_step_counter(begin=3)
    exe, scope = static.Executor(), Scope()
    exe.run(startup, scope=scope)
    got = [exe.run(main, fetch_list=[step], scope=scope)[0] for _ in range(3)]
    np.testing.assert_array_equal(np.concatenate(got), np.array([3, 4, 5], "float32"))


def test_reduce_on_plateau_takes_a_one_value_tensor(dygraph):
    s = lr.ReduceOnPlateau(1.0, patience=0, factor=0.5)
    s.step(paddle.to_tensor(np.array([2.0], "float32")))
    s.step(paddle.to_tensor(np.array([3.0], "float32")))      # worse than 2.0: halved
    assert s() == 0.5
    with pytest.raises(ValueError, match="must hold one value, got 2"):
        s.step(paddle.to_tensor(np.array([1.0, 2.0], "float32")))
