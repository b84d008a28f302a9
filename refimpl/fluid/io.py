"""paddle.fluid.io (1.8): save and load variables by directory, inference models, readers.

save_vars(executor, dirname, main_program, vars, predicate, filename) writes each chosen
variable's value (from the global scope) to `dirname/<variable name>`, or all of them to
`dirname/<filename>`; save_params / save_persistables choose the program's Parameters /
persistables. load_* read the same files back, every file and value checked before any
value is set. save_inference_model writes the pruned inference program to
`dirname/__model__` (or model_filename) and its persistables as save_vars does
(params_filename: one file). The files are Paddle's formats (LoDTensor streams, a
ProgramDesc), written all or nothing by static.io's fluid.io savers (save_vars_files,
save_inference_files) and read back by read_vars_files / read_inference_model.
"""
import os
import warnings

import numpy as np

from ..framework.program import Parameter, Variable, default_main_program
from ..framework.scope import global_scope
from ..reader import (ComposeNotAligned, batch, buffered, cache, chain, compose, firstn,
                      map_readers, multiprocess_reader, shuffle, xmap_readers)
from ..static import io as static_io
from .dataloader import (BatchSampler, ChainDataset, ComposeDataset, Dataset,
                         DistributedBatchSampler, IterableDataset, RandomSampler, Sampler,
                         SequenceSampler, TensorDataset, WeightedRandomSampler, get_worker_info)
from ..static.io import (_get_valid_program, load, load_program_state, load_vars, save,
                         save_vars, set_program_state)
from .reader import DataLoader, PyReader, default_collate_fn

__all__ = ["save_vars", "save_params", "save_persistables", "load_vars", "load_params",
           "load_persistables", "save_inference_model", "load_inference_model",
           "get_program_parameter", "get_program_persistable_vars", "is_parameter",
           "is_persistable", "is_belong_to_optimizer", "batch", "DataLoader", "PyReader",
           "save", "load",
           "load_program_state", "set_program_state", "default_collate_fn",
           # Paddle 2.0 re-exports fluid.dataloader here (1.8: Dataset, BatchSampler)
           "Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "BatchSampler", "DistributedBatchSampler", "Sampler", "SequenceSampler",
           "RandomSampler", "WeightedRandomSampler", "get_worker_info",
           # 1.8 re-exports paddle.reader's decorators here
           "ComposeNotAligned", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "multiprocess_reader", "shuffle", "xmap_readers"]

MODEL_FILENAME = "__model__"


def is_parameter(var):
    return isinstance(var, Parameter)


def is_persistable(var):
    return var.persistable and var.type not in static_io._NOT_SAVED_TYPES


def is_belong_to_optimizer(var):
    """A persistable that is neither a Parameter nor a fed `fluid.data` variable: optimizer
    state, the learning rate (what fluid.save writes to .pdopt)."""
    return not (is_parameter(var) or var.need_check_feed) and is_persistable(var)


def get_program_parameter(program):
    return [v for v in program.list_vars() if is_parameter(v)]


def get_program_persistable_vars(program):
    return [v for v in program.list_vars() if is_persistable(v)]


def get_parameter_value(para, executor):
    """The value of Parameter `para` in the global scope (where `executor` runs), as a
    numpy array."""
    if not is_parameter(para):
        raise AssertionError("get_parameter_value: %r is not a Parameter"
                             % getattr(para, "name", para))
    found = global_scope().find_var(para.name)
    if found is None or not found.is_initialized():
        raise ValueError("get_parameter_value: parameter %r has no value in the global "
                         "scope; run the startup program first" % para.name)
    return np.array(found.get_tensor())


def get_parameter_value_by_name(name, executor, program=None):
    """get_parameter_value of the Parameter named `name` in `program` (default: the
    default main program): a Program, as 1.8.5's and 2.0's read its global block (a
    CompiledProgram fails there too)."""
    if not isinstance(name, str):
        raise TypeError("get_parameter_value_by_name: name must be a str, got %s"
                        % type(name).__name__)
    if program is None:
        program = default_main_program()
    static_io._check_program(program, "get_parameter_value_by_name")
    return get_parameter_value(program.global_block().var(name), executor)


