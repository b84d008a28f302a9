"""Paddle 1.8's dygraph learning-rate decays (`fluid.dygraph.PiecewiseDecay`, ...;
specs/lr_scheduler.md#paddle-18-dygraph-decays), the schedules 1.8 dygraph code hands to an
optimizer as its learning_rate.

Unlike 2.0's LRScheduler, which the user steps, a step decay advances by itself: the
optimizer calls it once per minimize()/step(), which returns the rate at `step_num` and then
adds `step_size` (`begin` is the first step_num). The epoch decays (StepDecay,
MultiStepDecay, LambdaDecay) and ReduceLROnPlateau move only when the user calls `epoch()` /
`step(loss)`. Rates are float32 values, as 1.8 computes them with float32 ops.
"""
import bisect
import math
import numbers
import warnings

import numpy as np

__all__ = ["LearningRateDecay", "PiecewiseDecay", "NaturalExpDecay", "ExponentialDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "NoamDecay",
           "LinearLrWarmup", "ReduceLROnPlateau", "StepDecay", "MultiStepDecay",
           "LambdaDecay"]


def _f32(value):
    """A rate as a float32-rounded float (a number, or a [1] Tensor a step() built)."""
    return float(np.float32(_number(value)))


def _number(value):
    """The one number of a [1] Tensor (or array, or number)."""
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value).reshape(-1)[0]


def _as_tensor(value, dtype):
    from .tensor import Tensor
    return Tensor(np.array([value], dtype), stop_gradient=True)


class LearningRateDecay:
    """A rate per optimizer step: `step()` gives the rate at `step_num` (subclasses)."""

    def __init__(self, begin=0, step=1, dtype="float32"):
        self.step_num = begin
        self.step_size = step
        self.dtype = dtype

    def __call__(self):
        """This step's rate as a [1] Tensor, then on to the next step."""
        return _as_tensor(self._advance(), self.dtype)

    def _advance(self):
        value = _f32(self.step())
        self.step_num += self.step_size
        return value

    def current(self):
        """The rate at step_num, a float (the optimizer's current_step_lr)."""
        return _f32(self.step())

    def step(self):
        raise NotImplementedError

    def create_lr_var(self, lr):
        """`lr` as a [1] Tensor of the decay's dtype: what 1.8 subclasses' step() builds
        rates from with layers ops (the models repository's 1.8 dygraph/transformer
        NoamDecay takes elementwise_min of two); step() may return a number or one."""
        return _as_tensor(float(lr), self.dtype)

    def _state_keys(self):
        return ["step_num"]

    def state_dict(self):
        """The state keys' values; a Tensor held there (ReduceLROnPlateau's best_loss) as
        its one number, as Paddle 1.8 saves it."""
        return {k: _number(v) if hasattr(v, "numpy") else v
                for k, v in self.__dict__.items() if k in self._state_keys()}

    def set_dict(self, state_dict):
        for key in self._state_keys():
            if key not in state_dict:
                raise RuntimeError("%s.set_dict: the state has no %r (saved by another "
                                   "learning-rate decay?)" % (type(self).__name__, key))
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self._state_keys()):
            warnings.warn("%s.set_dict: unused entries %s" % (
                type(self).__name__, sorted(set(state_dict) - set(self._state_keys()))))

    set_state_dict = set_dict


class PiecewiseDecay(LearningRateDecay):
    def __init__(self, boundaries, values, begin, step=1, dtype="float32"):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay: expected len(values) == len(boundaries) + 1, "
                             "got %d values for %d boundaries" % (len(values), len(boundaries)))
        super().__init__(begin, step, dtype)
        self.boundaries, self.values = list(boundaries), list(values)

    def step(self):
        # the value of the first boundary past the step (the last value after them all)
        return self.values[bisect.bisect_right(self.boundaries, self.step_num)]


class _ExpFamily(LearningRateDecay):
    """learning_rate decayed by step_num / decay_steps (floored when staircase)."""

    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate, self.decay_steps = learning_rate, decay_steps
        self.decay_rate, self.staircase = decay_rate, staircase

    def _progress(self):
        div = np.float32(self.step_num / self.decay_steps)
        return np.floor(div) if self.staircase else div


