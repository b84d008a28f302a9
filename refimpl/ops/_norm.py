"""Shared pieces of the per-channel normalizations (group_norm, instance_norm): the
optional Scale / Bias of C elements."""
from ._common import numel


def check_channel_params(ctx, x, channels):
    """Scale and Bias, where given and C is known, must have C elements."""
    for slot in ("Scale", "Bias"):
        v = ctx.input_var(slot)
        if v is not None and channels >= 0:
            ctx.expect(numel(v.shape) == channels, "%s %r %s must have C=%d elements (X %r %s)"
                       % (slot, v.name, list(v.shape), channels, x.name, list(x.shape)))


def per_channel(v, x):
    """Scale or Bias viewed to broadcast over channels-first x; 1 when absent."""
    return 1 if v is None else v.reshape((1, -1) + (1,) * (x.ndim - 2))
