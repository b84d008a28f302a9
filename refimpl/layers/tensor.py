"""Shape, indexing and creation layers (paddle.* 2.0 and fluid.layers 1.8 names)."""
import numpy as np

from ..framework import unique_name
from ..framework.dtypes import convert_dtype
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable, default_main_program
from ..ops.creation import value_attrs
from .common import append_op_out, as_list, check_variable, unary


def _view(op_type, x, attrs, name=None):
    check_variable(x, "x", op_type)
    out, _ = append_op_out(op_type, {"X": [x]}, attrs, name, extra_outputs=[("XShape", None)])
    return out


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    if isinstance(shape, Variable):
        raise NotImplementedError("reshape: a Variable shape is not supported; pass a list")
    out = _view("reshape2", x, {"shape": [int(d) for d in shape]}, name)
    return LayerHelper("reshape").append_activation(out, act)


def transpose(x, perm, name=None):
    return _view("transpose2", x, {"axis": list(perm)}, name)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    return _view("flatten_contiguous_range", x,
                 {"start_axis": start_axis, "stop_axis": stop_axis}, name)


def fluid_flatten(x, axis=1, name=None):
    return _view("flatten2", x, {"axis": axis}, name)


def squeeze(x, axis=None, name=None):
    return _view("squeeze2", x, {"axes": as_list(axis)}, name)


def fluid_squeeze(input, axes, name=None):
    return _view("squeeze2", input, {"axes": as_list(axes)}, name)


def unsqueeze(x, axis, name=None):
    return _view("unsqueeze2", x, {"axes": as_list(axis)}, name)


def fluid_unsqueeze(input, axes, name=None):
    return _view("unsqueeze2", input, {"axes": as_list(axes)}, name)


def concat(x, axis=0, name=None):
    return append_op_out("concat", {"X": list(x)}, {"axis": int(axis)}, name)


def fluid_concat(input, axis=0, name=None):
    return concat(input, axis, name)


def split(x, num_or_sections, axis=0, name=None):
    check_variable(x, "x", "split")
    helper = LayerHelper("split", name=name)
    if isinstance(num_or_sections, int):
        n, attrs = num_or_sections, {"num": num_or_sections, "axis": axis, "sections": []}
    else:
        n, attrs = len(num_or_sections), {"num": 0, "axis": axis,
                                          "sections": list(num_or_sections)}
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(n)]
    helper.append_op(type="split", inputs={"X": [x]}, outputs={"Out": outs}, attrs=attrs)
    return outs


def fluid_split(input, num_or_sections, dim=-1, name=None):
    return split(input, num_or_sections, dim % len(input.shape), name)


def slice(input, axes, starts, ends):
    return append_op_out("slice", {"Input": [input]},
                         {"axes": list(axes), "starts": list(starts), "ends": list(ends)})


def stack(x, axis=0, name=None):
    return append_op_out("stack", {"X": list(x)}, {"axis": axis}, name, out_slot="Y")


def unstack(x, axis=0, num=None, name=None):
    helper = LayerHelper("unstack", name=name)
    n = num if num is not None else x.shape[axis]
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(n)]
    helper.append_op(type="unstack", inputs={"X": [x]}, outputs={"Y": outs},
                     attrs={"axis": axis, "num": n})
    return outs


def expand(x, shape, name=None):
    return unary("expand_v2", x, {"shape": list(shape)}, name)


def fluid_expand(x, expand_times, name=None):
    return unary("expand", x, {"expand_times": list(expand_times)}, name)


def tile(x, repeat_times, name=None):
    return unary("tile", x, {"repeat_times": list(repeat_times)}, name)


def gather(x, index, axis=None, name=None):
    return append_op_out("gather", {"X": [x], "Index": [index]}, {"axis": axis or 0}, name)


def where(condition, x=None, y=None, name=None):
    return append_op_out("where", {"Condition": [condition], "X": [x], "Y": [y]}, {}, name)


def assign(x, output=None):
    """Copy a Variable, or make a constant from a numpy array / list."""
    if isinstance(x, Variable):
        if output is None:
            return unary("assign", x)
        LayerHelper("assign").append_op(type="assign", inputs={"X": [x]},
                                        outputs={"Out": [output]})
        return output
    value = np.asarray(x)
    if value.dtype == np.float64:
        value = value.astype(np.float32)
    helper = LayerHelper("assign")
    out = output or helper.create_variable_for_type_inference(value.dtype.name)
    helper.append_op(type="assign_value", outputs={"Out": [out]}, attrs=value_attrs(value))
    return out


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    helper = LayerHelper("fill_constant", name=name)
    dtype = convert_dtype(dtype)
    out = out or helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type="fill_constant", outputs={"Out": [out]},
                     attrs={"shape": [int(d) for d in shape], "dtype": dtype,
                            "value": float(value)})
    return out


