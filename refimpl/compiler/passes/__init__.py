"""BuildStrategy graph passes: small rewrites of a cloned Program, one per module.

`apply_passes(program, build_strategy, protected)` returns a rewritten clone (the user's
Program is never modified). `protected` names variables that must survive every rewrite
(fetch targets, the loss). Each pass is `apply(program, protected, build_strategy) ->
number of rewrites`,
registered below against the BuildStrategy flag that turns it on.
"""
from . import (fuse_bn_act, fuse_bn_add_act, fuse_elewise_add_act, fuse_optimizer,
               fuse_relu_depthwise_conv, graphviz)

__all__ = ["apply_passes", "PASSES"]

# (BuildStrategy attributes that turn it on, pass module); order matters.
PASSES = [
    (("fuse_bn_add_act_ops",), fuse_bn_add_act),     # before bn+act, which would take its relu
    (("fuse_bn_act_ops",), fuse_bn_act),
    # enable_auto_fusion: Paddle generates fused kernels for elementwise chains (GPU);
    # refimpl's elementwise fusion is this pass
    (("fuse_elewise_add_act_ops", "enable_auto_fusion"), fuse_elewise_add_act),
    (("fuse_relu_depthwise_conv",), fuse_relu_depthwise_conv),
    (("fuse_all_optimizer_ops",), fuse_optimizer),
]


def apply_passes(program, build_strategy, protected=()):
    """A clone of `program` with every enabled pass applied; the graph is written to
    `debug_graphviz_path` when set."""
    if build_strategy is None:
        return program
    rewritten = program.clone()
    rewritten._pass_stats = {}
    for flags, module in PASSES:
        if any(getattr(build_strategy, flag) for flag in flags):
            rewritten._pass_stats[module.__name__.rsplit(".", 1)[-1]] = \
                module.apply(rewritten, set(protected), build_strategy)
    if build_strategy.debug_graphviz_path:
        graphviz.write(rewritten, build_strategy.debug_graphviz_path)
    return rewritten
