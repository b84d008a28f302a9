"""paddle.static save / load: programs, parameters, optimizer state, inference models.

Files (Paddle's formats, specs/io.md and specs/paddle_formats.md):
  save(program, prefix)            prefix.pdmodel (the program, ProgramDesc), prefix.pdparams
                                   (Parameters) and prefix.pdopt (other persistables): pickles
  save_inference_model(prefix,...) prefix.pdmodel (pruned for_test program with feed / fetch
                                   ops), prefix.pdiparams (its persistables, LoDTensor stream)
  save_vars_files(dirname, ...)    fluid.io's parameter files: one LoDTensor stream per
                                   variable, or one combined file
  save_inference_files(dirname,...) fluid.io.save_inference_model's: `__model__` and those
Every saver writes its manifest last and changes all its files together
(framework/checkpoint.py). Every loader reads and checks everything first (files, manifest,
names, shapes, dtypes) and only then sets values: a failed load changes nothing. Loaders
take Paddle's files (1.8 `__model__` directories, 3.x PIR json) and earlier refimpl's JSON /
.npz alike (framework/model_formats.py chooses by content).
Values live in the global scope (the executor's), as in Paddle.
"""
import io
import os
import warnings

import numpy as np

from .. import pir_utils
from ..framework import atomic_file, checkpoint, model_formats, serialization
from ..framework.dtypes import VarType
from ..framework.paddle_formats import safe_pickle
from ..framework.errors import ParameterFileError
from ..framework.program import Parameter, Program, Variable, default_main_program
from ..framework.scope import checked_value, global_scope

__all__ = ["save", "load", "load_program_state", "set_program_state", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables",
           "save_to_file", "load_from_file", "save_inference_model", "load_inference_model",
           "write_inference_model",
           "save_vars_files", "save_inference_files", "read_vars_files",
           "inference_model_files", "read_inference_model", "save_vars", "load_vars"]

# what static.save writes next to a prefix (Paddle 3 in PIR mode: the program as .json)
_CHECKPOINT_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel", ".json")
_NOT_SAVED_TYPES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER, VarType.RAW)


def _persistables(program):
    return [v for v in program.global_block().vars.values()
            if v.persistable and v.type not in _NOT_SAVED_TYPES]


def _values_of(variables, fn):
    """{name: array} from the global scope; a clear error for a variable without one."""
    values = global_scope()._values
    out = {}
    for var in variables:
        value = values.get(var.name)
        if value is None:
            raise ValueError("%s: persistable variable %r has no value in the global scope "
                             "(run the startup program first)" % (fn, var.name))
        out[var.name] = np.asarray(value)
    return out


def _checked_values(variables, state, fn, source, copy):
    """The first step of every load: {name: value} for `variables` from `state`, each
    checked (present, shape with -1 matching any size, dtype); raises before anything is
    set. `copy` for values the caller keeps (a user's state dict)."""
    out = {}
    for var in variables:
        if var.name not in state:
            raise ValueError("%s: variable %r is not in %s" % (fn, var.name, source))
        out[var.name] = checked_value(var, state[var.name], fn, source, copy)
    return out


def read_parameter_files(read):
    """read(), its ValueErrors (a file of another shape, dtype or variable count) raised as
    ParameterFileError: loads of fluid.io's parameter files go through here. A missing file
    stays the FileNotFoundError it is (serialization.PathNotFoundError)."""
    try:
        return read()
    except (ParameterFileError, FileNotFoundError):
        raise
    except ValueError as e:
        raise ParameterFileError(str(e)) from e


def _strip_suffix(path, suffixes):
    path = os.fspath(path)
    for s in suffixes:
        if path.endswith(s):
            return path[:-len(s)]
    return path


def _prefix(path, fn, suffixes):
    """The path prefix: `path` with a known suffix dropped. As in Paddle 1.8 it only needs
    a file name part: 'dir/model' may name a directory too (its files are dir/model.pd*)."""
    path = _strip_suffix(path, suffixes)
    if not os.path.basename(path):
        raise ValueError("%s: %r must be a path prefix like 'dir/model', not a directory"
                         % (fn, path))
    return path


def _bytes_writer(data):
    return lambda file: file.write(data)


def _split_by_file(variables):
    """[(variables, suffix)]: Parameters go to .pdparams, other persistables to .pdopt."""
    params = [v for v in variables if isinstance(v, Parameter)]
    others = [v for v in variables if not isinstance(v, Parameter)]
    return [(params, ".pdparams"), (others, ".pdopt")]


