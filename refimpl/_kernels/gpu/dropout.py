"""dropout's training masking in one element-wise pass, forward and backward:
mask ? x / divisor : 0 (the reference's divide, uint8-to-bool cast and where are three
launches). The mask is the reference's own draw (on the host, the same stream as on the
CPU, then copied over), so the GPU drops the same elements as the CPU and the results are
the reference's to the bit. A factory (the table's falls_back): given the reference once,
it runs it with this masking."""
from .source import elementwise

__all__ = ["with_fused_mask"]

# the reference's masking(values, mask, divisor)
_MASKED = elementwise("T x, uint8 mask, T divisor", "T out",
                      "out = mask ? x / divisor : (T)0", "refimpl_dropout_mask")


def with_fused_mask(reference):
    """The dropout reference (forward or backward) masking with the fused kernel."""
    def run(*args, **attrs):
        return reference(*args, masking=_MASKED, **attrs)
    run.__wrapped__ = reference
    return run
