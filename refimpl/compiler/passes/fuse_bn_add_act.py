"""fuse_bn_add_act_ops: batch_norm, then elementwise_add (a residual), then relu become
fused_bn_add_activation; the three grads in reverse, fused_bn_add_activation_grad."""
from .fuse_bn_act import BN
from .fuse_chain import fuse_chains


def apply(program, protected, strategy):
    n = fuse_chains(program, [BN, {"elementwise_add"}, {"relu"}], "fused_bn_add_activation",
                    protected)
    n += fuse_chains(program, [{"relu_grad"}, {"elementwise_add_grad"},
                               {b + "_grad" for b in BN}],
                     "fused_bn_add_activation_grad", protected)
    return n
