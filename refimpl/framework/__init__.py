"""The IR and runtime core: Program/Block/Operator/Variable, dtypes, places, Scope.
It is also `paddle.framework`, whose public names Paddle's 2.x code and tests use from
here (paddle.framework.set_default_dtype, seed, ParamAttr, CPUPlace, ...: those this part
owns)."""
from . import dtypes, unique_name
from .dtypes import get_default_dtype, set_default_dtype
from .param_attr import ParamAttr
from .place import CPUPlace, CUDAPinnedPlace, CUDAPlace
from .program import (OpRole, Operator, Parameter, Program, Variable, Block,
                      default_main_program, default_startup_program, name_scope,
                      program_guard)
from .random import seed_all as seed
from .mode import in_dynamic_mode, in_dynamic_or_pir_mode, in_pir_mode   # paddle.framework names (2.1+, 3)
