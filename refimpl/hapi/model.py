"""paddle.Model: training, evaluation, prediction, saving and loading of a network around
one loop of callbacks, in dynamic mode (eager Layers) and in static mode (programs built
from InputSpecs and run by an Executor). specs/hapi_model.md."""
import inspect
import os
import warnings

import numpy as np

from .. import versions
from ..amp import _enabled as amp_enabled
from ..distributed import get_rank, get_world_size
from ..distributed.collective import gathered
from ..distributed.parallel import prepare_context
from ..dygraph import mode
from ..framework import checkpoint, model_formats
from ..framework.place import current_place
from ..io import DataLoader, Dataset, DistributedBatchSampler, IterableDataset
from ..metric import Metric
from ..nn import Layer
from ..static.input_spec import InputSpec
from .callbacks import EarlyStopping, check_verbose, config_callbacks
from .dynamic_adapter import DynamicGraphAdapter
from .rank_gather import BatchMerger
from .static_adapter import StaticGraphAdapter
from .summary import summary

__all__ = ["Model", "prepare_distributed_context"]

_SUFFIXES = ("", ".pdparams", ".pdopt", ".pdmodel")


def _all_gather(x, nranks, ring_id=0, use_calc_stream=True):
    """Paddle 2.0's private gather of hapi/model.py, which PaddleVideo's metrics import:
    every rank's `x` concatenated along dim 0 in rank order."""
    if ring_id != 0:
        raise NotImplementedError("paddle.hapi.model._all_gather: ring_id=%r; refimpl has one "
                                  "communication ring, every process of the job (0)" % ring_id)
    return gathered(x, nranks)


def prepare_distributed_context(place=None):
    """Paddle 2.0's hapi helper: in a job of several processes, join its collectives
    (init_parallel_env) and return the ParallelStrategy; None for one process. `place` is
    accepted for Paddle's signature: refimpl's processes all compute on the CPU."""
    if get_world_size() < 2:
        return None
    return prepare_context()


def to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def flatten(data):
    """The leaves of a batch (lists, tuples, dicts by sorted key), depth first."""
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in flatten(item)]
    if isinstance(data, dict):
        return [leaf for key in sorted(data) for leaf in flatten(data[key])]
    return [data]


def _positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError("Model: %s must be a positive int, got %r" % (what, value))
    return int(value)


def _forward_arg_names(network):
    spec = inspect.getfullargspec(network.forward)
    return spec.args[1:] if spec.args and spec.args[0] == "self" else spec.args


def _checked_specs(specs, network, what):
    """InputSpecs given as one spec, a list / tuple, or (inputs) a dict keyed by the
    names of forward's arguments; every one named."""
    if isinstance(specs, InputSpec):
        specs = [specs]
    elif isinstance(specs, dict) and what == "inputs":
        names = _forward_arg_names(network)
        unknown = sorted(set(specs) - set(names))
        if unknown:
            raise ValueError("Model: inputs keys %s are not arguments of %s.forward %s"
                             % (unknown, type(network).__name__, names))
        specs = [specs[n] for n in names if n in specs]
    elif not isinstance(specs, (list, tuple)):
        raise TypeError("Model: %s must be an InputSpec or a list of them%s, got %s"
                        % (what, " (or a dict)" if what == "inputs" else "",
                           type(specs).__name__))
    for i, spec in enumerate(specs):
        if not isinstance(spec, InputSpec):
            raise TypeError("Model: %s[%d] must be a paddle.static.InputSpec, got %s"
                            % (what, i, type(spec).__name__))
        if spec.name is None:
            raise ValueError("Model: %s[%d] %s needs a name (the feed variable's name)"
                             % (what, i, spec))
    return list(specs)


