"""Fused ops made by the BuildStrategy fusion passes (refimpl/compiler/passes/fuse_chain.py).

A fused op runs a short chain of ops as one: inputs X* and outputs Out* are the chain's
external values; the chain's intermediates live only inside the kernel and never reach the
scope. `sub_ops` holds the chain as (type, inputs, outputs, attrs) descriptions; the
kernel runs each member's kernel in order on a private dict. Hot chains have compiled
kernels (elementwise_add + relu: one pass over the data, refimpl/_kernels/fused.pyx).
"""
import numpy as np

from ..framework.program import EMPTY_VAR_NAME
from .binding import bind_kernel
from .registry import OpDef, Sample, get_op_def, is_duplicable, register

FUSED_TYPES = ("fused_elemwise_add_activation", "fused_elemwise_add_activation_grad",
               "fused_batch_norm_act", "fused_batch_norm_act_grad",
               "fused_bn_add_activation", "fused_bn_add_activation_grad",
               "fused_relu_depthwise_conv", "fused_relu_depthwise_conv_grad")

_bound = {}   # id(sub_ops) -> (sub_ops, [run(env) per member]): the chain bound once


def _bind(sub_ops, in_place=()):
    """Each member's kernel bound to its names (as the executor binds an op), so a fused op
    costs one dispatch plus a closure call per member. Members whose index is in
    `in_place` write into their first input (see _in_place_members)."""
    steps = []
    for i, (op_type, inputs, outputs, attrs) in enumerate(sub_ops):
        op_def = get_op_def(op_type)
        kwargs = {k: attrs[k] for k in op_def.attrs if k in attrs}
        fn = op_def.kernel("forward", attrs, None)
        if i in in_place:
            fn = _into_first_input_if_owned(op_def.forward_inplace, fn)
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
    for i, (op_type, inputs, outputs, _) in enumerate(sub_ops):
        op_def = get_op_def(op_type)
        first = inputs.get(op_def.input_slots[0], [])
        if hasattr(op_def, "forward_inplace") and not is_duplicable(op_def.inputs[0]) and \
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


def run_chain(xs, sub_ops, input_names, output_names):
    """Run the chain on a private dict seeded with the inputs; return the outputs."""
    entry = _bound.get(id(sub_ops))
    if entry is None or entry[0] is not sub_ops:
        entry = _bound[id(sub_ops)] = (sub_ops, _bind(sub_ops))
    env = dict(zip(input_names, xs))
    for step in entry[1]:
        step(env)
    return [env[n] for n in output_names]


def _names_are_the_chains(op):
    """Whether the op's X* and Out* are the variables its sub_ops name (as the fusion pass
    makes them), so the members can run on the plan's dict under those names."""
    return op.input("X") == list(op.attrs["input_names"]) and \
        op.output("Out") == list(op.attrs["output_names"])


