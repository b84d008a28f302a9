"""paddle.callbacks: what Model.fit / evaluate / predict call around every run, epoch and
batch (specs/hapi_model.md, "Callbacks")."""
import numbers
import os
import time
import warnings

import numpy as np

from ..distributed import get_rank
from ..framework.model_formats import paddle_version
from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau"]

_MODES = ("train", "eval", "predict")


def _positive_int(value, what, owner):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError("%s: %s must be a positive int, got %r" % (owner, what, value))
    return int(value)


def check_verbose(verbose, owner):
    if isinstance(verbose, bool) or verbose not in (0, 1, 2, 3):
        raise ValueError("%s: verbose must be 0 (silent), 1 (progress bar), 2 (one line per "
                         "log_freq steps) or 3 (2 with the reader and batch costs), got %r"
                         % (owner, verbose))
    return verbose


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    """The CallbackList of a run: the user's callbacks, with a ProgBarLogger in front when
    verbose and none is given, and a ModelCheckpoint and an LRScheduler callback at the end
    when none is given; EarlyStopping callbacks learn save_dir."""
    given = callbacks if callbacks is not None else []
    cbks = list(given) if isinstance(given, (list, tuple)) else [given]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError("callbacks must be paddle.callbacks.Callback instances, got %s"
                            % type(c).__name__)
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks.insert(0, ProgBarLogger(log_freq, verbose=verbose))
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks.append(LRScheduler())
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Calls one hook on every callback, in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, hook, *args):
        for c in self.callbacks:
            getattr(c, hook)(*args)

    @staticmethod
    def _check_mode(mode):
        if mode not in _MODES:
            raise ValueError("callback mode must be one of %s, got %r" % (_MODES, mode))

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call("on_%s_begin" % mode, logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call("on_%s_end" % mode, logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call("on_%s_batch_begin" % mode, step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call("on_%s_batch_end" % mode, step, logs)


class Callback:
    """Base class: every hook does nothing. `self.model` is the paddle.Model, `self.params`
    {'batch_size', 'epochs', 'steps', 'verbose', 'metrics'} of the run. `logs` of a batch
    hold the loss ('loss': one float per loss), each metric's accumulated value, 'step' and
    'batch_size'; on_eval_begin / on_predict_begin get {'steps', 'metrics'}."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_eval_begin(self, logs=None):
        pass

    def on_eval_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, step, logs=None):
        pass

    def on_train_batch_end(self, step, logs=None):
        pass

    def on_eval_batch_begin(self, step, logs=None):
        pass

    def on_eval_batch_end(self, step, logs=None):
        pass

    def on_predict_batch_begin(self, step, logs=None):
        pass

    def on_predict_batch_end(self, step, logs=None):
        pass


class ProgBarLogger(Callback):
    """Prints 'Epoch i/n', a progress line every `log_freq` steps and at the end of each
    epoch / evaluation / prediction (loss and metrics), and the sample counts; on rank 0
    only. verbose: 0 silent, 1 progress bar, 2 one line per update, 3 as 2 with the mean
    time waiting for each batch (avg_reader_cost: from the previous batch's end to this
    one's begin), the mean time of a batch (avg_batch_cost: begin to end) and samples per
    second of both (ips)."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq = _positive_int(log_freq, "log_freq", "ProgBarLogger")
        self.verbose = check_verbose(verbose, "ProgBarLogger")
        self.epochs = None
        self.steps = None

    def _is_print(self):
        return bool(self.verbose) and get_rank() == 0

    def _new_progress(self, mode, steps, metrics):
        """Start the counters and progress bar of one train epoch / eval / predict run."""
        progress = {"steps": steps, "metrics": metrics, "step": 0, "samples": 0,
                    "bar": ProgressBar(num=steps, verbose=self.verbose),
                    "reader_time": 0.0, "batch_time": 0.0, "last_end": time.time(),
                    "begin": None}
        setattr(self, "_" + mode, progress)
        return progress

    def _costs(self, progress):
        """verbose=3's values: the mean reader and batch costs and samples per second."""
        count = max(progress["step"], 1)
        busy = progress["reader_time"] + progress["batch_time"]
        ips = progress["samples"] / busy if busy > 0 else 0.0
        return [("avg_reader_cost", "%.5f sec" % (progress["reader_time"] / count)),
                ("avg_batch_cost", "%.5f sec" % (progress["batch_time"] / count)),
                ("ips", "%.5f samples/sec" % ips)]

    def _show(self, mode, logs):
        progress = getattr(self, "_" + mode)
        values = [(k, logs[k]) for k in progress["metrics"] if k in logs]
        if self.verbose == 3:
            values += self._costs(progress)
        progress["bar"].update(progress["step"], values)

    def _batch_begin(self, mode):
        progress = getattr(self, "_" + mode)
        progress["begin"] = time.time()
        progress["reader_time"] += progress["begin"] - progress["last_end"]

    def _batch_end(self, mode, logs):
        progress = getattr(self, "_" + mode)
        progress["last_end"] = time.time()
        if progress["begin"] is not None:
            progress["batch_time"] += progress["last_end"] - progress["begin"]
        progress["step"] += 1
        progress["samples"] += (logs or {}).get("batch_size", 1)
        steps = progress["steps"]
        if self._is_print() and progress["step"] % self.log_freq == 0 and (
                steps is None or progress["step"] < steps):
            self._show(mode, logs or {})

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics") or []
        if self._is_print() and paddle_version() == "3":
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.epoch = epoch
        if self.epochs and self._is_print():
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
        self._new_progress("train", self.steps, self.train_metrics)

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._show("train", logs or {})

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self._new_progress("eval", logs.get("steps"), logs.get("metrics", []))
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs)

    def on_eval_end(self, logs=None):
        if self._is_print() and self._eval["steps"] is not None:
            self._show("eval", logs or {})
            print("Eval samples: %d" % self._eval["samples"])

    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self._new_progress("predict", logs.get("steps"), logs.get("metrics", []))
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("predict")

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("predict", logs)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self._predict["step"] % self.log_freq != 0 or self.verbose == 1:
                self._show("predict", logs or {})
            print("Predict samples: %d" % self._predict["samples"])


class ModelCheckpoint(Callback):
    """Saves the model (Model.save, training form) to `save_dir/<epoch>` after every
    `save_freq`-th epoch (epochs 0, save_freq, 2 save_freq, ...) and to `save_dir/final`
    when training ends; nothing without save_dir; rank 0 only."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = _positive_int(save_freq, "save_freq", "ModelCheckpoint")
        if save_dir is not None and not isinstance(save_dir, (str, os.PathLike)):
            raise TypeError("ModelCheckpoint: save_dir must be a path or None, got %s"
                            % type(save_dir).__name__)
        self.save_dir = save_dir

    def _is_save(self):
        return self.model is not None and self.save_dir and get_rank() == 0

    def _save(self, name):
        path = os.path.join(os.fspath(self.save_dir), name)
        print("save checkpoint at %s" % os.path.abspath(path))
        self.model.save(path)

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            self._save(str(epoch))

    def on_train_end(self, logs=None):
        if self._is_save():
            self._save("final")


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler (paddle.optimizer.lr.LRScheduler)
    after every training batch (by_step) or every epoch (by_epoch); nothing when the
    learning rate is a number."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch are mutually exclusive")
        self.by_step = bool(by_step)
        self.by_epoch = bool(by_epoch)

    def _step(self):
        optimizer = getattr(self.model, "_optimizer", None)
        scheduler = getattr(optimizer, "_learning_rate", None)
        if isinstance(scheduler, _Scheduler):
            scheduler.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


def _known_mode(mode, owner):
    """'auto', 'min' or 'max'; any other mode is warned about and taken as 'auto', as
    Paddle (2.0 and 3.3.1) does."""
    if mode in ("auto", "min", "max"):
        return mode
    warnings.warn("%s: mode %r is unknown (expected 'auto', 'min' or 'max'); using 'auto'"
                  % (owner, mode))
    return "auto"


def _monitored(logs, monitor, owner):
    """The monitored value of evaluation logs (a list's first item), or None when the logs
    lack it (warned) or it is no number."""
    if logs is None or monitor not in logs:
        warnings.warn("%s: the monitored value %r is not in the evaluation logs (%s); "
                      "monitor 'loss' or a metric name" % (owner, monitor, sorted(logs or {})))
        return None
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        current = current[0]
    return current if isinstance(current, numbers.Number) else None


class EarlyStopping(Callback):
    """Stops training when the monitored value of the evaluations ('loss' or a metric name)
    has not improved by more than min_delta for `patience` evaluations in a row. mode
    'min' / 'max', or 'auto' ('max' when the name contains 'acc'). A new best value is saved
    to `save_dir/best_model` (save_dir: fit's) when save_best_model."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        mode = _known_mode(mode, "EarlyStopping")
        if isinstance(patience, bool) or not isinstance(patience, (int, np.integer)) or \
                patience < 0:
            raise ValueError("EarlyStopping: patience must be an int >= 0, got %r" % (patience,))
        if not isinstance(min_delta, numbers.Real):
            raise TypeError("EarlyStopping: min_delta must be a number, got %r" % (min_delta,))
        if baseline is not None and not isinstance(baseline, numbers.Real):
            raise TypeError("EarlyStopping: baseline must be a number or None, got %r"
                            % (baseline,))
        self.monitor = monitor
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.save_best_model = save_best_model
        self.save_dir = None
        maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.monitor_op = np.greater if maximize else np.less
        # an improvement must beat the best by more than min_delta, in the better direction
        self.min_delta = abs(min_delta) if maximize else -abs(min_delta)
        self.wait_epoch = 0
        self.stopped_epoch = 0
        self.best_value = None

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = -np.inf if self.monitor_op is np.greater else np.inf

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(os.fspath(self.save_dir), "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print("Epoch %d: Early stopping." % (self.stopped_epoch + 1))
                if self.save_best_model and self.save_dir is not None:
                    print("Best checkpoint has been saved at %s" % os.path.abspath(
                        os.path.join(os.fspath(self.save_dir), "best_model")))
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's (constant) learning rate by `factor`, not below min_lr,
    when the monitored evaluation value has not improved by more than min_delta for
    `patience` evaluations in a row; then waits `cooldown` evaluations before counting
    again. mode 'min' / 'max', or 'auto' ('max' when the name contains 'acc')."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau: factor must be < 1.0 (new lr = lr * "
                             "factor), got %r" % (factor,))
        self.monitor = monitor
        self.factor = factor
        self.patience = patience
        self.verbose = verbose
        self.mode = _known_mode(mode, "ReduceLROnPlateau")
        self.min_delta = min_delta
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epoch = 0
        self._reset()

    def _reset(self):
        self.maximize = self.mode == "max" or (self.mode == "auto" and "acc" in self.monitor)
        self.best = -np.inf if self.maximize else np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current):
        if self.maximize:
            return current > self.best + self.min_delta
        return current < self.best - self.min_delta

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        optimizer = self.model._optimizer
        if current is None:
            return
        if not isinstance(getattr(optimizer, "_learning_rate", None), float):
            # Paddle's rule: a scheduler's rate is the scheduler's to change
            warnings.warn("ReduceLROnPlateau: the optimizer's learning rate must be a float, "
                          "got %s; left as it is"
                          % type(getattr(optimizer, "_learning_rate", None)).__name__)
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter == 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    optimizer.set_lr(new_lr)
                    if self.verbose > 0 and get_rank() == 0:
                        print("\nEpoch %d: ReduceLROnPlateau reducing learning rate to %s."
                              % (self.epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class VisualDL(Callback):
    """Writes the training scalars (per step) and the evaluation scalars (per epoch) to a
    VisualDL log in `log_dir` (rank 0). Needs the `visualdl` package: without it the
    constructor raises ImportError."""

    def __init__(self, log_dir):
        super().__init__()
        try:
            import visualdl
        except ImportError:
            raise ImportError("VisualDL callback: the `visualdl` package is not installed "
                              "(pip install visualdl); refimpl does not ship it") from None
        self._visualdl = visualdl
        self.log_dir = log_dir
        self.epoch = 0
        self.train_step = 0
        self._writer = None

    def _write(self, logs, metrics, tag_mode, step):
        if get_rank() != 0:
            return
        if self._writer is None:
            self._writer = self._visualdl.LogWriter(self.log_dir)
        for k in metrics:
            value = (logs or {}).get(k)
            if isinstance(value, (list, tuple)):
                value = value[0]
            if isinstance(value, numbers.Number):
                self._writer.add_scalar(tag="%s/%s" % (tag_mode, k), step=step, value=value)

    def _close(self):
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def on_train_begin(self, logs=None):
        self.train_metrics = self.params.get("metrics") or []
        self._fitting = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._write(logs, self.train_metrics, "train", self.train_step)

    def on_eval_begin(self, logs=None):
        self.eval_metrics = (logs or {}).get("metrics", [])

    def on_eval_end(self, logs=None):
        self._write(logs, self.eval_metrics, "eval", self.epoch)
        if not getattr(self, "_fitting", False):
            self._close()

    def on_train_end(self, logs=None):
        self._fitting = False
        self._close()
