"""paddle.jit (Paddle 2.0): to_static, save, load (a TranslatedLayer), and the 1.8 names
it re-exports (ProgramTranslator, TracedLayer). refimpl does not rewrite Python: a to_static function
runs as written (eagerly in dynamic mode, building ops on static Variables in static
mode), and save builds the inference program by calling the Layer's forward once on feed
variables made from the InputSpecs, as paddle.Model.save(training=False) does
(specs/jit.md)."""
import inspect

from ..fluid.dygraph.dygraph_to_static import ProgramTranslator
from ..fluid.dygraph.jit import TracedLayer, not_to_static
import os

from ..framework import checkpoint
from ..framework.paddle_formats import safe_pickle
from ..framework.scope import Scope, global_scope, scope_guard
from ..hapi.layer_program import inference_program
from ..nn import Layer
from ..static.input_spec import InputSpec
from ..static.io import (inference_model_files, inference_model_from_bytes,
                         read_inference_model, write_inference_model)
from .translated_layer import TranslatedLayer

__all__ = ["to_static", "save", "load", "TranslatedLayer", "ProgramTranslator", "TracedLayer",
           "not_to_static"]

# what Paddle's jit.save writes next to .pdiparams: {variable name: {"structured_name",
# "stop_gradient", "trainable"}}, a pickle
INFO_SUFFIX = ".pdiparams.info"

_SPEC_ATTR = "_refimpl_input_spec"


def to_static(function=None, input_spec=None, **kwargs):
    """`@to_static`, `@to_static(input_spec=[...])`, `to_static(f)` or `to_static(layer,
    input_spec)`: `f` (or the Layer) itself (its signature kept), with input_spec recorded
    for save (on a Layer: for its forward, as Paddle 2.0 converts a Layer's forward)."""
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
    if input_spec is None:       # to_static(layer, input_spec)
        input_spec = getattr(layer, _SPEC_ATTR, None)
    if input_spec is None:
        raise ValueError("paddle.jit.save: %s needs input_spec (here or in "
                         "@paddle.jit.to_static(input_spec=...) on forward): refimpl builds "
                         "the program from InputSpecs" % type(layer).__name__)
    program, feeds, fetches, values = inference_program(layer, _named_specs(layer, input_spec))
    info = {tensor.name: {"structured_name": key, "stop_gradient": bool(tensor.stop_gradient),
                          "trainable": bool(getattr(tensor, "trainable", False))}
            for key, tensor in layer.state_dict().items() if tensor.name in values}
    extra = {INFO_SUFFIX: safe_pickle.dumps(info, "paddle.jit.save info")} if info else {}
    with scope_guard(Scope()):
        global_scope().set_values(values)
        write_inference_model(path, program, feeds, fetches, "paddle.jit.save", extra)


def _info(data, path):
    """The .pdiparams.info pickle, read without running code; its shape checked."""
    info = safe_pickle.loads(data)
    if not isinstance(info, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("stop_gradient"), bool)
            for v in info.values()):
        raise ValueError("paddle.jit.load: %s is not a .pdiparams.info file (expected "
                         "{variable name: {'stop_gradient': bool, ...}})" % path)
    return info


def load(path, **configs):
    """A TranslatedLayer running the inference model at `path`: paddle.jit.save's files
    (path.pdmodel, .pdiparams, .pdiparams.info) or save_inference_model's (configs
    model_filename / params_filename: a directory as fluid.io.save_inference_model wrote
    it). Every file is read and checked before the layer is made."""
    prefix, model_file, params_file = inference_model_files(
        path, configs.get("model_filename"), configs.get("params_filename"))
    if not os.path.exists(model_file):
        raise FileNotFoundError("paddle.jit.load: no model file %s (paddle.jit.save writes "
                                "PATH.pdmodel and PATH.pdiparams)" % model_file)
    if params_file is None:
        program, feeds, fetches, values = read_inference_model(prefix, model_file, None,
                                                               "paddle.jit.load")
        return TranslatedLayer(program, feeds, fetches, values)
    info_file = prefix + INFO_SUFFIX if params_file == prefix + ".pdiparams" else None
    paths = [model_file, params_file] + ([info_file] if info_file else [])
    files = checkpoint.read_checkpoint_files(prefix, paths, "paddle.jit.load",
                                             optional=paths[1:])
    program, feeds, fetches, values = inference_model_from_bytes(
        files[model_file], files.get(params_file), "paddle.jit.load")
    info = _info(files[info_file], info_file) if info_file in files else None
    return TranslatedLayer(program, feeds, fetches, values, info)
