"""Fused ops made by the BuildStrategy fusion passes (refimpl/compiler/passes/fuse_chain.py).

A fused op runs a short chain of ops as one: inputs X* and outputs Out* are the chain's
external values; the chain's intermediates live only inside the kernel and never reach the
scope. `sub_ops` holds the chain as (type, inputs, outputs, attrs) descriptions; the
kernel runs each member's kernel in order on a private dict. Hot chains have compiled
kernels (elementwise_add + relu: one pass over the data, refimpl/_kernels/fused.pyx).
"""
import numpy as np

from .registry import OpDef, Sample, get_op_def, is_duplicable, register, slot_name

FUSED_TYPES = ("fused_elemwise_add_activation", "fused_elemwise_add_activation_grad",
               "fused_batch_norm_act", "fused_batch_norm_act_grad",
               "fused_bn_add_activation", "fused_bn_add_activation_grad",
               "fused_relu_depthwise_conv", "fused_relu_depthwise_conv_grad")

# Slots of the update ops whose variables the engine coalesces into one flat buffer per
# slot, so fused_optimizer can update every parameter with one vector operation.
COALESCED_SLOTS = {"sgd": ("Param",), "momentum": ("Param", "Velocity")}


_bound = {}   # id(sub_ops) -> (sub_ops, steps): the chain bound once, like a Plan


def _bind(sub_ops):
    steps = []
    for op_type, inputs, outputs, attrs in sub_ops:
        op_def = get_op_def(op_type)
        args = [(is_duplicable(s), inputs.get(slot_name(s), [])) for s in op_def.inputs]
        outs = [(is_duplicable(s), outputs.get(slot_name(s), [])) for s in op_def.outputs]
        kwargs = {k: attrs[k] for k in op_def.attrs if k in attrs}
        steps.append((op_def.kernel("forward", attrs, None), args, outs, kwargs,
                      len(op_def.outputs) == 1))
    return steps


def run_chain(xs, sub_ops, input_names, output_names):
    """Run the chain on a private dict seeded with the inputs; return the outputs."""
    entry = _bound.get(id(sub_ops))
    if entry is None or entry[0] is not sub_ops:
        entry = _bound[id(sub_ops)] = (sub_ops, _bind(sub_ops))
    env = dict(zip(input_names, xs))
    for fn, args, outs, kwargs, single in entry[1]:
        result = fn(*[[env[n] for n in names] if dup else (env[names[0]] if names else None)
                      for dup, names in args], **kwargs)
        if single:
            result = (result,)
        for (dup, names), value in zip(outs, result):
            if value is None:
                continue
            if dup:
                env.update((n, v) for n, v in zip(names, value) if n != "@EMPTY@")
            elif names:
                env[names[0]] = value
    return [env[n] for n in output_names]


class Fused(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)
    attrs = {"sub_ops": [], "functor_list": [], "input_names": [], "output_names": []}

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
    grad read X (see passes/fuse_elewise_add_act.py); runs the member kernels."""
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


@register
class FusedOptimizer(Fused):
    """All updates of one optimizer in one op. When the engine has coalesced the parameters
    (and momentum's velocities) into one flat buffer each, sgd and momentum update them with
    one vector operation over the buffer; otherwise each member update runs in turn."""
    type = "fused_optimizer"

    @staticmethod
    def forward(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
        done = _flat_update(xs, sub_ops, input_names, output_names)
        return done if done is not None else run_chain(xs, sub_ops, input_names, output_names)


def _flat_update(xs, sub_ops, input_names, output_names):
    op_type = sub_ops[0][0]
    if op_type not in COALESCED_SLOTS or len({op[1]["LearningRate"][0] for op in sub_ops}) != 1:
        return None
    value = dict(zip(input_names, xs))
    group = {slot: [value[op[1][slot][0]] for op in sub_ops] for slot in COALESCED_SLOTS[op_type]}
    bases = {slot: flat_base(arrays) for slot, arrays in group.items()}
    if any(b is None for b in bases.values()):
        return None
    grad = np.concatenate([value[op[1]["Grad"][0]].reshape(-1) for op in sub_ops])
    param = bases["Param"]
    lr = param.dtype.type(value[sub_ops[0][1]["LearningRate"][0]].reshape(-1)[0])
    if op_type == "sgd":
        param -= lr * grad
    else:
        attrs = sub_ops[0][3]
        if any(op[3] != attrs for op in sub_ops) or attrs.get("regularization_method"):
            return None
        mu = param.dtype.type(attrs.get("mu", 0.9))
        velocity = bases["Velocity"]
        velocity *= mu
        velocity += grad
        param -= lr * (grad + mu * velocity if attrs.get("use_nesterov") else velocity)
    return [value[n] for n in output_names]