def _names(var_list):
    return [v.name if isinstance(v, Variable) else v for v in var_list]


def _variable_names(var_list, fn):
    """The names of `var_list`, which must hold Variables (Paddle: "value in var_list must
    be variable"): reading fluid.io's parameter files needs their shapes and dtypes."""
    for v in var_list:
        if not isinstance(v, Variable):
            raise TypeError("%s: value in var_list must be a Variable, got %s %r"
                            % (fn, type(v).__name__, v))
    return _names(var_list)


# -- fluid.io's parameter files: one file per variable in a directory, or one combined file


def _var_file(dirname, name, fn):
    """dirname/<name>, as Paddle names a variable's file; refuses names that would leave
    the directory ('..', absolute, backslashes, NUL)."""
    parts = name.split("/")
    if not name or "\\" in name or "\0" in name or any(p in ("", ".", "..") for p in parts):
        raise ValueError("%s: variable %r cannot be a file name in %r (no '..', '.', empty "
                         "parts, absolute paths, backslashes or NUL)" % (fn, name, dirname))
    return os.path.join(dirname, *parts)


def _parameter_files(dirname, values, filename, saved_by):
    """{file name in dirname: write(file)} of fluid.io's parameter files for {name: array}:
    one LoDTensor stream per variable, or with `filename` one combined file (names
    sorted). Every value is checked here, before anything is written."""
    if filename is None:
        return {os.path.relpath(_var_file(dirname, name, saved_by), dirname):
                model_formats.tensor_writer(value, name) for name, value in values.items()}
    return {filename: model_formats.combined_writer(values, saved_by + ": variable")}


def save_vars_files(dirname, values, filename=None, saved_by="save_vars"):
    """Write {name: array} as fluid.io.save_vars / save_params / save_persistables do
    (`_parameter_files`), committed by the journal dirname/.pdmanifest (removed once every
    file is in place: the directory holds exactly Paddle's files); all or nothing."""
    dirname = os.fspath(dirname)
    checkpoint.write_checkpoint(os.path.join(dirname, ""),
                                _parameter_files(dirname, values, filename, saved_by), saved_by)


def save_inference_files(dirname, program, feed_names, fetch_names, model_filename=None,
                         params_filename=None, saved_by="save_inference_model"):
    """fluid.io.save_inference_model's files for an inference program (normalize_program's):
    dirname/model_filename (default `__model__`, ProgramDesc with feed / fetch ops) and its
    persistables' values from the global scope as `_parameter_files`; then
    the journal dirname/.pdmanifest; all or nothing."""
    dirname = os.fspath(dirname)
    files = _parameter_files(dirname, _values_of(_persistables(program), saved_by),
                             params_filename, saved_by)
    files[model_filename or "__model__"] = _bytes_writer(
        model_formats.program_to_bytes(program, feed_names, fetch_names))
    checkpoint.write_checkpoint(os.path.join(dirname, ""), files, saved_by)


def read_vars_files(dirname, names, filename=None, fn="load_vars", optional=False):
    """{name: ndarray} of `names` from fluid.io's parameter files in `dirname` (Paddle's or
    save_vars_files'), or from the combined file dirname/filename (holding exactly `names`,
    sorted). With `optional`, variables without a file are left out instead of raising
    FileNotFoundError."""
    dirname = os.fspath(dirname)
    prefix = os.path.join(dirname, "")
    if filename is not None:
        path = os.path.join(dirname, filename)
        data = checkpoint.read_checkpoint_files(prefix, [path], fn)[path]
        return model_formats.combined_from_bytes(data, path, names)
    paths = {name: _var_file(dirname, name, fn) for name in names}
    files = checkpoint.read_checkpoint_files(prefix, list(paths.values()), fn,
                                             optional=list(paths.values()) if optional else ())
    return {name: model_formats.tensor_from_bytes(files[path], path).array
            for name, path in paths.items() if path in files}


def _parameter_file_names(dirname):
    """Names of the parameter files under `dirname` (relative, '/'-separated), leaving out
    programs (`__model__`, .pdmodel, .json), manifests and temp files."""
    names = []
    for root, _, files in os.walk(dirname):
        for f in files:
            if f == "__model__" or f.endswith((".pdmodel", ".json", checkpoint.MANIFEST_SUFFIX))\
                    or atomic_file.is_temp_name(f):
                continue
            names.append(os.path.relpath(os.path.join(root, f), dirname).replace(os.sep, "/"))
    return sorted(names)


