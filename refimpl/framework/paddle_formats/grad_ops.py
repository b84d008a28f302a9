"""Paddle's backward ops as a saved training program holds them -> refimpl's grad ops.

refimpl's `<type>_grad` op takes the forward op's declared `grad_inputs`; Paddle's grad op
makers pick their own subset. Reading a ProgramDesc, a grad op's slots are reconciled with
refimpl's declaration:
- an input slot refimpl's grad op does not declare (batch_norm_grad's Bias) is dropped:
  refimpl's gradient does not read it;
- a declared input slot the file lacks (reduce_mean_grad's Out) is taken from the forward
  op: the op that wrote the variables whose gradients (`<slot>@GRAD` inputs) this grad op
  reads, the same slot of that op;
- a few grad ops have other names in Paddle (cross_entropy2's is `cross_entropy_grad2`).
Output slots are not changed: an output refimpl's grad op does not make is an error there.
Writing, a grad op also gets the forward op's slots Paddle's grad op maker lists that
refimpl's gradient does not read (batch_norm_grad's Bias: Paddle 1.8.5's kernel crashes
on a program without it).
"""
from ..program import op_definition, op_types

__all__ = ["refimpl_grad_type", "paddle_grad_type", "reconcile_grad_slots",
           "paddle_grad_inputs", "ForwardOps"]

# Paddle's name -> refimpl's name, for grad ops that are not `<forward type>_grad`
_RENAMED = {"cross_entropy_grad2": "cross_entropy2_grad"}
_PADDLE_NAME = {v: k for k, v in _RENAMED.items()}
# grad op -> forward slots Paddle's grad op maker lists that refimpl's grad op does not take
_PADDLE_ONLY_GRAD_INPUTS = {"batch_norm_grad": ("Bias",)}


def refimpl_grad_type(op_type):
    return _RENAMED.get(op_type, op_type)


def paddle_grad_type(op_type):
    return _PADDLE_NAME.get(op_type, op_type)


class ForwardOps:
    """The ops of a block seen so far, by the variables they wrote: the grad op reading
    `x@GRAD` finds the op that wrote `x`."""

    def __init__(self):
        self.writer = {}       # variable name -> (op type, inputs, outputs)

    def add(self, op_type, inputs, outputs):
        for names in outputs.values():
            for name in names:
                self.writer[name] = (op_type, inputs, outputs)

    def of_grad(self, grad_type, inputs):
        """The forward op (type, inputs, outputs) whose outputs' gradients `inputs` holds."""
        forward_type = grad_type[:-len("_grad")]
        for slot, names in inputs.items():
            if not slot.endswith("@GRAD"):
                continue
            for name in names:
                found = self.writer.get(name[:-len("@GRAD")] if name.endswith("@GRAD")
                                        else name)
                if found is not None and found[0] == forward_type:
                    return found
        return None


def reconcile_grad_slots(op_type, inputs, forward_ops):
    """The inputs refimpl's grad op `op_type` takes, from the ones Paddle's has."""
    if not op_type.endswith("_grad") or op_type not in op_types():
        return inputs
    declared = set(op_definition(op_type).input_slots)
    kept = {slot: names for slot, names in inputs.items() if slot in declared}
    missing = [slot for slot in declared if slot not in kept]
    if missing:
        forward = forward_ops.of_grad(op_type, inputs)
        if forward is not None:
            _, f_inputs, f_outputs = forward
            for slot in missing:
                names = f_inputs.get(slot) or f_outputs.get(slot)
                if names:
                    kept[slot] = list(names)
    return kept


def paddle_grad_inputs(op_type, inputs, forward_ops):
    """The inputs Paddle's grad op `op_type` (refimpl's name) takes, from refimpl's:
    those and the forward op's slots only Paddle's grad maker lists."""
    extra = [slot for slot in _PADDLE_ONLY_GRAD_INPUTS.get(op_type, ()) if slot not in inputs]
    forward = forward_ops.of_grad(op_type, inputs) if extra else None
    if forward is None:
        return inputs
    _, f_inputs, _ = forward
    return dict(inputs, **{slot: list(f_inputs[slot]) for slot in extra if f_inputs.get(slot)})
