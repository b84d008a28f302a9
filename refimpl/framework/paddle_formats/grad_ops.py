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
Writing (and printing, Program.to_string), an op lists its slots as Paddle's OpDesc does
(paddle_op_slots): by slot name (its OpDesc keeps them in a sorted map); an op Python's
Operator built given an inputs dict (Operator.lists_proto_inputs), every input its OpProto
declares (absent ones empty); a grad op, every slot Paddle's grad op maker lists
(paddle_op_facts.json grad_makers: absent forward slots and gradients empty; Paddle 1.8.5's
batch_norm_grad kernel crashes without its Bias, its lstm_grad without BatchGate), where
that maker was not measured an empty `X@GRAD` for each input X of the forward op whose
gradient is not wanted (the maker lists it, Paddle's backward drops the name). And an op holds the attributes Paddle's desc
holds (paddle_held_attrs): a grad op whose maker does not copy its forward op's attributes
(mean_grad), and the ops Paddle's backward makes itself (the loss gradient's fill_constant,
the sums of gradients), only those they set.
"""
from .op_facts import FACTS, grad_makers, proto_inputs
from ..program import OpRole, op_definition, op_types

__all__ = ["refimpl_grad_type", "paddle_grad_type", "reconcile_grad_slots",
           "paddle_op_slots", "paddle_held_attrs", "ForwardOps"]

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


def _paddle_maker(release, op_type):
    """What Paddle `release`'s grad op maker makes for refimpl's grad op `op_type`, if
    measured and one op."""
    made = [g for g in grad_makers(release, op_type[:-len("_grad")]) or ()
            if g["type"] == paddle_grad_type(op_type)]
    return made[0] if len(made) == 1 else None


def paddle_op_slots(op, forward_ops, release):
    """(inputs, outputs) of `op` as Paddle `release`'s OpDesc lists them (module doc); adds
    `op` to `forward_ops`, which holds the ops of its block before it."""
    inputs, outputs = dict(op.inputs), dict(op.outputs)
    if op.type.endswith("_grad") and op.type in op_types():
        forward = forward_ops.of_grad(op.type, op.inputs)
        f_inputs, f_outputs = (forward[1], forward[2]) if forward is not None else ({}, {})
        maker = _paddle_maker(release, op.type)
        if maker is not None:
            for slot in maker["inputs"]:
                if slot not in inputs:
                    inputs[slot] = [] if slot.endswith("@GRAD") else list(
                        f_inputs.get(slot) or f_outputs.get(slot) or ())
            outputs = dict({slot: [] for slot in maker["outputs"]}, **outputs)
        else:
            inputs.update({slot: list(f_inputs[slot])
                           for slot in _PADDLE_ONLY_GRAD_INPUTS.get(op.type, ())
                           if slot not in inputs and f_inputs.get(slot)})
            outputs = dict({slot: [] for slot in op_definition(op.type).output_slots
                            if slot.endswith("@GRAD") and f_inputs.get(slot[:-len("@GRAD")])},
                           **outputs)
    elif op.lists_proto_inputs and not op.attrs.get("op_role", 0) & OpRole.Backward:
        # the backward's own ops (the loss gradient's fill_constant, sum) list only theirs
        inputs = dict({slot: [] for slot in proto_inputs(release, op.type)}, **inputs)
    forward_ops.add(op.type, op.inputs, op.outputs)
    return dict(sorted(inputs.items())), dict(sorted(outputs.items()))


# what Paddle 1.8.5's backward sets on the ops it makes itself, besides op_role / op_device
_BACKWARD_OWN_ATTRS = {"fill_constant": ("shape", "value", "dtype", "force_cpu"),
                       "sum": ("use_mkldnn",)}


def paddle_held_attrs(op, release):
    """The names of `op`'s attributes Paddle `release`'s desc holds (module doc); None: all.
    Measured for the releases with grad_makers facts (1.8.5)."""
    if release not in FACTS["grad_makers"] or not op.attrs.get("op_role", 0) & OpRole.Backward:
        return None
    if op.type in _BACKWARD_OWN_ATTRS:
        own = _BACKWARD_OWN_ATTRS[op.type]
    else:
        maker = _paddle_maker(release, op.type) if op.type.endswith("_grad") else None
        if maker is None or maker["copies_attrs"]:
            return None
        own = op_definition(op.type).attrs       # what refimpl's grad op itself reads
    # op_role_var where Paddle's backward sets it: on the op making a parameter's gradient
    return set(own) | {"op_role", "op_device"} | ({"op_role_var"} if op.attrs.get(
        "op_role_var") else set())
