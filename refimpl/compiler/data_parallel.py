"""The data-parallel rewrite (seeds 000-002): one place's program from the program the
passes made, as a pure rewrite of a clone.

  loss@GRAD    scaled by 1/places (CoeffNumDevice), 1 (One), or fed by the user
               (Customized: its fill op removed)
  AllReduce    c_allreduce_sum after the last backward op writing each parameter gradient
               (one bucket before the first update with fuse_all_reduce_ops)
  Reduce       c_reduce_sum to each parameter's owner (owners_by_size), the owner's update
               only, then c_broadcast of the parameter from its owner
  sync BN      batch_norm(_grad) -> sync_batch_norm(_grad) (sync_batch_norm), before the
               fusion passes, which then fuse the synchronized op
"""
import numpy as np

from ..framework.program import OpRole, grad_var_name
from ..ops.registry import get_op_def
from .strategy import BuildStrategy

__all__ = ["owners_by_size", "sync_batch_norm", "rewrite"]


def owners_by_size(params, n_devices):
    """Reduce strategy: each parameter's owner, balancing total size; ties by name, so every
    process computes the same assignment."""
    load = [0] * n_devices
    owner = {}
    for p in sorted(params, key=lambda v: (-int(np.prod(v.shape)), v.name)):
        d = min(range(n_devices), key=lambda i: (load[i], i))
        owner[p.name] = d
        load[d] += int(np.prod(p.shape))
    return owner


def sync_batch_norm(program):
    """batch_norm (and its grad) become sync_batch_norm, in place; before the fusion passes,
    which then fuse the synchronized op (fusing first left fused batch norms unsynchronized,
    each place normalizing its own rows)."""
    for op in program.global_block().ops:
        if op.type in ("batch_norm", "batch_norm_grad"):
            op.type = "sync_" + op.type
            op.op_def = get_op_def(op.type)
    return program


def _param_grads(block):
    """[(param, grad, index of the last backward op writing grad)] in program order."""
    last = {}
    for i, op in enumerate(block.ops):
        role_var = op.attrs.get("op_role_var") or []
        if op.attrs.get("op_role", 0) & OpRole.Backward and role_var:
            for p, g in zip(role_var[0::2], role_var[1::2]):
                if g in op.output_arg_names:
                    last[(p, g)] = i
    return sorted(((p, g, i) for (p, g), i in last.items()), key=lambda t: t[2])


def _scale_loss_grad(block, loss_name, strategy, total_devices):
    scale = strategy.gradient_scale_strategy
    target = grad_var_name(loss_name)
    for i, op in enumerate(block.ops):
        if op.attrs.get("op_role") == OpRole.Backward | OpRole.Loss and \
                op.output_arg_names == [target]:
            if scale == BuildStrategy.GradientScaleStrategy.Customized:
                block._remove_op(i)       # the user feeds loss@GRAD
            elif scale == BuildStrategy.GradientScaleStrategy.One:
                op._set_attr("value", 1.0)
            else:
                op._set_attr("value", 1.0 / total_devices)
            return


def rewrite(program, loss_name, strategy, device, total_devices, owner):
    """This device's program: loss@GRAD scaled, collectives inserted, Reduce-mode updates
    kept by owners."""
    block = program.global_block()
    if loss_name is None or total_devices == 1:
        return program
    _scale_loss_grad(block, loss_name, strategy, total_devices)
    pgs = _param_grads(block)
    if not pgs:
        return program
    for _, g, _ in pgs:
        # an is_sparse embedding's SelectedRows gradient is reduced dense (Paddle gathers
        # the rows): the same update
        block.var(g).type = "LOD_TENSOR"
    reduce_mode = strategy.reduce_strategy == BuildStrategy.ReduceStrategy.Reduce
    comm_type = "c_reduce_sum" if reduce_mode else "c_allreduce_sum"

    def attrs(names):
        a = {"op_role": OpRole.Backward}
        if reduce_mode:
            a["roots"] = [owner[p] for p in names]
        return a

    if strategy.fuse_all_reduce_ops:
        # one bucket for every gradient, before the first update
        first_opt = next((i for i, op in enumerate(block.ops)
                          if op._is_optimize_op()), len(block.ops))
        grads = [g for _, g, _ in pgs]
        block._insert_op(first_opt, type=comm_type, inputs={"X": grads},
                         outputs={"Out": grads}, attrs=attrs([p for p, _, _ in pgs]))
    else:
        for p, g, i in reversed(pgs):
            block._insert_op(i + 1, type=comm_type, inputs={"X": [g]}, outputs={"Out": [g]},
                             attrs=attrs([p]))
    if reduce_mode:
        _keep_owned_updates(block, owner, device, strategy.fuse_broadcast_ops)
    return program


def _keep_owned_updates(block, owner, device, fuse_broadcast):
    last_update = {}
    for i in reversed(range(len(block.ops))):
        op = block.ops[i]
        role_var = op.attrs.get("op_role_var") or []
        if op._is_optimize_op() and role_var and role_var[0] in owner:
            if owner[role_var[0]] != device:
                block._remove_op(i)
            else:
                last_update.setdefault(role_var[0], i)
    params = sorted(owner, key=lambda p: owner[p])
    if fuse_broadcast:
        block.append_op(type="c_broadcast", inputs={"X": params}, outputs={"Out": params},
                        attrs={"roots": [owner[p] for p in params], "op_role": OpRole.Optimize})
        return
    # Non-owners have no update op to follow: their broadcasts go where the owner's would,
    # i.e. all at the end in one fixed order, identical on every device.
    for p in sorted(owner):
        block.append_op(type="c_broadcast", inputs={"X": [p]}, outputs={"Out": [p]},
                        attrs={"roots": [owner[p]], "op_role": OpRole.Optimize})
