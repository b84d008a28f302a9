"""fuse_elewise_add_act_ops: elementwise_add followed by an activation becomes one
fused_elemwise_add_activation op, and the activation's grad followed by
elementwise_add_grad becomes fused_elemwise_add_activation_grad. A bias add + relu (the fc
epilogue) becomes fused_elemwise_add_relu (a one-pass compiled kernel) and
fused_elemwise_add_relu_grad."""
from .fuse_chain import fuse_chains

ACTIVATIONS = {"relu", "sigmoid", "tanh", "scale", "gelu", "leaky_relu", "relu6", "elu",
               "swish", "softplus", "hard_sigmoid", "hard_swish"}


def _is_bias_add(add):
    """X is 2-D, Y a bias of X's dtype along its last axis: the compiled kernel's layout."""
    x = add.block._find_var_recursive(add.input("X")[0])
    y = add.block._find_var_recursive(add.input("Y")[0])
    return (x.shape is not None and y.shape is not None and len(x.shape) == 2
            and len(y.shape) == 1 and add.attrs.get("axis", -1) in (-1, 1)
            and x.shape[1] == y.shape[0] and x.dtype == y.dtype)


def _pick_forward(members):
    add, act = members
    return "fused_elemwise_add_relu" if act.type == "relu" and _is_bias_add(add) else None


def _pick_backward(members):
    act_grad, add_grad = members
    return "fused_elemwise_add_relu_grad" if act_grad.type == "relu_grad" and \
        _is_bias_add(add_grad) else None


def _read_out_instead_of_x(op):
    """The bias + relu grad reads add's X only for its shape, which relu's Out (an input
    already) has too. Reading Out instead lets X, the mul output, die at the forward op,
    where enable_inplace then writes the activation into its buffer."""
    (_, relu_in, _, _), (_, add_in, _, _) = op.attr("sub_ops")
    x, out = add_in["X"][0], relu_in["Out"][0]
    if x != out:
        add_in["X"] = [out]
        names = [n for n in op.attr("input_names") if n != x]
        op._set_attr("input_names", names)
        op.inputs["X"][:] = names


def apply(program, protected, strategy):
    n = fuse_chains(program, [{"elementwise_add"}, ACTIVATIONS],
                    "fused_elemwise_add_activation", protected, _pick_forward)
    n += fuse_chains(program, [{a + "_grad" for a in ACTIVATIONS}, {"elementwise_add_grad"}],
                     "fused_elemwise_add_activation_grad", protected, _pick_backward)
    for op in program.global_block().ops:
        if op.type == "fused_elemwise_add_relu_grad":
            _read_out_instead_of_x(op)
    return n
