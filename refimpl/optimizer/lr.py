"""paddle.optimizer.lr: learning-rate schedulers (Paddle 2.0 formulas).

A scheduler passed as `learning_rate` owns the optimizer's learning-rate variable: before
every run of the program the executor writes the scheduler's current value into it
(`_run_value`). The scheduler advances only when the user calls `step()`. (The
fluid.layers.*_decay functions are graph ops instead: refimpl/layers/learning_rate.py.)
"""
import math
import numbers

import numpy as np

from .. import versions

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay",
           "InverseTimeDecay", "PolynomialDecay", "LinearWarmup", "ExponentialDecay",
           "MultiStepDecay", "StepDecay", "LambdaDecay", "ReduceOnPlateau",
           "CosineAnnealingDecay"]


class LRScheduler:
    _var_name = None

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, numbers.Real):
            raise TypeError("%s: learning_rate must be a float, got %s"
                            % (type(self).__name__, type(learning_rate).__name__))
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self):
        return self.last_lr

    def _run_value(self):
        """What the executor writes into the learning-rate variable before a run."""
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch, or jump to `epoch` (closed-form value where the schedule has
        a recursive one, as Paddle)."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = float(self.get_lr())
        else:
            self.last_epoch = epoch
            self.last_lr = float(self._closed_form_lr())
        if self.verbose:
            print("Epoch %d: %s set learning rate to %s."
                  % (self.last_epoch, type(self).__name__, self.last_lr))

    def get_lr(self):
        raise NotImplementedError

    def _closed_form_lr(self):
        return self.get_lr()

    def state_dict(self):
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state):
        self.last_epoch, self.last_lr = state["last_epoch"], state["last_lr"]


class NoamDecay(LRScheduler):
    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * d_model^-0.5 * min(epoch^-0.5, epoch * warmup^-1.5): 0 at epoch 0."""
        falling = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        rising = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(falling, rising)


class PiecewiseDecay(LRScheduler):
    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if versions.switch("piecewise_decay_values") == "one_more":
            if len(values) != len(boundaries) + 1:
                raise ValueError("PiecewiseDecay: need len(values) == len(boundaries) + 1, "
                                 "got %d and %d" % (len(values), len(boundaries)))
        elif not values or len(values) < len(boundaries):
            raise ValueError("PiecewiseDecay: need a value for each boundary (len(values) >= "
                             "len(boundaries) >= 0, values not empty), got %d and %d"
                             % (len(values), len(boundaries)))
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(values[0], last_epoch, verbose)

    def get_lr(self):
        # the value of the first boundary past the epoch, else the last value (Paddle's
        # scan, whatever the boundaries' order)
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
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
    """Linear from start_lr to end_lr over warmup_steps, then `learning_rate`: a float, or
    a scheduler whose current value is used and which is stepped once per later epoch."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, (numbers.Real, LRScheduler)):
            raise TypeError("LinearWarmup: learning_rate must be a float or an LRScheduler, "
                            "got %s" % type(learning_rate).__name__)
        self.learning_rate = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / \
                float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            value = self.learning_rate()
            self.learning_rate.step()
            return value
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


def _check_gamma(who, gamma):
    if gamma >= 1.0:
        raise ValueError("%s: gamma must be < 1.0, got %s" % (who, gamma))


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (list, tuple)):   # 2.0 and 3.3.1 check it (measured)
            raise TypeError("MultiStepDecay: milestones must be a list or tuple, got %s"
                            % type(milestones).__name__)
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise ValueError("MultiStepDecay: milestones must be increasing, got %s"
                             % list(milestones))
        _check_gamma("MultiStepDecay", gamma)
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(step_size, int) or step_size <= 0:
            raise ValueError("StepDecay: step_size must be a positive int, got %r" % (step_size,))
        _check_gamma("StepDecay", gamma)
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
        """Paddle's recursive form: the previous lr scaled by the ratio of cosines (the
        closed form below up to rounding), restarting the rise at every half period."""
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        return (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * \
            (self.last_lr - self.eta_min) + self.eta_min

    def _closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class ReduceOnPlateau(LRScheduler):
    """Multiply the lr by `factor` once the metric passed to step() has not improved for
    more than `patience` epochs; then wait `cooldown` epochs before watching again."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        if mode not in ("min", "max"):
            raise ValueError("ReduceOnPlateau: mode must be 'min' or 'max', got %r" % (mode,))
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got %r"
                             % (threshold_mode,))
        if factor >= 1.0:
            raise ValueError("ReduceOnPlateau: factor must be < 1.0, got %s" % factor)
        if not isinstance(learning_rate, numbers.Real):
            raise TypeError("ReduceOnPlateau: learning_rate must be a float, got %s"
                            % type(learning_rate).__name__)
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.best, self.num_bad_epochs, self.cooldown_counter = None, 0, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose

    def _is_better(self, current):
        margin = self.best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < self.best - margin if self.mode == "min" else \
            current > self.best + margin

    def step(self, metrics, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        value = np.asarray(metrics.numpy() if hasattr(metrics, "numpy") else metrics)
        if value.size != 1:
            raise ValueError("ReduceOnPlateau.step: metrics must hold one value, got %d"
                             % value.size)
        current = float(value.reshape(-1)[0])
        if self.cooldown_counter > 0:          # cooling down: the metric is not watched
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print("Epoch %d: ReduceOnPlateau set learning rate to %s."
                          % (self.last_epoch, self.last_lr))
