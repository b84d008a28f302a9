"""paddle.static save / load: programs, parameters, optimizer state, inference models.

Files (formats and guarantees in specs/io.md):
  save(program, prefix)            prefix.pdmodel (program JSON), prefix.pdparams
                                   (Parameters), prefix.pdopt (other persistables)
  save_inference_model(prefix,...) prefix.pdmodel (pruned for_test program, with its
                                   feed / fetch names), prefix.pdiparams (its persistables)
Both write prefix.pdmanifest last and change all their files together
(framework/checkpoint.py). Every loader reads and checks everything first (files, manifest,
names, shapes, dtypes) and only then sets values: a failed load changes nothing.
Values live in the global scope (the executor's), as in Paddle.
"""
import os
import warnings

import numpy as np

from ..framework import atomic_file, checkpoint, serialization
from ..framework.dtypes import VarType
from ..framework.program import Parameter, Program, Variable, default_main_program
from ..framework.scope import global_scope

__all__ = ["save", "load", "load_program_state", "set_program_state", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables",
           "save_to_file", "load_from_file", "save_inference_model", "load_inference_model"]

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
        value = np.array(state[var.name]) if copy else np.asarray(state[var.name])
        shape = var.shape
        ok_shape = shape is None or (len(shape) == value.ndim and all(
            d < 0 or d == g for d, g in zip(shape, value.shape)))
        ok_dtype = var.dtype is None or var.dtype.np == value.dtype
        if not (ok_shape and ok_dtype):
            raise ValueError("%s: variable %r expects shape %s dtype %s, got shape %s dtype "
                             "%s from %s" % (fn, var.name, shape and list(shape),
                                             var.dtype and var.dtype.name, list(value.shape),
                                             value.dtype, source))
        out[var.name] = value
    return out


def _prefix(path, fn, suffixes):
    """The path prefix: `path` with a known suffix dropped; refuses a directory."""
    path = os.fspath(path)
    for s in suffixes:
        if path.endswith(s):
            path = path[:-len(s)]
    if not path or path.endswith(os.sep) or os.path.isdir(path):
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


# -- training checkpoints


def save(program, model_path, protocol=4, **configs):
    """Write model_path.pdparams / .pdopt / .pdmodel from `program` and the global scope,
    then model_path.pdmanifest; all or nothing. `protocol` (pickle's, in Paddle) is
    accepted and ignored."""
    _check_program(program, "static.save")
    prefix = _prefix(model_path, "static.save", (".pdparams",))
    files = {suffix: serialization.archive_writer(_values_of(group, "static.save"),
                                                  "static.save: variable")
             for group, suffix in _split_by_file(_persistables(program))}
    files[".pdmodel"] = _bytes_writer(serialization.program_to_bytes(program))
    checkpoint.write_checkpoint(prefix, files, "static.save")


def load(program, model_path, executor=None, var_list=None):
    """Set `program`'s persistables (or only `var_list`) from model_path.pdparams and, for
    non-Parameters, .pdopt; every one must be in the files. Nothing is set unless all
    are read and checked."""
    _check_program(program, "static.load")
    prefix = _prefix(model_path, "static.load", (".pdparams", ".pdopt", ".pdmodel"))
    variables = _persistables(program) if var_list is None else list(var_list)
    groups = [(group, prefix + suffix) for group, suffix in _split_by_file(variables) if group]
    files = checkpoint.read_checkpoint_files(prefix, [path for _, path in groups],
                                             "static.load")
    values = {}
    for group, path in groups:
        state = serialization.arrays_from_bytes(files[path], path)
        values.update(_checked_values(group, state, "static.load", path, copy=False))
    global_scope().set_values(values)


def load_program_state(model_path, var_list=None):
    """{name: ndarray} from model_path.pdparams (and .pdopt when present)."""
    prefix = _prefix(model_path, "load_program_state", (".pdparams", ".pdopt", ".pdmodel"))
    paths = [prefix + ".pdparams", prefix + ".pdopt"]
    files = checkpoint.read_checkpoint_files(prefix, paths, "load_program_state",
                                             optional=paths[1:])
    state = {}
    for path, data in files.items():
        state.update(serialization.arrays_from_bytes(data, path))
    if var_list is not None:
        names = [v.name if isinstance(v, Variable) else v for v in var_list]
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
    """Write `content` (bytes) to `path`, all or nothing."""
    if not isinstance(content, (bytes, bytearray)):
        raise TypeError("save_to_file: content must be bytes, got %s" % type(content).__name__)
    atomic_file.write_bytes(path, content)


def load_from_file(path):
    return serialization.read_file(path, "load_from_file")


def _as_var_list(vars_, what, fn):
    vars_ = [vars_] if isinstance(vars_, Variable) else vars_
    if not isinstance(vars_, (list, tuple)) or not vars_ or \
            not all(isinstance(v, Variable) for v in vars_):
        raise TypeError("%s: %s must be a Variable or a non-empty list of Variables, got %r"
                        % (fn, what, vars_))
    return list(vars_)


