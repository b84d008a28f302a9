"""The predictors: AnalysisPredictor (fluid.core's create_paddle_predictor: run(PaddleTensors),
zero-copy handles and zero_copy_run), Predictor (paddle.inference's create_predictor:
handles and run()), NativePaddlePredictor and PredictorPool.

A predictor reads its model once, everything checked before anything is kept
(static/io.py's readers: pickle-free, torn files refused), keeps the parameters apart from
the global scope and runs the program with refimpl's Executor in a scope per predictor
(clones share the parameters' arrays). Input names are checked when a handle is taken;
values are not checked against the declared shapes (as in Paddle: the ops check them).
specs/inference.md."""
import os

import numpy as np

from .. import version as _version, versions
from ..dygraph.tensor import Tensor as EagerTensor
from ..executor import Executor
from ..framework.dtypes import convert_dtype
from ..framework.place import CPUPlace
from ..framework.scope import LoDTensor, Scope
from ..static import io as static_io
from .config import AnalysisConfig, NativeConfig
from .tensor import PaddleDType, PaddleTensor, ZeroCopyTensor, num_bytes_of

__all__ = ["AnalysisPredictor", "NativePaddlePredictor", "Predictor", "PredictorPool",
           "create_paddle_predictor", "create_predictor", "get_version",
           "get_num_bytes_of_data_type"]


def _read_model(config, fn):
    """(program, feed names, fetch target Variables, {name: ndarray}) of the config's model."""
    kind, first, second = config._model_source()
    if kind == "memory":
        return static_io.inference_model_from_bytes(first, second, fn)
    if kind == "files":
        model_file, params_file = first, second
        stem = os.path.splitext(model_file)[0]
        prefix = stem if params_file == stem + ".pdiparams" else \
            os.path.join(os.path.dirname(model_file), "")
    else:
        prefix, model_file, params_file = static_io.inference_model_files(
            first, "__model__", None)
    for path in [model_file] + ([params_file] if params_file else []):
        if not os.path.isfile(path):
            raise FileNotFoundError("%s: Cannot open file %s (the config names %s)"
                                    % (fn, path, "model_dir %r" % first if kind == "dir"
                                       else "prog_file %r, params_file %r" % (first, second)))
    return static_io.read_inference_model(prefix, model_file, params_file, fn)


class _Model:
    """What the predictors made from one config share: the program, its feed and fetch
    names, and the parameters' values {name: ndarray}."""

    def __init__(self, config, fn):
        self.config = AnalysisConfig(config)
        program, self.feed_names, fetch_targets, values = _read_model(config, fn)
        self.program = program
        self.fetch_names = [v.name for v in fetch_targets]
        self.fetch_targets = fetch_targets
        self.params = values
        block = program.global_block()
        self.feed_vars = {n: block.vars[n] for n in self.feed_names}
        for var in self.feed_vars.values():
            # Paddle's predictor writes inputs into its scope unchecked: a model saved
            # with a batch of 4 in its input's shape serves a batch of 1
            var.need_check_feed = False


