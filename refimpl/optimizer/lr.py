"""paddle.optimizer.lr: learning-rate schedulers (Paddle 2.0 formulas).

A scheduler passed as `learning_rate` owns the optimizer's learning-rate variable: before
every run of the program the executor writes the scheduler's current value into it
(`_run_value`). 2.0 schedulers advance when the user calls `step()`; the fluid.layers decay
functions advance once per run, like Paddle 1.8's global step counter.
"""
import math

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay",
           "InverseTimeDecay", "PolynomialDecay", "LinearWarmup", "ExponentialDecay",
           "MultiStepDecay", "StepDecay", "LambdaDecay", "ReduceOnPlateau",
           "CosineAnnealingDecay"]


class LRScheduler:
    _var_name = None

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self):
        return self.last_lr

    def _run_value(self):
        return self.last_lr

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = float(self.get_lr())
        if self.verbose:
            print("Epoch %d: %s set learning rate to %s."
                  % (self.last_epoch, type(self).__name__, self.last_lr))

    def get_lr(self):
        raise NotImplementedError

    def state_dict(self):
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state):
        self.last_epoch, self.last_lr = state["last_epoch"], state["last_lr"]


class NoamDecay(LRScheduler):
    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        step = max(self.last_epoch, 1)
        return self.base_lr * self.d_model ** -0.5 * min(step ** -0.5,
                                                         step * self.warmup_steps ** -1.5)


class PiecewiseDecay(LRScheduler):
    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay: need len(values) == len(boundaries) + 1, got %d "
                             "and %d" % (len(values), len(boundaries)))
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(values[0], last_epoch, verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        step, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = steps * max(1, math.ceil(step / steps))
        else:
            step = min(step, steps)
        return (self.base_lr - self.end_lr) * (1 - step / steps) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear from start_lr to end_lr over warmup_steps, then `learning_rate` (a float or a
    scheduler, stepped from 0 after the warmup)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        self.inner = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        base = learning_rate if isinstance(learning_rate, (int, float)) else end_lr
        super().__init__(base, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * \
                self.last_epoch / self.warmup_steps
        if isinstance(self.inner, LRScheduler):
            self.inner.step(self.last_epoch - self.warmup_steps)
            return self.inner()
        return self.inner


class ExponentialDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class CosineAnnealingDecay(LRScheduler):
    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class ReduceOnPlateau(LRScheduler):
    """Multiply the lr by `factor` when the metric passed to step() stops improving."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("ReduceOnPlateau: factor must be < 1.0, got %s" % factor)
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.best, self.bad_epochs, self.cooldown_left = None, 0, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose

    def _better(self, value):
        if self.best is None:
            return True
        delta = self.threshold * abs(self.best) if self.threshold_mode == "rel" else self.threshold
        return value < self.best - delta if self.mode == "min" else value > self.best + delta

    def step(self, metrics=None, epoch=None):
        if metrics is None:
            return
        value = float(getattr(metrics, "item", lambda: metrics)())
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.cooldown_left > 0:
            self.cooldown_left -= 1
        if self._better(value):
            self.best, self.bad_epochs = value, 0
        elif self.cooldown_left == 0:
            self.bad_epochs += 1
        if self.bad_epochs > self.patience:
            new = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new > self.epsilon:
                self.last_lr = new
            self.cooldown_left, self.bad_epochs = self.cooldown, 0


class RunStepped(LRScheduler):
    """A scheduler that advances once per executor run (fluid.layers.*_decay semantics)."""

    def __init__(self, schedule):
        self.schedule = schedule   # step -> lr
        super().__init__(schedule(0))

    def get_lr(self):
        return self.schedule(max(self.last_epoch, 0))

    def _run_value(self):
        value = self.last_lr
        self.step()
        return value
