"""The forward -> grad hand-off within one run: a compiled forward kernel that saves work
for its grad op (conv2d's im2col columns, max pooling's argmax; `saves_for_grad` in the
kernel table) shares a SavedForGrad (refimpl.dispatch) with that grad op, which the binder
passes to both as `saved=`. link_saved_for_grad pairs them in a plan."""
from ..dispatch import SavedForGrad, kernels_of
from .binding import op_kernel

__all__ = ["SavedForGrad", "link_saved_for_grad"]


def _hands_off(op, little_only):
    """Whether op's kernel and its grad op's both take `saved` (the compiled pair; the
    references recompute), and under `little_only` the hand-off is no larger than the
    forward's output."""
    kernel = op_kernel(op)
    if kernel is None or "saved" not in kernel.keywords:
        return False
    forward_type = getattr(op.op_def, "fwd", op.op_def).type
    return not little_only or kernels_of(forward_type).saves_for_grad == "little"


def link_saved_for_grad(ops, little_only=False):
    """{op index: SavedForGrad} pairing each grad op whose forward hands off (see
    _hands_off) with the nearest earlier forward op of that type reading the same inputs
    with the same attrs, provided no op in between writes any of those inputs. Nearest: a
    recomputed copy of the forward (RecomputeOptimizer) hands over, not the original, which
    would hold its columns through the whole forward pass. `little_only`: only forwards
    whose hand-off is no larger than their output."""
    links = {}
    for j, grad in enumerate(ops):
        fwd = getattr(grad.op_def, "fwd", None)
        if fwd is None or not _hands_off(grad, little_only):
            continue
        reads = {s: grad.inputs.get(s) for s in fwd.input_slots}
        read_names = {n for names in reads.values() if names for n in names}
        for i in range(j - 1, -1, -1):
            op = ops[i]
            if (op.op_def is fwd and i not in links
                    and all(op.inputs.get(s) == names for s, names in reads.items())
                    and all(op.attrs.get(k) == grad.attrs.get(k) for k in fwd.attrs)
                    and _hands_off(op, little_only)):
                links[i] = links[j] = SavedForGrad()
                break
            if read_names.intersection(op.output_arg_names):
                break
    return links
