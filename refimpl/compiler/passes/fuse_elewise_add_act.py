"""fuse_elewise_add_act_ops: elementwise_add followed by an activation becomes one
fused_elemwise_add_activation op, and the activation's grad followed by
elementwise_add_grad becomes fused_elemwise_add_activation_grad. add + relu uses the
single-pass compiled kernel (fused_elemwise_add_relu)."""
from .fuse_chain import fuse_chains

ACTIVATIONS = {"relu", "sigmoid", "tanh", "scale", "gelu", "leaky_relu", "relu6", "elu",
               "swish", "softplus", "hard_sigmoid", "hard_swish"}


def _pick(members):
    return "fused_elemwise_add_relu" if [m.type for m in members] == \
        ["elementwise_add", "relu"] else None


def apply(program, protected, strategy):
    n = fuse_chains(program, [{"elementwise_add"}, ACTIVATIONS],
                    "fused_elemwise_add_activation", protected, _pick)
    n += fuse_chains(program, [{a + "_grad" for a in ACTIVATIONS}, {"elementwise_add_grad"}],
                     "fused_elemwise_add_activation_grad", protected)
    return n
