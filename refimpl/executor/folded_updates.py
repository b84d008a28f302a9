"""A parameter's plain update folded into the grad op that makes its gradient.

In a training plan each weight's grad op (mul_grad: the weight gradient is a GEMM) is
followed by its update (sgd), which op_order.with_updates_early moves right after it. Run
as two ops, the GEMM writes the gradient into a weight-sized buffer and the update reads it
back beside the weight: two passes over weight-sized memory a step (about 5 % of
mlp_mnist's step, issue 21). When the kernel table has a kernel for the pair
(FOLDED_UPDATES, compiled backend only), the plan runs both as one call whose GEMM adds
-lr * gradient into the weight itself.

Only where no one can see the gradient: it dies at the update (it is not fetched, not
persistable and read by no other op), the update writes the parameter it reads, neither op
sees a LoD or SelectedRows, and neither writes into its input (enable_inplace). The values
are the two ops' up to the update's last bit: for a large weight gradient BLAS makes the
update one fused multiply-add per element (w - lr * g rounded once), where the sgd op
rounds lr * g, then the difference (0.5 - 0.1f * 5: 0.0 by the op, -7.45e-9 folded);
small ones keep the op's arithmetic (matmul.mul_backward_sgd)."""
from ..dispatch import select_folded_update
from ..framework.program import EMPTY_VAR_NAME
from ..ops.registry import BlockOpDef, round_float32_attrs
from .binding import main_dtype

__all__ = ["folded_updates", "bind_folded"]


def folded_updates(ops, dead_after, plain):
    """{i: (kernel, parameter slot)} for each grad op ops[i] that runs together with its
    update ops[i + 1]. `dead_after`: the names dead after each op (Plan._free_lists);
    `plain[i]`: whether op i is bound as a plain CPU kernel call (no LoD rules, no in-place
    output, no hand-off, no SelectedRows)."""
    pairs = {}
    for i in range(len(ops) - 1):
        grad, update = ops[i], ops[i + 1]
        fwd = getattr(grad.op_def, "fwd", None)
        if fwd is None or isinstance(grad.op_def, BlockOpDef) or \
                not (plain[i] and plain[i + 1]):
            continue
        chosen = select_folded_update(fwd.type, update.type, grad.attrs, main_dtype(grad))
        if chosen is None:
            continue
        slot = chosen[1]
        param, gradient = grad.input(slot), grad.output(slot + "@GRAD")
        if len(param) == 1 and len(gradient) == 1 and \
                update.input("Param") == param and update.output("ParamOut") == param and \
                update.input("Grad") == gradient and gradient[0] in dead_after[i + 1]:
            pairs[i] = chosen
    return pairs


def bind_folded(grad, update, kernel, param_slot, alloc=None, wrap_kernel=None):
    """`run(env)` running the grad op `grad` and its update `update` as one call of
    `kernel` (see folded_updates), which returns the gradient of the grad op's other input
    (when the op has that output). `wrap_kernel(op, fn)` as in bind_op: the pair counts
    as the grad op."""
    if wrap_kernel is not None:
        kernel = wrap_kernel(grad, kernel)
    op_def = grad.op_def
    attrs = round_float32_attrs(op_def, {k: grad.attrs[k] for k in op_def.attrs})
    attrs.update(op_def.bound_attrs(grad))
    if alloc is not None:
        attrs["alloc"] = alloc
    names = [grad.input(s)[0] for s in op_def.input_slots] + \
        [update.input("LearningRate")[0]]
    other = [s for s in op_def.output_slots if s != param_slot + "@GRAD"]
    assert len(other) == 1, "a folded update's grad op has two inputs"
    out = (grad.output(other[0]) or [None])[0]
    out = None if out == EMPTY_VAR_NAME else out
    attrs["need_x"] = out is not None

    def run(env):
        result = kernel(*[env[n] for n in names], **attrs)
        if out is not None:
            env[out] = result
    return run