class Fused(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)
    attrs = {"sub_ops": [], "functor_list": [], "input_names": [], "output_names": []}

    def infer_shape(self, ctx):
        pass   # the outputs are the chain's own variables, already shaped

    @staticmethod
    def forward(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
        return run_chain(xs, sub_ops, input_names, output_names)

    @staticmethod
    def bind_direct(op):
        """For the executor: the members bound straight onto the plan's dict, where their
        variables have the same names, so the fused op costs its members' kernels and
        nothing more (no private dict, no packing of X* and Out*); a member whose input is
        private to the chain writes into it. The chain's intermediates are dropped as soon
        as the chain ends. None when the op's variables are not the chain's own (a bare op
        built by hand)."""
        if not _names_are_the_chains(op):
            return None
        attrs = op.attrs
        made = {n for _, _, outputs, _ in attrs["sub_ops"] for names in outputs.values()
                for n in names}
        intermediates = tuple(made - set(attrs["output_names"]) - {EMPTY_VAR_NAME})
        steps = _bind(attrs["sub_ops"], _in_place_members(attrs["sub_ops"],
                                                          attrs["output_names"]))

        def run(env):
            for step in steps:
                step(env)
            for n in intermediates:
                env.pop(n, None)
        return run


for _type in FUSED_TYPES:
    register(type("".join(p.title() for p in _type.split("_")), (Fused,), {"type": _type}))


def _add_relu_sample(rng, rows, cols, grad):
    """A bias + relu chain (or its grad chain); sub_ops name the values, input_names maps
    X* to those names."""
    x, b = rng.randn(rows, cols), rng.randn(cols)
    if not grad:
        add = ("elementwise_add", {"X": ["x"], "Y": ["b"]}, {"Out": ["pre"]}, {"axis": 1})
        relu = ("relu", {"X": ["pre"]}, {"Out": ["out"]}, {})
        return Sample({"X": [x, b]}, {"sub_ops": [add, relu], "input_names": ["x", "b"],
                                      "output_names": ["out"]}, grad=False)
    out = np.maximum(x + b, 0)
    relu_grad = ("relu_grad", {"Out": ["out"], "Out@GRAD": ["dout"]}, {"X@GRAD": ["dpre"]},
                 {})
    add_grad = ("elementwise_add_grad", {"X": ["x"], "Y": ["b"], "Out@GRAD": ["dpre"]},
                {"X@GRAD": ["dx"], "Y@GRAD": ["db"]}, {"axis": 1})
    names = ["out", "dout", "x", "b"]
    return Sample({"X": [out, rng.randn(rows, cols), x, b]},
                  {"sub_ops": [relu_grad, add_grad], "input_names": names,
                   "output_names": ["dx", "db"]}, grad=False)


@register
class FusedAddRelu(Fused):
    """The elementwise_add + relu chain with its single-pass kernel (bias + ReLU epilogue).
    The fusion pass picks it for a 2-D X plus a bias on its last axis."""
    type = "fused_elemwise_add_relu"
    kernels = {"forward": "fused:add_relu"}

    @staticmethod
    def forward_inplace(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
        """enable_inplace: X (the first input) is dead after this op; write into it."""
        x, b = xs   # the chain's inputs: elementwise_add's X, then its Y
        np.add(x, b, out=x)
        return [np.maximum(x, 0, out=x)]

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")   # the pass made Out already; this serves a bare op

    def samples(self, rng):
        yield _add_relu_sample(rng, 4, 5, grad=False)


@register
class FusedAddReluGrad(Fused):
    """relu_grad then elementwise_add_grad of that chain, reading relu's Out where the add's
    grad read X (see passes/fuse_elewise_add_act.py); runs the member kernels (Fused's
    bind_direct), so its results are those of the unfused grad ops bit for bit."""
    type = "fused_elemwise_add_relu_grad"

    def infer_shape(self, ctx):
        """Each gradient has the shape of what it differentiates: relu's Out, add's X, Y."""
        (_, relu_in, relu_out, _), (_, add_in, add_out, _) = ctx.attr("sub_ops")
        like = {}
        for outs, slot, source in ((relu_out, "X@GRAD", relu_in["Out"]),
                                   (add_out, "X@GRAD", add_in["X"]),
                                   (add_out, "Y@GRAD", add_in["Y"])):
            if outs.get(slot):
                like[outs[slot][0]] = source[0]
        inputs = list(ctx.attr("input_names"))
        for i, name in enumerate(ctx.attr("output_names")):
            v = ctx.input_var("X", inputs.index(like[name]))
            ctx.set_output("Out", v.shape, v.dtype, i=i)

    def samples(self, rng):
        yield _add_relu_sample(rng, 6, 3, grad=True)


# Slots of the update ops whose variables the engine coalesces into one flat buffer per
# slot, so fused_optimizer can update every parameter with one kernel call.
COALESCED_SLOTS = {"sgd": ("Param",), "momentum": ("Param", "Velocity")}


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
    velocities) are views of one flat buffer each (refimpl/parallel/engine.py coalesces
    them), the gradients are copied into a flat buffer kept for the next step. Elementwise
    kernels make this bit-identical to the member updates."""

    def __init__(self, sub_ops):
        op_type, _, _, attrs = sub_ops[0]
        self.op_def = get_op_def(op_type)
        self.coalesced = COALESCED_SLOTS[op_type]
        self.names = {slot: [sub[1][slot][0] for sub in sub_ops]
                      for slot in self.op_def.input_slots}
        self.attrs = {k: attrs[k] for k in self.op_def.attrs if k in attrs}
        self.kernel = None
        self.grad = None
        self.verified = ([], {})   # (arrays last found coalesced, their flat buffers)

    @staticmethod
    def applies(sub_ops):
        """One optimizer type that the engine coalesces, one learning rate, equal attrs."""
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
            self.kernel = self.op_def.kernel("forward", self.attrs, param.dtype.name)
        np.concatenate([env[n].reshape(-1) for n in self.names["Grad"]], out=self.grad)
        args = [bases[slot] if slot in bases else self.grad if slot == "Grad"
                else env[self.names[slot][0]] for slot in self.op_def.input_slots]
        self.kernel(*args, **self.attrs)
        return True


@register
class FusedOptimizer(Fused):
    """All updates of one optimizer in one op. When the engine has coalesced the parameters
    (and momentum's velocities) into one flat buffer each, sgd and momentum update them with
    one kernel call (_FlatUpdate); otherwise each member's update runs in turn."""
    type = "fused_optimizer"

    @staticmethod
    def bind_direct(op):
        members = Fused.bind_direct(op)
        if members is None or not _FlatUpdate.applies(op.attrs["sub_ops"]):
            return members
        flat_update = _FlatUpdate(op.attrs["sub_ops"])

        def run(env):
            if not flat_update(env):
                members(env)
        return run