class Model:
    """Model(network, inputs=None, labels=None). `inputs` / `labels`: InputSpecs of the
    forward's inputs and of the loss's labels; required in static mode (they become the
    programs' feed variables), optional in dynamic mode (then the forward's argument
    names, with shapes learned from the first batch)."""

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError("Model: network must be a paddle.nn.Layer, got %s"
                            % type(network).__name__)
        self.mode = "train"
        self.network = network
        self.stop_training = False
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self._merger = None          # BatchMerger of the evaluation / prediction running
        self._prepared = False
        self._shapes_inferred = False
        if inputs is None:
            if not mode.dynamic:
                raise TypeError("Model: in static mode `inputs` must be given (InputSpecs "
                                "with shapes, dtypes and names: they become the programs' "
                                "feed variables)")
            self._inputs = [InputSpec([None], name=n) for n in _forward_arg_names(network)]
            self._input_info = None
        else:
            self._inputs = _checked_specs(inputs, network, "inputs")
            self._input_info = ([list(s.shape) for s in self._inputs],
                                [s.dtype for s in self._inputs])
        self._labels = [] if labels is None else _checked_specs(labels, network, "labels")
        self._adapter = (DynamicGraphAdapter if mode.dynamic else StaticGraphAdapter)(self)

    # -- one batch
    def train_batch(self, inputs, labels=None, update=True):
        """One optimization step on a batch: returns [loss arrays] (each loss's value),
        or ([loss arrays], [each metric's update() result]) when there are metrics."""
        self._check_prepared("train_batch", need_optimizer=True)
        result = self._adapter.train_batch(to_list(inputs), to_list(labels), update)
        self._learn_input_shapes()
        return result

    def eval_batch(self, inputs, labels=None):
        """Loss and metrics of a batch without training (as train_batch returns them;
        only the metrics' results when there is no loss)."""
        self._check_prepared("eval_batch")
        result = self._adapter.eval_batch(to_list(inputs), to_list(labels))
        self._learn_input_shapes()
        return result

    def predict_batch(self, inputs):
        """The network's outputs on a batch, as a list of numpy arrays."""
        self._check_prepared("predict_batch")
        result = self._adapter.predict_batch(to_list(inputs))
        self._learn_input_shapes()
        return result

    def _check_prepared(self, what, need_optimizer=False):
        if not self._prepared:
            raise RuntimeError("Model.%s: call model.prepare(...) first" % what)
        if need_optimizer and (self._optimizer is None or self._loss is None):
            raise RuntimeError("Model.%s: training needs an optimizer and a loss: "
                               "model.prepare(optimizer, loss, ...)" % what)

    def _learn_input_shapes(self):
        """Dynamic mode without `inputs`: the first batch's shapes and dtypes stand in for
        them (what save(training=False) then writes)."""
        if self._input_info is None and self._adapter.input_info is not None:
            shapes, dtypes = self._adapter.input_info
            self._input_info = (shapes, dtypes)
            self._inputs = [InputSpec(s, d, spec.name)
                            for s, d, spec in zip(shapes, dtypes, self._inputs)]
            self._shapes_inferred = True

    # -- configuration
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or any callable(*outputs, *labels)), the
        metrics (paddle.metric.Metric instances); in static mode build the train, eval and
        test programs and initialize the parameters that have no value yet."""
        if loss is not None and not callable(loss):
            raise TypeError("Model.prepare: loss must be a paddle.nn.Layer or a callable, "
                            "got %s" % type(loss).__name__)
        if optimizer is not None and loss is None:
            raise ValueError("Model.prepare: an optimizer needs a loss to minimize")
        if optimizer is not None and not hasattr(optimizer, "minimize"):
            raise TypeError("Model.prepare: optimizer must be a paddle.optimizer.Optimizer, "
                            "got %s" % type(optimizer).__name__)
        metrics = to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError("Model.prepare: metrics must be paddle.metric.Metric "
                                "instances, got %s" % type(m).__name__)
        _check_amp(amp_configs)
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics
        self._adapter.prepare()
        self._prepared = True

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    def summary(self, input_size=None, dtype=None):
        """paddle.summary of the network, for `input_size` or the inputs' InputSpecs."""
        if input_size is None:
            if self._input_info is None:
                raise ValueError("Model.summary: give input_size, or make the Model with "
                                 "`inputs` InputSpecs")
            input_size = self._inputs
        return summary(self.network, input_size, dtypes=dtype)

    # -- loops
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers, what):
        """A Dataset becomes a DataLoader over a DistributedBatchSampler (each rank its
        share); a DataLoader or any other iterable of batches is used as it is."""
        if isinstance(data, IterableDataset):
            if get_world_size() > 1:
                raise ValueError("Model.%s: an IterableDataset cannot be shared out over %d "
                                 "ranks; pass a map-style Dataset or a DataLoader that "
                                 "yields each rank's batches" % (what, get_world_size()))
            return DataLoader(data, batch_size=batch_size, drop_last=drop_last,
                              num_workers=num_workers, return_list=True)
        if isinstance(data, Dataset):
            sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle,
                                              drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, num_workers=num_workers,
                              return_list=True)
        if not hasattr(data, "__iter__"):
            raise TypeError("Model.%s: the data must be a paddle.io.Dataset, a DataLoader or "
                            "an iterable of batches, got %s" % (what, type(data).__name__))
        return data

    def _metrics_name(self):
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names.extend(to_list(m.name()))
        return names

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Train for `epochs` epochs over train_data, evaluating on eval_data every
        eval_freq epochs; callbacks (a ProgBarLogger, a ModelCheckpoint to save_dir every
        save_freq epochs and an LRScheduler are added unless given) see every step."""
        if train_data is None:
            raise ValueError("Model.fit: train_data must be given")
        self._check_prepared("fit", need_optimizer=True)
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 2:
                raise ValueError("Model.fit: batch_size as a list must be [train_batch_size, "
                                 "eval_batch_size], got %r" % (batch_size,))
            train_batch_size, eval_batch_size = batch_size
        else:
            train_batch_size = eval_batch_size = batch_size
        train_batch_size = _positive_int(train_batch_size, "batch_size")
        eval_batch_size = _positive_int(eval_batch_size, "batch_size")
        epochs = _positive_int(epochs, "epochs")
        eval_freq = _positive_int(eval_freq, "eval_freq")
        accumulate = _positive_int(accumulate_grad_batches, "accumulate_grad_batches")
        _positive_int(log_freq, "log_freq")
        check_verbose(verbose, "Model.fit")
        train_loader = self._loader(train_data, train_batch_size, shuffle, drop_last,
                                    num_workers, "fit")
        eval_loader = None if eval_data is None else self._loader(
            eval_data, eval_batch_size, False, False, num_workers, "fit")
        steps = _len_or_none(train_loader)
        iters_left = None      # training steps left of num_iters
        if num_iters is not None:
            iters_left = _positive_int(num_iters, "num_iters")
            if steps is not None:
                epochs = iters_left // steps + 1
                steps = min(iters_left, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        if eval_loader is None and any(isinstance(c, EarlyStopping) for c in cbks):
            warnings.warn("Model.fit: EarlyStopping needs eval_data; without it training "
                          "never stops early")
        self.stop_training = False
        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train", iters_left, accumulate)
            cbks.on_epoch_end(epoch, logs)
            if iters_left is not None:
                iters_left -= logs.get("step", -1) + 1
                self.stop_training = self.stop_training or iters_left <= 0
            if eval_loader is not None and epoch % eval_freq == 0:
                self._evaluate_with(eval_loader, cbks)
            if self.stop_training:
                break
        cbks.on_end("train", logs)

    def _evaluate_with(self, loader, cbks, limit=None):
        steps = _len_or_none(loader)
        if limit is not None and steps is not None:
            steps = min(steps, limit)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval", limit)
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """{'loss': [values], metric name: value, ...} over eval_data."""
        self._check_prepared("evaluate")
        check_verbose(verbose, "Model.evaluate")
        loader = self._loader(eval_data, _positive_int(batch_size, "batch_size"), False,
                              False, num_workers, "evaluate")
        limit = None if num_iters is None else _positive_int(num_iters, "num_iters")
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        logs = self._evaluate_with(loader, cbks, limit)
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over test_data: one entry per output, holding the batches'
        arrays (a tuple), or with stack_outputs one array stacked over all samples. A
        sample's fields beyond the inputs (labels) are ignored."""
        self._check_prepared("predict")
        check_verbose(verbose, "Model.predict")
        loader = self._loader(test_data, _positive_int(batch_size, "batch_size"), False,
                              False, num_workers, "predict")
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": _len_or_none(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(batches) for batches in outputs]
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, loader, cbks, run_mode, limit=None, accumulate=1):
        """One pass over `loader` (at most `limit` batches); training updates every
        `accumulate` batches and at the last. Returns the last batch's logs (and, for
        predict, every batch's outputs)."""
        logs, outputs = {}, []
        steps = _len_or_none(loader)
        n_inputs = len(self._inputs)
        dataset = getattr(loader, "dataset", None)
        self._merger = BatchMerger(_len_or_none(dataset)) if run_mode != "train" else None
        try:
            for step, data in enumerate(loader):
                data = flatten(data)
                shape = getattr(data[0], "shape", None)
                if callable(shape):         # a static-mode DataLoader's LoDTensor
                    shape = shape()
                shape = shape or np.shape(data[0])
                batch_size = int(shape[0]) if len(shape) else 1
                cbks.on_batch_begin(run_mode, step, logs)
                if run_mode == "predict":
                    outs = self.predict_batch(data[:n_inputs])
                    outputs.append(outs)
                    batch_size = len(outs[0]) if outs else batch_size
                else:
                    if run_mode == "train":
                        update = (step + 1) % accumulate == 0 or step + 1 == steps
                        outs = self.train_batch(data[:n_inputs], data[n_inputs:], update)
                        batch_size *= get_world_size()
                    else:
                        self._merger.last_batch = None
                        outs = self.eval_batch(data[:n_inputs], data[n_inputs:])
                        merged = self._merger.last_batch
                        batch_size = merged if merged is not None else \
                            batch_size * get_world_size()
                    logs.update(self._batch_logs(outs))
                logs["step"] = step
                logs["batch_size"] = batch_size
                cbks.on_batch_end(run_mode, step, logs)
                if limit is not None and step + 1 >= limit:
                    break
        finally:
            self._merger = None
        for m in self._metrics:
            m.reset()
        return (logs, outputs) if run_mode == "predict" else logs

    def _batch_logs(self, outs):
        """{'loss': [each loss as a float], metric name: accumulated value, ...}."""
        if self._loss is not None:
            losses = outs[0] if self._metrics else outs
            values = [[_scalar(l) for l in losses]]
        else:
            values = []
        for m in self._metrics:
            values.extend(to_list(m.accumulate()))
        return dict(zip(self._metrics_name(), values))

    # -- files
    def save(self, path, training=True):
        """training=True: the parameters to path.pdparams and the optimizer's state to
        path.pdopt (Paddle's pickles, committed together); training=False: the inference
        model, path.pdmodel (profile 3: path.json, Paddle 3's PIR program, as
        save_inference_model writes it) + path.pdiparams (paddle.static.load_inference_model
        reads it). Only rank 0 writes."""
        if get_rank() != 0:
            return
        path = os.fspath(path)
        if os.path.basename(path) == "":
            raise ValueError("Model.save: path must be 'dirname/file_prefix', got %r (no "
                             "file prefix)" % path)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if training:
            params = dict(self._adapter.param_state())
            # as paddle.save of a dygraph state_dict: which parameter each entry was
            params[model_formats.NAME_TABLE_KEY] = {
                key: var.name for key, var in self.network.state_dict().items()}
            files = {".pdparams": model_formats.object_writer(params)}
            opt_state = self._adapter.optimizer_state()
            if opt_state:
                files[".pdopt"] = model_formats.paddle_save_writer(opt_state)
            checkpoint.write_checkpoint(path, files, "Model.save")
        else:
            if self._input_info is None:     # no `inputs` and no batch run yet
                raise RuntimeError("Model.save(training=False): the inference model needs the "
                                   "inputs' shapes: give `inputs` InputSpecs to Model, or run "
                                   "a batch (fit, train_batch, ...) before saving")
            if self._shapes_inferred:
                warnings.warn("Model.save(training=False): `inputs` were not given to Model, "
                              "so the inference model takes the shapes of the batches seen: "
                              "%s" % self._input_info[0])
            self._adapter.save_inference_model(path)

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load path.pdparams (and path.pdopt unless reset_optimizer) written by save().
        Every value is read and checked before any is set. A parameter missing from the
        file or of another shape is an error, or with skip_mismatch a warning (and the
        optimizer's state is then not loaded)."""
        prefix, ext = os.path.splitext(os.fspath(path))
        if ext not in _SUFFIXES:
            prefix = os.fspath(path)
        params_file, opt_file = prefix + ".pdparams", prefix + ".pdopt"
        wanted = [params_file] + ([] if reset_optimizer else [opt_file])
        files = checkpoint.read_checkpoint_files(prefix, wanted, "Model.load",
                                                 optional=(opt_file,))
        state = model_formats.object_from_bytes(files[params_file], params_file,
                                                keep_name_table=True)
        if not isinstance(state, dict):
            raise ValueError("Model.load: %s holds a %s, not a state dict"
                             % (params_file, type(state).__name__))
        saved_names = state.pop(model_formats.NAME_TABLE_KEY, {})
        network_state = self.network.state_dict()
        matched = []
        for key, param in network_state.items():
            problem = None
            value = state.get(key)
            if value is None:
                problem = "%s is not found in %s" % (key, params_file)
            else:
                value = np.asarray(value)
                if list(value.shape) != list(param.shape):
                    problem = "%s has shape %s in %s, but the model's is %s" % (
                        key, list(value.shape), params_file, list(param.shape))
            if problem is None:
                matched.append((param, value))
            elif skip_mismatch:
                warnings.warn("Model.load: skip loading %s" % problem)
                reset_optimizer = True
            else:
                raise ValueError("Model.load: %s (skip_mismatch=True skips it)" % problem)
        opt_state = None
        if not reset_optimizer and opt_file in files:
            opt_state = model_formats.object_from_bytes(files[opt_file], opt_file)
            renames = {saved_names[key]: param.name for key, param in network_state.items()
                       if saved_names.get(key, param.name) != param.name}
            opt_state = _renamed_optimizer_state(opt_state, renames, opt_file)
        self._adapter.load(matched, opt_state)


def _renamed_optimizer_state(state, renames, source):
    """The optimizer state saved for parameters named differently then (another process
    built the network, or another instance of it): '<old name>_moment1_0' becomes
    '<new name>_moment1_0', by the longest old name that prefixes the entry."""
    if not isinstance(state, dict):
        raise ValueError("Model.load: %s holds a %s, not an optimizer state dict"
                         % (source, type(state).__name__))
    old_names = sorted(renames, key=len, reverse=True)
    renamed = {}
    for key, value in state.items():
        old = next((n for n in old_names if key.startswith(n + "_")), None)
        renamed[renames[old] + key[len(old):] if old is not None else key] = value
    return renamed


def _len_or_none(dataset):
    try:
        return len(dataset)
    except TypeError:
        return None


def _scalar(loss):
    value = np.asarray(loss)
    # Paddle 2.0 logs a loss of several values (PaddleNLP's per-sentence CRF loss) by its
    # first, having trained on their sum; 3.3.1 raises (versions.py)
    if value.size > 1 and versions.switch("hapi_loss_log") == "first_value":
        return float(value.reshape(-1)[0])
    if value.size != 1:
        raise ValueError("Model: a loss must be one value (reduce it, e.g. reduction='mean'), "
                         "got shape %s" % list(value.shape))
    return float(value.reshape(-1)[0])


def _check_amp(amp_configs):
    """Automatic mixed precision is for GPUs: refimpl computes in the parameters' dtype, so
    only 'O0' (off) is accepted, and in dynamic mode on a CPU place any level (a warning
    that it makes no effect, as Paddle's)."""
    if amp_configs is None:
        return
    level = amp_configs.get("level", "O1") if isinstance(amp_configs, dict) else amp_configs
    if level not in ("O0", "O1", "O2"):
        raise ValueError("Model.prepare: the amp level must be 'O0', 'O1' or 'O2', got %r"
                         % (level,))
    if level != "O0" and mode.dynamic and not current_place().is_gpu_place():
        # Paddle (2.1+, 3.3.1) trains under auto_cast and a GradScaler, which on a CPU
        # place warn that they make no effect: the parameters' dtype, unscaled
        amp_enabled(True, "amp_guard")
        return
    if level != "O0":
        raise NotImplementedError("Model.prepare: amp_configs level %r (automatic mixed "
                                  "precision) is not provided: refimpl computes in the "
                                  "parameters' dtype on the CPU; use amp_configs=None or "
                                  "'O0'" % level)
