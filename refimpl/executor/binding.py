"""Binding a kernel to variable names: `bind_kernel(...)` returns a closure `run(env)` that
reads the op's inputs from the dict `env`, calls the kernel and stores its outputs. The
executor binds every op of a Plan this way, and fused ops' members the same way, so
neither pays for generic argument handling per call. `op_kernel(op, which)` is the kernel
an op of a program runs (refimpl.dispatch.select_kernel for its type, attrs and dtype)."""
from ..dispatch import is_collective, select_kernel
from ..framework.program import EMPTY_VAR_NAME
from ..ops.registry import is_duplicable, is_optional, slot_name

__all__ = ["bind_kernel", "op_kernel", "main_dtype", "describe_op", "talks_to_places"]


def describe_op(op):
    """'c_allreduce_sum(X=[fc_0.w_0@GRAD])': the op's type and inputs, for messages."""
    slots = ", ".join("%s=[%s]" % (slot, ", ".join(names))
                      for slot, names in op.inputs.items() if names)
    return "%s(%s)" % (op.type, slots)


def talks_to_places(op):
    """Whether running `op` talks to the other places (a fused op may hold such a member):
    every place must run these ops in the same order."""
    return is_collective(op.type) or any(is_collective(t)
                                         for t in op.attrs.get("functor_list", ()))


def main_dtype(op):
    """dtype name of the op's first complex input, else its first floating-point input,
    else its first input (what compiled kernels specialize on: softmax_with_cross_entropy_
    grad's first input is the int64 Label, and its kernel computes in the logits' float
    dtype; a float X with a complex Y (elementwise ops) computes in complex)."""
    first = floating = None
    for names in op.inputs.values():
        for n in names:
            v = op.block._find_var_recursive(n)
            if v is not None and v.dtype is not None:
                if v.dtype.name.startswith("complex"):
                    return v.dtype.name
                if v.dtype.name.startswith("float"):
                    floating = floating or v.dtype.name
                first = first or v.dtype.name
    return floating or first


def op_kernel(op, which="forward", device="cpu"):
    """The Kernel that runs `op` (an Operator) on `device` ("cpu" or "gpu"): `which` is
    "forward", "out" (into alloc's buffers) or "inplace" (into its first input); a grad op
    runs its forward type's backward. None when the op has no such variant."""
    fwd = getattr(op.op_def, "fwd", None)
    op_type, kind = (fwd.type, "backward") if fwd is not None else (op.type, "forward")
    if which == "out":
        kind += "_out"
    elif which == "inplace":
        if fwd is not None:
            return None
        kind = "forward_inplace"
    return select_kernel(op_type, kind, op.attrs, main_dtype(op), device)


def bind_kernel(fn, op_def, inputs, outputs, attrs):
    """`fn` (a kernel of `op_def`) called on `env[...]` for `inputs` ({slot: [names]}),
    results stored under `outputs` ({slot: [names]}); `attrs` passed as keywords."""
    args = []  # per input slot: a name, a tuple of names (duplicable), or None
    for s in op_def.inputs:
        names = inputs.get(slot_name(s), [])
        args.append(tuple(names) if is_duplicable(s) else (names[0] if names else None))
    outs = []  # (position in the kernel's result, name or tuple of names)
    for i, s in enumerate(op_def.outputs):
        names = outputs.get(slot_name(s), [])
        if names:
            outs.append((i, tuple(names) if is_duplicable(s) else names[0]))
    n_results = len(op_def.outputs)
    # an optional input bound to a variable an earlier op left unset (sequence_pool's
    # MaxIndex outside MAX pooling) reads as absent, as Paddle's dispensable inputs
    optional = {i for i, s in enumerate(op_def.inputs) if is_optional(s) and
                isinstance(args[i], str)}

    if n_results == 1 and len(outs) == 1 and isinstance(outs[0][1], str) \
            and all(isinstance(a, str) for a in args) and not optional:
        # The common case: single-variable inputs, one output. Specialized to keep
        # per-op overhead at a function call and a few dict operations.
        out = outs[0][1]
        names = tuple(args)
        if len(names) == 1:
            a, = names
            if attrs:
                def run(env):
                    env[out] = fn(env[a], **attrs)
            else:
                def run(env):
                    env[out] = fn(env[a])
        elif len(names) == 2:
            a, b = names
            if attrs:
                def run(env):
                    env[out] = fn(env[a], env[b], **attrs)
            else:
                def run(env):
                    env[out] = fn(env[a], env[b])
        else:
            def run(env):
                env[out] = fn(*[env[n] for n in names], **attrs)
        return run

    def fetch_arg(env, i, a):
        if a is None:
            return None
        if isinstance(a, tuple):
            return [env[n] for n in a]
        return env.get(a) if i in optional else env[a]

    def run(env):
        result = fn(*[fetch_arg(env, i, a) for i, a in enumerate(args)], **attrs)
        if n_results == 1:
            result = (result,)
        for i, target in outs:
            value = result[i]
            if value is None:
                continue
            if isinstance(target, tuple):
                for name, v in zip(target, value):
                    if name != EMPTY_VAR_NAME:
                        env[name] = v
            else:
                env[target] = value
    return run
