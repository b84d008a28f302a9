"""A static program's ops run eagerly, one by one through the tracer, so the results carry
gradients as any dynamic-mode computation: the one runner of paddle.jit.load's
TranslatedLayer, dy2static's PartialProgramLayer and fluid.dygraph.StaticModelRunner
(specs/jit.md, specs/static_model_runner.md).

conditional_block and while run their sub-block's ops on the same values (gradients flow
through the taken branch and every step), with the conditions the ops' definitions read
(ops/control_flow.py); a while op stops with the executor's error after its `max_steps`
steps (DEFAULT_MAX_STEPS unless the program sets it), so a condition that never turns
false fails clearly instead of hanging."""
from ..framework.program import Block
from ..ops.control_flow import (DEFAULT_MAX_STEPS, branch_taken, scalar_condition,
                                step_limit_error)
from ..ops.registry import round_float32_attrs
from .tensor import Tensor
from .tracer import run_op

__all__ = ["NOT_RUN", "run_ops", "sub_block_of"]

NOT_RUN = ("feed", "fetch")     # a program's feeds and fetches are the caller's


def sub_block_of(op):
    """The Block an op's `sub_block` attribute names (an index or the Block), or None."""
    block = op.attrs.get("sub_block")
    if block is None or isinstance(block, Block):
        return block
    return op.block.program.block(block)


def run_ops(ops, env, is_test=None, caller="run_ops"):
    """Run `ops` eagerly on env ({variable name: Tensor}: the inputs, parameters and
    constants; each op's outputs are new Tensors named after their variables, bound in
    env). feed and fetch ops are skipped. is_test True / False overrides the ops'
    `is_test` attribute. A persistable Tensor of env that an op rewrote (batch_norm's
    moving statistics) takes the new value at the end, as a shared scope variable does;
    an input is never written. `caller` heads the errors: an op reading a name no earlier
    op wrote is a RuntimeError naming the op and the names."""
    state = {name: t for name, t in env.items() if getattr(t, "persistable", False)}
    _run(ops, env, is_test, caller)
    for name, t in state.items():
        if env[name] is not t:
            t.set_value(env[name])


def _run(ops, env, is_test, caller):
    for op in ops:
        if op.type in NOT_RUN:
            continue
        if op.type == "conditional_block":
            conds = _read(op, "Cond", env, caller)
            if branch_taken(op, {n: t.numpy() for n, t in zip(op.input("Cond"), conds)}):
                _run(sub_block_of(op).ops, env, is_test, caller)
        elif op.type == "while":
            _run_while(op, env, is_test, caller)
        else:
            _run_op(op, env, is_test, caller)


def _run_while(op, env, is_test, caller):
    body = sub_block_of(op).ops
    max_steps = op.attrs.get("max_steps", DEFAULT_MAX_STEPS)
    steps = 0
    while scalar_condition(op, _read(op, "Condition", env, caller)[0].numpy(), "Condition"):
        if steps == max_steps:
            raise step_limit_error(op)
        _run(body, env, is_test, caller)
        steps += 1


def _read(op, slot, env, caller):
    names = op.inputs[slot]
    missing = [n for n in names if n not in env]
    if missing:
        raise RuntimeError("%s: op %s reads %s, which no earlier op of the model wrote"
                           % (caller, op.type, missing))
    return [env[n] for n in names]


def _run_op(op, env, is_test, caller):
    inputs = {slot: _read(op, slot, env, caller) for slot in op.inputs}
    outputs = {slot: [Tensor(None, stop_gradient=False, name=n) for n in names]
               for slot, names in op.outputs.items() if names}
    # a program's op holds its FLOAT attrs as a static one does (its OpDesc), whatever
    # the eager rule of the profile (eager_float_attrs)
    attrs = round_float32_attrs(op.op_def, dict(op.attrs))
    if is_test is not None and "is_test" in attrs:
        attrs["is_test"] = is_test
    run_op(op.type, inputs, outputs, attrs)
    for slot, tensors in outputs.items():
        env.update(zip(op.outputs[slot], tensors))
