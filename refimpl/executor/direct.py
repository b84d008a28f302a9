"""Ops the executor binds straight onto a plan's dict instead of through one kernel call
(`DIRECT_BINDERS`, by op type; each `binder(op, group) -> run(env)`, or None to bind the op
as usual; `group` is the place's communicator group for collective members, or None):
  fused ops (refimpl/ops/fused.py)   each member's kernel bound to the member's own names,
                                     which are the plan's (the fusion pass names them so),
                                     so the fused op costs its members' kernels and nothing
                                     more; a member whose input is private to the chain
                                     writes into it
  fused_optimizer                    one update kernel call over the parameters (and
                                     momentum's velocities) coalesced into one flat buffer
  write_to_array                     reads its own output (the array it extends)
  read_from_array                    returns the element as it is (with its LoD)
"""
import numpy as np

from ..dispatch import select_kernel
from ..framework.program import EMPTY_VAR_NAME
from ..ops.fused import CHAIN_TYPES
from ..ops.registry import get_op_def, is_duplicable, kernel_attrs
from .binding import bind_kernel

__all__ = ["DIRECT_BINDERS", "LOD_AS_IS", "COALESCED_SLOTS", "coalesce_optimizer_state"]


def _bind_members(sub_ops, in_place=(), group=None):
    """Each member's kernel bound to its names, as the executor binds an op. Members whose
    index is in `in_place` write into their first input (see _in_place_members); collective
    members (sync_batch_norm in fused_batch_norm_act) talk through `group`."""
    steps = []
    for i, (op_type, inputs, outputs, attrs) in enumerate(sub_ops):
        op_def = get_op_def(op_type)
        fwd = getattr(op_def, "fwd", None)
        kind_of = (fwd.type, "backward") if fwd is not None else (op_type, "forward")
        kwargs = kernel_attrs(op_def, attrs)
        kernel = select_kernel(*kind_of, attrs=attrs)
        if "group" in kernel.keywords and group is not None:
            kwargs["group"] = group
        fn = kernel.fn
        if i in in_place:
            fn = _into_first_input_if_owned(
                select_kernel(op_type, "forward_inplace", attrs).fn, fn)
        steps.append(bind_kernel(fn, op_def, inputs, outputs, kwargs))
    return steps


def _in_place_members(sub_ops, output_names):
    """Indices of members that may write into their first input: an intermediate of the
    chain that only this member reads (so nothing else can see it) and that is not an
    output of the fused op. The epilogue of add + activation then runs in the add's buffer."""
    readers, made = {}, set()
    for op_type, inputs, outputs, _ in sub_ops:
        for names in inputs.values():
            for n in names:
                readers[n] = readers.get(n, 0) + 1
    chosen = set()
    for i, (op_type, inputs, outputs, attrs) in enumerate(sub_ops):
        op_def = get_op_def(op_type)
        first = inputs.get(op_def.input_slots[0], [])
        if not hasattr(op_def, "fwd") and not is_duplicable(op_def.inputs[0]) and \
                select_kernel(op_type, "forward_inplace", attrs) is not None and \
                first and first[0] in made and \
                readers[first[0]] == 1 and first[0] not in output_names:
            chosen.add(i)
        made.update(n for names in outputs.values() for n in names)
    return chosen


def _into_first_input_if_owned(inplace_fn, fn):
    """`inplace_fn` when the first input owns its buffer (a view's memory belongs to an
    array that may be live elsewhere), else `fn`."""
    def kernel(x, *args, **kwargs):
        return (inplace_fn if x.base is None else fn)(x, *args, **kwargs)
    return kernel


def _names_are_the_chains(op):
    """Whether the op's X* and Out* are the variables its sub_ops name (as the fusion pass
    makes them), so the members can run on the plan's dict under those names."""
    return op.input("X") == list(op.attrs["input_names"]) and \
        op.output("Out") == list(op.attrs["output_names"])


def bind_chain(op, group=None):
    """A fused op's members bound onto the plan's dict; the chain's intermediates are
    dropped as soon as the chain ends. None when the op's variables are not the chain's
    own (a bare op built by hand)."""
    if not _names_are_the_chains(op):
        return None
    attrs = op.attrs
    made = {n for _, _, outputs, _ in attrs["sub_ops"] for names in outputs.values()
            for n in names}
    intermediates = tuple(made - set(attrs["output_names"]) - {EMPTY_VAR_NAME})
    steps = _bind_members(attrs["sub_ops"], _in_place_members(attrs["sub_ops"],
                                                              attrs["output_names"]), group)

    def run(env):
        for step in steps:
            step(env)
        for n in intermediates:
            env.pop(n, None)
    return run


# Slots of the update ops whose variables the multi-place runner coalesces into one flat
# buffer per slot, so fused_optimizer can update every parameter with one kernel call.
COALESCED_SLOTS = {"sgd": ("Param",), "momentum": ("Param", "Velocity")}


