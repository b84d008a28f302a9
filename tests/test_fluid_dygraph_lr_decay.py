"""Paddle 1.8's dygraph learning-rate decays (fluid.dygraph.PiecewiseDecay, ...) driving a
1.8 optimizer: the rate each minimize used and what current_step_lr said before it, against
Paddle 1.8.5 running the same loop (recorded below: an SGD step on Linear(3, 1) whose
weight gradient is 2, so the rate used is the weight's change / -2)."""
import numpy as np
import pytest

from refimpl import fluid

D = fluid.dygraph

# Paddle 1.8.5, python3.8: per case (current_step_lr before each of 8 steps, rate used);
# -1: not asked (1.8.5's current_step_lr before the first step advances a wrapped decay)
PADDLE_1_8_5 = {
    'piecewise': ([0.5, 0.5, 0.5, 0.4, 0.4, 0.3, 0.3, 0.2],
        [0.5, 0.5, 0.4, 0.4, 0.3, 0.3, 0.2, 0.2]),
    'natural_exp': ([0.5, 0.5, 0.4232409, 0.3582656, 0.3032653, 0.2567086, 0.2172991, 0.1839397],
        [0.5, 0.4232409, 0.3582656, 0.3032653, 0.2567085, 0.2172991, 0.1839397, 0.1557016]),
    'natural_exp_stair': ([0.5, 0.5, 0.5, 0.5, 0.3032653, 0.3032653, 0.3032653, 0.1839397],
        [0.5, 0.5, 0.5, 0.3032653, 0.3032653, 0.3032653, 0.1839397, 0.1839397]),
    'exponential': ([0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125],
        [0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125]),
    'inverse_time': ([0.5, 0.5, 0.4, 0.3333333, 0.2857143, 0.25, 0.2222222, 0.2],
        [0.5, 0.4, 0.3333334, 0.2857143, 0.25, 0.2222223, 0.2, 0.1818182]),
    'polynomial': ([0.5, 0.5, 0.3236, 0.1864, 0.08839999, 0.0296, 0.01, 0.01],
        [0.5, 0.3236001, 0.1864, 0.08840001, 0.02960002, 0.00999999, 0.00999999, 0.00999999]),
    'polynomial_cycle': ([0.5, 0.5, 0.3366666, 0.1733333, 0.01, 0.1733333, 0.09166668, 0.01],
        [0.5, 0.3366666, 0.1733333, 0.00999999, 0.1733333, 0.0916667, 0.00999999, 0.1188889]),
    'cosine': ([0.5, 0.5, 0.5, 0.4267767, 0.4267767, 0.25, 0.25, 0.07322331],
        [0.5, 0.4999999, 0.4267766, 0.4267766, 0.25, 0.25, 0.07322335, 0.07322335]),
    'noam': ([0.02405626, 0.02405626, 0.04811252, 0.07216878, 0.0625, 0.0559017, 0.05103104, 0.04724556],
        [0.02405626, 0.04811251, 0.07216877, 0.0625, 0.05590171, 0.05103105, 0.04724556, 0.04419416]),
    'warmup_float': ([0.075, 0.075, 0.15, 0.225, 0.5, 0.5, 0.5, 0.5],
        [0.07499999, 0.15, 0.225, 0.5, 0.5000001, 0.5, 0.5, 0.5]),
    'warmup_decay': ([-1.0, 0.1, 0.2, 0.25, 0.1767767, 0.125, 0.08838835, 0.0625],
        [0.09999999, 0.2, 0.25, 0.1767767, 0.125, 0.08838832, 0.0625, 0.04419422]),
    'step_decay': ([0.5, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125, 0.0625],
        [0.5, 0.5, 0.2499999, 0.25, 0.125, 0.125, 0.0625, 0.0625]),
    'multistep': ([0.5, 0.5, 0.5, 0.05, 0.05, 0.05, 0.005, 0.005],
        [0.5, 0.5, 0.05000001, 0.05000001, 0.05000001, 0.004999995, 0.004999995, 0.004999995]),
    'lambda': ([0.5, 0.5, 0.5, 0.45, 0.45, 0.405, 0.405, 0.3645],
        [0.5, 0.5, 0.45, 0.4499999, 0.405, 0.405, 0.3645, 0.3645]),
    'plateau': ([0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25],
        [0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25]),
}