def _check_program(program, fn):
    if not isinstance(program, Program):
        raise TypeError("%s: program must be a Program, got %s" % (fn, type(program).__name__))


def normalize_program(program, feed_vars, fetch_vars, fn="normalize_program"):
    """An inference copy of `program`: clone(for_test=True), then only the ops that compute
    `fetch_vars` from `feed_vars` and the persistables, and only the variables they use."""
    _check_program(program, fn)
    feeds = [v.name for v in _as_var_list(feed_vars, "feed_vars", fn)]
    fetches = [v.name for v in _as_var_list(fetch_vars, "fetch_vars", fn)]
    pruned = program.clone(for_test=True)
    block = pruned.global_block()
    for name in feeds + fetches:
        if name not in block.vars:
            raise ValueError("%s: %r is not a variable of the program's global block"
                             % (fn, name))
    needed, kept = set(fetches) - set(feeds), []
    for op in reversed(block.ops):
        if needed.intersection(op.output_arg_names):
            kept.append(op)
            needed.update(n for n in op.input_arg_names if n not in feeds)
    kept.reverse()
    produced = {n for op in kept for n in op.output_arg_names}
    for name in needed - produced:
        var = block.vars.get(name)
        if var is None or not var.persistable:
            raise ValueError("%s: the fetch targets need %r, which is neither in feed_vars, "
                             "nor computed from them, nor persistable" % (fn, name))
    used = set(feeds) | set(fetches) | {n for op in kept for n in op.input_arg_names +
                                         op.output_arg_names}
    block.ops = kept
    block.vars = {n: v for n, v in block.vars.items() if n in used}
    pruned._bump()
    return pruned, feeds, fetches


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """Bytes of the inference program computing fetch_vars from feed_vars (kwarg
    `program`, default the main program); deserialize_program reads them back."""
    program, feeds, fetches = normalize_program(
        kwargs.get("program") or default_main_program(), feed_vars, fetch_vars,
        "serialize_program")
    return serialization.program_to_bytes(program, feed_names=feeds, fetch_names=fetches)


def deserialize_program(data):
    """The Program serialized in `data` (serialize_program, or a .pdmodel file's bytes)."""
    return serialization.program_from_bytes(data)


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """Bytes of the global scope's values of the persistables the inference program of
    feed_vars -> fetch_vars uses (kwarg `program`, default the main program)."""
    program, _, _ = normalize_program(kwargs.get("program") or default_main_program(),
                                      feed_vars, fetch_vars, "serialize_persistables")
    return serialization.arrays_to_bytes(
        _values_of(_persistables(program), "serialize_persistables"))


def deserialize_persistables(program, data, executor):
    """Set every persistable of `program` from `data` (serialize_persistables' bytes) into
    the global scope, checking shapes and dtypes of all before setting any."""
    _check_program(program, "deserialize_persistables")
    state = serialization.arrays_from_bytes(data)
    global_scope().set_values(_checked_values(_persistables(program), state,
                                              "deserialize_persistables", "the data",
                                              copy=False))


# -- inference models


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Write path_prefix.pdmodel (the pruned inference program) and .pdiparams (its
    persistables' values from the global scope), then path_prefix.pdmanifest; all or
    nothing."""
    prefix = _prefix(path_prefix, "save_inference_model", ())
    program, feeds, fetches = normalize_program(
        kwargs.get("program") or default_main_program(), feed_vars, fetch_vars,
        "save_inference_model")
    files = {".pdmodel": _bytes_writer(serialization.program_to_bytes(
                 program, feed_names=feeds, fetch_names=fetches)),
             ".pdiparams": serialization.archive_writer(
                 _values_of(_persistables(program), "save_inference_model"),
                 "save_inference_model: variable")}
    checkpoint.write_checkpoint(prefix, files, "save_inference_model")


def load_inference_model(path_prefix, executor, **kwargs):
    """[program, feed_target_names, fetch_targets] from save_inference_model's files
    (or kwargs model_filename / params_filename); the parameters go to the global scope,
    after both files are read and every value is checked."""
    prefix = os.fspath(path_prefix)
    model_file = kwargs.get("model_filename") or prefix + ".pdmodel"
    params_file = kwargs.get("params_filename") or prefix + ".pdiparams"
    files = checkpoint.read_checkpoint_files(prefix, [model_file, params_file],
                                             "load_inference_model")
    program, feed_names, fetch_targets = serialization.inference_program_from_bytes(
        files[model_file], model_file)
    state = serialization.arrays_from_bytes(files[params_file], params_file)
    global_scope().set_values(_checked_values(_persistables(program), state,
                                              "load_inference_model", params_file,
                                              copy=False))
    return [program, feed_names, fetch_targets]
