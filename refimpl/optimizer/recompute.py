"""RecomputeOptimizer (seed 004): trade compute for memory.

The forward is cut at the checkpoints. Activations strictly between two consecutive
checkpoints are not kept for the backward: just before the first grad op of such a segment,
the segment's forward ops are appended again with every output renamed `<name>.subprog_<k>`,
and the segment's grad ops read those copies. The executor frees each temporary after its
last use, so the originals die right after the forward and peak memory drops.
Ops before the first checkpoint and after the last one are not recomputed (the backward
starts from the loss right away).

Random ops replay exactly: each dropout in a segment gets a `seed` op whose output feeds
both the original and the recomputed dropout (seed ops themselves are never recomputed).
"""
import warnings

from .. import backward as _backward
from ..framework.program import OpRole, Variable, default_startup_program, program_guard

__all__ = ["RecomputeOptimizer", "append_backward_with_checkpoints"]

_NOT_RECOMPUTED = ("seed",)


def _checkpoint_names(checkpoints):
    names = []
    for c in checkpoints:
        name = c.name if isinstance(c, Variable) else c
        if not isinstance(name, str):
            raise TypeError("checkpoints must be Variables or names, got %s" % type(c).__name__)
        if name not in names:   # duplicates are ignored
            names.append(name)
    return names


def _segments(path, checkpoints):
    """[(checkpoint name, ops of the segment after it)] for consecutive checkpoints on path."""
    producer = {}
    for i, op in enumerate(path):
        for n in op.output_arg_names:
            producer.setdefault(n, i)
    on_path = sorted((producer[n], n) for n in checkpoints if n in producer)
    skipped = [n for n in checkpoints if n not in producer]
    if skipped:
        warnings.warn("RecomputeOptimizer: checkpoints %s are not produced on the path to the "
                      "loss and are ignored" % skipped)
    segments = []
    for (start, name), (end, _) in zip(on_path, on_path[1:]):
        ops = path[start + 1:end + 1]
        if ops:
            segments.append((name, ops))
    return segments


def _seed_dropouts(block, segments):
    """Give every dropout inside a segment a Seed input from its own `seed` op."""
    for _, ops in segments:
        for op in [o for o in ops if o.type == "dropout" and not o.input("Seed")]:
            seed_var = block.create_var(name=op.output("Out")[0] + ".seed", shape=[1],
                                        dtype="int32", stop_gradient=True)
            index = block.ops.index(op)
            seed = op.attrs["seed"] if op.attrs.get("fix_seed") else 0
            block._insert_op(index, type="seed", outputs={"Out": [seed_var]},
                             attrs={"seed": seed, "op_role": op.attrs.get("op_role", 0)})
            op.inputs["Seed"] = [seed_var.name]
            block.program._bump()


def append_backward_with_checkpoints(loss, parameter_list=None, no_grad_set=None,
                                     checkpoints=()):
    block = loss.block.program.global_block()
    names = _checkpoint_names(checkpoints)
    path = _backward._ops_on_path(list(block.ops), [loss.name])
    segments = _segments(path, names)
    if not segments:
        warnings.warn("RecomputeOptimizer: fewer than two usable checkpoints; using the "
                      "plain backward (nothing is recomputed)")
        return _backward.backward_with_hook(loss, parameter_list, no_grad_set, None)
    _seed_dropouts(block, segments)
    segment_of = {id(op): k for k, (_, ops) in enumerate(segments) for op in ops}
    renamed = {}          # segment k -> {forward name: recomputed name}

    def recompute(k):
        mapping = {}
        for op in segments[k][1]:
            if op.type in _NOT_RECOMPUTED:
                continue
            # inputs first: an op may write a variable it reads (batch_norm's MeanOut)
            inputs = {slot: [mapping.get(n, n) for n in ins] for slot, ins in op.inputs.items()}
            outputs = {}
            for slot, outs in op.outputs.items():
                new = []
                for n in outs:
                    fwd = block._find_var_recursive(n)
                    copy = "%s.subprog_%d" % (n, k)
                    if not block.has_var(copy):
                        block.create_var(name=copy, shape=fwd.shape, dtype=fwd.dtype,
                                         stop_gradient=fwd.stop_gradient)
                    mapping[n] = copy
                    new.append(copy)
                outputs[slot] = new
            attrs = dict(op.attrs)
            attrs["op_role"] = OpRole.Backward
            block.append_op(type=op.type, inputs=inputs, outputs=outputs, attrs=attrs)
        return mapping

    def before_grad_op(op):
        k = segment_of.get(id(op))
        if k is None:
            return {}
        if k not in renamed:
            renamed[k] = recompute(k)
        return renamed[k]

    return _backward.backward_with_hook(loss, parameter_list, no_grad_set, before_grad_op)


class RecomputeOptimizer:
    """Wraps an optimizer; its backward recomputes the segments between checkpoints."""

    def __init__(self, optimizer):
        self._optimizer = optimizer
        self._checkpoints = None

    def _set_checkpoints(self, checkpoints):
        if not isinstance(checkpoints, (list, tuple)):
            raise TypeError("_set_checkpoints takes a list of Variables or names, got %s"
                            % type(checkpoints).__name__)
        self._checkpoints = list(checkpoints)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None, checkpoints=None):
        """[(param, grad)], with recomputation when checkpoints are set (argument or
        _set_checkpoints); without any, a warning and the plain backward (see specs)."""
        checkpoints = checkpoints if checkpoints is not None else self._checkpoints
        self._optimizer._startup_program = startup_program
        params = parameter_list if parameter_list is not None \
            else self._optimizer._parameter_list
        if not checkpoints:
            warnings.warn("RecomputeOptimizer.backward: no checkpoints set "
                          "(call _set_checkpoints); using the plain backward")
            return _backward.append_backward(loss, params, no_grad_set, callbacks)
        return append_backward_with_checkpoints(loss, params, no_grad_set, checkpoints)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def apply_optimize(self, loss, startup_program, params_grads):
        return self._optimizer.apply_optimize(loss, startup_program, params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def __getattr__(self, name):
        # get_lr, set_lr, ... of the wrapped optimizer
        return getattr(self._optimizer, name)