def full(shape, fill_value, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", fill_value, name=name)


def zeros(shape, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", 0.0, name=name)


def ones(shape, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", 1.0, name=name)


def full_like(x, fill_value, dtype=None, name=None):
    out = append_op_out("fill_any_like", {"X": [x]},
                        {"value": float(fill_value),
                         "dtype": convert_dtype(dtype) if dtype else -1},
                        name, out_dtype=convert_dtype(dtype) if dtype else None,
                        stop_gradient=True)
    return out


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype, name)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype, name)


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0,
                                  output_dim_idx=0, force_cpu=False):
    return append_op_out("fill_constant_batch_size_like", {"Input": [input]},
                         {"shape": list(shape), "dtype": convert_dtype(dtype),
                          "value": float(value), "input_dim_idx": input_dim_idx,
                          "output_dim_idx": output_dim_idx},
                         out_dtype=convert_dtype(dtype), stop_gradient=True)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    if end is None:
        start, end = 0, start
    dtype = convert_dtype(dtype or ("int64" if all(isinstance(v, int)
                                                   for v in (start, end, step)) else "float32"))
    parts = [fill_constant([1], dtype, v) for v in (start, end, step)]
    return append_op_out("range", {"Start": [parts[0]], "End": [parts[1]], "Step": [parts[2]]},
                         {}, name, out_dtype=dtype, stop_gradient=True)


def fluid_range(start, end, step, dtype, name=None):
    return arange(start, end, step, dtype, name)


def _arg(op_type):
    def layer(x, axis=None, keepdim=False, dtype="int64", name=None):
        return unary(op_type, x, {"axis": -1 if axis is None else axis, "keepdims": keepdim,
                                  "flatten": axis is None, "dtype": convert_dtype(dtype)},
                     name, out_dtype=convert_dtype(dtype))
    layer.__name__ = op_type
    return layer


def shape(input):
    return append_op_out("shape", {"Input": [input]}, {}, out_dtype="int32", stop_gradient=True)


def increment(x, value=1.0, in_place=True):
    helper = LayerHelper("increment")
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="increment", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"step": float(value)})
    return out


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global-block variable initialized to `value` in the startup program."""
    helper = LayerHelper("global_var")
    var = helper.create_global_variable(
        name=name or unique_name.generate("global_var"), shape=list(shape),
        dtype=convert_dtype(dtype), persistable=persistable, stop_gradient=True)
    Constant(float(value))(var)
    return var


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    from ..framework.param_attr import ParamAttr
    attr = ParamAttr._to_attr(attr) if attr is not None else ParamAttr(name=name)
    return LayerHelper("create_parameter").create_parameter(attr, shape, convert_dtype(dtype),
                                                            is_bias, default_initializer)


def create_tensor(dtype, name=None, persistable=False):
    return default_main_program().current_block().create_var(
        name=name or unique_name.generate("create_tensor"), dtype=convert_dtype(dtype),
        persistable=persistable)


def _random(op_type, **params):
    def layer(shape, dtype=None, name=None, seed=0, **kw):
        attrs = dict(params)
        attrs.update(kw)
        helper = LayerHelper(op_type, name=name)
        dtype = convert_dtype(dtype or "float32")
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
        attrs.update({"shape": [int(d) for d in shape], "dtype": dtype, "seed": seed})
        helper.append_op(type=op_type, outputs={"Out": [out]}, attrs=attrs)
        return out
    return layer


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    return _random("uniform_random")(shape, dtype, name, seed, min=float(min), max=float(max))


def rand(shape, dtype=None, name=None):
    return uniform(shape, dtype, 0.0, 1.0, name=name)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    return _random("gaussian_random")(shape, "float32", name, mean=float(mean), std=float(std))


def randn(shape, dtype=None, name=None):
    return _random("gaussian_random")(shape, dtype, name, mean=0.0, std=1.0)


def fluid_uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0, name=None):
    return uniform(shape, dtype, min, max, seed, name)


def fluid_gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32", name=None):
    return _random("gaussian_random")(shape, dtype, name, seed, mean=float(mean),
                                      std=float(std))


_SHARED = {"transpose": transpose, "stack": stack, "unstack": unstack, "gather": gather,
           "where": where, "assign": assign, "zeros_like": zeros_like, "ones_like": ones_like,
           "shape": shape, "increment": increment, "create_global_var": create_global_var,
           "create_parameter": create_parameter, "create_tensor": create_tensor,
           "fill_constant": fill_constant, "reshape": reshape}
_ARGS = {"argmax": _arg("arg_max"), "argmin": _arg("arg_min")}

EXPORTS = {
    "paddle": dict(_SHARED, flatten=flatten, squeeze=squeeze, unsqueeze=unsqueeze,
                   concat=concat, split=split, slice=slice, expand=expand, tile=tile,
                   full=full, zeros=zeros, ones=ones, full_like=full_like, arange=arange,
                   uniform=uniform, rand=rand, normal=normal, randn=randn, **_ARGS),
    "fluid.layers": dict(_SHARED, flatten=fluid_flatten, squeeze=fluid_squeeze,
                         unsqueeze=fluid_unsqueeze, concat=fluid_concat, split=fluid_split,
                         slice=slice, expand=fluid_expand,
                         fill_constant_batch_size_like=fill_constant_batch_size_like,
                         zeros=lambda shape, dtype, force_cpu=False: zeros(shape, dtype),
                         ones=lambda shape, dtype, force_cpu=False: ones(shape, dtype),
                         range=fluid_range, uniform_random=fluid_uniform_random,
                         gaussian_random=fluid_gaussian_random, **_ARGS),
    "static": {"create_global_var": create_global_var, "create_parameter": create_parameter},
}
