"""paddle.Model in static mode: prepare() builds a train, an eval and a test program from
the InputSpecs (feed variables) and the network's Layers, each a clone of the program the
Layers' parameters live in, and initializes the parameters that have no value yet; a
batch is one Executor.run. Under mpirun the train program runs data parallel over the
processes (specs/hapi_model.md)."""
import numpy as np

from ..compiler import CompiledProgram
from ..distributed import get_world_size
from ..dygraph.tensor import Tensor
from ..executor import Executor
from ..framework.place import CPUPlace
from ..framework.program import (Program, default_main_program, default_startup_program,
                                 program_guard)
from ..framework.scope import global_scope
from ..layers.io import data
from ..layers.math import add_n
from ..static.io import save_inference_model
from .rank_gather import BatchMerger

__all__ = ["StaticGraphAdapter"]

_MODES = ("train", "eval", "test")


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _has_value(scope, name):
    var = scope.find_var(name)
    return var is not None and var.get_tensor()._get() is not None


class StaticGraphAdapter:
    def __init__(self, model):
        self.model = model
        self.input_info = None
        self._main = default_main_program()        # where the Layers' parameters live
        foreign = [p.name for p in model.network.parameters()
                   if self._main.global_block().vars.get(p.name) is not p]
        if foreign:
            raise ValueError("Model (static mode): the network's parameters %s are not in the "
                             "default main program; make the network and the Model under "
                             "the same program_guard" % foreign[:3])
        self._startup = default_startup_program()  # their initializers
        self._programs = {}       # mode -> Program
        self._runnable = {}       # mode -> what Executor.run takes
        self._feeds = {}          # mode -> [(feed variable name, 'input' / 'label')]
        self._fetches = {}        # mode -> {'output', 'loss', 'metric'}: Variables
        self._executor = Executor(CPUPlace())

    # -- building
    def prepare(self):
        self._programs, self._runnable, self._feeds, self._fetches = {}, {}, {}, {}
        training = [(sub, sub.training)
                    for sub in self.model.network.sublayers(include_self=True)]
        try:
            for run_mode in _MODES:
                self._build(run_mode)
        finally:
            for sub, was_training in training:
                sub.training = was_training
        self._initialize()

    def _build(self, run_mode):
        model = self.model
        program = self._main.clone()
        if run_mode != "train":
            # what the main program computes (e.g. learning-rate decay) is training's
            program.global_block().ops = []
        if run_mode == "train":
            model.network.train()
        else:
            model.network.eval()
        with program_guard(program, self._startup):
            inputs = [data(s.name, list(s.shape), s.dtype) for s in model._inputs]
            labels = [data(s.name, list(s.shape), s.dtype) for s in model._labels] \
                if run_mode != "test" else []
            outputs = _as_list(model.network(*inputs))
            losses, metrics = [], []
            if run_mode != "test":
                if model._loss is not None:
                    losses = _as_list(model._loss(*(outputs + labels)))
                metrics = [_as_list(m.compute(*(outputs + labels))) for m in model._metrics]
            if run_mode == "train" and model._optimizer is not None:
                total = losses[0] if len(losses) == 1 else add_n(losses)
                model._optimizer.minimize(total)
                self._loss_name = total.name
        self._programs[run_mode] = program
        self._feeds[run_mode] = [v.name for v in inputs + labels]
        self._fetches[run_mode] = {"output": outputs, "loss": losses, "metric": metrics}
        runnable = program
        if run_mode == "train" and model._optimizer is not None and get_world_size() > 1:
            # gradients averaged over the processes of the mpirun job
            runnable = CompiledProgram(program).with_data_parallel(
                loss_name=self._loss_name, places=[CPUPlace()])
        self._runnable[run_mode] = runnable

    def _initialize(self):
        """Run the startup program's initializers of the variables that have no value yet
        (values set before prepare, e.g. loaded ones, are kept)."""
        scope = global_scope()
        block = self._startup.global_block()
        ops = [op for op in block.ops
               if not all(_has_value(scope, n) for n in op.output_arg_names)]
        if not ops:
            return
        pending = Program()
        pending.random_seed = self._startup.random_seed
        pending_block = pending.global_block()
        for name in {n for op in ops for n in op.output_arg_names}:
            var = block.vars[name]
            pending_block.create_var(name=name, shape=list(var.shape), dtype=var.dtype,
                                     persistable=True)
        pending_block.ops = [op._clone_into(pending_block) for op in ops]
        pending._bump()
        self._executor.run(pending)

    # -- running
    def _run(self, run_mode, inputs, labels=()):
        feed_names = self._feeds[run_mode]
        given = list(inputs) + list(labels)
        if len(given) != len(feed_names):
            raise ValueError("Model: the %s program is fed %s, but the batch has %d fields"
                             % (run_mode, feed_names, len(given)))
        self.model.mode = run_mode
        feed = {name: value._array() if isinstance(value, Tensor) else np.asarray(value)
                for name, value in zip(feed_names, given)}
        fetches = self._fetches[run_mode]
        metric_vars = [v for computed in fetches["metric"] for v in computed]
        fetch_list = fetches["output"] if run_mode == "test" else fetches["loss"] + metric_vars
        results = self._executor.run(self._runnable[run_mode], feed=feed,
                                     fetch_list=fetch_list)
        results = [np.asarray(r) for r in results]
        if run_mode == "test":
            return self._merged(results)
        losses = results[:len(fetches["loss"])]
        computed = results[len(fetches["loss"]):]
        metrics = []
        for metric, outs in zip(self.model._metrics, fetches["metric"]):
            mine, computed = computed[:len(outs)], computed[len(outs):]
            if run_mode != "train":
                mine = self._merged(mine)
            metrics.append(metric.update(*mine))
        if losses and metrics:
            return losses, metrics
        return losses if losses else metrics

    def _merged(self, arrays):
        if not BatchMerger.active():
            return arrays
        merger = self.model._merger if self.model._merger is not None else BatchMerger(None)
        return merger.merge(arrays)

    def train_batch(self, inputs, labels, update=True):
        if not update:
            raise NotImplementedError("Model.train_batch(update=False) (gradient "
                                      "accumulation) is not supported in static mode, as in "
                                      "Paddle: each run of the train program updates")
        return self._run("train", inputs, labels)

    def eval_batch(self, inputs, labels):
        return self._run("eval", inputs, labels)

    def predict_batch(self, inputs):
        return self._run("test", inputs)

    # -- files
    def _optimizer_vars(self):
        """The train program's optimizer state: (accumulators, learning-rate variables)."""
        optimizer = self.model._optimizer
        if optimizer is None:
            return [], []
        block = self._programs["train"].global_block()
        accumulators = [block.vars[v.name] for per_param in optimizer._accumulators.values()
                        for v in per_param.values()]
        lr = optimizer._global_learning_rate(self._programs["train"])
        return accumulators, [lr] if lr is not None and lr.persistable else []

    def _values(self, variables):
        scope = global_scope()
        missing = [v.name for v in variables if not _has_value(scope, v.name)]
        if missing:
            raise RuntimeError("Model.save: %s have no value in the scope (run prepare() "
                               "first)" % missing)
        return {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in variables}

    def param_state(self):
        state = self.model.network.state_dict()
        values = self._values(list(state.values()))
        return {key: values[var.name] for key, var in state.items()}

    def optimizer_state(self):
        accumulators, lr_vars = self._optimizer_vars()
        return self._values(accumulators + lr_vars)

    def load(self, matched, optimizer_state):
        """Set the matched parameters and, from optimizer_state, every accumulator (all
        must be there) and the learning rate (when there)."""
        values = {param.name: np.asarray(value, dtype=param.dtype.name)
                  for param, value in matched}
        if optimizer_state:
            accumulators, lr_vars = self._optimizer_vars()
            missing = [v.name for v in accumulators if v.name not in optimizer_state]
            if missing:
                raise ValueError("Model.load: the optimizer state has no %s (it holds %s)"
                                 % (missing, sorted(optimizer_state)[:10]))
            for var in accumulators + lr_vars:
                if var.name in optimizer_state:
                    values[var.name] = np.asarray(optimizer_state[var.name],
                                                  dtype=var.dtype.name)
        global_scope().set_values(values)

    def save_inference_model(self, path):
        program = self._programs.get("test")
        if program is None:
            raise RuntimeError("Model.save(training=False): call model.prepare() first")
        feeds = [program.global_block().vars[n] for n in self._feeds["test"]]
        save_inference_model(path, feeds, self._fetches["test"]["output"], self._executor,
                             program=program)
