"""Control-flow ops: conditional_block, while and their grads (specs/control_flow.md).

Each runs a sub-block of the program (attr `sub_block`, a block index). They are
BlockOpDefs: the executor binds them through `bind_control(op, compile)`, where
`compile(ops, keep)` turns a list of ops into a nested plan run on the same dict of
values, freeing what the ops make except the names in `keep`. Their slots list every name
of the enclosing blocks the sub-block reads (`Input` / `X`) or writes (`Out`), so the
enclosing plan frees values at the right time and backward sees the data flow.

The grad ops recompute: they run the forward block's ops that write only its own names,
then their sub-block, the grad ops of the forward block's ops (backward.py builds it), so
most activations are not kept between the forward and the backward run. A
conditional_block keeps the values its other ops make (_recomputed_and_kept); the while op
records the values of its loop variables at the start of each step (`StepScopes`) so
while_grad can replay the steps in reverse.
"""
import numpy as np

from .. import versions
from ..framework.dataflow import outer_names
from ..framework.lod import lod_of, with_lod
from .registry import BlockOpDef, register
from .sum import Sum
from .tensor_array import zeros_like_value

__all__ = ["DEFAULT_MAX_STEPS", "branch_taken", "scalar_condition", "step_limit_error"]

# while ops stop with an error after this many steps (attr max_steps), so a condition that
# never turns false fails clearly instead of hanging
DEFAULT_MAX_STEPS = 1000000


def scalar_condition(op, value, slot):
    """The Python bool of a control op's condition (an array), or an error naming it."""
    value = np.asarray(value)
    if value.dtype != np.bool_ or value.size != 1:
        raise op.error("condition %s %r must be a bool tensor with one element, got dtype "
                       "%s shape %s" % (slot, op.input(slot)[0], value.dtype,
                                        list(value.shape)))
    return bool(value.reshape(()))


def branch_taken(op, env):
    """A conditional_block's condition (env: {name: array}): the one bool of Cond
    (is_scalar_condition), else whether every Cond tensor has an element (Paddle 1.8's
    ConditionalBlock over inputs)."""
    conds = op.input("Cond")
    if op.attrs["is_scalar_condition"]:
        return scalar_condition(op, env[conds[0]], "Cond")
    return all(np.size(env[c]) for c in conds)


def step_limit_error(op):
    """The error of a while op whose condition is still true after its `max_steps` steps
    (the executor's and the eager runner's bound: a condition that never turns false
    fails clearly instead of hanging)."""
    max_steps = op.attrs.get("max_steps", DEFAULT_MAX_STEPS)
    return op.error("the loop ran %d steps and its condition %r is still true "
                    "(max_steps=%d): does the body update the condition?"
                    % (max_steps, op.input("Condition")[0], max_steps))


def check_condition_var(ctx, slot):
    """Build time: the condition is a bool variable with one element (when known)."""
    v = ctx.input_var(slot)
    ctx.expect(v.dtype is None or v.dtype.name == "bool",
               "condition %s %r: expected dtype bool, got %s" % (slot, v.name, v.dtype.name
                                                                 if v.dtype else None))
    shape = v.shape or ()
    ctx.expect(all(d in (1, -1) for d in shape),
               "condition %s %r: expected one element (shape [1]), got shape %s"
               % (slot, v.name, list(shape)))


def _recomputed_and_kept(fwd_block):
    """What a grad op recomputes of `fwd_block`: the ops that write only the block's own
    names. An op writing an outside name (the assigns that update loop variables or a
    cond's outputs, batch_norm's moving statistics, a nested control op that passes such
    a write on) is not rerun: that would replace a value the grad ops must read (the
    step's input) or update the statistics twice. Its own names' values are kept from the
    forward run instead (`kept`), as Paddle keeps the branch's scope."""
    local = set(fwd_block.vars)
    recompute, kept = [], set()
    for op in fwd_block.ops:
        if local.issuperset(op.output_arg_names):
            recompute.append(op)
        else:
            kept.update(n for n in op.output_arg_names if n in local)
    return recompute, kept


class _ControlOp(BlockOpDef):
    # backward.py builds the grad op (with its own sub-block), not the registry
    control_grad = True
    # the slots listing the enclosing blocks' names the sub-block reads and writes
    # (Program.clone(for_test=True) narrows them when it prunes the sub-block)
    io_slots = None

    def sub_block(self, op):
        return op.block.program.block(op.attrs["sub_block"])


