"""One forward pass of a Layer that only looks at shapes, for paddle.summary and
paddle.flops: the layer runs in evaluation mode without recording gradients, and chosen
sublayers call a post-forward hook. In dynamic mode the inputs are eager tensors of random
values (a private generator: the user's random state is left alone); in static mode they
are feed variables of a scratch program, so only shapes are inferred and nothing runs."""
import contextlib

import numpy as np

from ..dygraph import mode
from ..dygraph.tensor import Tensor
from ..framework import nest
from ..framework.dtypes import to_numpy_dtype
from ..framework.program import Program, Variable, program_guard
from ..layers.io import data

__all__ = ["probe", "shape_of"]


def shape_of(value):
    """A tensor's shape as a list; nested lists for lists / tuples of tensors."""
    if isinstance(value, (list, tuple)):
        return [shape_of(v) for v in value]
    return [int(d) for d in value.shape] if hasattr(value, "shape") else []


def _random_inputs(shapes, dtypes):
    """One input per (shape, dtype); a list of shapes (an argument taking a list of
    tensors) gives a list of inputs of that dtype."""
    rng = np.random.RandomState(0)
    made = []

    def make(shape, dtype):
        if isinstance(shape, list):
            return [make(s, dtype) for s in shape]
        made.append(shape)
        if mode.dynamic:
            return Tensor(rng.rand(*shape).astype(to_numpy_dtype(dtype)))
        return data("probe_input_%d" % (len(made) - 1), list(shape), dtype)

    return [make(shape, dtype) for shape, dtype in zip(shapes, dtypes)]


def _scratch_program(net, given):
    """A program to build net's forward in, holding (copies of) its variables and of the
    given input variables (a static summary's `input`: variables of the user's program)."""
    program = Program()
    block = program.global_block()
    for var in [v for _, v in list(net.named_parameters()) + list(net.named_buffers())] + \
            [v for v in nest.flatten(given) if isinstance(v, Variable)]:
        block.vars[var.name] = var._clone_into(block)
    return program_guard(program, Program())


def probe(net, hooked, hook, shapes=None, dtypes=None, given=None):
    """Call net once -- on `given` (passed as the one argument, as Paddle's summary does)
    or on random inputs of `shapes` / `dtypes` -- with hook(layer, inputs, outputs) after
    the forward of every layer in `hooked`. The hooks and the layers' train/eval modes are
    put back afterwards."""
    training = [(sub, sub.training) for sub in net.sublayers(include_self=True)]
    handles = [layer.register_forward_post_hook(hook) for layer in hooked]
    scratch = contextlib.nullcontext() if mode.dynamic else _scratch_program(net, given)
    try:
        net.eval()
        with scratch, mode.no_grad():
            if given is not None:
                net(given)
            else:
                net(*_random_inputs(shapes, dtypes))
    finally:
        for handle in handles:
            handle.remove()
        for sub, was_training in training:
            sub.training = was_training
