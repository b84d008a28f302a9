"""paddle.jit (Paddle 2.0): to_static (a StaticFunction recording the static program of
each call, static_function.py), save (the programs of a Layer's to_static methods, as 2.0's
jit.save), load (a TranslatedLayer), and the 1.8 names it re-exports (ProgramTranslator,
TracedLayer). refimpl does not rewrite Python: a to_static function runs as written
(specs/jit.md)."""
import inspect
import os
import warnings

from ..fluid.dygraph.dygraph_to_static import ProgramTranslator
from ..fluid.dygraph.jit import TracedLayer, not_to_static
from ..distributed.parallel import DataParallel
from ..dygraph.tensor import ParamBase
from ..framework import checkpoint
from ..framework.nest import flatten
from ..framework.paddle_formats import safe_pickle
from ..framework.program import Variable
from ..framework.scope import Scope, global_scope, scope_guard
from ..nn import Layer
from ..static.input_spec import InputSpec
from ..static.io import (PARAMS_INFO_SUFFIX, inference_model_files,
                         inference_model_from_bytes, inference_model_writers,
                         read_inference_model, read_params_info)
from .dy2static.logging_utils import set_code_level, set_verbosity
from ..submodules import group
from .static_function import StaticFunction
from .translated_layer import TranslatedLayer

__all__ = ["to_static", "save", "load", "TranslatedLayer", "ProgramTranslator", "TracedLayer",
           "set_code_level", "set_verbosity",
           "not_to_static", "enable_to_static"]

INFO_SUFFIX = PARAMS_INFO_SUFFIX


def enable_to_static(enable_to_static_bool):
    """Paddle 2.5+'s switch of every to_static function (ProgramTranslator().enable):
    False runs them as written."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError("The type of 'enable_to_static_bool' in paddle.jit.enable_to_static "
                        "must be bool, but received %s." % type(enable_to_static_bool))
    ProgramTranslator().enable(enable_to_static_bool)


def to_static(function=None, input_spec=None, **kwargs):
    """`@to_static`, `@to_static(input_spec=[...])`, `to_static(f)`: a StaticFunction of
    `f`; `to_static(layer, input_spec)`: the Layer, its forward made one (as Paddle 2.0)."""
    def decorate(f):
        if isinstance(f, Layer):
            f.forward = StaticFunction(f.forward, input_spec)
            return f
        return StaticFunction(f, input_spec)
    return decorate if function is None else decorate(function)


def _static_methods(layer):
    """{name: bound StaticFunction} of the layer's to_static methods (class or instance
    attributes), found without evaluating its properties."""
    found = {}
    for name in dir(layer):
        if isinstance(inspect.getattr_static(layer, name, None), StaticFunction):
            found[name] = getattr(layer, name)
    return found


def _flat_specs(input_spec):
    if not isinstance(input_spec, list):
        raise TypeError("The input input_spec should be 'list', but received input_spec's "
                        "type is %s." % type(input_spec).__name__)
    specs = []
    for spec in flatten(input_spec):
        if isinstance(spec, InputSpec):
            specs.append(spec)
        elif isinstance(spec, Variable):
            specs.append(InputSpec.from_tensor(spec))
        else:
            raise TypeError("The element in input_spec list should be 'Variable' or "
                            "`paddle.static.InputSpec`, but received element's type is %s."
                            % type(spec).__name__)
    return specs


def _feed_names(inputs, input_spec):
    """2.0's _get_input_var_names: every feed variable when input_spec is None or as long
    (a name not among them is only warned about), else the ones input_spec names."""
    names = [v.name for v in flatten(list(inputs)) if isinstance(v, Variable)]
    if input_spec is None:
        return names
    prune = len(input_spec) != len(names)
    for spec in input_spec:
        if spec.name is None or spec.name not in names:
            message = ("paddle.jit.save: input_spec %s names no input of the program (its "
                       "inputs: %s); name the InputSpecs of to_static and jit.save alike"
                       % (spec, names))
            if prune:
                raise ValueError(message)
            warnings.warn(message)
    return names if not prune else [spec.name for spec in input_spec]


def _fetch_vars(outputs, output_spec):
    """2.0's _get_output_vars: every output when output_spec is None or as long (a name not
    among them is only warned about), else the outputs output_spec's Tensors name."""
    by_name = {}
    for var in flatten(outputs):
        if isinstance(var, Variable):
            by_name.setdefault(var.name, var)
    if output_spec is None:
        return list(by_name.values())
    prune = len(output_spec) != len(by_name)
    for var in output_spec:
        if var.name not in by_name:
            message = ("paddle.jit.save: output_spec's Tensor %r is no output of the "
                       "program (its outputs: %s)" % (var.name, sorted(by_name)))
            if prune:
                raise ValueError(message)
            warnings.warn(message)
    return list(by_name.values()) if not prune else [by_name[v.name] for v in output_spec]