CASES = {
    "piecewise": lambda: D.PiecewiseDecay([2, 4, 6], [0.5, 0.4, 0.3, 0.2], 0),
    "natural_exp": lambda: D.NaturalExpDecay(0.5, 3, 0.5),
    "natural_exp_stair": lambda: D.NaturalExpDecay(0.5, 3, 0.5, staircase=True),
    "exponential": lambda: D.ExponentialDecay(0.5, 3, 0.5, staircase=True),
    "inverse_time": lambda: D.InverseTimeDecay(0.5, 2, 0.5),
    "polynomial": lambda: D.PolynomialDecay(0.5, 5, 0.01, power=2.0),
    "polynomial_cycle": lambda: D.PolynomialDecay(0.5, 3, 0.01, cycle=True),
    "cosine": lambda: D.CosineDecay(0.5, 2, 4),
    "noam": lambda: D.NoamDecay(64, 3),
    "warmup_float": lambda: D.LinearLrWarmup(0.5, 4, 0.1, 0.4),
    "warmup_decay": lambda: D.LinearLrWarmup(D.ExponentialDecay(0.5, 2, 0.5), 3, 0.1, 0.4),
    "step_decay": lambda: D.StepDecay(0.5, 2, 0.5),
    "multistep": lambda: D.MultiStepDecay(0.5, [2, 5], 0.1),
    "lambda": lambda: D.LambdaDecay(0.5, lambda e: 0.9 ** e),
    "plateau": lambda: D.ReduceLROnPlateau(0.5, patience=1, decay_rate=0.5, cooldown=1),
}
EPOCH_EVERY = {"step_decay": 1, "multistep": 1, "lambda": 2}
PLATEAU_LOSSES = [3, 2, 2.5, 2.6, 2.7, 1.0, 1.5, 1.6]


def _train(name):
    with fluid.dygraph.guard(fluid.CPUPlace()):
        lin = D.Linear(3, 1)
        sched = CASES[name]()
        opt = fluid.optimizer.SGD(learning_rate=sched, parameter_list=lin.parameters())
        x = D.to_variable(np.ones([2, 3], "float32"))
        before, used = [], []
        for i in range(8):
            if name == "plateau":
                before.append(float(sched().numpy()[0]))
            elif name == "warmup_decay" and i == 0:
                before.append(-1.0)
            else:
                before.append(float(opt.current_step_lr()))
            w = lin.weight.numpy().copy()
            loss = fluid.layers.reduce_sum(lin(x))
            loss.backward()
            opt.minimize(loss)
            lin.clear_gradients()
            used.append(float((lin.weight.numpy() - w).reshape(-1)[0] / -2.0))
            if name in EPOCH_EVERY and (i + 1) % EPOCH_EVERY[name] == 0:
                sched.epoch()
            if name == "plateau":
                sched.step(D.to_variable(np.array([PLATEAU_LOSSES[i]], "float32")))
        return before, used


