"""paddle.callbacks: what Model.fit / evaluate / predict call around every run, epoch and
batch (specs/hapi_model.md, "Callbacks")."""
import numbers
import os
import warnings

import numpy as np

from ..distributed import get_rank
from ..framework.model_formats import paddle_version
from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping"]

_MODES = ("train", "eval", "predict")


def _positive_int(value, what, owner):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError("%s: %s must be a positive int, got %r" % (owner, what, value))
    return int(value)


def check_verbose(verbose, owner):
    if isinstance(verbose, bool) or verbose not in (0, 1, 2):
        raise ValueError("%s: verbose must be 0 (silent), 1 (progress bar) or 2 (one line per "
                         "log_freq steps), got %r" % (owner, verbose))
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
    only. verbose: 0 silent, 1 progress bar, 2 one line per update."""

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
                    "bar": ProgressBar(num=steps, verbose=self.verbose)}
        setattr(self, "_" + mode, progress)
        return progress

    def _show(self, mode, logs):
        progress = getattr(self, "_" + mode)
        values = [(k, logs[k]) for k in progress["metrics"] if k in logs]
        progress["bar"].update(progress["step"], values)

    def _batch_end(self, mode, logs):
        progress = getattr(self, "_" + mode)
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


class EarlyStopping(Callback):
    """Stops training when the monitored value of the evaluations ('loss' or a metric name)
    has not improved by more than min_delta for `patience` evaluations in a row. mode
    'min' / 'max', or 'auto' ('max' when the name contains 'acc'). A new best value is saved
    to `save_dir/best_model` (save_dir: fit's) when save_best_model."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError("EarlyStopping: mode must be 'auto', 'min' or 'max', got %r"
                             % (mode,))
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
        if logs is None or self.monitor not in logs:
            warnings.warn("EarlyStopping: the monitored value %r is not in the evaluation "
                          "logs (%s); monitor 'loss' or a metric name"
                          % (self.monitor, sorted(logs or {})))
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif not isinstance(current, numbers.Number):
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
