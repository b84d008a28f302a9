"""paddle.decomposition (Paddle 3): decompose(), which rewrites a PIR program's ops into
primitive ops. refimpl's programs are not PIR programs (in_pir_mode() is False) and it has
no decomposition rules; Paddle 3's callers only decompose under in_pir_mode()."""
__all__ = ["decompose"]


def decompose(program, src_vars, blacklist=frozenset(), whitelist=frozenset(),
              start_index=0, end_index=-1):
    raise NotImplementedError(
        "paddle.decomposition.decompose: refimpl has no PIR programs (in_pir_mode() is "
        "False) and no decomposition rules; decompose a program only under in_pir_mode()")