def save(layer, path, input_spec=None, **configs):
    """Write the programs the layer's to_static methods recorded (Paddle 2.0's jit.save):
    forward's as path.pdmodel / .pdiparams, another method m's as path.m.pdmodel /
    .pdiparams, and path.pdiparams.info, all in one checkpoint. A method's program is its
    last recorded one, or the one of its to_static input_spec (or of `input_spec`) when it
    never ran; forward without to_static is recorded from `input_spec` now. input_spec
    shorter than the program's inputs keeps only the inputs it names; configs
    output_spec (Tensors returned by the to_static forward) likewise prunes the outputs."""
    if not ProgramTranslator().enable_declarative:
        raise RuntimeError("The paddle.jit.save doesn't work when setting "
                           "ProgramTranslator.enable to False.")
    if not isinstance(layer, Layer):
        raise TypeError("paddle.jit.save: layer must be a paddle.nn.Layer, got %s"
                        % type(layer).__name__)
    for key in configs:
        if key != "output_spec":
            raise ValueError("The additional config (%s) of `paddle.jit.save` is not "
                             "supported." % key)
    inner = layer._layers if isinstance(layer, DataParallel) else layer
    if not os.path.basename(os.fspath(path)):
        raise ValueError("The input path MUST be format of dirname/file_prefix, but received "
                         "file_prefix is empty string.")
    methods = _static_methods(inner)
    specs = None
    if input_spec is not None:
        if set(methods) - {"forward"}:
            raise ValueError("If there are static functions other than 'forward' that need "
                             "to be saved, the input 'input_spec' should be None, but "
                             "received the type of 'input_spec' is %s."
                             % type(input_spec).__name__)
        specs = _flat_specs(input_spec)
    if "forward" not in methods:
        methods["forward"] = StaticFunction(inner.forward, specs)
        concrete = {"forward": methods["forward"].concrete_program}
        specs = None        # the program was built from them
    else:
        concrete = {}
    structured = {t.name: key for key, t in inner.state_dict().items()}
    files, info, values = {}, {}, {}
    for name in sorted(methods):
        program = concrete.get(name) or \
            methods[name].concrete_program_specify_input_spec(specs)
        feeds = _feed_names(program.inputs, specs if name == "forward" else None)
        fetches = _fetch_vars(program.outputs, configs.get("output_spec"))
        block = program.main_program.global_block()
        for tensor in program.parameters:
            var_name = tensor.name
            values[var_name] = tensor._array()
            entry = {"stop_gradient": bool(tensor.stop_gradient)}
            if var_name in structured:
                entry["structured_name"] = structured[var_name]
            if isinstance(tensor, ParamBase):
                entry["trainable"] = bool(tensor.trainable)
            info.setdefault(var_name, entry)
        with scope_guard(Scope()):
            global_scope().set_values(values)
            files.update(inference_model_writers(
                program.main_program, [block.var(n) for n in feeds], fetches,
                "paddle.jit.save", "" if name == "forward" else "." + name))
    if info:        # as Paddle 3.3.1: a model without persistables has no .info
        data = safe_pickle.dumps(info, "paddle.jit.save info")
        files[INFO_SUFFIX] = lambda file: file.write(data)
    checkpoint.write_checkpoint(os.fspath(path), files, "paddle.jit.save")


