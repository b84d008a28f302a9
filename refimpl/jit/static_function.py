"""What paddle.jit.to_static returns: Paddle 2.0's StaticFunction (its
dygraph_to_static/program_translator.py and function_spec.py), without rewriting Python.

In dynamic mode a call runs the function as written (eagerly), and first records the
static program of the call, as 2.0 converts each new input signature: the function called
once more in static mode on feed variables shaped like the Tensor arguments (or like the
to_static input_spec), the Layer's parameters and buffers swapped for static twins
(hapi/layer_program.py). The programs are cached per signature (shapes and dtypes; the
Python values of other arguments); `concrete_program` is the last one, or, when nothing
was called yet, the one of the input_spec. The eager outputs take the names of the
program's outputs, as the outputs of 2.0's translated program do, so that jit.save's
output_spec can name them. A function refimpl cannot run in static mode (control flow on
tensor values) still runs eagerly: the program's error is raised where the program is
needed (concrete_program, jit.save). Python control flow is decided by the call that
records the program (specs/jit.md)."""
import inspect
import weakref

import numpy as np

from .. import versions
from ..dygraph.tensor import Tensor
from ..framework import mode
from ..framework.nest import flatten, map_structure, pack_sequence_as
from ..framework.program import Variable
from ..hapi.layer_program import traced_program
from ..nn import Layer
from ..static.input_spec import InputSpec
from .function_spec import FunctionSpec
from .partial_program import partial_program_from

__all__ = ["StaticFunction", "ConcreteProgram", "ProgramCache", "input_specs_compatible"]


class ConcreteProgram:
    """One recorded program: `inputs` (the Layer, then the arguments with feed Variables
    for the Tensors), `outputs` (a list: what the function returned, wrapped when it is
    not a list / tuple of two or more), `main_program`, `parameters` (the eager
    parameters and buffers the program reads; their variables bear their names)."""

    def __init__(self, inputs, outputs, main_program, parameters, function):
        self.inputs, self.outputs = inputs, outputs
        self.main_program, self.parameters, self.function = main_program, parameters, function


class ProgramCache:
    """A StaticFunction's recorded programs, in the order they were recorded: signature
    -> (ConcreteProgram, its PartialProgramLayer)."""

    def __init__(self):
        self._caches = {}

    def __len__(self):
        return len(self._caches)

    def __contains__(self, key):
        return key in self._caches

    def __getitem__(self, key):
        return self._caches[key]

    def __setitem__(self, key, value):
        self._caches[key] = value

    def last(self):
        """(signature, (ConcreteProgram, PartialProgramLayer)) of the last one recorded."""
        if not self._caches:
            raise ValueError("ProgramCache.last: no program was recorded")
        key = next(reversed(self._caches))
        return key, self._caches[key]

    def concrete_programs(self):
        return [entry[0] for entry in self._caches.values()]


def input_specs_compatible(given, declared):
    """2.0's check of jit.save's input_spec against to_static's (flat lists): equally many
    with the same dtypes and ranks and no two known dims differing, or each given spec one
    of the declared ones (equal shape, dtype and name)."""
    if len(given) != len(declared):
        return all(spec in declared for spec in given)
    for src, want in zip(given, declared):
        if len(src.shape) != len(want.shape) or src.dtype != want.dtype:
            return False
        if any(a >= 0 and b >= 0 and a != b for a, b in zip(src.shape, want.shape)):
            return False
    return True


def _as_tensor(value):
    return Tensor(value) if isinstance(value, np.ndarray) else value


def _hashable(structure):
    """The cache key of an argument structure: InputSpecs by shape and dtype (their
    names do not count, as in 2.0), other values as they are (they must be hashable)."""
    def key(value):
        if isinstance(value, InputSpec):
            return ("InputSpec", value.shape, value.dtype.name)
        if isinstance(value, (list, tuple)):
            return tuple(key(v) for v in value)
        if isinstance(value, dict):
            return tuple((k, key(v)) for k, v in sorted(value.items()))
        try:
            hash(value)
        except TypeError:
            raise TypeError("Arguments to a `@paddle.jit.to_static` must be a hashable "
                            "Python objects (or nested structures of these types): got %s"
                            % type(value).__name__) from None
        return value
    return key(structure)


