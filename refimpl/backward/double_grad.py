"""The kernel of "<type>_grad_grad" ops: the gradient of a grad op, so that static
programs can differentiate an expression of a gradient (specs/backward.md#gradients-of-
gradients).

A grad op G runs its forward op's `backward` (numpy code) on G's inputs. Its gradient is
the vector-Jacobian product of that function: here the backward is run again on eager
tensors standing in for G's floating-point inputs (dygraph/double_backward.py's Recorded,
which records each numpy operation as an op), and the record is differentiated with
paddle.grad, weighted by the gradients of G's outputs. A backward that cannot be recorded
raises DoubleBackwardError naming the op, never a silently constant gradient. The grad op
of a bilinear op (conv: its backward is strided windows and tensordots) has its gradient
in closed form instead, from the op and its grad op themselves
(registry.bilinear_grad_of_grad).
"""
import numpy as np

from ..ops import registry
from ..ops.registry import bilinear_grad_of_grad, is_duplicable, slot_name

__all__ = ["grad_of_grad"]


def grad_of_grad(grad_def, args, attrs):
    """The gradients of grad op `grad_def`'s inputs (in grad_output_slots order; None
    where none flows), from `args`: its inputs' values, then its outputs' gradients."""
    from ..dygraph import autograd, double_backward
    from ..dygraph.double_backward import Recorded, _as_tensor
    from ..dygraph.tensor import Tensor
    from ..framework import mode

    fwd = grad_def.fwd
    if fwd.bilinear:
        grads = bilinear_grad_of_grad(fwd.forward, fwd.backward, *args, attrs)
        # the program declared every one of these gradients: zeros where none flows
        return tuple(np.zeros_like(v) if g is None else g for g, v in zip(grads, args))
    n_in = len(grad_def.inputs)
    values, upstream = args[:n_in], args[n_in:]
    wanted = {slot_name(s)[:-len("@GRAD")] for s in grad_def.grad_output_slots()}
    leaves = {}         # input position -> Tensor or [Tensor] whose gradient is wanted

    def stand_in(value):
        if value is None or np.asarray(value).dtype.kind != "f":
            return value, None
        t = Tensor(np.asarray(value), stop_gradient=False)
        return Recorded(t), t

    call = []
    for i, (slot, value) in enumerate(zip(grad_def.inputs, values)):
        if slot_name(slot) not in wanted:
            call.append(value)
        elif is_duplicable(slot):
            pairs = [stand_in(v) for v in value or ()]
            call.append([p for p, _ in pairs])
            leaves[i] = [t for _, t in pairs]
        else:
            recorded, leaves[i] = stand_in(value)
            call.append(recorded)
    slots = [slot_name(s) for s in grad_def.inputs]
    # outputs the backward reads whose gradient the op does not take (instance_norm's
    # SavedVariance): recomputed from the inputs, else their dependence on them is lost
    undifferentiated = [i for i, slot in enumerate(slots) if slot in fwd.output_slots
                        and slot + "@GRAD" not in slots and isinstance(call[i], Recorded)
                        and double_backward.has_values(values[i])]
    old_grad = mode.grad_enabled
    mode.grad_enabled = True
    double_backward._current_op[0] = grad_def.type
    try:
        if undifferentiated:
            outs = double_backward.recomputed_outputs(
                fwd, {slot: call[slots.index(slot)] for slot in fwd.input_slots
                      if slot in slots}, {slots[i]: values[i] for i in undifferentiated},
                attrs)
            for i in undifferentiated:
                call[i] = outs[slots[i]]
        result = grad_def.forward(*call, **attrs)
        results = result if isinstance(result, tuple) else (result,)
        outs, weights = [], []
        for r, g in zip(results, upstream):
            for r_i, g_i in (zip(r, g) if isinstance(r, list) else [(r, g)]):
                if r_i is not None and g_i is not None:
                    out = _as_tensor(r_i)
                    if not out.stop_gradient:
                        outs.append(out)
                        weights.append(Tensor(np.asarray(g_i, out._value.dtype)
                                              .reshape(out._value.shape)))
        flat = [t for ts in leaves.values() for t in (ts if isinstance(ts, list) else [ts])
                if t is not None]
        grads = autograd.grad(outs, flat, weights, allow_unused=True) if outs and flat \
            else [None] * len(flat)
    finally:
        mode.grad_enabled = old_grad
        double_backward._current_op[0] = None
    # an input the backward's result does not depend on (reduce_sum_grad's Out) gets
    # zeros: the program declared its gradient
    by_tensor = {id(t): np.zeros_like(t._value) if g is None else
                 g._value.reshape(t._value.shape) for t, g in zip(flat, grads)}
    gradient = []
    for i, slot in enumerate(grad_def.inputs):
        if slot_name(slot) not in wanted:
            continue
        ts = leaves.get(i)
        if isinstance(ts, list):
            gradient.append([None if t is None else by_tensor[id(t)] for t in ts])
        else:
            gradient.append(None if ts is None else by_tensor[id(ts)])
    return gradient[0] if len(gradient) == 1 else tuple(gradient)


registry.GRAD_OF_GRAD_KERNEL[0] = grad_of_grad