def coalesce_optimizer_state(program, env):
    """fuse_all_optimizer_ops: put the variables a fused_optimizer updates (its parameters,
    momentum's velocities) into one flat buffer per slot, as views, so the update is one
    kernel call. The values are unchanged; `env` holds the views from now on."""
    for op in program.global_block().ops:
        if op.type != "fused_optimizer":
            continue
        sub_ops = op.attrs["sub_ops"]
        for slot in COALESCED_SLOTS.get(sub_ops[0][0], ()):
            names = [sub[1][slot][0] for sub in sub_ops]
            arrays = [env.get(n) for n in names]
            if any(a is None for a in arrays) or len({a.dtype for a in arrays}) != 1:
                continue
            flat = np.concatenate([a.reshape(-1) for a in arrays])
            offset = 0
            for n, a in zip(names, arrays):
                env[n] = flat[offset:offset + a.size].reshape(a.shape)
                offset += a.size


def flat_base(arrays):
    """The 1-D buffer that `arrays` tile exactly, in order, as views; else None."""
    base = arrays[0].base
    if base is None or base.ndim != 1 or not base.flags.c_contiguous:
        return None
    offset = base.__array_interface__["data"][0]
    for a in arrays:
        if a.base is not base or a.__array_interface__["data"][0] != offset:
            return None
        offset += a.nbytes
    return base if offset == base.__array_interface__["data"][0] + base.nbytes else None


class _FlatUpdate:
    """One call of the update kernel over the coalesced buffers: parameters (and momentum's
    velocities) are views of one flat buffer each (coalesce_optimizer_state), the gradients
    are copied into a flat buffer kept for the next step. Elementwise kernels make this
    bit-identical to the member updates."""

    def __init__(self, sub_ops):
        op_type, _, _, attrs = sub_ops[0]
        self.op_type = op_type
        self.op_def = get_op_def(op_type)
        self.coalesced = COALESCED_SLOTS[op_type]
        self.names = {slot: [sub[1][slot][0] for sub in sub_ops]
                      for slot in self.op_def.input_slots}
        self.attrs = kernel_attrs(self.op_def, attrs)     # as each member's
        self.kernel = None
        self.grad = None
        self.verified = ([], {})   # (arrays last found coalesced, their flat buffers)

    @staticmethod
    def applies(sub_ops):
        """One optimizer type that is coalesced, one learning rate, equal attrs."""
        return sub_ops[0][0] in COALESCED_SLOTS and \
            len({sub[1]["LearningRate"][0] for sub in sub_ops}) == 1 and \
            all(sub[3] == sub_ops[0][3] for sub in sub_ops)

    def _bases(self, env):
        """{slot: flat buffer} when every coalesced slot is one flat buffer, else None."""
        arrays = [env[n] for slot in self.coalesced for n in self.names[slot]]
        known, bases = self.verified
        if len(arrays) == len(known) and all(a is b for a, b in zip(arrays, known)):
            return bases
        bases = {slot: flat_base([env[n] for n in self.names[slot]]) for slot in self.coalesced}
        if any(b is None for b in bases.values()):
            return None
        self.verified = (arrays, bases)
        return bases

    def __call__(self, env):
        """Update every member; False (nothing done) when the buffers are not coalesced."""
        bases = self._bases(env)
        if bases is None:
            return False
        param = bases["Param"]
        if self.grad is None or self.grad.shape != param.shape or self.grad.dtype != param.dtype:
            self.grad = np.empty_like(param)
            self.kernel = select_kernel(self.op_type, "forward", self.attrs,
                                        param.dtype.name).fn
        np.concatenate([env[n].reshape(-1) for n in self.names["Grad"]], out=self.grad)
        args = [bases[slot] if slot in bases else self.grad if slot == "Grad"
                else env[self.names[slot][0]] for slot in self.op_def.input_slots]
        self.kernel(*args, **self.attrs)
        return True


def bind_fused_optimizer(op, group=None):
    """All updates of one optimizer: one kernel call over the coalesced buffers when the
    multi-place runner coalesced them (_FlatUpdate), else each member's update in turn."""
    members = bind_chain(op, group)
    if members is None or not _FlatUpdate.applies(op.attrs["sub_ops"]):
        return members
    flat_update = _FlatUpdate(op.attrs["sub_ops"])

    def run(env):
        if not flat_update(env):
            members(env)
    return run


def bind_write_to_array(op, group=None):
    """Out = X written at I into the array Out held before."""
    forward = op.op_def.forward
    x, i, out = op.input("X")[0], op.input("I")[0], op.output("Out")[0]

    def run(env):
        env[out] = forward(env[x], env[i], env.get(out))
    return run


def bind_read_from_array(op, group=None):
    """Out = element I of the array X as it is, LoD included: no pass over the whole
    array's elements per read (a DynamicRNN's T steps would make it T^2)."""
    forward = op.op_def.forward
    x, i, out = op.input("X")[0], op.input("I")[0], op.output("Out")[0]

    def run(env):
        env[out] = forward(env[x], env[i])
    return run


DIRECT_BINDERS = dict({t: bind_chain for t in CHAIN_TYPES},
                      fused_optimizer=bind_fused_optimizer,
                      write_to_array=bind_write_to_array,
                      read_from_array=bind_read_from_array)
# binders whose outputs carry their LoD as the value gives it: bound directly also where a
# LoD may reach them (the others then run through their op's LoD rules)
LOD_AS_IS = frozenset(["read_from_array"])
