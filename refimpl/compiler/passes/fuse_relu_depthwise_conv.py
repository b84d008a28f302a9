"""fuse_relu_depthwise_conv: relu feeding a depthwise_conv2d becomes
fused_relu_depthwise_conv (depthwise_conv2d_grad then relu_grad, its grad). The seed calls
this a GPU-only saving of memory; on the CPU the result is identical and the relu output
no longer reaches the scope."""
from .fuse_chain import fuse_chains


def apply(program, protected, strategy):
    n = fuse_chains(program, [{"relu"}, {"depthwise_conv2d"}], "fused_relu_depthwise_conv",
                    protected)
    n += fuse_chains(program, [{"depthwise_conv2d_grad"}, {"relu_grad"}],
                     "fused_relu_depthwise_conv_grad", protected)
    return n