def save_params(executor, dirname, main_program=None, filename=None):
    return save_vars(executor, dirname, main_program, predicate=is_parameter,
                     filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None):
    return save_vars(executor, dirname, main_program, predicate=is_persistable,
                     filename=filename)


def load_params(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False):
    """Write the inference program computing target_vars from the named feeds to
    dirname/__model__ (or model_filename) and, unless program_only, its persistables; with
    export_for_deployment False, the whole program as <model file>.main_program instead.
    Returns the target variables' names."""
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    if not all(isinstance(n, str) for n in feeded_var_names or ()):
        raise ValueError("save_inference_model: feeded_var_names must be a list of str")
    if isinstance(target_vars, Variable):
        target_vars = [target_vars]
    program = _get_valid_program(main_program, "main_program")
    block = program.global_block()
    if any(op.type == "auc" for op in block.ops):
        # Paddle 1.8's warning: the saved counters go into the model as they are now
        warnings.warn("please ensure that you have set the auc states to zeros before "
                      "saving inference model")
    if not export_for_deployment:
        # Paddle 1.8 / 2.0: the whole program, unpruned and without feed / fetch ops, as
        # <model file>.main_program beside the program's persistables (empty feeds and
        # targets allowed: fluid/tests/book/test_recognize_digits saves it so)
        _write_model(dirname, program, [], [], (model_filename or MODEL_FILENAME) +
                     ".main_program", params_filename, program_only)
        return [v.name for v in target_vars]
    feeds = [block.var(n) for n in feeded_var_names]
    pruned, feed_names, fetch_names = static_io.normalize_program(
        program, feeds, list(target_vars), "save_inference_model", warn_auc=False)
    if not program_only and not static_io._persistables(pruned):
        # 1.8's save_vars warns (its params file is then not written; refimpl's is empty)
        static_io._warn_no_variables()
    _write_model(dirname, pruned, feed_names, fetch_names, model_filename, params_filename,
                 program_only)
    return fetch_names


def _write_model(dirname, program, feeds, fetches, model_filename, params_filename,
                 program_only):
    """save_inference_model's files: the program alone (program_only) or with its
    persistables."""
    if program_only:
        os.makedirs(os.fspath(dirname), exist_ok=True)
        static_io.save_to_file(
            os.path.join(dirname, model_filename or MODEL_FILENAME),
            static_io.model_formats.program_to_bytes(program, feeds, fetches))
    else:
        static_io.save_inference_files(dirname, program, feeds, fetches, model_filename,
                                       params_filename)


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         pserver_endpoints=None):
    """[program, feed target names, fetch target Variables]; the persistables go to the
    global scope. With dirname None, model_filename and params_filename are the model's and
    the persistables' bytes (save_inference_model's model file, save_persistables(exe,
    None, ...)'s result), as Paddle 1.8 loads from memory."""
    if dirname is None:
        if params_filename is None:
            raise ValueError("load_inference_model: with dirname None, model_filename and "
                             "params_filename must be the model's and the parameters' "
                             "bytes; params_filename is None")
        program, feed_names, fetch_targets, values = static_io.inference_model_from_bytes(
            model_filename, params_filename)
        global_scope().set_values(values)
        return [program, feed_names, fetch_targets]
    prefix, model_file, params_file = static_io.inference_model_files(
        os.path.join(os.fspath(dirname), ""), model_filename or MODEL_FILENAME,
        params_filename)
    if not os.path.isfile(model_file):
        raise ValueError("load_inference_model: there is no model file %r (write it with "
                         "save_inference_model)" % model_file)
    program, feed_names, fetch_targets, values = static_io.read_inference_model(
        prefix, model_file, params_file)
    global_scope().set_values(values)
    return [program, feed_names, fetch_targets]