@register
class ConditionalBlock(_ControlOp):
    """Runs block `sub_block` when the scalar `Cond` is true (is_scalar_condition), or
    when every `Cond` tensor has an element. Scope (Paddle's step scope) is named only."""
    type = "conditional_block"
    inputs = ("Cond*", "Input*?")
    outputs = ("Out*", "Scope?")
    attrs = {"sub_block": -1, "is_scalar_condition": True}
    no_grad = ("Cond",)
    grad_inputs = ("Cond*", "Input*", "Out*", "Out@GRAD*")
    io_slots = ("Input", "Out")

    def infer_shape(self, ctx):
        if ctx.attr("is_scalar_condition"):
            check_condition_var(ctx, "Cond")

    def bind_control(self, op, compile_ops):
        block = self.sub_block(op)
        _, kept = _recomputed_and_kept(block)
        body = compile_ops(block.ops, outer_names(block.ops, [block]) | kept)

        def run(env):
            if branch_taken(op, env):
                body.run(env)
        return run


@register
class While(_ControlOp):
    """Runs block `sub_block` while the scalar `Condition` is true; the block updates the
    condition. StepScopes (when named) receives, per step, the values of X and Out at the
    step's start and the locals that while_grad does not recompute (a nested loop's step
    records), and the values after the last step at the end (for while_grad)."""
    type = "while"
    inputs = ("X*?", "Condition")
    outputs = ("Out*", "StepScopes?")
    attrs = {"sub_block": -1, "is_test": False, "max_steps": DEFAULT_MAX_STEPS}
    no_grad = ("Condition",)
    grad_inputs = ("X*", "Out*", "Out@GRAD*", "StepScopes")
    io_slots = ("X", "Out")

    def infer_shape(self, ctx):
        check_condition_var(ctx, "Condition")

    def bind_control(self, op, compile_ops):
        block = self.sub_block(op)
        record_to = op.output("StepScopes")[0] if op.output("StepScopes") and \
            not op.attrs["is_test"] else None
        # the locals that ops not recomputed by while_grad make (a nested while's step
        # records): kept per step for the replay
        kept = tuple(_recomputed_and_kept(block)[1]) if record_to is not None else ()
        body = compile_ops(block.ops, outer_names(block.ops, [block]) | set(kept))
        cond = op.input("Condition")[0]
        max_steps = op.attrs["max_steps"]
        state = tuple(dict.fromkeys(op.input("X") + op.output("Out")))

        def run(env):
            steps = []
            while scalar_condition(op, env[cond], "Condition"):
                if len(steps) == max_steps:
                    raise step_limit_error(op)
                start = {n: env.get(n) for n in state}
                body.run(env)
                steps.append((start, {n: env.pop(n, None) for n in kept}))
            if record_to is not None:
                env[record_to] = (steps, {n: env.get(n) for n in state})
        return run


def _input_grad(grad, value):
    """An input's gradient as the grad op gives it: zeros when none came, and carrying the
    input's LoD, as every grad op gives X@GRAD X's (Paddle 1.8.5's DynamicRNN static input
    gradient has it)."""
    if grad is None:
        return zeros_like_value(value)
    lod = lod_of(value)
    return with_lod(grad, lod) if lod and np.shape(grad)[:1] == np.shape(value)[:1] else grad


def _restore(env, values):
    """Put recorded values back; a name that had no value then has none now."""
    for name, value in values.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value


class _SubBlockGrad(_ControlOp):
    """Shared by the grad ops: their sub-block (attr `sub_block`, the grad block, whose
    parent is the forward block) runs after the forward block's ops are recomputed. Attrs
    `out_grad_names` / `in_grad_names`: the grad block's names for each Out's gradient
    (which this op sets) and each input's gradient (which it reads back; "" = none)."""
    control_grad = False

    def compile_grad_block(self, op, compile_ops):
        grad_block = self.sub_block(op)
        fwd_block = grad_block.parent_block
        recompute, _ = _recomputed_and_kept(fwd_block)
        ops = recompute + list(grad_block.ops)
        keep = outer_names(ops, [fwd_block, grad_block])
        keep.update(n for n in op.attrs["in_grad_names"] if n)
        return compile_ops(ops, keep)

    @staticmethod
    def seed_out_grads(op, env, out_values, out_grads):
        """Put each Out's incoming gradient (zeros if none) under the grad block's name;
        none for an Out without a value yet (a tensor array the loop writes first)."""
        for name, value, grad in zip(op.attrs["out_grad_names"], out_values, out_grads):
            if grad is None and value is None:
                env.pop(name, None)
            else:
                env[name] = grad if grad is not None else zeros_like_value(value)