class AnalysisPredictor:
    """fluid.core.AnalysisPredictor: made by create_paddle_predictor(config)."""

    _fn = "AnalysisPredictor"

    def __init__(self, config, _model=None):
        if _model is None:
            if not isinstance(config, AnalysisConfig):
                raise TypeError("%s: expected an AnalysisConfig, got %s"
                                % (self._fn, type(config).__name__))
            config._take(self._fn)
            _model = _Model(config, self._fn)
        self._model = _model
        self._scope = self._new_scope()
        self._executor = Executor(CPUPlace())
        self._inputs, self._outputs = {}, {}

    # -- names and handles ------------------------------------------------------------
    def get_input_names(self):
        return list(self._model.feed_names)

    def get_output_names(self):
        return list(self._model.fetch_names)

    def get_input_tensor_shape(self):
        return {n: [int(d) for d in v.shape] for n, v in self._model.feed_vars.items()}

    def _check_name(self, name, names, what):
        if name not in names:
            raise ValueError("%s: no %s named %r; the model's %ss are %s"
                             % (self._fn, what, name, what, names))

    def get_input_tensor(self, name):
        self._check_name(name, self._model.feed_names, "input")
        return ZeroCopyTensor(self, name, True)

    def get_output_tensor(self, name):
        self._check_name(name, self._model.fetch_names, "output")
        return ZeroCopyTensor(self, name, False)

    def _values(self, inputs):
        return self._inputs if inputs else self._outputs

    # -- running ------------------------------------------------------------------------
    def _feed_value(self, name, array, lod):
        """The executor's feed of an input: the array, or a LoDTensor when it has a LoD.
        Its dtype must be the variable's (Paddle's ops refuse another: "Tensor holds the
        wrong type")."""
        declared = np.dtype(convert_dtype(self._model.feed_vars[name].dtype))
        if array.dtype != declared:
            raise TypeError("%s: input %r holds %s data, the model's variable is %s"
                            % (self._fn, name, array.dtype, declared))
        if not lod:
            return array
        tensor = LoDTensor()
        tensor.set(array, CPUPlace())
        tensor.set_lod(lod)
        return tensor

    def _run(self, feeds):
        """{output name: (ndarray, lod)} of one run on {input name: (ndarray, lod)}."""
        missing = [n for n in self._model.feed_names if n not in feeds]
        if missing:
            raise ValueError("%s: inputs %s have no value (copy_from_cpu them, or pass them "
                             "to run)" % (self._fn, missing))
        feed = {n: self._feed_value(n, *feeds[n]) for n in self._model.feed_names}
        results = self._executor.run(self._model.program, feed=feed,
                                     fetch_list=self._model.fetch_targets,
                                     scope=self._scope, return_numpy=False)
        return {n: (np.array(r), r.lod() if isinstance(r, LoDTensor) else [])
                for n, r in zip(self._model.fetch_names, results)}

    def zero_copy_run(self):
        if self._model.config.use_feed_fetch_ops_enabled():
            raise RuntimeError("%s.zero_copy_run: the config uses feed / fetch ops; call "
                               "config.switch_use_feed_fetch_ops(False) before making the "
                               "predictor to run on its input / output tensors" % self._fn)
        self._outputs.update(self._run(self._inputs))
        return True

    def run(self, inputs):
        """run([PaddleTensor]) -> [PaddleTensor], one per output; inputs matched to the
        model's by name with config.switch_specify_input_names(True), else by position."""
        names = self._model.feed_names
        if len(inputs) != len(names):
            raise ValueError("%s.run: wrong feed input size, need %d (%s) but get %d"
                             % (self._fn, len(names), names, len(inputs)))
        feeds = {}
        for i, tensor in enumerate(inputs):
            if not isinstance(tensor, PaddleTensor):
                raise TypeError("%s.run: inputs must be PaddleTensors, input %d is %s"
                                % (self._fn, i, type(tensor).__name__))
            name = names[i]
            if self._model.config.specify_input_name():
                self._check_name(tensor.name, names, "input")
                name = tensor.name
            feeds[name] = (tensor.as_ndarray(), tensor.lod)
        outputs = self._run(feeds)
        return [PaddleTensor(array, name, lod) for name, (array, lod) in outputs.items()]

    def clone(self):
        """A predictor of the same model sharing its parameters, with inputs and outputs
        of its own."""
        return type(self)(None, _model=self._model)

    def _new_scope(self):
        """A scope of this predictor's own whose parameters are the model's arrays (not
        copied: an inference program never writes them); the executor keeps its
        intermediate values there."""
        return Scope(values=dict(self._model.params))

    def clear_intermediate_tensor(self):
        self._scope = self._new_scope()

    def program(self):
        return self._model.program.desc

    def get_serialized_program(self):
        return self._model.program.desc.serialize_to_string()