class NaturalExpDecay(_ExpFamily):
    def step(self):
        return self.learning_rate * np.exp(np.float32(-self.decay_rate) * self._progress())


class ExponentialDecay(_ExpFamily):
    def step(self):
        return self.learning_rate * np.float32(self.decay_rate) ** self._progress()


class InverseTimeDecay(_ExpFamily):
    def step(self):
        return self.learning_rate / (1 + np.float32(self.decay_rate) * self._progress())


class PolynomialDecay(LearningRateDecay):
    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, begin=0, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate, self.decay_steps = learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle = end_learning_rate, power, cycle

    def step(self):
        steps, decay_steps = self.step_num, self.decay_steps
        if self.cycle:      # the decay restarts every decay_steps (step 0: the first cycle)
            decay_steps *= max(1.0, math.ceil(np.float32(steps / float(decay_steps))))
        else:
            steps = min(steps, decay_steps)
        fraction = np.float32(1 - np.float32(steps) / np.float32(decay_steps))
        return ((self.learning_rate - self.end_learning_rate) * fraction ** self.power
                + self.end_learning_rate)


class CosineDecay(LearningRateDecay):
    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1,
                 dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate, self.step_each_epoch, self.epochs = \
            learning_rate, step_each_epoch, epochs

    def step(self):
        epoch = np.floor(np.float32(self.step_num / self.step_each_epoch))
        return self.learning_rate * 0.5 * (np.cos(np.float32(epoch * math.pi / self.epochs))
                                           + 1)


class NoamDecay(LearningRateDecay):
    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype="float32",
                 learning_rate=1.0):
        super().__init__(begin, step, dtype)
        self.d_model, self.warmup_steps, self.learning_rate = \
            d_model, warmup_steps, learning_rate

    def step(self):
        a = np.float32(self.step_num ** -0.5)
        b = np.float32(self.warmup_steps ** -1.5 * self.step_num)
        return self.learning_rate * self.d_model ** -0.5 * min(a, b)