@register
class ConditionalBlockGrad(_SubBlockGrad):
    """Gradients of the Inputs of a conditional_block: the recomputed branch's grad ops
    when Cond is true; when the branch did not run, zeros, or the Out's gradient for an
    Input the branch writes in place."""
    type = "conditional_block_grad"
    inputs = ("Cond*", "Input*", "Out*", "Out@GRAD*?")
    outputs = ("Input@GRAD*?",)
    attrs = {"sub_block": -1, "is_scalar_condition": True, "out_grad_names": [],
             "in_grad_names": []}

    def infer_shape(self, ctx):
        pass

    def bind_control(self, op, compile_ops):
        body = self.compile_grad_block(op, compile_ops)
        inputs, outs = op.input("Input"), op.output("Input@GRAD")
        out_names, out_grads = op.input("Out"), op.input("Out@GRAD")
        in_grad_names = op.attrs["in_grad_names"]
        temporaries = [n for n in op.attrs["out_grad_names"] + in_grad_names if n]

        # an Input the branch also writes (an in-place loop on a variable outside it)
        # keeps its value when the branch does not run: its Out's gradient passes on
        unchanged = {x: out_grads[out_names.index(x)] for x in inputs
                     if x in out_names and out_grads}

        def run(env):
            taken = branch_taken(op, env)
            if taken:
                self.seed_out_grads(op, env, [env[n] for n in out_names],
                                    [env.get(n) for n in out_grads] if out_grads else
                                    [None] * len(out_names))
                body.run(env)
            for x, inner, target in zip(inputs, in_grad_names, outs):
                if target == "@EMPTY@":
                    continue
                if taken:
                    grad = env.get(inner) if inner else None
                else:
                    grad = env.get(unchanged[x]) if x in unchanged else None
                env[target] = _input_grad(grad, env[x])
            for n in temporaries:
                env.pop(n, None)
        return run


@register
class WhileGrad(_SubBlockGrad):
    """Gradients of a while op's X: replays the recorded steps in reverse, each step
    recomputing the body and running its grad ops. A variable the body both reads and
    writes (loop-carried) passes its gradient from one step to the one before; the
    gradients of the others (read only, e.g. weights) add up over the steps. One the body
    writes without reading has no gradient in the steps before (it was overwritten), or,
    as Paddle 1.8.5's and 2.0's while_grad (switch while_grad_keeps_unread_out_grads),
    keeps the later step's: so `x = i * i` in every step adds 2 i to i's gradient each
    step."""
    type = "while_grad"
    inputs = ("X*", "Out*", "Out@GRAD*?", "StepScopes")
    outputs = ("X@GRAD*?",)
    attrs = {"sub_block": -1, "out_grad_names": [], "in_grad_names": []}

    def infer_shape(self, ctx):
        pass

    def bind_control(self, op, compile_ops):
        body = self.compile_grad_block(op, compile_ops)
        xs, outs = op.input("X"), op.input("Out")
        out_grads = op.input("Out@GRAD") or [None] * len(outs)
        targets = op.output("X@GRAD")
        steps_name = op.input("StepScopes")[0]
        in_grad_names = op.attrs["in_grad_names"]
        temporaries = [n for n in op.attrs["out_grad_names"] + in_grad_names if n]
        carried = set(outs)
        # (and 3.x's legacy while_grad, FLAGS_enable_pir_api off: the revision's
        # test_while_loop_op expects it)
        if versions.switch("while_grad_keeps_unread_out_grads"):
            extended = carried
        else:
            # the body writes elements of a tensor array it does not read: the others keep
            # their gradient for the steps before
            extended = {o for o in outs if o not in xs and
                        op.block._find_var_recursive(o).type == "LOD_TENSOR_ARRAY"}

        def run(env):
            steps, final = env[steps_name]
            grad_of = {o: env.get(g) if g else None for o, g in zip(outs, out_grads)}
            summed = {}
            for start, made in reversed(steps):
                _restore(env, start)
                _restore(env, made)
                self.seed_out_grads(op, env, [env.get(o) for o in outs],
                                    [grad_of[o] for o in outs])
                body.run(env)
                for o in outs:     # an Out the body does not read: no gradient before
                    if o not in extended:
                        grad_of[o] = None
                for x, inner in zip(xs, in_grad_names):
                    grad = env.get(inner) if inner else None
                    if x in carried:
                        grad_of[x] = grad
                    elif grad is not None:   # added as the sum op adds (arrays by element)
                        summed[x] = Sum.forward([summed[x], grad]) if x in summed else grad
            _restore(env, final)
            for x, target in zip(xs, targets):
                if target == "@EMPTY@":
                    continue
                env[target] = _input_grad(grad_of.get(x) if x in carried else summed.get(x),
                                          env[x])
            for n in temporaries:
                env.pop(n, None)
        return run