# -- training checkpoints


def save(program, model_path, protocol=4, **configs):
    """Write model_path.pdparams / .pdopt (pickles) and .pdmodel (ProgramDesc) from
    `program` and the global scope, then model_path.pdmanifest; all or nothing. `protocol`
    must be 2, 3 or 4, as in Paddle."""
    _check_program(program, "static.save")
    model_formats.check_protocol(protocol, "static.save")
    prefix = _prefix(model_path, "static.save", (".pdparams",))
    files = {suffix: model_formats.state_writer(_values_of(group, "static.save"),
                                                "static.save: variable")
             for group, suffix in _split_by_file(_persistables(program))}
    files[".pdmodel"] = _bytes_writer(model_formats.program_to_bytes(program))
    checkpoint.write_checkpoint(prefix, files, "static.save")


def load(program, model_path, executor=None, var_list=None):
    """Set `program`'s persistables (or only `var_list`) from static.save's files
    (model_path.pdparams, and .pdopt for non-Parameters: every one must be there), from a
    directory of fluid.io parameter files (save_params / save_persistables: the variables
    that have a file; a warning names the others), or from a combined file (save_vars with
    a filename: `var_list` required). Nothing is set unless all are read and checked."""
    _check_program(program, "static.load")
    variables = _persistables(program) if var_list is None else list(var_list)
    path = os.fspath(model_path)
    prefix = _strip_suffix(path, _CHECKPOINT_SUFFIXES)
    if os.path.isdir(path) and not os.path.exists(prefix + ".pdparams"):
        state = read_parameter_files(lambda: read_vars_files(path, _names(variables),
                                                             fn="static.load", optional=True))
        _warn_unmatched("static.load", path, [v.name for v in variables if v.name not in state],
                        sorted(set(_parameter_file_names(path)) - set(state)))
        global_scope().set_values(read_parameter_files(lambda: _checked_values(
            [v for v in variables if v.name in state], state, "static.load", path, copy=False)))
        return
    if os.path.isfile(path) and not path.endswith(_CHECKPOINT_SUFFIXES):
        if var_list is None:
            raise ValueError("static.load: %r is one combined parameter file (save_vars "
                             "with a filename): pass var_list, the variables it holds" % path)
        global_scope().set_values(read_parameter_files(lambda: _checked_values(
            variables, read_vars_files(os.path.dirname(path), _names(variables),
                                       os.path.basename(path), "static.load"),
            "static.load", path, copy=False)))
        return
    prefix = _prefix(path, "static.load", _CHECKPOINT_SUFFIXES)
    groups = [(group, prefix + suffix) for group, suffix in _split_by_file(variables) if group]
    needed = [p for _, p in groups]
    # Paddle 1.8 keeps its non-trainable Parameters (batch-norm statistics) in .pdparams,
    # and its files do not mark Parameters: a variable of one group may be in the other file
    files = checkpoint.read_checkpoint_files(
        prefix, [prefix + s for s in (".pdparams", ".pdopt")], "static.load",
        optional=[prefix + s for s in (".pdparams", ".pdopt") if prefix + s not in needed])
    states = {p: model_formats.state_from_bytes(data, p) for p, data in files.items()}
    values = {}
    for group, file_path in groups:
        state = dict(states[file_path])
        for other_path, other in states.items():
            if other_path != file_path:
                state.update({v.name: other[v.name] for v in group
                              if v.name not in state and v.name in other})
        values.update(_checked_values(group, state, "static.load", file_path, copy=False))
    global_scope().set_values(values)


def _warn_unmatched(fn, where, without_file, unused_files):
    if without_file:
        warnings.warn("%s: no file in %s for %s (left as they were)" % (fn, where, without_file))
    if unused_files:
        warnings.warn("%s: files in %s that name no variable loaded: %s"
                      % (fn, where, unused_files))


