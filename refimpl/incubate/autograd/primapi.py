"""paddle.incubate.autograd.primapi (Paddle 3): to_prim(), the decomposition of a legacy
program's ops into primitive ops, done only while core._is_fwd_prim_enabled(). refimpl
has no decomposition rules and that switch stays off (fluid.core), so to_prim() leaves
the blocks as they are, Paddle's own behaviour with the switch off."""
__all__ = ["to_prim"]


def to_prim(blocks, blacklist=frozenset(), whitelist=frozenset(), start_idx=-1,
            backward_length=-1):
    """Decomposes nothing: the prim switch is off (core._is_fwd_prim_enabled())."""
