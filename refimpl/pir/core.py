"""paddle.pir.core (Paddle 3): the default programs and program_guard of its program IR,
here the static API's (refimpl's one IR)."""
from ..framework.program import default_main_program, default_startup_program, program_guard

__all__ = ["default_main_program", "default_startup_program", "program_guard"]