def load_program_state(model_path, var_list=None):
    """{name: ndarray} from static.save's model_path.pdparams (and .pdopt when present),
    from a directory of fluid.io parameter files (every file, or those of `var_list`), or
    from a combined file (`var_list` required: the variables it holds)."""
    path = os.fspath(model_path)
    if os.path.isdir(path) and not os.path.exists(_strip_suffix(path, _CHECKPOINT_SUFFIXES)
                                                  + ".pdparams"):
        names = _parameter_file_names(path) if var_list is None else \
            _variable_names(var_list, "load_program_state")
        return read_parameter_files(lambda: read_vars_files(path, names,
                                                            fn="load_program_state"))
    if os.path.isfile(path) and not path.endswith(_CHECKPOINT_SUFFIXES):
        if var_list is None:
            raise ValueError("load_program_state: %r is one combined parameter file (save_vars "
                             "with a filename): pass var_list, the variables it holds" % path)
        names = _variable_names(var_list, "load_program_state")
        return read_parameter_files(lambda: read_vars_files(
            os.path.dirname(path), names, os.path.basename(path), "load_program_state"))
    prefix = _prefix(path, "load_program_state", _CHECKPOINT_SUFFIXES)
    paths = [prefix + ".pdparams", prefix + ".pdopt"]
    files = checkpoint.read_checkpoint_files(prefix, paths, "load_program_state",
                                             optional=paths[1:])
    state = {}
    for file_path, data in files.items():
        state.update(model_formats.state_from_bytes(data, file_path))
    if var_list is not None:
        names = _names(var_list)
        missing = [n for n in names if n not in state]
        if missing:
            raise ValueError("load_program_state: %s not in %s.pdparams / .pdopt"
                             % (missing, prefix))
        state = {n: state[n] for n in names}
    return state


def set_program_state(program, state_dict):
    """Set the persistables of `program` found in `state_dict` into the global scope (shape
    and dtype checked, all before any is set); warn about the persistables left unset and
    the unused entries."""
    _check_program(program, "set_program_state")
    persistables = _persistables(program)
    found = [v for v in persistables if v.name in state_dict]
    values = _checked_values(found, state_dict, "set_program_state", "state_dict", copy=True)
    unset = [v.name for v in persistables if v.name not in state_dict]
    unused = sorted(set(state_dict) - {v.name for v in persistables})
    if unset:
        warnings.warn("set_program_state: no value in state_dict for %s" % unset)
    if unused:
        warnings.warn("set_program_state: state_dict entries not in the program: %s" % unused)
    global_scope().set_values(values)


# -- bytes


def save_to_file(path, content):
    """Write `content` (bytes) to `path`, all or nothing; other content is a ValueError, as
    in Paddle 2.0 and 3.3.1."""
    if not isinstance(content, (bytes, bytearray)):
        raise ValueError("save_to_file: 'content' type should be bytes, got %s"
                         % type(content).__name__)
    atomic_file.write_bytes(path, content)


def load_from_file(path):
    return serialization.read_file(path, "load_from_file")


def _as_var_list(vars_, what, fn):
    """A ValueError for anything but a Variable or a non-empty list of them (names
    included), as Paddle 2.0's and 3.3.1's save_inference_model / serialize_* raise."""
    vars_ = [vars_] if isinstance(vars_, Variable) else vars_
    if not isinstance(vars_, (list, tuple)) or not vars_ or \
            not all(isinstance(v, Variable) for v in vars_):
        raise ValueError("%s: %s must be a Variable or a non-empty list of Variables, got %r"
                         % (fn, what, vars_))
    return list(vars_)


def _check_program(program, fn):
    if not isinstance(program, Program):
        raise TypeError("%s: program must be a Program, got %s" % (fn, type(program).__name__))


def _get_valid_program(program=None, argument="program"):
    """Paddle's helper of its static.io and fluid.io (2.0's test_inference_model_io and
    1.8's test_io_save_load call them): the default main program for None, a
    CompiledProgram's own program (with 1.8.5's and 2.0's warning), a Program as is;
    anything else a TypeError with their text naming `argument` (fluid.io's callers:
    main_program)."""
    from ..compiler.compiled_program import CompiledProgram
    if program is None:
        return default_main_program()
    if isinstance(program, CompiledProgram):
        if program._program is None:     # it compiles a core.Graph
            raise TypeError("The type of input %s is invalid, expected type is Program, but "
                            "received None (a CompiledProgram of a core.Graph)" % argument)
        warnings.warn("The input is a CompiledProgram, this is not recommended.")
        program = program._program
    if not isinstance(program, Program):
        raise TypeError("The type of input %s is invalid, expected type is fluid.Program, but "
                        "received %s" % (argument, type(program)))
    return program


