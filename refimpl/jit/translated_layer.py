"""paddle.jit.load's TranslatedLayer: a Layer that runs a saved inference program's ops
eagerly, one by one through the tracer, on the Tensors it is called with and on its own
parameters (the saved persistables), so results carry gradients as any dynamic-mode
computation (specs/jit.md)."""
import numpy as np

from ..dygraph.tensor import ParamBase, Tensor
from ..dygraph.tracer import run_op
from ..framework import unique_name
from ..framework.program import Block
from ..nn import Layer
from ..static.input_spec import InputSpec

__all__ = ["TranslatedLayer"]

_IO_OPS = ("feed", "fetch")


def _sub_block_attr(op):
    return next((k for k, v in op.attrs.items()
                 if isinstance(v, Block) or (isinstance(v, (list, tuple)) and v
                                             and isinstance(v[0], Block))), None)


class TranslatedLayer(Layer):
    """The program's persistables are its parameters `param_0`, `param_1`, ... in the
    order of their variable names (each keeping its variable name as `.name`), as Paddle
    3.3.1's TranslatedLayer names them; `info` ({variable name: {"stop_gradient",
    "trainable", ...}}, jit.save's .pdiparams.info) decides which need gradients, without
    it a program Parameter marked trainable trains and any other persistable does not. Loaded in evaluation
    mode, as in Paddle 3.3.1; in training mode ops with an `is_test` attribute run with it
    off, as Paddle's does: dropout drops, while batch_norm keeps the saved statistics (a
    program saved in evaluation mode fixed its use_global_stats)."""

    def __init__(self, program, feed_names, fetch_targets, values, info=None):
        super().__init__()
        block = program.global_block()
        for op in block.ops:
            attr = _sub_block_attr(op)
            if attr is not None:
                raise NotImplementedError(
                    "paddle.jit.load: op %r has a sub-block (attribute %r): refimpl's "
                    "TranslatedLayer runs straight-line programs only"
                    % (op.type, attr))
        self._program = program
        self._ops = [op for op in block.ops if op.type not in _IO_OPS]
        self._feed_names = list(feed_names)
        self._fetch_names = [v.name for v in fetch_targets]
        # what Paddle's TranslatedLayer names its outputs: it appends a scale-by-1 op to
        # each, named through the unique-name generator, when it loads the program
        self._output_names = [unique_name.generate("translated_layer/scale_%d.tmp" % i)
                              for i in range(len(self._fetch_names))]
        self._by_var_name = {}
        for i, name in enumerate(sorted(values)):
            saved = (info or {}).get(name)
            trainable = (not saved["stop_gradient"] if saved is not None
                         else getattr(block.vars.get(name), "trainable", False))
            param = ParamBase(np.array(values[name]), name, trainable=trainable)
            self.add_parameter("param_%d" % i, param)
            self._by_var_name[name] = param
        self.eval()

    def program(self, method_name="forward"):
        """The loaded inference Program of `method_name` (refimpl loads forward only)."""
        self._check_method(method_name)
        return self._program

    def _input_spec(self, method_name="forward"):
        """InputSpecs of the program's feed variables (shape, dtype, name)."""
        self._check_method(method_name)
        block = self._program.global_block()
        return [InputSpec(block.var(n).shape, block.var(n).dtype, n) for n in self._feed_names]

    def _output_spec(self, method_name="forward"):
        """InputSpecs of the outputs: the fetched variables' shapes and dtypes, under the
        names Paddle's TranslatedLayer gives them (translated_layer/scale_<i>.tmp_<n>)."""
        self._check_method(method_name)
        block = self._program.global_block()
        return [InputSpec(block.var(n).shape, block.var(n).dtype, out)
                for n, out in zip(self._fetch_names, self._output_names)]

    @staticmethod
    def _check_method(method_name):
        if method_name != "forward":
            raise ValueError("The method `%s` does not exist in loaded TranslatedLayer."
                             % method_name)

    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise TypeError("TranslatedLayer.forward: the program takes %d inputs %s, got %d"
                            % (len(self._feed_names), self._feed_names, len(inputs)))
        env = dict(self._by_var_name)
        for name, x in zip(self._feed_names, inputs):
            env[name] = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
        for op in self._ops:
            def tensors(names, create):
                if not create:
                    return [env[n] for n in names]
                return [env.setdefault(n, Tensor(None, stop_gradient=False)) for n in names]
            ins = {slot: tensors(names, False) for slot, names in op.inputs.items()}
            outs = {slot: tensors(names, True) for slot, names in op.outputs.items()}
            attrs = op.attrs
            if self.training and "is_test" in attrs:
                attrs = dict(attrs, is_test=False)
            run_op(op.type, ins, outs, attrs)
        outputs = [env[n] for n in self._fetch_names]
        return outputs[0] if len(outputs) == 1 else outputs
