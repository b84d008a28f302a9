"""paddle.fluid.framework"""
from ..framework.program import (OpRole, Operator, Parameter, Program, Variable, Block,
                                 default_main_program, default_startup_program, name_scope,
                                 program_guard, switch_main_program, switch_startup_program,
                                 grad_var_name)

__all__ = ["OpRole", "Operator", "Parameter", "Program", "Variable", "Block",
           "default_main_program", "default_startup_program", "name_scope", "program_guard",
           "switch_main_program", "switch_startup_program", "grad_var_name"]