def _path_prefix(path_prefix, fn):
    """path_prefix checked as Paddle 2.0 and 3.3.1 check it: a ValueError unless it is a
    string (refimpl takes an os.PathLike too) not ending in '/'."""
    if isinstance(path_prefix, os.PathLike):
        path_prefix = os.fspath(path_prefix)
    if not isinstance(path_prefix, str):
        raise ValueError("%s: 'path_prefix' should be a string, got %s"
                         % (fn, type(path_prefix).__name__))
    if path_prefix.endswith("/"):
        raise ValueError("%s: 'path_prefix' %r should not be a directory" % (fn, path_prefix))
    return path_prefix


def normalize_program(program, feed_vars, fetch_vars, fn="normalize_program", warn_auc=True):
    """An inference copy of `program`: clone(for_test=True), then only the ops that compute
    `fetch_vars` from `feed_vars` and the persistables, and only the variables they use;
    `warn_auc`: 2.0's reminder for a program with an auc op (fluid.io has 1.8's own)."""
    _check_program(program, fn)
    feeds = [v.name for v in _as_var_list(feed_vars, "feed_vars", fn)]
    fetches = [v.name for v in _as_var_list(fetch_vars, "fetch_vars", fn)]
    if warn_auc and any(op.type == "auc" for op in program.global_block().ops):
        # Paddle's reminder (2.0 and 3.3.1, their words): auc's states are persistables
        warnings.warn("Be sure that you have set auc states to 0 before saving inference "
                      "model.")
    pruned = program.clone(for_test=True)
    pruned._prune_in_place(feeds, fetches, fn)
    read = set(fetches).union(*(op.input_arg_names for op in pruned.global_block().ops))
    for i, name in enumerate(feeds):
        if name not in read:    # Paddle's prune drops it, and its feed op then finds no var
            raise ValueError("%s: the feed %d, %r, is not involved in the target_vars "
                             "calculation: the fetch targets do not read it (remove it from "
                             "the feeds)" % (fn, i, name))
    return pruned, feeds, fetches


def normalized_program(program, feed_vars, fetch_vars, **kwargs):
    """paddle.static.normalize_program (Paddle 2.1+, 3.3.1's checks and words): the
    inference Program computing fetch_vars from feed_vars (normalize_program's, whose
    feed / fetch ops refimpl adds only when it writes the program)."""
    if not isinstance(program, Program):
        raise TypeError("program type must be `base.Program`, but received `%s`"
                        % type(program))
    for what, given in (("feed_vars", feed_vars), ("fetch_vars", fetch_vars)):
        if not all(isinstance(v, Variable) for v in
                   (given if isinstance(given, list) else [given])):
            raise TypeError("%s type must be a Variable or a list of Variable." % what)
    return normalize_program(program, feed_vars, fetch_vars)[0]


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """ProgramDesc bytes of the inference program computing fetch_vars from feed_vars
    (kwarg `program`, default the main program), with Paddle's feed / fetch ops."""
    program, feeds, fetches = normalize_program(
        _get_valid_program(kwargs.get("program")), feed_vars, fetch_vars,
        "serialize_program")
    return model_formats.program_to_bytes(program, feeds, fetches)


def deserialize_program(data):
    """The Program in `data`: serialize_program's bytes, a .pdmodel / `__model__` file's,
    a PIR json's or an earlier refimpl's JSON."""
    return model_formats.program_from_bytes(data)[0]


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The combined LoDTensor stream (names sorted) of the global scope's values of the
    persistables the inference program of feed_vars -> fetch_vars uses (kwarg `program`,
    default the main program)."""
    program, _, _ = normalize_program(_get_valid_program(kwargs.get("program")),
                                      feed_vars, fetch_vars, "serialize_persistables")
    return _serialize_persistables(program, executor)


def _warn_no_variables():
    """Paddle's warning when a model to save holds no variable (1.8's save_vars, 2.0's and
    3.3.1's _serialize_persistables)."""
    warnings.warn("no variable in your model, please ensure there are any variables in "
                  "your model to save")


def _serialize_persistables(program, executor):
    """Paddle 2.0's helper of serialize_persistables (its test_inference_model_io calls
    it): the combined bytes of `program`'s persistables, or None with a warning when it
    has none."""
    variables = _persistables(program)
    if not variables:
        _warn_no_variables()
        return None
    return combined_bytes(_values_of(variables, "serialize_persistables"),
                          "serialize_persistables")


def combined_bytes(values, fn):
    """{name: value} as one combined LoDTensor stream (names sorted), in memory."""
    return _written(model_formats.combined_writer(values, fn + ": variable"))


