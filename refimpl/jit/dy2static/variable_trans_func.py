"""Paddle 2.0's dygraph_to_static/variable_trans_func.py names (refimpl's own code):
data_layer_not_check, to_static_variable, create_fill_constant_node and
create_bool_as_type."""
import ast

from ...fluid import layers
from ...framework.program import Variable, default_main_program
from ...framework.dtypes import convert_dtype
from .convert_operators import constant_dtype, to_static_variable

__all__ = ["create_bool_as_type", "create_fill_constant_node", "data_layer_not_check",
           "to_static_variable"]


def data_layer_not_check(name, shape, dtype="float32", lod_level=0):
    """fluid.data whose fed values are not checked against its shape or dtype (None dims
    are -1), as 2.0's dy2static makes its placeholders."""
    shape = [-1 if d is None else int(d) for d in shape]
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=convert_dtype(dtype), lod_level=lod_level,
        stop_gradient=True, is_data=True, need_check_feed=False, persistable=False)


def create_fill_constant_node(name, value):
    """The statement `name = paddle.fluid.layers.fill_constant(shape=[1], dtype=...,
    value=value)` as an ast node (bool: 'bool', int: 'int64', float: 'float64'), None
    for another value."""
    dtype = constant_dtype(value)
    if dtype is None:
        return None
    call = "paddle.fluid.layers.fill_constant(shape=[1], dtype=%r, value=%r)" % (dtype, value)
    return ast.parse("%s = %s" % (name, call)).body[0]


def create_bool_as_type(x, value=True):
    """`value` as a bool constant Variable when x is a static Variable, else as bool."""
    if isinstance(x, Variable):
        return layers.fill_constant([1], "bool", value)
    return bool(value)
