"""The IR and runtime core: Program/Block/Operator/Variable, dtypes, places, Scope."""
from . import dtypes, unique_name
from .program import (OpRole, Operator, Parameter, Program, Variable, Block,
                      default_main_program, default_startup_program, name_scope,
                      program_guard)
