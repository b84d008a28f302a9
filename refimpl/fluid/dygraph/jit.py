"""fluid.dygraph.jit (Paddle 1.8): TracedLayer, the static program of one call of a
dynamic-mode Layer, runnable with an Executor and savable as an inference model.

`TracedLayer.trace(layer, inputs)` calls the layer eagerly (its outputs keep their
autograd graph, as 1.8's) and records the same call as a static program: forward runs a
second time on feed variables shaped like `inputs`, with every parameter and buffer
standing in as a static variable of the same name (hapi/layer_program.py), in the mode
each sublayer is in. Python control flow is decided by that call, as with 1.8's tracer.
Calling the TracedLayer runs the program on the layer's current parameter values, so it
follows the training that goes on after the trace."""
from ...executor import Executor
from ...framework import unique_name
from ...framework.place import CPUPlace
from ...framework.scope import Scope, scope_guard
from ...dygraph.tensor import Tensor
from ...hapi.layer_program import inference_program
from ...nn.layer.base import Layer
from ...static.input_spec import InputSpec

__all__ = ["TracedLayer", "extract_vars"]


def extract_vars(inputs):
    """The Tensors in `inputs` (a Tensor or nested lists / tuples of them), in order."""
    if isinstance(inputs, Tensor):
        return [inputs]
    if isinstance(inputs, (list, tuple)):
        return [v for item in inputs for v in extract_vars(item)]
    raise TypeError("TracedLayer: inputs must be Tensors (or lists of them), got %s"
                    % type(inputs).__name__)


class TracedLayer:
    """The program of a traced Layer call. Build it with TracedLayer.trace."""

    def __init__(self, program, feeds, fetches, layer):
        self._program, self._feeds, self._fetches = program, feeds, fetches
        self._layer = layer
        self._exe = Executor(CPUPlace())
        self._scope = Scope()
        self._build_strategy = self._exec_strategy = None

    @property
    def program(self):
        return self._program

    @staticmethod
    def trace(layer, inputs):
        """(the eager outputs of layer(*inputs), TracedLayer of that call). `inputs` is a
        Tensor or a list of Tensors (one per forward argument)."""
        if not isinstance(layer, Layer):
            raise TypeError("TracedLayer.trace: layer must be a fluid.dygraph.Layer, got %s"
                            % type(layer).__name__)
        args = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        outputs = layer(*args)
        specs = [InputSpec(v.shape, v.dtype, "feed_%d" % i)
                 for i, v in enumerate(extract_vars(args))]
        with unique_name.guard():
            program, feeds, fetches, _ = inference_program(layer, specs, evaluation=False)
        return outputs, TracedLayer(program, feeds, fetches, layer)

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Run the program through a CompiledProgram with these strategies."""
        from ...compiler import BuildStrategy, ExecutionStrategy
        for arg, value, cls in (("build_strategy", build_strategy, BuildStrategy),
                                ("exec_strategy", exec_strategy, ExecutionStrategy)):
            if value is not None and not isinstance(value, cls):
                raise TypeError("TracedLayer.set_strategy: %s must be a %s, got %s"
                                % (arg, cls.__name__, type(value).__name__))
        self._build_strategy, self._exec_strategy = build_strategy, exec_strategy

    def _load_parameters(self):
        values = {}
        for tensor in self._layer.parameters() + self._layer.buffers():
            values[tensor.name] = tensor._array()
        self._scope.set_values(values)

    def __call__(self, inputs):
        """Run the program on `inputs` (Tensors or arrays, one per traced input); the
        outputs as arrays."""
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(inputs) != len(self._feeds):
            raise ValueError("TracedLayer: %d inputs given, the trace took %d"
                             % (len(inputs), len(self._feeds)))
        feed = {var.name: value.numpy() if isinstance(value, Tensor) else value
                for var, value in zip(self._feeds, inputs)}
        self._load_parameters()
        program = self._program
        if self._build_strategy is not None or self._exec_strategy is not None:
            from ...compiler import CompiledProgram
            program = CompiledProgram(program, self._build_strategy)
        with scope_guard(self._scope):
            return self._exe.run(program, feed=feed, fetch_list=self._fetches)

    def save_inference_model(self, dirname, feed=None, fetch=None):
        """fluid.io.save_inference_model of the program: `feed` / `fetch` pick the traced
        inputs / outputs by position (default: all)."""
        from ..io import save_inference_model
        feeds = [self._feeds[i] for i in (range(len(self._feeds)) if feed is None else feed)]
        fetches = [self._fetches[i]
                   for i in (range(len(self._fetches)) if fetch is None else fetch)]
        self._load_parameters()
        with scope_guard(self._scope):
            save_inference_model(dirname, [v.name for v in feeds], fetches, self._exe,
                                 main_program=self._program)
