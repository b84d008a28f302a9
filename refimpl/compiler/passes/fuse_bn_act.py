"""fuse_bn_act_ops: batch_norm followed by relu becomes fused_batch_norm_act (and
relu_grad followed by batch_norm_grad, fused_batch_norm_act_grad)."""
from .fuse_chain import fuse_chains

BN = {"batch_norm", "sync_batch_norm"}


def apply(program, protected, strategy):
    n = fuse_chains(program, [BN, {"relu"}], "fused_batch_norm_act", protected)
    n += fuse_chains(program, [{"relu_grad"}, {b + "_grad" for b in BN}],
                     "fused_batch_norm_act_grad", protected)
    return n