def _written(write):
    buf = io.BytesIO()
    write(buf)
    return buf.getvalue()


def deserialize_persistables(program, data, executor):
    """Set every persistable of `program` from `data` (serialize_persistables' bytes, or a
    .pdiparams file's) into the global scope, checking shapes and dtypes of all before
    setting any."""
    _check_program(program, "deserialize_persistables")
    variables = _persistables(program)
    state = model_formats.combined_from_bytes(data, "the data", [v.name for v in variables])
    global_scope().set_values(_checked_values(variables, state, "deserialize_persistables",
                                              "the data", copy=False))


# -- inference models


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Write path_prefix.pdmodel (the pruned inference program, ProgramDesc; profile 3 with
    FLAGS_enable_pir_api on: path_prefix.json, a PIR program, as Paddle 3 does) and
    .pdiparams (its persistables' values from the global scope, combined), then
    path_prefix.pdmanifest; all or nothing."""
    write_inference_model(_path_prefix(path_prefix, "save_inference_model"),
                          _get_valid_program(kwargs.get("program")),
                          feed_vars, fetch_vars, "save_inference_model")


def inference_model_writers(program, feed_vars, fetch_vars, fn, suffix=""):
    """{file suffix: writer} of save_inference_model's files for `program` (persistables
    from the global scope): suffix + '.pdmodel' (Paddle 3: '.json') and, when the pruned
    program has persistables, suffix + '.pdiparams'."""
    program, feeds, fetches = normalize_program(program, feed_vars, fetch_vars, fn)
    if pir_utils.pir_enabled():
        model = (".json", model_formats.pir_program_to_bytes(program, feeds, fetches))
    else:
        model = (".pdmodel", model_formats.program_to_bytes(program, feeds, fetches))
    files = {suffix + model[0]: _bytes_writer(model[1])}
    persistables = _persistables(program)
    if persistables:    # as Paddle: no .pdiparams for a program without persistables
        files[suffix + ".pdiparams"] = model_formats.combined_writer(
            _values_of(persistables, fn), fn + ": variable")
    return files


def write_inference_model(path_prefix, program, feed_vars, fetch_vars, fn):
    """save_inference_model's files for `program`, one all-or-nothing checkpoint."""
    prefix = _prefix(path_prefix, fn, ())
    files = inference_model_writers(program, feed_vars, fetch_vars, fn)
    if ".pdiparams" not in files:
        # Paddle 2.0's and 3.3.1's words (through their _serialize_persistables)
        _warn_no_variables()
    for suffix in files:
        if os.path.isdir(prefix + suffix):
            raise ValueError("%s: '%s' is an existing directory" % (fn, prefix + suffix))
    checkpoint.write_checkpoint(prefix, files, fn)


def inference_model_files(path_prefix, model_filename=None, params_filename=None):
    """(checkpoint prefix, model file, params file or None for one file per variable in the
    model's directory), as Paddle finds them: without filenames path_prefix.pdmodel (or
    Paddle 3's path_prefix.json) and path_prefix.pdiparams; with a filename, path_prefix is
    the directory (model default `__model__`, NAME.pdmodel / NAME.pdiparams when those
    exist, no params_filename: a file per variable)."""
    prefix = os.fspath(path_prefix)
    # a directory named like the prefix is the folder of a `__model__` model only when no
    # PREFIX.pdmodel / .json sits beside it (Paddle 2.0 reads PREFIX.pdmodel regardless)
    beside = os.path.exists(prefix + ".pdmodel") or os.path.exists(prefix + ".json")
    if model_filename is None and params_filename is None and (
            beside or not os.path.isdir(prefix)):
        model = prefix + ".pdmodel"
        if not os.path.exists(model) and os.path.exists(prefix + ".json"):
            model = prefix + ".json"
        return prefix, model, prefix + ".pdiparams"

    def in_dir(name, suffix):
        path = os.path.join(prefix, name)
        return path + suffix if os.path.exists(path + suffix) else path
    model = in_dir(model_filename or "__model__", ".pdmodel")
    params = None if params_filename is None else in_dir(params_filename, ".pdiparams")
    return os.path.join(prefix, ""), model, params