class LinearLrWarmup(LearningRateDecay):
    """Paddle 1.8.5 warms up as (end_lr - start_lr) / warmup_steps * step_num: start_lr is
    not added (a 1.8 quirk kept here, specs/lr_scheduler.md); after warmup_steps the
    wrapped rate (a float or another decay, which then advances with this one)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, begin=1, step=1,
                 dtype="float32"):
        if not isinstance(learning_rate, (numbers.Real, LearningRateDecay)):
            raise TypeError("LinearLrWarmup: learning_rate must be a float or a "
                            "LearningRateDecay, got %s" % type(learning_rate).__name__)
        if not end_lr > start_lr:
            raise ValueError("LinearLrWarmup: end_lr %s must be greater than start_lr %s"
                             % (end_lr, start_lr))
        super().__init__(begin, step, dtype)
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps
        self.slope = (float(end_lr) - float(start_lr)) / float(warmup_steps)

    def step(self):
        # 1.8 evaluates a wrapped decay on every step, warmup included
        base = self.learning_rate._advance() if isinstance(
            self.learning_rate, LearningRateDecay) else self.learning_rate
        return self.slope * self.step_num if self.step_num < self.warmup_steps else base

    def current(self):
        if isinstance(self.learning_rate, LearningRateDecay):
            # reading the rate must not advance the wrapped decay
            if self.step_num < self.warmup_steps:
                return _f32(self.slope * self.step_num)
            return self.learning_rate.current()
        return super().current()


class _UserStepped(LearningRateDecay):
    """A rate that changes only when the user says (epoch() / step(loss))."""

    def _advance(self):
        return self.current()

    def current(self):
        return _f32(self.learning_rate)


class ReduceLROnPlateau(_UserStepped):
    def __init__(self, learning_rate, mode="min", decay_rate=0.1, patience=10, verbose=False,
                 threshold=1e-4, threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        if str(mode).lower() not in ("min", "max"):
            raise ValueError("ReduceLROnPlateau: mode must be 'min' or 'max', got %r" % mode)
        if decay_rate >= 1.0:
            raise ValueError("ReduceLROnPlateau: decay_rate must be < 1.0, got %s" % decay_rate)
        if str(threshold_mode).lower() not in ("rel", "abs"):
            raise ValueError("ReduceLROnPlateau: threshold_mode must be 'rel' or 'abs', got %r"
                             % threshold_mode)
        if not isinstance(learning_rate, numbers.Real):
            raise TypeError("ReduceLROnPlateau: learning_rate must be a float, got %s"
                            % type(learning_rate).__name__)
        self.mode, self.threshold_mode = mode.lower(), threshold_mode.lower()
        self.learning_rate, self.decay_rate = _f32(learning_rate), decay_rate
        self.patience, self.verbose, self.threshold = patience, verbose, threshold
        self.cooldown, self.min_lr, self.eps = cooldown, _f32(min_lr), eps
        self.cooldown_counter = self.num_bad_epochs = self.epoch_num = 0
        self.best_loss = None

    def _state_keys(self):
        return ["cooldown_counter", "best_loss", "num_bad_epochs", "epoch_num",
                "learning_rate"]

    def step(self, loss):
        """One epoch's loss (a [1] Tensor or a number): the rate is cut by decay_rate after
        more than `patience` epochs without improvement. best_loss is the best loss as
        given (a Tensor stays one, as in Paddle 1.8)."""
        value = float(_number(loss))
        self.epoch_num += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best_loss is None or self._is_better(value, float(_number(self.best_loss))):
            self.best_loss, self.num_bad_epochs = loss, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(_f32(self.learning_rate * np.float32(self.decay_rate)), self.min_lr)
            if self.learning_rate - new_lr > self.eps:
                if self.verbose:
                    print("Epoch %d: reducing learning rate from %s to %s."
                          % (self.epoch_num, self.learning_rate, new_lr))
                self.learning_rate = new_lr

    def _is_better(self, current, best):
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < best - margin if self.mode == "min" else current > best + margin


class _EpochDecay(_UserStepped):
    """base_lr scaled by get_lr's rule at epoch_num; epoch() moves to the next epoch."""

    def __init__(self, learning_rate, dtype=None):
        if not isinstance(learning_rate, numbers.Real):
            raise TypeError("%s: learning_rate must be a float, got %s"
                            % (type(self).__name__, type(learning_rate).__name__))
        if learning_rate < 0:
            raise ValueError("%s: invalid learning rate %s" % (type(self).__name__,
                                                               learning_rate))
        # (no step_num / step_size: epochs count here, and StepDecay has its own step_size)
        self.dtype = dtype or "float32"
        self.base_lr, self.epoch_num = float(learning_rate), -1
        self.epoch()

    def _state_keys(self):
        return ["epoch_num", "learning_rate"]

    def epoch(self, epoch=None):
        self.epoch_num = self.epoch_num + 1 if epoch is None else epoch
        self.learning_rate = _f32(self.get_lr())

    def get_lr(self):
        raise NotImplementedError


def _check_decay_rate(name, decay_rate):
    if decay_rate >= 1.0:
        raise ValueError("%s: decay_rate must be < 1.0, got %s" % (name, decay_rate))


class StepDecay(_EpochDecay):
    def __init__(self, learning_rate, step_size, decay_rate=0.1):
        if not isinstance(step_size, int):
            raise TypeError("StepDecay: step_size must be an int, got %s"
                            % type(step_size).__name__)
        _check_decay_rate("StepDecay", decay_rate)
        self.step_size, self.decay_rate = step_size, decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
        return self.base_lr * np.float32(self.decay_rate) ** (self.epoch_num // self.step_size)


class MultiStepDecay(_EpochDecay):
    def __init__(self, learning_rate, milestones, decay_rate=0.1):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("MultiStepDecay: milestones must be a list or tuple, got %s"
                            % type(milestones).__name__)
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise ValueError("MultiStepDecay: milestones must increase, got %s"
                             % (milestones,))
        _check_decay_rate("MultiStepDecay", decay_rate)
        self.milestones, self.decay_rate = list(milestones), decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.epoch_num >= m)
        return self.base_lr * np.float32(self.decay_rate) ** passed


class LambdaDecay(_EpochDecay):
    def __init__(self, learning_rate, lr_lambda):
        if not callable(lr_lambda):
            raise TypeError("LambdaDecay: lr_lambda must be callable, got %s"
                            % type(lr_lambda).__name__)
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.epoch_num)
