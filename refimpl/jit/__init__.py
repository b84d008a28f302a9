"""paddle.jit (Paddle 2.0): to_static, save, and the 1.8 names it re-exports
(ProgramTranslator, TracedLayer). refimpl does not rewrite Python: a to_static function
runs as written (eagerly in dynamic mode, building ops on static Variables in static
mode), and save builds the inference program by calling the Layer's forward once on feed
variables made from the InputSpecs, as paddle.Model.save(training=False) does
(specs/jit.md)."""
import inspect

from ..fluid.dygraph.dygraph_to_static import ProgramTranslator
from ..fluid.dygraph.jit import TracedLayer
from ..framework.scope import Scope, global_scope, scope_guard
from ..hapi.layer_program import inference_program
from ..nn import Layer
from ..static.input_spec import InputSpec
from ..static.io import save_inference_model

__all__ = ["to_static", "save", "ProgramTranslator", "TracedLayer"]

_SPEC_ATTR = "_refimpl_input_spec"


def to_static(function=None, input_spec=None, **kwargs):
    """`@to_static`, `@to_static(input_spec=[...])` or `to_static(f)`: `f` itself (its
    signature kept), with input_spec recorded for save."""
    def mark(f):
        if not callable(f):
            raise TypeError("paddle.jit.to_static: expected a function or a method, got %s"
                            % type(f).__name__)
        setattr(f, _SPEC_ATTR, None if input_spec is None else list(input_spec))
        return f
    return mark if function is None else mark(function)


def _named_specs(layer, input_spec):
    """InputSpecs (a Tensor is described by its shape and dtype), the unnamed ones named
    after forward's arguments, as Paddle names the feed variables."""
    arg_names = list(inspect.signature(layer.forward).parameters)
    specs = []
    for i, spec in enumerate(input_spec):
        if not isinstance(spec, InputSpec):
            if not hasattr(spec, "shape") or not hasattr(spec, "dtype"):
                raise TypeError("paddle.jit.save: input_spec[%d] must be an InputSpec or a "
                                "Tensor, got %s" % (i, type(spec).__name__))
            spec = InputSpec.from_tensor(spec)
        if spec.name is None:
            if i >= len(arg_names):
                raise ValueError("paddle.jit.save: input_spec[%d] has no name and %s.forward "
                                 "has only %d arguments" % (i, type(layer).__name__,
                                                            len(arg_names)))
            spec = InputSpec(spec.shape, spec.dtype, arg_names[i])
        specs.append(spec)
    return specs


def save(layer, path, input_spec=None, **configs):
    """Write `layer`'s inference program and parameters: path + '.pdmodel' and
    '.pdiparams' (paddle.static.load_inference_model / paddle.jit.load read them).
    input_spec defaults to the one given to to_static on forward."""
    if not isinstance(layer, Layer):
        raise TypeError("paddle.jit.save: layer must be a paddle.nn.Layer, got %s"
                        % type(layer).__name__)
    if input_spec is None:
        input_spec = getattr(layer.forward, _SPEC_ATTR, None)
    if input_spec is None:
        raise ValueError("paddle.jit.save: %s needs input_spec (here or in "
                         "@paddle.jit.to_static(input_spec=...) on forward): refimpl builds "
                         "the program from InputSpecs" % type(layer).__name__)
    program, feeds, fetches, values = inference_program(layer, _named_specs(layer, input_spec))
    with scope_guard(Scope()):
        global_scope().set_values(values)
        save_inference_model(path, feeds, fetches, None, program=program)
