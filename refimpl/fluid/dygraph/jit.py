"""fluid.dygraph.jit (Paddle 1.8): TracedLayer, the static program of one call of a
dynamic-mode Layer, runnable with an Executor and savable as an inference model.

`TracedLayer.trace(layer, inputs)` calls the layer eagerly (its outputs keep their
autograd graph) while the tracer lists every op it runs (dygraph/tracer.py `recording`),
then writes those ops into a program, as 1.8's tracer does: the traced inputs become feed
variables `feed_0`, `feed_1`, ...; every other tensor an op reads that no traced op made
(parameters, buffers, constants the layer holds) becomes a persistable variable of the
same name; op outputs are named `<op type>_<n>.tmp_<k>` in op order, so tracing the same
call twice gives equal programs. Python control flow is decided by that one call.
Calling the TracedLayer runs the program on those tensors' current values, so it follows
the training that goes on after the trace."""
from ... import versions
from ...executor import Executor
from ...framework.place import CPUPlace
from ...framework.program import Program
from ...framework.scope import Scope, scope_guard
from ...dygraph.tensor import Tensor
from ...dygraph.tracer import recording
from ...nn.layer.base import Layer
from .dygraph_to_static import declarative, dygraph_to_static_func, not_to_static

# declarative: Paddle 2.0 keeps the decorator in this module too
__all__ = ["TracedLayer", "extract_vars", "declarative", "dygraph_to_static_func",
           "not_to_static", "save", "load"]


def save(layer, path, input_spec=None, **configs):
    """Paddle 2.0's fluid.dygraph.jit.save: paddle.jit.save (refimpl/jit imports this
    package, hence the late import)."""
    from ...jit import save as jit_save
    return jit_save(layer, path, input_spec, **configs)


def load(path, **configs):
    """Paddle 2.0's fluid.dygraph.jit.load: paddle.jit.load."""
    from ...jit import load as jit_load
    return jit_load(path, **configs)


def extract_vars(inputs):
    """The Tensors in `inputs` (a Tensor or nested lists / tuples of them), in order."""
    if isinstance(inputs, Tensor):
        return [inputs]
    if isinstance(inputs, (list, tuple)):
        return [v for item in inputs for v in extract_vars(item)]
    raise TypeError("The type of 'each element of inputs' in %s.trace must be "
                    "fluid.Variable, but received %s." % (_WHERE, type(inputs)))


# where Paddle 2.0's argument errors say they come from
_WHERE = "fluid.dygraph.jit.TracedLayer"


def _check_type(arg, value, expected):
    """TypeError in the words of Paddle's check_type (2.0's TracedLayer.save_inference_model
    checks its arguments with it)."""
    if not isinstance(value, expected):
        raise TypeError("The type of '%s' in %s.save_inference_model must be %s, but "
                        "received %s. " % (arg, _WHERE, expected, type(value)))


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _program_of(ops, inputs, outputs):
    """(program, feed Variables, fetch Variables, {persistable name: Tensor}) of the
    recorded `ops` run on `inputs` giving `outputs`."""
    program = Program()
    block = program.global_block()
    made, captured, keep = {}, {}, []   # id(tensor) -> Variable; name -> Tensor; refs

    def static(t, name, **kw):
        var = block.create_var(name=name, shape=list(t.shape), dtype=t.dtype, **kw)
        made[id(t)] = var
        keep.append(t)
        return var

    feeds = [static(t, "feed_%d" % i, stop_gradient=True) for i, t in enumerate(inputs)]

    def read(t):
        if id(t) not in made:
            static(t, t.name, persistable=True, stop_gradient=True)
            captured[t.name] = t
        return made[id(t)]

    for n, (op_type, ins, outs, attrs) in enumerate(ops):
        op_inputs = {slot: [read(t) for t in _as_list(v) if t is not None]
                     for slot, v in (ins or {}).items() if v is not None}
        op_outputs = {}
        for slot, v in (outs or {}).items():
            filled = [t for t in _as_list(v) if t is not None and t._value is not None]
            op_outputs[slot] = [static(t, "%s_%d.tmp_%d" % (op_type, n, len(made)))
                                for t in filled]
        block.append_op(type=op_type, inputs=op_inputs, outputs=op_outputs,
                        attrs=dict(attrs or {}))
    fetches = [read(t) for t in outputs]
    return program, feeds, fetches, captured


def _trace(layer, inputs):
    """Paddle 2.0's helper under TracedLayer: (the eager outputs, the traced program, its
    feed names, its fetch names, the tensors it reads as persistables)."""
    outputs, traced = TracedLayer.trace(layer, inputs)
    return (outputs, traced.program, [v.name for v in traced._feeds],
            [v.name for v in traced._fetches], list(traced._persistables.values()))


class TracedLayer:
    """The program of a traced Layer call. Build it with TracedLayer.trace."""

    def __init__(self, program, feeds, fetches, persistables):
        self._program, self._feeds, self._fetches = program, feeds, fetches
        self._persistables = persistables
        self._exe = Executor(CPUPlace())
        self._scope = Scope()
        self._build_strategy = self._exec_strategy = None

    @property
    def program(self):
        return self._program

    @staticmethod
    def trace(layer, inputs):
        """(the eager outputs of layer(*inputs), TracedLayer of that call). `inputs` is a
        Tensor or a list of forward arguments, each a Tensor or (nested) lists of them."""
        assert isinstance(layer, Layer), \
            "The type of 'layer' in %s.trace must be fluid.dygraph.Layer, but received %s." \
            % (_WHERE, type(layer))
        args = _as_list(inputs)
        feeds = extract_vars(args)      # a forward argument may be a list of Tensors
        with recording() as ops:
            outputs = layer(*args)
        program, feeds, fetches, persistables = _program_of(
            ops, feeds, extract_vars(_as_list(outputs)))
        return outputs, TracedLayer(program, feeds, fetches, persistables)

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Run the program through a CompiledProgram with these strategies."""
        from ...compiler import BuildStrategy, ExecutionStrategy
        for arg, value, cls in (("build_strategy", build_strategy, BuildStrategy),
                                ("exec_strategy", exec_strategy, ExecutionStrategy)):
            assert value is None or isinstance(value, cls), \
                "The type of '%s' in %s.set_strategy must be fluid.%s, but received %s." \
                % (arg, _WHERE, cls.__name__, type(value))
        self._build_strategy, self._exec_strategy = build_strategy, exec_strategy

    def _load_parameters(self):
        self._scope.set_values({name: t._array() for name, t in self._persistables.items()})

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
        if versions.switch("traced_layer_save_checks"):
            _check_type("dirname", dirname, str)
            for arg, indices in (("feed", feed), ("fetch", fetch)):
                _check_type(arg, indices, (type(None), list))
                for i in indices or ():
                    _check_type("each element of " + arg, i, int)
        feeds = [self._feeds[i] for i in (range(len(self._feeds)) if feed is None else feed)]
        fetches = [self._fetches[i]
                   for i in (range(len(self._fetches)) if fetch is None else fetch)]
        self._load_parameters()
        with scope_guard(self._scope):
            save_inference_model(dirname, [v.name for v in feeds], fetches, self._exe,
                                 main_program=self._program)
