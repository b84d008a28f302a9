"""fluid.dygraph.static_runner.StaticModelRunner (Paddle 1.8): a saved inference model run
as a dynamic-mode Layer that trains.

The model's program is read as load_inference_model reads it; its parameters become the
Layer's parameters, named `<name>@LOADED` as in Paddle 1.8 (from 2.0: renamed with new
unique names, switch static_runner_param_names). Calling the Layer runs the
program's ops one by one on eager Tensors (refimpl/dygraph/program_runner.py, the tracer),
so autograd records them and `backward()` reaches the parameters and the inputs: the
program's gradient, without a second backward program. A `while` op runs its body eagerly
while its condition holds (at most its max_steps steps), a `conditional_block` its block
when its condition holds. train() / eval() set every op's `is_test` attr to False / True
(the saved program is an inference one), as Paddle does.
"""
import os
import types

import numpy as np

from ...dygraph.program_runner import run_ops
from ...dygraph.tensor import ParamBase, Tensor
from ... import versions
from ...framework import mode, unique_name
from ...nn.layer.base import Layer
from ...static import io as static_io

__all__ = ["StaticModelRunner"]

LOADED_SUFFIX = "@LOADED"     # core.loaded_var_suffix()


def _is_parameter(name, ops):
    """Paddle 1.8's rule for a loaded persistable: some op reads it and no op writes it,
    except an op that also reads it (batch_norm's moving statistics)."""
    readers = [op for op in ops if name in op.input_arg_names]
    return bool(readers) and all(op in readers for op in ops if name in op.output_arg_names)


def _loaded_names(program, persistables):
    """{persistable's name: its loaded parameter's name}: the name and @LOADED (Paddle 1.8),
    or the name renamed as Paddle 2.0's loader renames the persistables, in order: a new
    unique name (unique_name.generate) of the name less its numeric tail ("fc_0.w_0" ->
    "fc_0.w"), drawn again while it is another variable's name in the program (switch
    static_runner_param_names)."""
    if versions.switch("static_runner_param_names") == "suffixed":
        return {name: name + LOADED_SUFFIX for name in persistables}
    all_names = {var for block in program.blocks for var in block.vars}
    renamed = {}
    for name in persistables:
        head, _, tail = name.rpartition("_")
        prefix = head if head and tail.isnumeric() else name
        new_name = unique_name.generate(prefix)
        while new_name != name and new_name in all_names:
            new_name = unique_name.generate(prefix)
        renamed[name] = new_name
    return renamed


def _all_ops(program):
    return [op for block in program.blocks for op in block.ops]


class StaticModelRunner(Layer):
    """Layer(model_dir, model_filename=None, params_filename=None): the inference model
    save_inference_model wrote there. Its inputs are the model's feeds, in order (numpy
    arrays or Tensors); it returns the fetch targets (one Tensor, or a list)."""

    def __init__(self, model_dir, model_filename=None, params_filename=None):
        super().__init__()
        prefix, model_file, params_file = static_io.inference_model_files(
            os.path.join(os.fspath(model_dir), ""), model_filename or "__model__",
            params_filename)
        if not os.path.isfile(model_file):
            raise ValueError("StaticModelRunner: there is no model file %r (write it with "
                             "save_inference_model)" % model_file)
        self._program, self._input_names, targets, values = static_io.read_inference_model(
            prefix, model_file, params_file, fn="StaticModelRunner")
        self._output_names = [t.name for t in targets]
        ops = _all_ops(self._program)
        # persistables that are not parameters (none in most models) enter as constants
        self._constants = {}
        self._param_of = {}     # program name -> the Layer's parameter
        loaded_names = _loaded_names(self._program, sorted(values))
        for name in sorted(values):
            if not _is_parameter(name, ops):
                self._constants[name] = Tensor(np.asarray(values[name]), stop_gradient=True,
                                               name=name)
                continue
            param = ParamBase(np.array(values[name]), loaded_names[name])
            # written by an op too (moving statistics): no gradient, as in Paddle 1.8
            param.stop_gradient = any(name in op.output_arg_names for op in ops)
            # keyed by its full name, dots included, as Paddle 1.8 registers it (a
            # dotted name is no attribute, so add_parameter's check is not for it)
            self._parameters[param.name] = param
            self._param_of[name] = param

    @property
    def _program_holder_dict(self):
        """Paddle 2.0's loader internals (its StaticModelRunner is a TranslatedLayer), which
        its test_imperative_static_runner_mnist reads: {'forward': a holder whose
        `_suffix_varname_dict` maps each loaded parameter's name to its saved one}."""
        renamed = {param.name: name for name, param in self._param_of.items()}
        return {"forward": types.SimpleNamespace(_suffix_varname_dict=renamed)}

    def forward(self, *inputs):
        if len(inputs) != len(self._input_names):
            raise ValueError("StaticModelRunner: the model takes %d inputs (%s), got %d"
                             % (len(self._input_names), ", ".join(self._input_names),
                                len(inputs)))
        if not mode.dynamic:
            raise RuntimeError("StaticModelRunner runs in dynamic mode only: call it inside "
                               "fluid.dygraph.guard()")
        env = dict(self._constants)
        env.update(self._param_of)
        for name, value in zip(self._input_names, inputs):
            if isinstance(value, np.ndarray):
                value = Tensor(value, stop_gradient=True, name=name)
            elif not isinstance(value, Tensor):
                raise TypeError("StaticModelRunner: input %r must be a numpy array or a "
                                "Tensor, got %s" % (name, type(value).__name__))
            env[name] = value
        run_ops(self._program.global_block().ops, env, is_test=not self.training,
                caller="StaticModelRunner")
        outs = [env[name] for name in self._output_names]
        return outs[0] if len(outs) == 1 else outs
