"""Paddle 2.0's PartialProgramLayer (dygraph_to_static/partial_program.py), the runnable
form of a StaticFunction's ConcreteProgram: its program's ops run eagerly through the
tracer (refimpl/dygraph/program_runner.py), so the results carry gradients as any
dynamic-mode computation."""
import numpy as np

from ..dygraph.program_runner import run_ops
from ..dygraph.tensor import Tensor
from ..framework.nest import flatten, pack_sequence_as
from ..framework.program import Variable
from ..nn import Layer

__all__ = ["PartialProgramLayer", "partial_program_from"]


def _static_variables(structure):
    return [v for v in flatten(structure) if isinstance(v, Variable)
            and not isinstance(v, Tensor)]


class PartialProgramLayer:
    """`main_program` run on the eager inputs fed to its `inputs` variables, with
    `parameters` (the eager parameters and buffers, by name): the outputs, structured as
    `outputs`. Its `training` picks the program, as 2.0 switches it."""

    def __init__(self, main_program, inputs, outputs, parameters):
        if not isinstance(parameters, (list, tuple)):
            raise TypeError("Type of self._params in PartialProgramLayer should be list or "
                            "tuple, but received %s." % type(parameters).__name__)
        for i, param in enumerate(parameters):
            if not isinstance(param, Tensor):
                raise TypeError("Type of self._params[%d] in PartialProgramLayer should be "
                                "Parameter or Variable, but received %s."
                                % (i, type(param).__name__))
        self._inputs, self._outputs, self._params = inputs, outputs, list(parameters)
        self._train_program = main_program
        self._infer_program = main_program.clone(for_test=True)
        self.training = True

    @property
    def program(self):
        """The program a call runs: the recorded one in training mode, its for_test clone
        (is_test on) in evaluation mode."""
        return self._train_program if self.training else self._infer_program

    def __call__(self, inputs):
        feeds = _static_variables(list(self._inputs))
        given = [x for x in flatten(list(inputs)) if isinstance(x, (Tensor, np.ndarray))]
        if len(given) != len(feeds):
            raise TypeError("PartialProgramLayer: the program takes %d inputs %s, got %d"
                            % (len(feeds), [v.name for v in feeds], len(given)))
        env = {p.name: p for p in self._params}
        env.update((v.name, x if isinstance(x, Tensor) else Tensor(x))
                   for v, x in zip(feeds, given))
        run_ops(self.program.global_block().ops, env, caller="PartialProgramLayer")
        outs = pack_sequence_as(self._outputs, [env[v.name] if isinstance(v, Variable) else v
                                                for v in flatten(self._outputs)])
        return outs[0] if len(outs) == 1 else outs      # one output: itself, as 2.0


def partial_program_from(concrete_program):
    """The PartialProgramLayer of a ConcreteProgram (its inputs without the Layer)."""
    inputs = [v for v in concrete_program.inputs if not isinstance(v, Layer)]
    return PartialProgramLayer(concrete_program.main_program, inputs,
                               concrete_program.outputs, concrete_program.parameters)
