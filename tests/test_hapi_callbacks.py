"""paddle.callbacks: the order of every hook in fit / evaluate / predict, ModelCheckpoint,
EarlyStopping, the LRScheduler callback, VisualDL, and the progress output in Paddle's
format (compared with lines Paddle 3.3.1 printed for the same run shape)."""
import io as _io
import os
import re
import sys
import types

import numpy as np
import pytest

import refimpl as paddle
from refimpl import io
from refimpl.callbacks import (Callback, EarlyStopping, LRScheduler, ProgBarLogger,
                               ReduceLROnPlateau, VisualDL)
from refimpl.hapi.progressbar import ProgressBar, _eta
from refimpl.static import InputSpec


def _data(n, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 4).astype("float32")
    y = (x.sum(1, keepdims=True) > 2).astype("int64")
    return io.TensorDataset([x, y])


def _model(lr=0.05, dynamic=True):
    """A 4-8-2 MLP classifier trained by SGD(lr); lr may be an LRScheduler."""
    if dynamic:
        paddle.disable_static()
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    model = paddle.Model(net, [InputSpec([None, 4], "float32", "x")],
                         [InputSpec([None, 1], "int64", "y")])
    model.prepare(paddle.optimizer.SGD(lr, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


class Recorder(Callback):
    """Every hook called, with its step / epoch and the logs' keys."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            def record(*args):
                self.calls.append((name,) + tuple(a for a in args if not isinstance(a, dict)
                                                  and a is not None))
            return record
        return super().__getattribute__(name)


@pytest.mark.parametrize("dynamic", [True, False])
def test_hook_order_of_fit_evaluate_and_predict(dynamic):
    model = _model(dynamic=dynamic)
    rec = Recorder()
    model.fit(_data(8), _data(4), batch_size=4, epochs=2, verbose=0, callbacks=[rec])
    fit_calls = rec.calls
    epoch = lambda e: [("on_epoch_begin", e), ("on_train_batch_begin", 0),
                       ("on_train_batch_end", 0), ("on_train_batch_begin", 1),
                       ("on_train_batch_end", 1), ("on_epoch_end", e), ("on_eval_begin",),
                       ("on_eval_batch_begin", 0), ("on_eval_batch_end", 0), ("on_eval_end",)]
    assert fit_calls == [("on_train_begin",)] + epoch(0) + epoch(1) + [("on_train_end",)]
    assert rec.model is model
    assert rec.params == {"batch_size": None, "epochs": 2, "steps": 2, "verbose": 0,
                          "metrics": ["loss", "acc"]}
    rec.calls = []
    model.evaluate(_data(4), batch_size=4, verbose=0, callbacks=rec)
    assert rec.calls == [("on_eval_begin",), ("on_eval_batch_begin", 0),
                         ("on_eval_batch_end", 0), ("on_eval_end",)]
    rec.calls = []
    model.predict(_data(6), batch_size=4, verbose=0, callbacks=rec)
    assert rec.calls == [("on_predict_begin",), ("on_predict_batch_begin", 0),
                         ("on_predict_batch_end", 0), ("on_predict_batch_begin", 1),
                         ("on_predict_batch_end", 1), ("on_predict_end",)]


def test_logs_handed_to_the_hooks(dygraph):
    seen = []

    class Logs(Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(("train", dict(logs)))

        def on_eval_begin(self, logs=None):
            seen.append(("eval_begin", dict(logs)))

        def on_eval_end(self, logs=None):
            seen.append(("eval_end", dict(logs)))

    model = _model()
    model.fit(_data(6), _data(4), batch_size=4, verbose=0, callbacks=[Logs()])
    kind, logs = seen[0]
    assert kind == "train" and sorted(logs) == ["acc", "batch_size", "loss", "step"]
    assert logs["step"] == 0 and logs["batch_size"] == 4
    assert isinstance(logs["loss"], list) and len(logs["loss"]) == 1
    assert seen[1][1]["batch_size"] == 2      # the short last batch
    assert seen[2] == ("eval_begin", {"steps": 1, "metrics": ["loss", "acc"]})
    assert seen[3][1]["batch_size"] == 4


def test_model_checkpoint_saves_every_save_freq_epochs_and_the_final(tmp_path, dygraph,
                                                                    capsys):
    model = _model()
    model.fit(_data(8), batch_size=4, epochs=3, save_freq=2, save_dir=str(tmp_path), verbose=0)
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".pdparams")) == [
        "0.pdparams", "2.pdparams", "final.pdparams"]
    assert capsys.readouterr().out.splitlines() == [
        "save checkpoint at %s" % os.path.join(str(tmp_path), name) for name in ("0", "2",
                                                                               "final")]
    # what was saved after epoch 2 is the trained model's final state
    final = paddle.load(str(tmp_path / "final.pdparams"), return_numpy=True)
    for key, param in model.network.state_dict().items():
        np.testing.assert_array_equal(final[key], param.numpy())


def _epochs_run(model, callback, epochs=10, **kwargs):
    rec = Recorder()
    model.fit(_data(8), _data(8, seed=1), batch_size=4, epochs=epochs, verbose=0,
              callbacks=[callback, rec], **kwargs)
    return sum(1 for call in rec.calls if call[0] == "on_epoch_begin")


def test_early_stopping_waits_patience_evaluations_without_improvement(tmp_path, dygraph,
                                                                      capsys):
    # learning rate 0: every evaluation gives the same accuracy, so only the first improves
    stop = EarlyStopping(monitor="acc", mode="max", patience=2)
    assert _epochs_run(_model(lr=0.0), stop, save_dir=str(tmp_path)) == 3
    out = capsys.readouterr().out.splitlines()
    # the default ModelCheckpoint saves epochs 0, 1, 2 and the final state around it
    assert out[-3:] == ["Epoch 3: Early stopping.", "Best checkpoint has been saved at %s"
                        % os.path.join(str(tmp_path), "best_model"),
                        "save checkpoint at %s" % os.path.join(str(tmp_path), "final")]
    assert os.path.exists(tmp_path / "best_model.pdparams")
    # patience 0 stops after the first evaluation, as in Paddle
    assert _epochs_run(_model(lr=0.0), EarlyStopping("loss", patience=0, verbose=0)) == 1


class _Trained:
    """What EarlyStopping sees of a Model."""

    def __init__(self):
        self.stop_training = False
        self.saved = []

    def save(self, path):
        self.saved.append(path)


def _stops_after(stop, monitor, values, save_dir=None):
    """The evaluation after which `stop` stops training (None: never), and the saves."""
    model = _Trained()
    stop.set_model(model)
    stop.save_dir = save_dir
    stop.on_train_begin()
    for i, value in enumerate(values):
        stop.on_eval_end({monitor: [value] if monitor == "loss" else value})
        if model.stop_training:
            return i + 1, model.saved
    return None, model.saved


def test_early_stopping_rules():
    # loss (min): the fourth value is no better than the third
    assert _stops_after(EarlyStopping("loss", patience=1, verbose=0), "loss",
                        [1.0, 0.9, 0.8, 0.85, 0.7]) == (4, [])
    # an improvement must beat the best by more than min_delta
    assert _stops_after(EarlyStopping("loss", patience=1, min_delta=0.15, verbose=0), "loss",
                        [1.0, 0.9, 0.7])[0] == 2
    assert _stops_after(EarlyStopping("loss", patience=1, min_delta=0.05, verbose=0), "loss",
                        [1.0, 0.9, 0.7])[0] is None
    # acc (max, 'auto' from the name), counting evaluations without improvement in a row
    assert _stops_after(EarlyStopping("acc", patience=2, verbose=0), "acc",
                        [0.5, 0.6, 0.6, 0.7, 0.7, 0.65])[0] == 6
    # a baseline to beat first
    assert _stops_after(EarlyStopping("acc", patience=2, baseline=0.5, verbose=0), "acc",
                        [0.4, 0.45, 0.9])[0] == 2
    # each new best is saved to save_dir/best_model
    assert _stops_after(EarlyStopping("acc", patience=5, verbose=0), "acc", [0.5, 0.4, 0.6],
                        save_dir="ckpt") == (None, [os.path.join("ckpt", "best_model")] * 2)


def test_early_stopping_modes_and_errors(dygraph):
    assert EarlyStopping("acc").monitor_op is np.greater
    assert EarlyStopping("loss").monitor_op is np.less
    assert EarlyStopping("acc", mode="min").monitor_op is np.less
    # an unknown mode: a warning and 'auto', as Paddle 2.0 and 3.3.1 (measured) do
    with pytest.warns(UserWarning, match="mode 'up' is unknown"):
        assert EarlyStopping("acc", mode="up").monitor_op is np.greater
    with pytest.warns(UserWarning, match="mode 'auto_' is unknown"):
        assert EarlyStopping("loss", mode="auto_").monitor_op is np.less
    with pytest.raises(ValueError, match="patience must be an int >= 0"):
        EarlyStopping(patience=-1)
    with pytest.warns(UserWarning, match="needs eval_data"):
        _model().fit(_data(4), batch_size=4, verbose=0, callbacks=[EarlyStopping()])
    with pytest.warns(UserWarning, match="'precision' is not in the evaluation logs"):
        _model().fit(_data(4), _data(4), batch_size=4, verbose=0,
                     callbacks=[EarlyStopping("precision")])


@pytest.mark.parametrize("dynamic", [True, False])
def test_lr_scheduler_callback_steps_by_step_or_by_epoch(dynamic):
    by_step = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model = _model(by_step, dynamic=dynamic)
    model.fit(_data(8), batch_size=4, epochs=2, verbose=0)         # the default callback
    assert by_step.last_epoch == 4 and by_step() == pytest.approx(0.1 * 0.5 ** 4)
    by_epoch = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model._optimizer._learning_rate = by_epoch
    model.fit(_data(8), batch_size=4, epochs=2, verbose=0, callbacks=[LRScheduler(False, True)])
    assert by_epoch.last_epoch == 2
    with pytest.raises(ValueError, match="mutually exclusive"):
        LRScheduler(by_step=True, by_epoch=True)


@pytest.mark.parametrize("dynamic", [True, False])
def test_scheduled_learning_rate_reaches_the_update(dynamic):
    """w x + b fitted to (1, 0) by SGD on (w + b)^2 from w = 1, b = 0, with learning rates
    0.5 then 0.05 (the callback steps the schedule after each batch): by hand, w + b = 1
    -> step 1: w = 0, b = -1 -> step 2 (gradient -2): w = 0.1, b = -0.9."""
    if dynamic:
        paddle.disable_static()
    one = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0))
    net = paddle.nn.Linear(1, 1, weight_attr=one)
    model = paddle.Model(net, [InputSpec([None, 1], "float32", "x")],
                         [InputSpec([None, 1], "float32", "y")])
    decay = paddle.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.1)
    model.prepare(paddle.optimizer.SGD(decay, parameters=net.parameters()), paddle.nn.MSELoss())
    data = io.TensorDataset([np.ones((1, 1), "float32"), np.zeros((1, 1), "float32")])
    model.fit(data, epochs=2, verbose=0)
    scope = paddle.static.global_scope()
    values = [p.numpy() if dynamic else np.array(scope.find_var(p.name).get_tensor())
              for p in model.parameters()]
    np.testing.assert_allclose([v.item() for v in values], [0.1, -0.9], rtol=1e-6)


def test_visualdl_is_a_clear_error_without_its_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "visualdl", None)
    with pytest.raises(ImportError, match="the `visualdl` package is not installed"):
        VisualDL("logs")


def test_visualdl_writes_train_and_eval_scalars(monkeypatch, dygraph):
    written = []

    class LogWriter:
        def __init__(self, logdir):
            written.append(("open", logdir))

        def add_scalar(self, tag, step, value):
            written.append((tag, step, round(value, 6)))

        def close(self):
            written.append(("close",))

    monkeypatch.setitem(sys.modules, "visualdl", types.SimpleNamespace(LogWriter=LogWriter))
    model = _model()
    model.fit(_data(8), _data(4), batch_size=4, epochs=1, verbose=0,
              callbacks=[VisualDL("vdl")])
    assert [w[:2] for w in written] == [("open", "vdl"), ("train/loss", 1), ("train/acc", 1),
                                        ("train/loss", 2), ("train/acc", 2), ("eval/loss", 0),
                                        ("eval/acc", 0), ("close",)]


# -- progress output

# the line Paddle 3's fit prints first (test_paddle3_profile_adds_its_note)
PADDLE3_NOTE = ("The loss value printed in the log is the current step, and the metric is "
                "the average value of previous steps.\n")


def _without_times(text):
    """The log with its times as T (and without Paddle 3's note, under profile 3)."""
    return re.sub(r"\d+(s|ms|us)/step", "T/step", text.replace(PADDLE3_NOTE, ""))


# Paddle 3.3.1, the same run shape (40 training samples in batches of 8, 20 evaluation,
# log_freq=2, verbose=2), its values replaced by V: what refimpl prints under the 2.0
# profile (Paddle 3 adds the first line)
PADDLE_FIT_LINES = "".join("""\
Epoch %d/2
step 2/5 - loss: V - acc: V - T/step
step 4/5 - loss: V - acc: V - T/step
step 5/5 - loss: V - acc: V - T/step
Eval begin...
step 2/3 - loss: V - acc: V - T/step
step 3/3 - loss: V - acc: V - T/step
Eval samples: 20
""" % epoch for epoch in (1, 2))


@pytest.mark.parametrize("dynamic", [True, False])
def test_verbose_2_lines_match_paddles(dynamic, capsys, monkeypatch):
    monkeypatch.delenv("REFIMPL_PADDLE", raising=False)
    model = _model(dynamic=dynamic)
    model.fit(_data(40), _data(20, seed=1), batch_size=8, epochs=2, log_freq=2)
    out = _without_times(capsys.readouterr().out)
    assert re.sub(r"\d+\.\d{4}(e[-+]\d+)?", "V", out) == PADDLE_FIT_LINES
    model.predict(_data(10), batch_size=4, verbose=2, callbacks=[ProgBarLogger(2, 2)])
    assert _without_times(capsys.readouterr().out) == (
        "Predict begin...\nstep 2/3 - T/step\nstep 3/3 - T/step\nPredict samples: 10\n")


@pytest.mark.paddle("3")
def test_paddle3_profile_adds_its_note(dygraph, capsys):
    _model().fit(_data(8), batch_size=4, verbose=2)
    assert capsys.readouterr().out.splitlines()[0] == (
        "The loss value printed in the log is the current step, and the metric is the "
        "average value of previous steps.")


def test_verbose_1_to_a_file_is_one_line_per_update(dygraph, capsys):
    _model().fit(_data(40), batch_size=8, epochs=1, log_freq=2, verbose=1)
    lines = _without_times(capsys.readouterr().out).splitlines()
    assert [re.sub(r"\d+\.\d{4}", "V", line) for line in lines] == [
        "Epoch 1/1",
        "step 2/5 [===========>..................] - loss: V - acc: V - ETA: 0s - T/step",
        "step 4/5 [=======================>......] - loss: V - acc: V - ETA: 0s - T/step",
        "step 5/5 [==============================] - loss: V - acc: V - T/step"]


class Terminal(_io.StringIO):
    def isatty(self):
        return True


def test_verbose_1_on_a_terminal_redraws_one_line(monkeypatch):
    monkeypatch.setattr("shutil.get_terminal_size", lambda: os.terminal_size((80, 24)))
    screen = Terminal()
    bar = ProgressBar(num=5, verbose=1, file=screen)
    bar.update(2, [("loss", 0.5), ("acc", 0.0001)])
    bar.update(5, [("loss", [0.25])])
    # Paddle's in-place redraw: a carriage return, the line; then backspaces over it, a
    # carriage return, the new line padded with spaces to cover the old one, and a newline
    # once the count is reached
    empty, first, second = screen.getvalue().split("\r")
    drawn = first.rstrip("\b")
    assert empty == "" and first.count("\b") == len(drawn)
    assert _without_times(drawn) == ("step 2/5 [===========>..................] - loss: 0.5000 "
                                     "- acc: 1.0000e-04 - ETA: 0s - T/step")
    shown = second.rstrip("\n").rstrip(" ")
    assert _without_times(shown) == ("step 5/5 [==============================] - loss: "
                                     "0.2500 - T/step")
    assert second == shown + " " * (len(drawn) - len(shown)) + "\n"


def test_verbose_3_adds_the_reader_and_batch_costs(dygraph, capsys, monkeypatch):
    # Paddle 2.0's verbose=3: the mean wait for a batch (previous end to this begin), the
    # mean batch time (begin to end) and samples per second of both. A clock stepping by
    # 1 s per reading of the logger's clock: each batch waits 1 s and takes 1 s
    from refimpl.hapi import callbacks
    ticks = iter(range(1000))
    monkeypatch.setattr(callbacks, "time", types.SimpleNamespace(time=lambda: float(next(ticks))))
    logger = ProgBarLogger(log_freq=1, verbose=3)
    logger.set_params({"epochs": 1, "steps": 3, "metrics": ["loss"], "verbose": 3})
    logger.on_train_begin()
    logger.on_epoch_begin(0)
    for step in range(2):
        logger.on_train_batch_begin(step)
        logger.on_train_batch_end(step, {"loss": [0.5], "batch_size": 4})
    lines = _without_times(capsys.readouterr().out).splitlines()
    assert lines[1:] == [
        "step 1/3 - loss: 0.5000 - avg_reader_cost: 1.00000 sec - avg_batch_cost: 1.00000 sec"
        " - ips: 2.00000 samples/sec - T/step",
        "step 2/3 - loss: 0.5000 - avg_reader_cost: 1.00000 sec - avg_batch_cost: 1.00000 sec"
        " - ips: 2.00000 samples/sec - T/step"]


def test_reduce_lr_on_plateau_callback(dygraph, capsys):
    # loss (min, 'auto'): two evaluations without improving on 1.0 by more than min_delta
    # multiply the rate by factor and start a cooldown of 1, which the next evaluation
    # uses up before counting (Paddle's order), so the next cut comes two later; min_lr
    # bounds the rate, which then stays
    model = _Trained()
    model._optimizer = paddle.optimizer.SGD(1.0, parameters=paddle.nn.Linear(1, 1).parameters())
    reduce = ReduceLROnPlateau(patience=2, factor=0.5, cooldown=1, min_lr=0.3, verbose=1)
    reduce.set_model(model)
    reduce.on_train_begin()
    rates = []
    for loss in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]:
        reduce.on_eval_end({"loss": [loss]})
        rates.append(model._optimizer.get_lr())
    assert rates == [1.0, 1.0, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    assert capsys.readouterr().out.splitlines()[1:] == [
        "Epoch 3: ReduceLROnPlateau reducing learning rate to 0.5.", "",
        "Epoch 5: ReduceLROnPlateau reducing learning rate to 0.3."]
    with pytest.raises(ValueError, match="factor must be < 1.0"):
        ReduceLROnPlateau(factor=2.0)
    with pytest.warns(UserWarning, match="mode '1' is unknown"):
        assert ReduceLROnPlateau("acc", mode="1").maximize
    scheduled = _Trained()
    scheduled._optimizer = paddle.optimizer.SGD(paddle.optimizer.lr.StepDecay(1.0, 1),
                                                parameters=paddle.nn.Linear(1, 1).parameters())
    reduce = ReduceLROnPlateau(patience=0)
    reduce.set_model(scheduled)
    reduce.on_train_begin()
    with pytest.warns(UserWarning, match="learning rate must be a float, got StepDecay"):
        reduce.on_eval_end({"loss": [1.0]})


def test_progress_bar_pieces():
    assert [_eta(s) for s in (5, 61, 3599, 3601)] == ["5s", "1:01", "59:59", "1:00:01"]
    screen = Terminal()
    bar = ProgressBar(num=None, verbose=1, file=screen)
    bar.update(3, [("n", 7)])
    assert _without_times(screen.getvalue()) == "\rstep   3 - n: 7 - T/step\n"
    plain = _io.StringIO()
    ProgressBar(num=100, verbose=2, file=plain).update(7, [("loss", np.float32(0.125))])
    assert _without_times(plain.getvalue()) == "step   7/100 - loss: 0.1250 - T/step\n"
    with pytest.raises(TypeError, match="positive int"):
        ProgressBar(num=0)
    with pytest.raises(ValueError, match="verbose must be 0"):
        ProgressBar(num=3, verbose=4)
    silent = _io.StringIO()
    ProgressBar(num=3, verbose=0, file=silent).update(1)
    assert silent.getvalue() == ""


def test_only_rank_0_prints_and_saves(monkeypatch, tmp_path, dygraph, capsys):
    from refimpl.hapi import callbacks, model as model_module
    monkeypatch.setattr(callbacks, "get_rank", lambda: 1)
    monkeypatch.setattr(model_module, "get_rank", lambda: 1)
    model = _model()
    model.fit(_data(8), _data(4), batch_size=4, epochs=1, verbose=2, save_dir=str(tmp_path))
    model.save(str(tmp_path / "explicit"))
    assert capsys.readouterr().out == "" and os.listdir(tmp_path) == []
