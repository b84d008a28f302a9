"""paddle.fluid.dygraph (Paddle 1.8): the guard, to_variable, Layer and the 1.8 Layer
classes, save_dygraph / load_dygraph, on refimpl's dynamic mode (specs/dygraph.md); the
1.8 data-parallel names (specs/distributed.md)."""
import os

from ...distributed.env import ParallelEnv
from ...distributed.parallel import DataParallel, ParallelStrategy, prepare_context
from ... import versions
from ...framework.model_formats import PathNotFoundError, load as _load, save as _save
from ...static.io import load_directory_state
from ...nn.layer import base as layers, container
from ...nn.layer.base import Layer
from ...nn.layer.container import LayerList, ParameterList, Sequential
from ...dygraph import learning_rate_decay as learning_rate_scheduler
from ...dygraph.learning_rate_decay import *  # noqa: F401,F403 (1.8's decays)
from ...dygraph import autograd as backward_strategy
from ...dygraph.autograd import BackwardStrategy
from ...distributed import parallel
from . import base, jit, layer_object_helper, nn, rnn, static_runner, tracer
from .rnn import GRUCell, LSTMCell
from .jit import TracedLayer
from .static_runner import StaticModelRunner
from .base import (disable_dygraph, disable_imperative, enable_dygraph, enable_imperative,
                   enabled, grad, guard, no_grad, to_variable)
from .nn import *  # noqa: F401,F403 (1.8's Layer classes)
# 1.8 Layer classes whose signature paddle.nn kept
from ...nn.layer.loss import L1Loss, MSELoss
from ...nn.layer.spectral_norm import SpectralNorm
from .dygraph_to_static import ProgramTranslator, declarative, dygraph_to_static_func

__all__ = ["base", "guard", "to_variable", "enabled", "no_grad", "grad", "enable_dygraph",
           "disable_dygraph", "enable_imperative", "disable_imperative", "Layer",
           "Sequential", "LayerList", "ParameterList", "save_dygraph", "load_dygraph",
           "DataParallel", "prepare_context", "ParallelStrategy", "ParallelEnv", "Env",
           "BackwardStrategy", "TracedLayer", "StaticModelRunner", "L1Loss", "MSELoss",
           "SpectralNorm", "ProgramTranslator", "declarative", "dygraph_to_static_func", "rnn"] + nn.__all__ + rnn.__all__ + learning_rate_scheduler.__all__

Env = ParallelEnv     # 1.8's older name


def save_dygraph(state_dict, model_path):
    """Save a Layer's state dict to `model_path`.pdparams, or an optimizer's (which holds
    no parameter) to `model_path`.pdopt, as Paddle 1.8."""
    from ...dygraph.tensor import ParamBase
    is_params = any(isinstance(v, ParamBase) for v in state_dict.values())
    _save(dict(state_dict), model_path + (".pdparams" if is_params else ".pdopt"))


def load_dygraph(model_path, keep_name_table=False, **configs):
    """(parameters, optimizer state) saved by save_dygraph under `model_path` (a trailing
    .pdparams / .pdopt is dropped, as 1.8 does); None for a part that was not saved.
    refimpl's files keep no name table, so keep_name_table adds none. From 2.0 (switch
    load_dygraph_directories) a directory without those files gives ({name: ndarray} of
    its inference model's or parameter files, None); configs model_filename /
    params_filename name the inference model's files."""
    directories = versions.switch("load_dygraph_directories")
    unknown = set(configs) - ({"model_filename", "params_filename"} if directories else set())
    if unknown:
        raise TypeError("load_dygraph: unexpected arguments %s" % sorted(unknown))
    for suffix in (".pdparams", ".pdopt"):
        if model_path.endswith(suffix):
            model_path = model_path[:-len(suffix)]
    found = [model_path + suffix for suffix in (".pdparams", ".pdopt")]
    if not any(os.path.isfile(p) for p in found):
        if directories and os.path.isdir(model_path):
            return load_directory_state(model_path, configs.get("model_filename"),
                                        configs.get("params_filename"), "load_dygraph"), None
        raise PathNotFoundError("load_dygraph: neither %s nor %s exists" % tuple(found))
    return tuple(_load(p) if os.path.isfile(p) else None for p in found)
