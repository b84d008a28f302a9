"""fluid.transpiler.details (Paddle 1.8): the program helpers user code imports."""
from . import program_utils
from .program_utils import (block_to_code, delete_ops, find_op_by_input_arg,
                            find_op_by_output_arg, op_to_code, program_to_code,
                            variable_to_code)

__all__ = ["program_utils", "delete_ops", "find_op_by_input_arg", "find_op_by_output_arg",
           "variable_to_code", "op_to_code", "block_to_code", "program_to_code"]
