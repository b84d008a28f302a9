"""fluid.layers learning-rate decays. Paddle 1.8 builds these from a global step counter
that advances once per run; here each is a scheduler with that same per-run stepping
(refimpl.optimizer.lr.RunStepped), usable wherever a learning rate is."""
import math

from ..optimizer.lr import RunStepped


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    def f(step):
        e = step / decay_steps
        return learning_rate * decay_rate ** (math.floor(e) if staircase else e)
    return RunStepped(f)


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    def f(step):
        e = step / decay_steps
        return learning_rate * math.exp(-decay_rate * (math.floor(e) if staircase else e))
    return RunStepped(f)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    def f(step):
        e = step / decay_steps
        return learning_rate / (1 + decay_rate * (math.floor(e) if staircase else e))
    return RunStepped(f)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False):
    def f(step):
        steps = decay_steps
        if cycle:
            steps = decay_steps * max(1, math.ceil(step / decay_steps))
        else:
            step = min(step, decay_steps)
        return (learning_rate - end_learning_rate) * (1 - step / steps) ** power + \
            end_learning_rate
    return RunStepped(f)


def piecewise_decay(boundaries, values):
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_decay: need len(values) == len(boundaries) + 1")

    def f(step):
        for b, v in zip(boundaries, values):
            if step < b:
                return v
        return values[-1]
    return RunStepped(f)


def cosine_decay(learning_rate, step_each_epoch, epochs):
    def f(step):
        epoch = math.floor(step / step_each_epoch)
        return learning_rate * 0.5 * (math.cos(epoch * math.pi / epochs) + 1)
    return RunStepped(f)


def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    def f(step):
        step = step + 1
        return learning_rate * d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
    return RunStepped(f)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    def f(step):
        if step < warmup_steps:
            return start_lr + (end_lr - start_lr) * step / warmup_steps
        if isinstance(learning_rate, RunStepped):
            return learning_rate.schedule(step - warmup_steps)
        return learning_rate
    return RunStepped(f)


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    exponential_decay, natural_exp_decay, inverse_time_decay, polynomial_decay,
    piecewise_decay, cosine_decay, noam_decay, linear_lr_warmup)}}
