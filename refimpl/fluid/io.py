"""paddle.fluid.io (1.8): save and load variables by directory, inference models, readers.

save_vars(executor, dirname, main_program, vars, predicate, filename) writes each chosen
variable's value (from the global scope) to `dirname/<variable name>`, or all of them to
`dirname/<filename>`; save_params / save_persistables choose the program's Parameters /
persistables. load_* read the same files back, every file and value checked before any
value is set. save_inference_model writes the pruned inference program to
`dirname/__model__` (or model_filename) and its persistables as save_vars does
(params_filename: one file). Each file is written by framework.serialization.save (one
archive of arrays, written atomically); Paddle's own binary formats are a later issue.
"""
import os

from ..framework import serialization
from ..framework.program import Parameter, Program, Variable, default_main_program
from ..framework.scope import global_scope
from ..reader import batch
from ..static import io as static_io
from ..static.io import load, load_program_state, save, set_program_state
from .reader import DataLoader, PyReader

__all__ = ["save_vars", "save_params", "save_persistables", "load_vars", "load_params",
           "load_persistables", "save_inference_model", "load_inference_model",
           "get_program_parameter", "get_program_persistable_vars", "is_parameter",
           "is_persistable", "batch", "DataLoader", "PyReader", "save", "load",
           "load_program_state", "set_program_state"]

MODEL_FILENAME = "__model__"


def is_parameter(var):
    return isinstance(var, Parameter)


def is_persistable(var):
    return var.persistable and var.type not in static_io._NOT_SAVED_TYPES


def get_program_parameter(program):
    return [v for v in program.list_vars() if is_parameter(v)]


def get_program_persistable_vars(program):
    return [v for v in program.list_vars() if is_persistable(v)]


def _get_valid_program(main_program=None):
    if main_program is None:
        return default_main_program()
    if hasattr(main_program, "_program"):      # a CompiledProgram
        return main_program._program
    if not isinstance(main_program, Program):
        raise TypeError("The type of input main_program is invalid, expected "
                        "fluid.Program, but received %s" % type(main_program).__name__)
    return main_program


def _chosen(main_program, vars, predicate, fn):
    if vars is not None:
        chosen = list(vars)
        for v in chosen:
            if not isinstance(v, Variable):
                raise TypeError("%s: vars must be Variables, got %s" % (fn, type(v).__name__))
        return chosen
    program = _get_valid_program(main_program)
    return [v for v in program.list_vars() if predicate is None or predicate(v)]


def _file(dirname, name):
    path = os.path.join(os.fspath(dirname), name)
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    return path


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None,
              filename=None):
    """Write the chosen variables' values: a file per variable, or one `filename`."""
    if dirname is None:
        raise ValueError("save_vars: dirname must be a directory path, got None")
    values = static_io._values_of(_chosen(main_program, vars, predicate, "save_vars"),
                                  "save_vars")
    if filename is not None:
        serialization.save(values, _file(dirname, filename))
    else:
        for name, value in values.items():
            serialization.save({name: value}, _file(dirname, name))


def save_params(executor, dirname, main_program=None, filename=None):
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None):
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def _read(path, fn):
    if not os.path.isfile(path):
        raise FileNotFoundError("%s: no file %r" % (fn, path))
    values = serialization.load(path)
    if not isinstance(values, dict):
        raise ValueError("%s: %r does not hold saved variables" % (fn, path))
    return values


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None,
              filename=None):
    """Read the chosen variables' values back (files as save_vars wrote them); nothing is
    set unless every variable is found with its shape and dtype."""
    chosen = _chosen(main_program, vars, predicate, "load_vars")
    dirname = os.fspath(dirname)
    if filename is not None:
        path = os.path.join(dirname, filename)
        stored = _read(path, "load_vars")
        sources = {v.name: (stored, path) for v in chosen}
    else:
        sources = {}
        for v in chosen:
            path = os.path.join(dirname, v.name)
            sources[v.name] = (_read(path, "load_vars"), path)
    checked = {}
    for var in chosen:
        stored, path = sources[var.name]
        checked.update(static_io._checked_values([var], stored, "load_vars", path, copy=False))
    global_scope().set_values(checked)


def load_params(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False):
    """Write the inference program computing target_vars from the named feeds to
    dirname/__model__ (or model_filename) and, unless program_only, its persistables.
    Returns the target variables' names."""
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    if not all(isinstance(n, str) for n in feeded_var_names or ()):
        raise ValueError("save_inference_model: feeded_var_names must be a list of str")
    if isinstance(target_vars, Variable):
        target_vars = [target_vars]
    program = _get_valid_program(main_program)
    block = program.global_block()
    feeds = [block.var(n) for n in feeded_var_names]
    pruned, _, fetch_names = static_io.normalize_program(program, feeds, list(target_vars),
                                                         "save_inference_model")
    os.makedirs(os.fspath(dirname), exist_ok=True)
    static_io.save_to_file(
        os.path.join(dirname, model_filename or MODEL_FILENAME),
        static_io.serialize_program(feeds, list(target_vars), program=program))
    if not program_only:
        save_persistables(executor, dirname, pruned, params_filename)
    return fetch_names


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         pserver_endpoints=None):
    """[program, feed target names, fetch target Variables]; the persistables go to the
    global scope."""
    path = os.path.join(os.fspath(dirname), model_filename or MODEL_FILENAME)
    if not os.path.isfile(path):
        raise ValueError("load_inference_model: there is no model file %r (write it with "
                         "save_inference_model)" % path)
    program, feed_names, fetch_targets = serialization.inference_program_from_bytes(
        static_io.load_from_file(path), path)
    load_persistables(executor, dirname, program, params_filename)
    return [program, feed_names, fetch_targets]