class NativePaddlePredictor(AnalysisPredictor):
    """fluid.core.NativePaddlePredictor: create_paddle_predictor(NativeConfig)."""

    _fn = "NativePaddlePredictor"

    def __init__(self, config, _model=None):
        if _model is None:
            if not isinstance(config, NativeConfig):
                raise TypeError("%s: expected a NativeConfig, got %s"
                                % (self._fn, type(config).__name__))
            config = config._analysis_config()
        super().__init__(config, _model)

    def zero_copy_run(self):
        self._outputs.update(self._run(self._inputs))
        return True


def create_paddle_predictor(config):
    """fluid.core.create_paddle_predictor: an AnalysisPredictor of an AnalysisConfig, a
    NativePaddlePredictor of a NativeConfig."""
    if isinstance(config, NativeConfig):
        return NativePaddlePredictor(config)
    return AnalysisPredictor(config)


class Predictor:
    """paddle.inference.Predictor (create_predictor(config)): input / output handles and
    run(). It turns the config's feed / fetch ops off, as Paddle 2.0's does."""

    def __init__(self, config, _engine=None):
        if _engine is None:
            if not isinstance(config, AnalysisConfig):
                raise TypeError("create_predictor: expected a paddle.inference.Config, got %s"
                                % type(config).__name__)
            config.switch_use_feed_fetch_ops(False)
            _engine = AnalysisPredictor(config)
        self._engine = _engine

    def get_input_names(self):
        return self._engine.get_input_names()

    def get_output_names(self):
        return self._engine.get_output_names()

    def get_input_handle(self, name):
        return self._engine.get_input_tensor(name)

    def get_output_handle(self, name):
        return self._engine.get_output_tensor(name)

    def run(self, inputs=None):
        """run(): on the input handles' values (2.0: True; 3.3.1: None). run([Tensor]) (3.3.1
        on): on these inputs, by position; the outputs as Tensors (switch
        inference_predictor_run)."""
        returns_outputs = versions.switch("inference_predictor_run") == "none_or_outputs"
        if inputs is None:
            ran = self._engine.zero_copy_run()
            return None if returns_outputs else ran
        if not returns_outputs:
            raise TypeError("Predictor.run() takes no inputs in Paddle %s: copy them into "
                            "get_input_handle(name) first" % versions.current())
        engine, names = self._engine, self._engine.get_input_names()
        if len(inputs) != len(names):
            raise ValueError("Predictor.run: wrong feed input size, need %d but get %d"
                             % (len(names), len(inputs)))
        for i, value in enumerate(inputs):
            if not isinstance(value, EagerTensor):
                raise TypeError("Predictor.run: inputs must be paddle Tensors, input %d is %s"
                                % (i, type(value).__name__))
        engine._inputs.update({n: (v.numpy(), []) for n, v in zip(names, inputs)})
        engine.zero_copy_run()
        return [EagerTensor(engine._outputs[n][0]) for n in engine.get_output_names()]

    def clone(self):
        return Predictor(None, _engine=self._engine.clone())

    def clear_intermediate_tensor(self):
        self._engine.clear_intermediate_tensor()


def create_predictor(config):
    return Predictor(config)


class PredictorPool:
    """PredictorPool(config, size): `size` predictors of one model, the first made from
    `config`, the others its clones; retrive(idx) gives predictor idx."""

    def __init__(self, config, size):
        if int(size) < 1:
            raise ValueError("PredictorPool: The predictor pool size should be greater than "
                             "1, but it's (%d)" % size)
        main = Predictor(config)
        self._predictors = [main] + [main.clone() for _ in range(int(size) - 1)]

    def retrive(self, idx):
        if not 0 <= idx < len(self._predictors):
            raise IndexError("PredictorPool.retrive: There are (%d) predictors in the pool, "
                             "but the idx is (%d)" % (len(self._predictors), idx))
        return self._predictors[idx]


def get_version():
    return "version: %s\ncommit: %s\nbranch: %s\n" % (
        _version.full_version, _version.commit, "refimpl")


def get_num_bytes_of_data_type(dtype):
    return num_bytes_of(PaddleDType(dtype))