def inference_model_from_bytes(model, params, fn="load_inference_model"):
    """read_inference_model's result from a model's bytes and its persistables' combined
    bytes."""
    program, feeds, fetch_targets = model_formats.inference_program_from_bytes(
        model, "the model bytes")
    variables = _persistables(program)
    state = _combined_state(params, "the parameter bytes", [v.name for v in variables], fn)
    return program, feeds, fetch_targets, _checked_values(variables, state, fn,
                                                          "the parameter bytes", copy=False)


def _combined_state(data, source, names, fn):
    """{name: ndarray} of a combined parameter file's bytes (None: no such file); a
    program without persistables needs none (Paddle writes none then)."""
    if not names and not data:
        return {}
    if data is None:
        raise FileNotFoundError("%s: no parameter file %s for the program's %d persistables "
                                "(%s, ...)" % (fn, source, len(names), names[0]))
    return model_formats.combined_from_bytes(data, source, names)


def read_inference_model(prefix, model_file, params_file, fn="load_inference_model"):
    """(program, feed names, fetch target Variables, {name: ndarray}) of an inference model's
    files, everything read and checked; nothing set."""
    paths = [model_file] + ([params_file] if params_file else [])
    files = checkpoint.read_checkpoint_files(prefix, paths, fn, optional=paths[1:])
    program, feeds, fetch_targets = model_formats.inference_program_from_bytes(
        files[model_file], model_file)
    variables = _persistables(program)
    names = [v.name for v in variables]
    if params_file:
        state = _combined_state(files.get(params_file), params_file, names, fn)
        source = params_file
    else:
        source = os.path.dirname(model_file)
        state = read_vars_files(source, names, fn=fn)
    return program, feeds, fetch_targets, _checked_values(variables, state, fn, source,
                                                          copy=False)


def load_directory_state(dirname, model_filename=None, params_filename=None, fn="paddle.load"):
    """{name: ndarray} of the persistables saved in the directory `dirname`, as Paddle 2.0's
    paddle.load and load_dygraph read a directory: an inference model's (its program file
    model_filename, default `__model__`; its variables in the one file params_filename, or
    a file each), or, without that program file, every parameter file there
    (fluid.io.save_params / save_persistables)."""
    dirname = os.fspath(dirname)
    if not os.path.isdir(dirname):
        raise ValueError("%s: Model saved directory '%s' is not exists." % (fn, dirname))
    prefix, model_file, params_file = inference_model_files(dirname, model_filename or "__model__",
                                                            params_filename)
    if os.path.exists(model_file):
        return read_inference_model(prefix, model_file, params_file, fn)[3]
    return read_parameter_files(lambda: read_vars_files(dirname, _parameter_file_names(dirname),
                                                        fn=fn))


# what paddle.jit.save writes next to .pdiparams: {variable name: {"structured_name",
# "stop_gradient", "trainable"}}, a pickle
PARAMS_INFO_SUFFIX = ".pdiparams.info"


def read_params_info(data, path, fn):
    """The .pdiparams.info pickle's bytes, read without running code; its shape checked."""
    info = safe_pickle.loads(data)
    if not isinstance(info, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("stop_gradient"), bool)
            for v in info.values()):
        raise ValueError("%s: %s is not a .pdiparams.info file (expected {variable name: "
                         "{'stop_gradient': bool, ...}})" % (fn, path))
    return info


def _jit_saved_state(prefix, fn):
    """{structured name: ndarray} of the persistables paddle.jit.save wrote at `prefix`
    (by variable name without a .pdiparams.info), as Paddle 2.0's paddle.load reads them."""
    model, params, info_file = (prefix + s for s in (".pdmodel", ".pdiparams",
                                                     PARAMS_INFO_SUFFIX))
    files = checkpoint.read_checkpoint_files(prefix, [model, params, info_file], fn,
                                             optional=[params, info_file])
    values = inference_model_from_bytes(files[model], files.get(params), fn)[3]
    if info_file not in files:
        return values
    info = read_params_info(files[info_file], info_file, fn)
    unnamed = sorted(n for n in values if "structured_name" not in info.get(n, {}))
    if unnamed:
        raise ValueError("%s: %s gives no structured name for the saved variable %r"
                         % (fn, info_file, unnamed[0]))
    return {info[n]["structured_name"]: v for n, v in values.items()}


