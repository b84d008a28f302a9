"""paddle.pir_utils (Paddle 3): OldIrGuard, the legacy program IR for a block of code.

In refimpl, programs are one IR in every profile; under profile 3 the guard only turns
FLAGS_enable_pir_api off (elsewhere the flag does not exist and the guard does nothing), so that save_inference_model writes a ProgramDesc (.pdmodel)
where Paddle 3 writes a PIR json by default (versions switch inference_program_format).
"""
__all__ = ["OldIrGuard", "IrGuard", "DygraphPirGuard", "DygraphOldIrGuard", "pir_enabled"]

_FLAG = "FLAGS_enable_pir_api"


def _flags():
    from .fluid import flags     # fluid imports static, whose savers read pir_enabled
    return flags


def pir_enabled():
    """Whether inference programs are written as PIR json: profile 3 with the flag on."""
    from . import versions
    return versions.switch("inference_program_format") == "pir_json" and \
        _flags().globals_view()[_FLAG]


class OldIrGuard:
    """`with paddle.pir_utils.OldIrGuard():` FLAGS_enable_pir_api off inside (restored
    after, also on an exception)."""
    _inside = False

    def __enter__(self):
        view = _flags().globals_view()
        self._old, self._public = view[_FLAG], view.is_public(_FLAG)   # a Paddle 3 flag
        if self._public:
            _flags().set_flags({_FLAG: self._inside})
        return self

    def __exit__(self, *exc):
        if self._public:
            _flags().set_flags({_FLAG: self._old})
        return False


class DygraphPirGuard(OldIrGuard):
    """`with paddle.pir_utils.DygraphPirGuard():` FLAGS_enable_pir_api on inside (Paddle 3:
    dy2static builds PIR programs); restored after."""
    _inside = True


DygraphOldIrGuard = OldIrGuard     # Paddle 3.3.1's name of the same guard for dy2static


class IrGuard(DygraphPirGuard):
    """`with paddle.pir_utils.IrGuard():` static mode and FLAGS_enable_pir_api on inside
    (Paddle 3's PIR programs: here the one program IR, saved as PIR json), the mode and the
    flag restored after."""

    def __enter__(self):
        from .framework import mode
        self._was_dynamic = mode.in_dynamic_mode()
        if self._was_dynamic:
            mode.enable_static()
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self._was_dynamic:
            from .framework import mode
            mode.disable_static()
        return False
