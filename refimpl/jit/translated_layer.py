"""paddle.jit.load's TranslatedLayer: a Layer that runs a saved inference program's ops
eagerly, one by one through the tracer, on the Tensors it is called with and on its own
parameters (the saved persistables), so results carry gradients as any dynamic-mode
computation (specs/jit.md)."""
import types

import numpy as np

from .. import versions
from ..dygraph.program_runner import NOT_RUN, run_ops, sub_block_of
from ..dygraph.tensor import ParamBase, Tensor
from ..framework import unique_name
from ..framework.program import Variable, default_main_program
from ..nn import Layer
from ..static.input_spec import InputSpec
from ..static.io import PARAMS_INFO_SUFFIX as INFER_PARAMS_INFO_SUFFIX   # Paddle 3's name here

__all__ = ["TranslatedLayer"]

class _Method:
    """One loaded program: its ops, feed and fetch names, and the names Paddle's
    TranslatedLayer gives its outputs (a scale-by-1 op appended to each at load, named
    through the unique-name generator)."""

    def __init__(self, program, feed_names, fetch_targets):
        self.program = program
        self.ops = [op for op in program.global_block().ops if op.type not in NOT_RUN]
        self.feed_names = list(feed_names)
        self.fetch_names = [v.name for v in fetch_targets]
        self.output_names = [unique_name.generate("translated_layer/scale_%d.tmp" % i)
                             for i in range(len(self.fetch_names))]


class TranslatedLayer(Layer):
    """`programs`: {method name: (program, feed names, fetch targets)}, forward's and those
    of the other to_static methods jit.save wrote; each becomes a method of the layer. The
    programs' persistables are its parameters `param_0`, `param_1`, ... in the order of
    their variable names, as Paddle names them; each is a new Tensor named as the
    switch `translated_layer_var_names` says (Paddle 2.0: `<name>.load_<n>`, so two loads
    of one model hold distinct variables). `info` ({variable name: {"stop_gradient",
    "trainable", ...}}, jit.save's .pdiparams.info) decides which need gradients, without
    it a program Parameter marked trainable trains and any other persistable does not.
    Loaded in evaluation mode, as in Paddle 2.0 and 3.3.1; in training mode ops with an
    `is_test` attribute run with it off, as Paddle's does: dropout drops, while batch_norm
    keeps the saved statistics (a program saved in evaluation mode fixed its
    use_global_stats)."""

    def __init__(self, programs, values, info=None):
        super().__init__()
        self._methods = {name: _Method(*program) for name, program in programs.items()}
        self._param_keys = {}       # saved variable name -> its key in self._parameters
        renamed = versions.switch("translated_layer_var_names") == "load_suffix"
        for i, name in enumerate(sorted(values)):
            saved = (info or {}).get(name)
            if saved is not None:
                trainable = not saved["stop_gradient"]
            else:
                trainable = any(getattr(m.program.global_block().vars.get(name), "trainable",
                                        False) for m in self._methods.values())
            param = ParamBase(np.array(values[name]),
                              unique_name.generate(name + ".load") if renamed else name,
                              trainable=trainable)
            self.add_parameter("param_%d" % i, param)
            self._param_keys[name] = "param_%d" % i
        for name in self._methods:
            if name != "forward":
                object.__setattr__(self, name, types.MethodType(
                    lambda layer, *inputs, _name=name: layer._run(_name, inputs), self))
        self.eval()

    def program(self, method_name="forward"):
        """The loaded inference Program of `method_name`."""
        return self._method(method_name).program

    def _input_spec(self, method_name="forward"):
        """InputSpecs of the program's feed variables (shape, dtype, name)."""
        method = self._method(method_name)
        block = method.program.global_block()
        return [InputSpec(block.var(n).shape, block.var(n).dtype, n) for n in method.feed_names]

    def _output_spec(self, method_name="forward"):
        """InputSpecs of the outputs: the fetched variables' shapes and dtypes, under the
        names Paddle's TranslatedLayer gives them (translated_layer/scale_<i>.tmp_<n>)."""
        method = self._method(method_name)
        block = method.program.global_block()
        return [InputSpec(block.var(n).shape, block.var(n).dtype, out)
                for n, out in zip(method.fetch_names, method.output_names)]

    def _method(self, method_name):
        if method_name not in self._methods:
            raise ValueError("The method `%s` does not exist in loaded TranslatedLayer."
                             % method_name)
        return self._methods[method_name]

    def forward(self, *inputs):
        return self._run("forward", inputs)

    def _run(self, method_name, inputs):
        method = self._methods[method_name]
        if len(inputs) != len(method.feed_names):
            raise TypeError("TranslatedLayer.%s: the program takes %d inputs %s, got %d"
                            % (method_name, len(method.feed_names), method.feed_names,
                               len(inputs)))
        # the registry, not a copy: a recording swaps the parameters for static twins
        env = {name: self._parameters[key] for name, key in self._param_keys.items()}
        if any(isinstance(x, Variable) and not isinstance(x, Tensor) for x in inputs):
            return self._append_to_program(method, env, inputs)
        for name, x in zip(method.feed_names, inputs):
            env[name] = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
        # training: dropout drops; evaluation: the saved is_test attributes
        run_ops(method.ops, env, is_test=False if self.training else None,
                caller="TranslatedLayer.%s" % method_name)
        outputs = [env[n] for n in method.fetch_names]
        return outputs[0] if len(outputs) == 1 else outputs

    def _append_to_program(self, method, env, inputs):
        """Called on static Variables (a to_static Layer holding this one records its
        program, or jit.save records this one): the method's ops appended to the current
        block, each temporary a new variable (named after the saved one, made unique: a
        layer called twice appends its ops twice); an op's sub-block (cond, while) is
        copied the same way into a new sub-block."""
        env.update(zip(method.feed_names, inputs))
        self._append_ops(method.ops, env)
        outputs = [env[n] for n in method.fetch_names]
        return outputs[0] if len(outputs) == 1 else outputs

    def _append_ops(self, ops, env):
        program = default_main_program()
        block = program.current_block()

        def variables(names, saved):
            for n in names:
                if n not in env:
                    var = saved._find_var_recursive(n)
                    env[n] = block.create_var(name=unique_name.generate(n), shape=var.shape,
                                              dtype=var.dtype, stop_gradient=var.stop_gradient)
            return [env[n] for n in names]
        for op in ops:
            outs = {slot: variables(names, op.block) for slot, names in op.outputs.items()}
            attrs = dict(op.attrs, is_test=not self.training) if "is_test" in op.attrs \
                else dict(op.attrs)
            saved_sub_block = sub_block_of(op)
            if saved_sub_block is not None:
                sub_block = program._create_block()
                try:
                    self._append_ops(saved_sub_block.ops, env)
                finally:
                    program._rollback()
                attrs["sub_block"] = sub_block.idx
            block.append_op(type=op.type, outputs=outs, attrs=attrs,
                            inputs={slot: [env[n] for n in names]
                                    for slot, names in op.inputs.items()})
