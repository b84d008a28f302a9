"""Fused ops made by the BuildStrategy fusion passes (refimpl/compiler/passes/fuse_chain.py).

A fused op runs a short chain of ops as one: inputs X* and outputs Out* are the chain's
external values; the chain's intermediates never reach the scope. `sub_ops` holds the
chain as (type, inputs, outputs, attrs) descriptions; the reference runs each member's
reference in order on a private dict. The executor binds the members' kernels straight onto
its own dict (refimpl/executor/direct.py); hot chains have compiled kernels (elementwise_add
+ relu: one pass over the data, refimpl/_kernels/fused.pyx).
"""
import numpy as np

from ..framework.program import EMPTY_VAR_NAME
from .registry import (LoDRule, OpDef, Sample, get_op_def, is_duplicable, kernel_attrs,
                       register, slot_name)

__all__ = ["FUSED_TYPES", "CHAIN_TYPES", "run_op"]

FUSED_TYPES = ("fused_elemwise_add_activation", "fused_elemwise_add_activation_grad",
               "fused_batch_norm_act", "fused_batch_norm_act_grad",
               "fused_bn_add_activation", "fused_bn_add_activation_grad",
               "fused_relu_depthwise_conv", "fused_relu_depthwise_conv_grad")
# every op that runs a chain of members (the executor binds their members directly)
CHAIN_TYPES = FUSED_TYPES + ("fused_elemwise_add_relu", "fused_elemwise_add_relu_grad",
                             "fused_optimizer")


def run_op(op_type, inputs, outputs, attrs, env):
    """Run op `op_type`'s reference on the dict `env`: its inputs are read from env under
    the names `inputs` gives per slot, its results stored under the names of `outputs`."""
    op_def = get_op_def(op_type)
    args = []
    for s in op_def.inputs:
        names = inputs.get(slot_name(s), [])
        if is_duplicable(s):
            args.append([env[n] for n in names])
        else:
            args.append(env[names[0]] if names else None)
    result = op_def.forward(*args, **kernel_attrs(op_def, attrs))
    if len(op_def.outputs) == 1:
        result = (result,)
    for s, value in zip(op_def.outputs, result):
        names = outputs.get(slot_name(s), [])
        if value is None or not names:
            continue
        for name, v in (zip(names, value) if is_duplicable(s) else [(names[0], value)]):
            if name != EMPTY_VAR_NAME:
                env[name] = v


def run_chain(xs, sub_ops, input_names, output_names):
    """Run the chain's members in order on a dict seeded with the inputs; the outputs."""
    env = dict(zip(input_names, xs))
    for op_type, inputs, outputs, attrs in sub_ops:
        run_op(op_type, inputs, outputs, attrs, env)
    return [env[n] for n in output_names]


def _chain_lod(lods, values, attrs):
    """Each output's LoD: the chain's members' LoD rules applied in order to the inputs'
    LoD (fused chains hold ops whose rules read no results: share or none)."""
    known = dict(zip(attrs["input_names"], lods.get("X", [])))
    for op_type, inputs, outputs, op_attrs in attrs["sub_ops"]:
        op_def = get_op_def(op_type)
        member = {slot: [known.get(n, ()) for n in names] if is_duplicable(s) else
                  known.get(names[0], ()) for s in op_def.inputs
                  for slot, names in [(slot_name(s), inputs.get(slot_name(s), []))] if names}
        for slot, rule in op_def.lod_outputs.items():
            if rule.reads is None:
                lod = rule.lod(member, {}, dict(op_def.attrs, **op_attrs))
                for n, one in zip(outputs.get(slot, ()), lod if isinstance(lod, list)
                                  else [lod] * len(outputs.get(slot, ()))):
                    known[n] = one
    return [known.get(n, ()) for n in attrs["output_names"]]


class Fused(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)
    attrs = {"sub_ops": [], "functor_list": [], "input_names": [], "output_names": []}
    # the members' rules: a fused chain's outputs carry the LoD the unfused ops' would
    lod_outputs = {"Out": LoDRule(_chain_lod, lambda levels: max(levels.get("X") or [0]))}

    def infer_shape(self, ctx):
        pass   # the outputs are the chain's own variables, already shaped

    @staticmethod
    def forward(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
        return run_chain(xs, sub_ops, input_names, output_names)


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

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")   # the pass made Out already; this serves a bare op

    def samples(self, rng):
        yield _add_relu_sample(rng, 4, 5, grad=False)


@register
class FusedAddReluGrad(Fused):
    """relu_grad then elementwise_add_grad of that chain, reading relu's Out where the add's
    grad read X (see passes/fuse_elewise_add_act.py); runs the members, so its results are
    those of the unfused grad ops bit for bit."""
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


@register
class FusedOptimizer(Fused):
    """All updates of one optimizer in one op: each member's update in turn. (Where the
    parameters, and momentum's velocities, are coalesced into one flat buffer each, the
    executor updates them with one kernel call: refimpl/executor/direct.py.)"""
    type = "fused_optimizer"