def paddle_load(path, **configs):
    """paddle.load: a directory gives load_directory_state's {name: ndarray} (configs
    model_filename / params_filename name its files), the prefix of paddle.jit.save's files
    their state dict, anything else is what paddle.save wrote (framework/model_formats.py
    load)."""
    if isinstance(path, (str, os.PathLike)):
        if os.path.isdir(path):
            return load_directory_state(path, configs.get("model_filename"),
                                        configs.get("params_filename"))
        if not os.path.exists(path) and os.path.exists(os.fspath(path) + ".pdmodel"):
            return _jit_saved_state(os.fspath(path), "paddle.load")
    return model_formats.load(path, **configs)


def load_inference_model(path_prefix, executor, **kwargs):
    """[program, feed_target_names, fetch_targets] from an inference model (files found as
    inference_model_files says: save_inference_model's, Paddle 1.8's `__model__`
    directories, Paddle 3's PIR json); the parameters go to the global scope after every
    file is read and every value checked. With path_prefix None (Paddle 2.0's deprecated
    loading from memory) model_filename and params_filename are the model's bytes and its
    parameters' (serialize_program's and serialize_persistables')."""
    fn = "load_inference_model"
    for name in kwargs:
        if name not in _LOAD_INFERENCE_MODEL_ARGS:
            raise ValueError("%s: argument %r is %s, only %s are supported"
                             % (fn, name, "deprecated" if name == "pserver_endpoints"
                                else "not supported", list(_LOAD_INFERENCE_MODEL_ARGS)))
    model_filename, params_filename = (kwargs.get(n) for n in _LOAD_INFERENCE_MODEL_ARGS)
    if path_prefix is None:     # from memory: the two "filenames" are the model's bytes
        if params_filename is None:
            raise ValueError("%s: params_filename cannot be None when path_prefix is None "
                             "(loading from memory takes the model's and the parameters' "
                             "bytes as model_filename and params_filename)" % fn)
        for what, data in (("model_filename", model_filename),
                           ("params_filename", params_filename)):
            if not isinstance(data, (bytes, bytearray)):
                raise TypeError("%s: with path_prefix None, %s must be bytes, got %s"
                                % (fn, what, type(data).__name__))
        program, feeds, fetch_targets, values = inference_model_from_bytes(
            model_filename, params_filename, fn)
    else:
        prefix, model_file, params_file = inference_model_files(
            _path_prefix(path_prefix, fn), model_filename, params_filename)
        program, feeds, fetch_targets, values = read_inference_model(prefix, model_file,
                                                                     params_file)
    global_scope().set_values(values)
    return [program, feeds, fetch_targets]


# the keyword arguments Paddle 2.0's load_inference_model takes (pserver_endpoints, 1.8's,
# is refused as deprecated)
_LOAD_INFERENCE_MODEL_ARGS = ("model_filename", "params_filename")


# -- save_vars / load_vars: fluid.io's in Paddle 1.8 / 2.0, paddle.static.io's in 3
def _chosen(main_program, vars, predicate, fn):
    if vars is not None:
        chosen = list(vars)
        for v in chosen:
            if not isinstance(v, Variable):
                raise TypeError("%s: vars must be Variables, got %s" % (fn, type(v).__name__))
        return chosen
    program = _get_valid_program(main_program, "main_program")
    return [v for v in program.list_vars() if predicate is None or predicate(v)]


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None,
              filename=None):
    """Write the chosen variables' values: a file per variable, or one `filename`
    (static.io.save_vars_files: Paddle's LoDTensor streams, all or nothing). With neither
    dirname nor filename, return them as bytes instead (one combined stream, names sorted,
    as Paddle 1.8 saves to memory; load_inference_model(None, ...) reads it)."""
    if dirname is None and filename is not None:
        raise ValueError("save_vars: dirname must be a directory path, got None")
    values = _values_of(_chosen(main_program, vars, predicate, "save_vars"),
                                  "save_vars")
    if dirname is None:
        return combined_bytes(values, "save_vars")
    save_vars_files(dirname, values, filename, "save_vars")


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None,
              filename=None):
    """Read the chosen variables' values back (files as save_vars or Paddle wrote them);
    nothing is set unless every variable is found with its shape and dtype."""
    if dirname is None:
        raise ValueError("load_vars: dirname must be a directory path, got None")
    chosen = _chosen(main_program, vars, predicate, "load_vars")
    dirname = os.fspath(dirname)
    source = os.path.join(dirname, filename) if filename is not None else dirname
    global_scope().set_values(read_parameter_files(lambda: _checked_values(
        chosen, read_vars_files(dirname, [v.name for v in chosen], filename),
        "load_vars", source, copy=False)))
