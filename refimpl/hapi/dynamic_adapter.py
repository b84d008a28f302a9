"""paddle.Model in dynamic mode: each batch runs the eager network (wrapped in
paddle.DataParallel under mpirun), the loss's backward and the optimizer's step
(specs/hapi_model.md)."""
import warnings

import numpy as np

from ..distributed import get_world_size, init_parallel_env
from ..dygraph import mode
from ..dygraph.tensor import Tensor
from ..framework.scope import Scope, global_scope, scope_guard
from ..layers.math import add_n
from ..static.io import save_inference_model
from .layer_program import inference_program
from .rank_gather import BatchMerger

__all__ = ["DynamicGraphAdapter"]


def _tensors(values):
    return [v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for v in values]


def _arrays(values):
    return [v.numpy() if isinstance(v, Tensor) else np.asarray(v) for v in values]


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class DynamicGraphAdapter:
    def __init__(self, model):
        self.model = model
        self.input_info = None     # (shapes, dtypes) of the last batch's inputs
        self._parallel = None      # paddle.DataParallel(network) when world size > 1

    def prepare(self):
        optimizer = self.model._optimizer
        if optimizer is not None and not optimizer._eager:
            raise ValueError("Model.prepare: in dynamic mode the optimizer updates the "
                             "parameters it was given: make it with "
                             "parameters=model.parameters()")
        if get_world_size() > 1 and self._parallel is None:
            from .. import DataParallel
            init_parallel_env()     # as Paddle's Model: the job's ranks join its collectives
            self._parallel = DataParallel(self.model.network)

    def _forward(self, inputs, network):
        inputs = _tensors(inputs)
        self.input_info = ([list(x.shape) for x in inputs], [x.dtype for x in inputs])
        return _as_list(network(*inputs))

    def _losses(self, outputs, labels):
        return _as_list(self.model._loss(*(outputs + labels)))

    def _metric_results(self, outputs, labels, merger):
        """Each metric's update() of this batch; under mpirun on every rank's samples."""
        results = []
        with mode.no_grad():
            for metric in self.model._metrics:
                computed = _arrays(_as_list(metric.compute(*(outputs + labels))))
                if merger is not None:
                    computed = merger.merge(computed)
                results.append(metric.update(*computed))
        return results

    def train_batch(self, inputs, labels, update=True):
        model = self.model
        model.network.train()
        model.mode = "train"
        network = self._parallel if self._parallel is not None else model.network
        outputs = self._forward(inputs, network)
        labels = _tensors(labels)
        losses = self._losses(outputs, labels)
        total = losses[0] if len(losses) == 1 else add_n(losses)
        total.backward()
        if update:
            model._optimizer.step()
            model._optimizer.clear_grad()
        metrics = self._metric_results(outputs, labels, None)
        loss_values = _arrays(losses)
        return (loss_values, metrics) if metrics else loss_values

    @mode.no_grad()
    def eval_batch(self, inputs, labels):
        model = self.model
        model.network.eval()
        model.mode = "eval"
        outputs = self._forward(inputs, model.network)
        labels = _tensors(labels)
        losses = self._losses(outputs, labels) if model._loss is not None else []
        merger = model._merger if model._merger is not None else BatchMerger(None)
        metrics = self._metric_results(outputs, labels,
                                       merger if BatchMerger.active() else None)
        if losses and metrics:
            return _arrays(losses), metrics
        return _arrays(losses) if losses else metrics

    @mode.no_grad()
    def predict_batch(self, inputs):
        model = self.model
        model.network.eval()
        model.mode = "test"
        outputs = _arrays(self._forward(inputs, model.network))
        if BatchMerger.active():
            merger = model._merger if model._merger is not None else BatchMerger(None)
            outputs = merger.merge(outputs)
        return outputs

    # -- files
    def param_state(self):
        return {key: t.numpy() for key, t in self.model.network.state_dict().items()}

    def optimizer_state(self):
        optimizer = self.model._optimizer
        return optimizer.state_dict() if optimizer is not None else {}

    def load(self, matched, optimizer_state):
        for param, value in matched:
            param.set_value(value)
        if optimizer_state and self.model._optimizer is not None:
            names = [p.name for p in self.model.network.parameters()]
            strays = sorted(k for k in optimizer_state if k != "LR_Scheduler" and
                            not any(k.startswith(n + "_") for n in names))
            if strays:
                warnings.warn("Model.load: optimizer state entries %s belong to no parameter "
                              "of the network; they are ignored" % strays[:5])
            self.model._optimizer.set_state_dict(optimizer_state)

    def save_inference_model(self, path):
        program, feeds, fetches, values = inference_program(self.model.network,
                                                            self.model._inputs)
        with scope_guard(Scope()):
            global_scope().set_values(values)
            save_inference_model(path, feeds, fetches, None, program=program)