def _other_methods(prefix):
    """{method name: file suffix} of the other methods jit.save wrote beside `prefix`:
    prefix.NAME.pdmodel, NAME non-empty and without dots (2.0's parsing: 'model_v2.pdmodel'
    is another model, not a method of 'model')."""
    dirname, base = os.path.split(prefix)
    # a checkpoint's own files only: not those an earlier save of other methods left
    listed = checkpoint.listed_files(prefix)
    found = {}
    for name in sorted(os.listdir(dirname or ".")):
        if listed is not None and name not in listed:
            continue
        if name.startswith(base + ".") and name.endswith(".pdmodel"):
            method = name[len(base) + 1:-len(".pdmodel")]
            if method and "." not in method:
                found[method] = "." + method
    return found


def load(path, **configs):
    """A TranslatedLayer running the inference model at `path`: paddle.jit.save's files
    (path.pdmodel, .pdiparams, .pdiparams.info, and path.NAME.pdmodel / .pdiparams of its
    other methods) or save_inference_model's (configs model_filename / params_filename: a
    directory as fluid.io.save_inference_model wrote it). Every file is read and checked
    before the layer is made."""
    for key in configs:
        if key not in ("model_filename", "params_filename"):
            raise ValueError("The additional config (%s) of `paddle.jit.load` is not "
                             "supported." % key)
    prefix, model_file, params_file = inference_model_files(
        path, configs.get("model_filename"), configs.get("params_filename"))
    if not os.path.exists(model_file):
        raise ValueError("The ``path`` (%s) to load model not exists: paddle.jit.load found "
                         "no model file %s (paddle.jit.save writes PATH.pdmodel and "
                         "PATH.pdiparams)" % (path, model_file))
    if params_file is None:
        program, feeds, fetches, values = read_inference_model(prefix, model_file, None,
                                                               "paddle.jit.load")
        return TranslatedLayer({"forward": (program, feeds, fetches)}, values)
    methods = {"forward": ""}
    info_file = None
    if params_file == prefix + ".pdiparams":        # jit.save's files
        methods.update(_other_methods(prefix))
        info_file = prefix + INFO_SUFFIX
    model_files = {m: model_file if m == "forward" else prefix + sfx + ".pdmodel"
                   for m, sfx in methods.items()}
    params_files = {m: params_file if m == "forward" else prefix + sfx + ".pdiparams"
                    for m, sfx in methods.items()}
    if info_file and os.path.exists(info_file) and not os.path.exists(params_file):
        raise ValueError("The model to be loaded is incomplete: paddle.jit.load found %s "
                         "but no %s" % (info_file, params_file))
    optional = list(params_files.values()) + ([info_file] if info_file else [])
    try:
        files = checkpoint.read_checkpoint_files(
            prefix, list(model_files.values()) + optional, "paddle.jit.load",
            optional=optional)
    except checkpoint.TornCheckpointError as torn:
        # a .info changed after the save: where it leaves out a variable of the program,
        # 2.0's RuntimeError (Paddle reads the file as it is); else the manifest's error
        if torn.source != info_file:
            raise
        others = [f for f in optional if f != info_file]
        files = checkpoint.read_checkpoint_files(
            prefix, list(model_files.values()) + others, "paddle.jit.load", optional=others)
        with open(info_file, "rb") as f:
            files[info_file] = f.read()
        _decoded(methods, model_files, params_files, files, info_file)
        raise
    programs, values, info = _decoded(methods, model_files, params_files, files, info_file)
    return TranslatedLayer(programs, values, info)


def _decoded(methods, model_files, params_files, files, info_file):
    """The programs, values and .info of jit.load's files (read), the .info checked to
    list every variable of the programs (2.0's RuntimeError)."""
    programs, values = {}, {}
    for method in methods:
        program, feeds, fetches, method_values = inference_model_from_bytes(
            files[model_files[method]], files.get(params_files[method]), "paddle.jit.load")
        programs[method] = (program, feeds, fetches)
        values.update(method_values)
    info = read_params_info(files[info_file], info_file, "paddle.jit.load") \
        if info_file in files else None
    if info is not None:
        missing = sorted(set(values) - set(info))
        if missing:
            raise RuntimeError("The model to be loaded is not complete: the variable %r of "
                               "the program is not in %s" % (missing[0], info_file))
    return programs, values, info


# Paddle 3 defines to_static / save / load in paddle.jit.api (its tests import them there)
globals().update(group(__name__, globals(), {"api": ["to_static", "save", "load",
                                                     "not_to_static", "StaticFunction",
                                                     "TranslatedLayer", "ProgramTranslator"]}))
