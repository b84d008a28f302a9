"""The backward pass with recomputation (RecomputeOptimizer, seed 004): trade compute for
memory.

The forward path to the loss is cut at the checkpoints into segments: the ops up to the
first checkpoint, then the ops after each checkpoint up to the next (as Paddle; the ops
after the last checkpoint are differentiated right away and are not recomputed). Just
before the first grad op of a segment, the forward ops of that segment whose results its
grad ops read are appended again, every output renamed `<name>.subprog_<k>`, and the grad
ops read those copies. The executor frees each temporary after its last use, so the
originals die during the forward and only the checkpoints stay alive until the backward.

Ops without inputs (fill_constant, random generators, seed) are never recomputed: their
forward values are kept, so a recomputed value equals the forward one. Each dropout in a
segment gets a `seed` op whose output feeds both the original and the recomputed dropout,
so masks replay exactly.
"""
import warnings

from .. import backward as _backward
from ..framework.program import OpRole, Variable

__all__ = ["append_backward_with_checkpoints"]


def _checkpoint_names(checkpoints):
    names = []
    for c in checkpoints:
        name = c.name if isinstance(c, Variable) else c
        if not isinstance(name, str):
            raise TypeError("RecomputeOptimizer: checkpoints must be Variables or names, got %s"
                            % type(c).__name__)
        if name not in names:   # duplicates are ignored
            names.append(name)
    return names


def _segments(path, checkpoints):
    """Ops of each segment, in program order: up to the first checkpoint's producer, then
    from after each checkpoint's producer up to the next one's."""
    producer = {}
    for i, op in enumerate(path):
        for n in op.output_arg_names:
            producer.setdefault(n, i)
    skipped = [n for n in checkpoints if n not in producer]
    if skipped:
        warnings.warn("RecomputeOptimizer: checkpoints %s are not produced on the path to the "
                      "loss and are ignored" % skipped)
    ends = sorted({producer[n] for n in checkpoints if n in producer})
    return [path[start + 1:end + 1] for start, end in zip([-1] + ends, ends)]


def _recomputed_ops(segment, checkpoints):
    """The ops of `segment` whose outputs its grad ops read, directly or through other ops
    of the segment. Checkpoints are kept, so what they need is not recomputed."""
    needed = {n for op in segment for names in _backward.forward_reads(op).values()
              for n in names} - checkpoints
    chosen = []
    for op in reversed(segment):
        if op.input_arg_names and needed.intersection(op.output_arg_names):
            chosen.append(op)
            needed.update(set(op.input_arg_names) - checkpoints)
    return chosen[::-1]


def _seed_dropouts(block, ops):
    """Give every dropout among `ops` a Seed input from its own `seed` op."""
    for op in [o for o in ops if o.type == "dropout" and not o.input("Seed")]:
        seed_var = block.create_var(name=op.output("Out")[0] + ".seed", shape=[1],
                                    dtype="int32", stop_gradient=True)
        seed = op.attrs["seed"] if op.attrs.get("fix_seed") else 0
        block._insert_op(block.ops.index(op), type="seed", outputs={"Out": [seed_var]},
                         attrs={"seed": seed, "op_role": op.attrs.get("op_role", 0)})
        op.inputs["Seed"] = [seed_var.name]
        block.program._bump()


def _append_recomputation(block, ops, number):
    """Append copies of `ops` writing `<name>.subprog_<number>`; return {name: copy name}."""
    copies = {}
    for op in ops:
        # inputs first: an op may write a variable it reads (batch_norm's MeanOut = Mean)
        inputs = {slot: [copies.get(n, n) for n in names] for slot, names in op.inputs.items()}
        outputs = {}
        for slot, names in op.outputs.items():
            for n in names:
                copies[n] = "%s.subprog_%d" % (n, number)
                if not block.has_var(copies[n]):
                    fwd = block._find_var_recursive(n)
                    block.create_var(name=copies[n], shape=fwd.shape, dtype=fwd.dtype,
                                     stop_gradient=fwd.stop_gradient)
            outputs[slot] = [copies[n] for n in names]
        attrs = dict(op.attrs, op_role=OpRole.Backward)
        block.append_op(type=op.type, inputs=inputs, outputs=outputs, attrs=attrs)
    return copies


def append_backward_with_checkpoints(loss, parameter_list=None, no_grad_set=None,
                                     checkpoints=()):
    """append_backward with recomputation; falls back to the plain backward (with a
    warning) when no checkpoint is on the path to the loss."""
    block = loss.block.program.global_block()
    names = _checkpoint_names(checkpoints)
    path = _backward._ops_on_path(list(block.ops), [loss.name])
    segments = _segments(path, names)
    recomputed = [_recomputed_ops(ops, set(names)) for ops in segments]
    if not any(recomputed):
        warnings.warn("RecomputeOptimizer: no checkpoint splits the path to the loss; "
                      "using the plain backward (nothing is recomputed)")
        return _backward.backward_with_hook(loss, parameter_list, no_grad_set, None)
    for ops in recomputed:
        _seed_dropouts(block, ops)
    segment_of = {id(op): k for k, ops in enumerate(segments) for op in ops}
    copies = {}           # segment k -> {forward name: recomputed name}

    def before_grad_op(op):
        k = segment_of.get(id(op))
        if k is None:
            return {}
        if k not in copies:
            # numbered in backward order, as Paddle: the last segment is subprog_0
            copies[k] = _append_recomputation(block, recomputed[k], len(segments) - 1 - k)
        return copies[k]

    return _backward.backward_with_hook(loss, parameter_list, no_grad_set, before_grad_op)