@pytest.mark.paddle("1.8")
@pytest.mark.parametrize("name", sorted(CASES))
def test_decay_drives_the_optimizer_as_paddle_1_8_5(name):
    before, used = _train(name)
    want_before, want_used = PADDLE_1_8_5[name]
    # the rate used is read back through a float32 weight update: a few ulps
    np.testing.assert_allclose(used, want_used, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(before, want_before, rtol=1e-6)


@pytest.mark.paddle("1.8")
def test_plateau_keeps_the_best_loss_tensor_and_saves_its_number():
    """Paddle 1.8.5: best_loss is the loss Tensor step() was given (its test_LR_state_dict
    reads best_loss.numpy()[0]); state_dict holds its one number."""
    with fluid.dygraph.guard(fluid.CPUPlace()):
        sched = D.ReduceLROnPlateau(1.0, patience=0, decay_rate=0.5)
        losses = [D.to_variable(np.array([v], "float32")) for v in (2.0, 1.5, 1.7)]
        for loss in losses:
            sched.step(loss)
        assert sched.best_loss is losses[1] and sched.num_bad_epochs == 0
        assert sched.learning_rate == 0.5         # the third epoch did not improve
        state = sched.state_dict()
        assert state["best_loss"] == np.float32(1.5) and state["epoch_num"] == 3
        again = D.ReduceLROnPlateau(1.0, patience=0, decay_rate=0.5)
        again.set_dict(state)
        again.step(D.to_variable(np.array([1.6], "float32")))
        assert again.learning_rate == 0.25


def test_decays_refuse_bad_configuration_and_static_programs():
    with pytest.raises(ValueError, match="len\\(values\\)"):
        D.PiecewiseDecay([2], [0.5], 0)
    with pytest.raises(ValueError, match="end_lr"):
        D.LinearLrWarmup(0.5, 4, 0.4, 0.1)
    with pytest.raises(TypeError, match="step_size"):
        D.StepDecay(0.5, 2.0)
    with pytest.raises(ValueError, match="milestones"):
        D.MultiStepDecay(0.5, [5, 2])
    with pytest.raises(ValueError, match="mode"):
        D.ReduceLROnPlateau(0.5, mode="up")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        loss = fluid.layers.reduce_mean(fluid.layers.fc(x, 1))
        with pytest.raises(TypeError, match="1.8's dygraph learning-rate decays"):
            fluid.optimizer.SGD(learning_rate=D.NoamDecay(64, 3)).minimize(loss)


def test_decay_state_round_trips_and_set_lr_is_refused():
    sched = D.PiecewiseDecay([2, 4], [0.5, 0.4, 0.3], 0)
    sched(), sched(), sched()
    state = sched.state_dict()
    assert state == {"step_num": 3}
    fresh = D.PiecewiseDecay([2, 4], [0.5, 0.4, 0.3], 0)
    fresh.set_dict(state)
    assert fresh.current() == pytest.approx(0.4) and float(fresh().numpy()[0]) == \
        pytest.approx(0.4)
    with pytest.raises(RuntimeError, match="set_dict"):
        fresh.set_dict({})
    with fluid.dygraph.guard():
        lin = D.Linear(3, 1)
        opt = fluid.optimizer.SGD(learning_rate=fresh, parameter_list=lin.parameters())
        with pytest.raises(RuntimeError, match="set_lr"):
            opt.set_lr(0.1)


def test_a_subclass_step_may_build_its_rate_from_create_lr_var_tensors():
    # the models repository's 1.8 dygraph/transformer NoamDecay: d_model^-0.5 *
    # min(step^-0.5, warmup^-1.5 * step) * 2.0, built with layers.elementwise_min
    from refimpl import fluid

    class Noam(fluid.dygraph.learning_rate_scheduler.LearningRateDecay):
        def step(self):
            a = self.create_lr_var(self.step_num ** -0.5)
            b = self.create_lr_var((4 ** -1.5) * self.step_num)
            return (16 ** -0.5) * fluid.layers.elementwise_min(a, b) * 2.0

    with fluid.dygraph.guard():
        decay = Noam(begin=1)
        var = decay.create_lr_var(0.25)
        assert var.shape == [1] and var.dtype == fluid.core.VarDesc.VarType.FP32
        linear = fluid.dygraph.Linear(2, 1)
        sgd = fluid.optimizer.SGD(learning_rate=decay, parameter_list=linear.parameters())
        rates = []
        for _ in range(6):
            loss = fluid.layers.reduce_sum(linear(fluid.dygraph.to_variable(
                np.ones([1, 2], "float32"))))
            loss.backward(); sgd.minimize(loss); linear.clear_gradients()
            rates.append(sgd.current_step_lr())
        expected = [0.5 * min(s ** -0.5, s / 8.0) for s in range(1, 7)]   # steps 1-6
        np.testing.assert_allclose(rates, np.float32(expected), rtol=1e-6)


# Paddle 1.8.5 (one group: Momentum(PiecewiseDecay([2, 4], [1.0, 0.5, 0.1], 0), 0.9) on
# Linear(2, 1) with zero weights, loss the sum of its output at x = ones) and Paddle 3.3.1
# (the same schedule as an LRScheduler stepped after each step, the parameters in two groups,
# the first with momentum 0.0): the weight after each of five steps, one rate per step
# for every group
MOMENTUM_0_9_WEIGHTS = [-1.0, -2.9000001, -4.2550001, -5.9745002, -6.3840103]   # both
MOMENTUM_0_WEIGHTS = [-1.0, -2.0, -2.5, -3.0, -3.0999999]                       # 3.3.1


def test_a_decay_advances_once_per_step_with_param_groups():
    with fluid.dygraph.guard():
        a = D.Linear(2, 1, bias_attr=False, param_attr=fluid.initializer.Constant(0.0))
        b = D.Linear(2, 1, bias_attr=False, param_attr=fluid.initializer.Constant(0.0))
        decay = D.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1], 0)
        opt = fluid.optimizer.Momentum(decay, momentum=0.9, parameter_list=[
            {"params": a.parameters(), "momentum": 0.0}, {"params": b.parameters()}])
        x = fluid.dygraph.to_variable(np.ones([1, 2], "float32"))
        seen = []
        for _ in range(5):
            loss = fluid.layers.reduce_sum(a(x) + b(x))
            loss.backward(); opt.minimize(loss); opt.clear_gradients()
            seen.append((opt.current_step_lr(), a.weight.numpy()[0, 0], b.weight.numpy()[0, 0]))
        assert decay.step_num == 5
    rates, wa, wb = zip(*seen)
    np.testing.assert_allclose(rates, np.float32([1.0, 1.0, 0.5, 0.5, 0.1]))
    np.testing.assert_allclose(wa, MOMENTUM_0_WEIGHTS, rtol=1e-6)
    np.testing.assert_allclose(wb, MOMENTUM_0_9_WEIGHTS, rtol=1e-6)