class StaticFunction:
    """The function (or the method of `instance`) with its input_spec and its cache of
    recorded programs; a descriptor, so a decorated method gets one StaticFunction (and
    one cache) per Layer."""

    def __init__(self, function, input_spec=None, instance=None):
        if isinstance(function, StaticFunction):    # to_static again: a new input_spec
            function, instance = function._dygraph_function, function._class_instance
        elif inspect.ismethod(function):
            function, instance = function.__func__, function.__self__
        if not callable(function):
            raise TypeError("paddle.jit.to_static: expected a function or a method, got %s"
                            % type(function).__name__)
        self._dygraph_function = function
        self._class_instance = instance
        self._function_spec = FunctionSpec(function, input_spec, self.__signature__)
        self._input_spec = self._function_spec.input_spec
        self._cache = ProgramCache()
        # signature -> the error its recording raised; the newest recording's error
        self._failures, self._last_failure = {}, None
        self._bound = weakref.WeakKeyDictionary()
        self.__wrapped__ = function
        self.__name__ = getattr(function, "__name__", type(function).__name__)
        self.__doc__ = getattr(function, "__doc__", None)

    def __set_name__(self, owner, name):
        self._attribute = name

    def __get__(self, instance, owner):
        if instance is None or self._class_instance is not None:
            return self
        bound = StaticFunction(self._dygraph_function, self._input_spec, instance)
        name = getattr(self, "_attribute", None)
        if name is not None and hasattr(instance, "__dict__"):
            # kept by the instance (it shadows this non-data descriptor from now on), so
            # it goes with the instance
            instance.__dict__[name] = bound
            return bound
        return self._bound.setdefault(instance, bound)

    @property
    def __signature__(self):
        signature = inspect.signature(self._dygraph_function)
        if self._class_instance is not None:
            signature = signature.replace(parameters=list(signature.parameters.values())[1:])
        return signature

    @property
    def dygraph_function(self):
        return self._dygraph_function

    @property
    def input_spec(self):
        return self._input_spec

    def _unified(self, args, kwargs):
        return self._function_spec.unified_args_and_kwargs(args, kwargs)

    def _specs_of(self, args, kwargs):
        return self._function_spec.args_to_input_spec(args, kwargs)

    def _call_as_written(self, *args, **kwargs):
        if self._class_instance is not None:
            return self._dygraph_function(self._class_instance, *args, **kwargs)
        return self._dygraph_function(*args, **kwargs)

    def _call_converted(self, *args, **kwargs):
        """The call that records a program: the function's converted twin (tensor-valued
        control flow as cond / while ops, refimpl/jit/dy2static)."""
        from .dy2static.convert_call_func import converted
        function = converted(self._dygraph_function)
        if self._class_instance is not None:
            return function(self._class_instance, *args, **kwargs)
        return function(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        from ..fluid.dygraph.dygraph_to_static import ProgramTranslator
        if inspect.isclass(self._class_instance):       # classmethod over to_static
            raise NotImplementedError(
                "The decorated function `%s` is bound to the class %s: the function has "
                "more than one decorator (classmethod over to_static), we don't support "
                "this for now." % (self.__name__, self._class_instance.__name__))
        if not ProgramTranslator().enable_declarative:
            return self._call_as_written(*args, **kwargs)
        if not mode.in_dynamic_mode():
            if mode.in_translation():   # called while another records: its ops, converted
                return self._call_converted(*args, **kwargs)
            raise RuntimeError(
                "Failed to run the callable object %s decorated by '@paddle.jit.to_static', "
                "because it is NOT in dynamic mode. Please disable the static mode to enter "
                "dynamic mode with the following API: paddle.disable_static()."
                % self._dygraph_function)
        args, kwargs = self._unified(args, kwargs)
        recorded = self._program_for(args, kwargs)
        # an ndarray argument is a feed of the program, as 2.0 runs it: a Tensor here
        args, kwargs = map_structure(_as_tensor, [args, kwargs])
        if not isinstance(recorded, Exception) and \
                versions.switch("partial_program_renames_inputs"):
            self._name_inputs(recorded[0], args)
        outputs = self._call_as_written(*args, **kwargs)
        if not isinstance(recorded, Exception):
            self._name_outputs(outputs, recorded[0], args, kwargs)
            if isinstance(self._class_instance, Layer):     # 2.0 syncs the mode
                recorded[1].training = self._class_instance.training
        return outputs

    def _name_inputs(self, recorded, args):
        """Each eager argument takes the name of the program's input it feeds, as 1.8.5's
        and 2.0's PartialProgramLayer renames what it is given: so jit.save(input_spec=
        [that tensor]) names an input of a program recorded from an earlier tensor."""
        inputs = [v for v in recorded.inputs if v is not self._class_instance]
        eager, static = flatten(list(args)), flatten(inputs)
        if len(eager) == len(static):
            for tensor, var in zip(eager, static):
                if isinstance(tensor, Tensor) and isinstance(var, Variable):
                    tensor.name = var.name

    def _name_outputs(self, outputs, recorded, args, kwargs):
        """The eager outputs take the names of the program's outputs (not the arguments,
        parameters or buffers a function may return as they are)."""
        kept = {id(t) for t in flatten([list(args), kwargs])}
        kept.update(id(t) for t in recorded.parameters)
        eager = flatten(outputs if isinstance(outputs, (list, tuple)) else [outputs])
        static = flatten(recorded.outputs)
        if len(eager) == len(static):
            for tensor, var in zip(eager, static):
                if isinstance(tensor, Tensor) and isinstance(var, Variable) and \
                        id(tensor) not in kept:
                    tensor.name = var.name

    def _program_for(self, args, kwargs):
        """(ConcreteProgram, PartialProgramLayer) of these arguments (recorded now when
        new), or the error its recording raised."""
        spec_args, spec_kwargs = self._specs_of(args, kwargs)
        key = _hashable([spec_args, spec_kwargs])
        if key in self._cache:      # the last recorded stays last, as in 2.0
            return self._cache[key]
        if key not in self._failures:
            self._last_failure = None
            try:
                self._cache[key] = self._record(spec_args, spec_kwargs)
            except Exception as error:      # kept for whoever needs the program
                self._failures[key] = self._last_failure = error
                return error
            return self._cache[key]
        return self._failures[key]

    def _record(self, spec_args, spec_kwargs):
        if isinstance(self._class_instance, Layer) and \
                not getattr(self._class_instance, "_init_in_dynamic_mode", True):
            raise RuntimeError(
                " `paddle.jit.to_static` is only available in dynamic mode. Please call "
                "`paddle.disable_static()` before initializing your Layer class `%s` . "
                "Because parameters of Layer class should be initialized firstly in dynamic "
                "mode while applying transformation." % self._class_instance)
        structure = [spec_args, spec_kwargs]
        leaves = flatten(structure)
        specs = [InputSpec(s.shape, s.dtype, s.name or "feed_%d" % i)
                 for i, s in enumerate(leaves) if isinstance(s, InputSpec)]
        packed = {}

        def call(feeds):
            fed = iter(feeds)
            args, kwargs = pack_sequence_as(
                structure, [next(fed) if isinstance(s, InputSpec) else s for s in leaves])
            packed["args"] = args
            return self._call_converted(*args, **kwargs)
        program, _, outputs, tensors = traced_program(self._class_instance, specs, call,
                                                      evaluation=False)
        if not isinstance(outputs, (list, tuple)) or len(outputs) == 1:
            outputs = [outputs]
        instance = [] if self._class_instance is None else [self._class_instance]
        concrete = ConcreteProgram(tuple(instance + list(packed["args"])), list(outputs),
                                   program, list(tensors.values()), self._dygraph_function)
        return concrete, partial_program_from(concrete)

    def get_concrete_program(self, *args, **kwargs):
        """(ConcreteProgram, PartialProgramLayer) of these arguments (InputSpecs stand for
        Tensors), recorded now when their signature is new."""
        recorded = self._program_for(*self._unified(args, kwargs))
        if isinstance(recorded, Exception):
            raise recorded
        return recorded

    def get_traced_count(self):
        return len(self._cache)

    @property
    def program_cache(self):
        return self._cache

    def concrete_program_specify_input_spec(self, input_spec=None):
        """2.0's: the last recorded program; none yet: the program of the to_static
        input_spec (input_spec, jit.save's, must be compatible with it), else of
        input_spec; neither: ValueError."""
        if self._last_failure is not None:
            raise self._last_failure
        if not self._cache:
            wanted = input_spec
            if self._input_spec is not None:
                if input_spec is not None and not input_specs_compatible(
                        flatten(list(input_spec)), flatten(self._input_spec)):
                    raise ValueError(
                        "The `input_spec`: %s used to construct concrete_program is conflict "
                        "with the `input_spec`: %s in `@paddle.jit.to_static`"
                        % (input_spec, self._input_spec))
                wanted = self._input_spec
            if wanted is None:
                raise ValueError(
                    "No valid transformed program for %s: specify `input_spec` in "
                    "`@paddle.jit.to_static` or call the decorated function once"
                    % self.__name__)
            return self.get_concrete_program(*wanted)[0]
        return self._cache.last()[1][0]

    @property
    def concrete_program(self):
        return self.concrete_program_specify_input_spec(None)

    @property
    def inputs(self):
        """The feed Variables of the last program."""
        return [v for v in flatten(list(self.concrete_program.inputs))
                if isinstance(v, Variable)]

    @property
    def outputs(self):
        return [v for v in flatten(self.concrete_program.outputs) if isinstance(v, Variable)]

    @property
    def main_program(self):
        return self.concrete_program.main_program
