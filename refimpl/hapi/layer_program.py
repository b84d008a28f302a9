"""The static inference program of an eager Layer (what Paddle's paddle.jit.save writes for
Model.save(training=False) in dynamic mode; specs/hapi_model.md, "Saving").

The Layer's forward is called once in evaluation mode on feed variables made from the
InputSpecs, inside a new program, with every parameter and buffer swapped for a static
variable of the same name, shape and dtype: the ops it runs are appended to the program
instead of running (one Layer class serves both modes). Python control flow in forward is
decided by that one call, as with tracing."""
from ..framework import mode
from ..framework.nest import flatten
from ..framework.program import Parameter, Program, program_guard
from ..layers.io import data

__all__ = ["inference_program", "traced_program"]


def _static_twin(block, tensor):
    if isinstance(tensor, Parameter):
        return block.create_parameter(name=tensor.name, shape=list(tensor.shape),
                                      dtype=tensor.dtype, trainable=tensor.trainable)
    return block.create_var(name=tensor.name, shape=list(tensor.shape), dtype=tensor.dtype,
                            persistable=True, stop_gradient=True)


def traced_program(layer, input_specs, call, evaluation=True):
    """(program, feed Variables, outputs, {variable name: eager tensor}) of `call(feeds)`
    on feed variables made from `input_specs` (named InputSpecs), with `layer`'s parameters
    and buffers (None: no Layer) swapped for their static twins; called in evaluation mode
    (evaluation=False: in the mode each sublayer is in). The outputs are what call returns."""
    program = Program()
    layers = layer.sublayers(include_self=True) if layer is not None else []
    training = [sub.training for sub in layers]
    twins, swapped = {}, []     # id(eager tensor) -> static variable; (registry, key, tensor)
    try:
        # static mode inside, whatever program_guard does in this profile (1.8's leaves
        # the mode, and fluid.data in dynamic mode would switch to static for good)
        with program_guard(program, Program()), mode.dygraph_guard(False), \
                mode.translating():
            block = program.global_block()
            for sub in layers:
                for registry in (sub._parameters, sub._buffers):
                    for key, tensor in list(registry.items()):
                        if tensor is None:
                            continue
                        if id(tensor) not in twins:
                            twins[id(tensor)] = (_static_twin(block, tensor), tensor)
                        swapped.append((registry, key, tensor))
                        registry[key] = twins[id(tensor)][0]
            if evaluation:
                layer.eval()
            feeds = [data(spec.name, list(spec.shape), spec.dtype) for spec in input_specs]
            for feed in feeds:
                # Paddle's dy2static feed variables are not checked against their shape (its
                # function_spec): a program recorded with a batch of 4 runs a batch of 1
                feed.need_check_feed = False
            outputs = call(feeds)
    finally:
        for registry, key, tensor in swapped:
            registry[key] = tensor
        for sub, was_training in zip(layers, training):
            sub.training = was_training
    return program, feeds, outputs, {var.name: tensor for var, tensor in twins.values()}


def inference_program(layer, input_specs, evaluation=True):
    """(program, feed Variables, fetch Variables, {persistable name: ndarray}) of
    layer.forward on inputs described by `input_specs` (named InputSpecs), called in
    evaluation mode (evaluation=False: in the mode each sublayer is in). The fetches are the
    leaves of what forward returns, depth first."""
    program, feeds, outputs, tensors = traced_program(layer, input_specs,
                                                      lambda feeds: layer(*feeds), evaluation)
    fetches = flatten(outputs)      # nested outputs (an LSTM's (y, (h, c))) as Paddle does
    return program, feeds, fetches, {name: t._array() for name, t in tensors.items()}
