"""Layers that make tensors: constants, ranges, random tensors, global variables and
parameters (paddle.* 2.0 and fluid.layers 1.8 names)."""
import math

import numpy as np

from ..dygraph import inplace
from ..dygraph.tensor import Tensor
from ..framework import mode, unique_name
from ..framework.dtypes import convert_dtype, get_default_dtype
from ..framework.errors import LayerAssertionError
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable, default_main_program, warn_force_cpu
from ..framework.initializer import value_attrs
from .. import versions
from .common import append_op_out, check_variable, converted_arg


def _source_op(op_type, attrs, dtype, name=None, out=None, inputs=None):
    """Append an op with no data inputs (a constant or random source; `inputs`: its
    run-time shape, if any); return its output."""
    helper = LayerHelper(op_type, name=name)
    if out is None:     # an eager Tensor given as `out` has no truth value of its own
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type=op_type, inputs=inputs or {}, outputs={"Out": [out]}, attrs=attrs)
    return out


def _int_list(shape, layer):
    if isinstance(shape, Variable):
        raise NotImplementedError("%s: a Variable shape is not supported; pass a list of ints"
                                  % layer)
    return [int(d) for d in shape]


def _check_int_variable(var, arg, layer):
    if var.dtype is not None and var.dtype.name not in ("int32", "int64"):
        raise TypeError("%s: %s %r must be an int32 or int64 Variable, got %s"
                        % (layer, arg, var.name, var.dtype.name))


def runtime_int_list(values, arg, layer, tensor_slot, list_slot, check_dtypes=True):
    """(inputs, attr) for an int-list argument that may be known only at run time, as
    Paddle's layers pass one: a Variable (int32 / int64) goes to `tensor_slot` (attr []);
    a list or tuple holding Variables goes to `list_slot` as 1-element tensors (its ints as
    int32 fill_constants) with the attr keeping the ints and -1 at the Variables; plain
    ints are the attr only. `check_dtypes=False` for the layers whose Paddle 1.8 takes a
    Variable of any dtype there (slice, expand: a fed int array passes as fed)."""
    if isinstance(values, Variable):
        if check_dtypes:
            _check_int_variable(values, arg, layer)
        values.stop_gradient = True
        return {tensor_slot: [values]}, []
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise TypeError("%s: %s must be a list, tuple or Variable, got %s"
                        % (layer, arg, type(values).__name__))
    attr = [-1 if isinstance(v, Variable) else converted_arg(
                v, int, "%s: %s[%d] must be an int or an int Variable" % (layer, arg, i))
            for i, v in enumerate(values)]
    if not any(isinstance(v, Variable) for v in values):
        return {}, attr
    tensors = []
    for i, v in enumerate(values):
        if isinstance(v, Variable):
            if check_dtypes:
                _check_int_variable(v, "%s[%d]" % (arg, i), layer)
            v.stop_gradient = True
            tensors.append(v)
        else:
            tensors.append(fill_constant([1], "int32", v, force_cpu=True))
    return {list_slot: tensors}, attr


# -- constants

FILL_CONSTANT_DTYPES = ["bool", "float16", "float32", "float64", "int32", "int64"]


def _check_fill_dtype(dtype, layer):
    """1.8 / 2.0 refuse dtypes outside FILL_CONSTANT_DTYPES (switch fill_constant_dtypes)."""
    if dtype not in FILL_CONSTANT_DTYPES and \
            versions.switch("fill_constant_dtypes") == "checked":
        raise TypeError("The data type of 'dtype' in %s must be %s, but received %s."
                        % (layer, FILL_CONSTANT_DTYPES, dtype))


# the dtypes 3.3.1's full_like takes in a static program of the legacy IR
# (FLAGS_enable_pir_api off, measured; under PIR and in dynamic mode, any)
FULL_LIKE_LEGACY_IR_DTYPES = ["bool", "float16", "float32", "float64", "int16", "int32",
                              "int64", "uint16"]


def _check_full_like_dtype(dtype):
    if versions.switch("fill_constant_dtypes") == "checked":
        _check_fill_dtype(dtype, "full_like")
    elif (dtype not in FULL_LIKE_LEGACY_IR_DTYPES and not versions.pir_programs()
          and not mode.in_dynamic_mode()):
        raise TypeError("The data type of 'dtype' in full_like/zeros_like/ones_like must be "
                        "%s, but received %s." % (FULL_LIKE_LEGACY_IR_DTYPES, dtype))


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of `shape` (ints, or Variables: run-time dims) filled with `value` (a number
    or a 1-element Variable)."""
    dtype = convert_dtype(dtype)
    _check_fill_dtype(dtype, "fill_constant")
    if isinstance(shape, (list, tuple)) and not shape and versions.switch("scalar_shape"):
        # an empty shape is a 0-D tensor where the profile has them (Paddle 3)
        raise LayerAssertionError("fill_constant: shape must not be empty")
    inputs, shape_attr = runtime_int_list(shape, "shape", "fill_constant", "ShapeTensor",
                                          "ShapeTensorList")
    attrs = {"shape": shape_attr, "dtype": dtype, "force_cpu": force_cpu}
    if force_cpu:
        warn_force_cpu("fill_constant")
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value]
        attrs["value"] = 0.0
    else:
        attrs["value"] = float(value)
        # the value's text, which the kernel reads: exact for int64s beyond a double's
        # integers and for float64s beyond float32 (Paddle 1.8.5 and 3.3.1 both set it)
        attrs["str_value"] = str(int(value)) if dtype in ("int32", "int64") \
            else str(float(value))
    if out is not None:
        if not isinstance(out, Variable):
            raise TypeError("fill_constant: out must be a Variable, got %s"
                            % type(out).__name__)
        if out.dtype is not None and out.dtype.name != dtype:
            raise TypeError("fill_constant: out %r is %s, but dtype is %s"
                            % (out.name, out.dtype.name, dtype))
    if not inputs:
        return _source_op("fill_constant", attrs, dtype, name, out)
    helper = LayerHelper("fill_constant", name=name)
    out = out or helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type="fill_constant", inputs=inputs, outputs={"Out": [out]},
                     attrs=attrs)
    return out


def full(shape, fill_value, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", fill_value, name=name)


def zeros(shape, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", 0.0, name=name)


def ones(shape, dtype=None, name=None):
    return fill_constant(shape, dtype or "float32", 1.0, name=name)


def fluid_zeros(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 0.0, force_cpu)


def fluid_ones(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 1.0, force_cpu)


def full_like(x, fill_value, dtype=None, name=None):
    dtype = convert_dtype(dtype) if dtype is not None else None
    if dtype is not None:
        _check_full_like_dtype(dtype)
    return append_op_out("fill_any_like", {"X": [x]},
                         {"value": float(fill_value), "dtype": dtype or -1},
                         name, out_dtype=dtype, stop_gradient=True)


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype, name)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype, name)


def _like(op_type, x, out, attrs):
    helper = LayerHelper(op_type)
    out = out or helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(type=op_type, inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


def fluid_zeros_like(x, out=None):
    return _like("fill_zeros_like", x, out, {})


def fluid_ones_like(x, out=None):
    return _like("fill_any_like", x, out, {"value": 1.0})


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0,
                                  output_dim_idx=0, force_cpu=False):
    dtype = convert_dtype(dtype)
    return append_op_out("fill_constant_batch_size_like", {"Input": [input]},
                         {"shape": list(shape), "dtype": dtype, "value": float(value),
                          "input_dim_idx": input_dim_idx, "output_dim_idx": output_dim_idx},
                         out_dtype=dtype, stop_gradient=True)


def uniform_random_batch_size_like(input, shape, dtype="float32", input_dim_idx=0,
                                   output_dim_idx=0, min=-1.0, max=1.0, seed=0):
    """U(min, max) of `shape`, its dim output_dim_idx the batch size of `input` (1.8)."""
    dtype = convert_dtype(dtype)
    return append_op_out("uniform_random_batch_size_like", {"Input": [input]},
                         {"shape": list(shape), "dtype": dtype, "min": float(min),
                          "max": float(max), "seed": int(seed), "input_dim_idx": input_dim_idx,
                          "output_dim_idx": output_dim_idx}, out_dtype=dtype)


def gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0,
                                    mean=0.0, std=1.0, seed=0, dtype="float32"):
    """N(mean, std^2) of `shape`, its dim output_dim_idx the batch size of `input` (1.8)."""
    dtype = convert_dtype(dtype)
    return append_op_out("gaussian_random_batch_size_like", {"Input": [input]},
                         {"shape": list(shape), "dtype": dtype, "mean": float(mean),
                          "std": float(std), "seed": int(seed), "input_dim_idx": input_dim_idx,
                          "output_dim_idx": output_dim_idx}, out_dtype=dtype)


def assign(x, output=None):
    """Copy a Variable, or make a constant from a numpy array / list / number. Into an
    eager Tensor `output` that holds a value, an in-place change (as Paddle 2.0's)."""
    if isinstance(output, Tensor) and output._value is not None and inplace.tracked():
        producer = output._before_in_place()
        _assign(x, output)
        output._version_counter.bump()
        output._after_in_place(producer)
        return output
    return _assign(x, output)


def written(result, out):
    """Paddle 3's keyword `out`: the result also written into the tensor `out`, which is
    returned; without one, the result."""
    if out is None:
        return result
    check_variable(out, "out", "out=")
    return assign(result, out)


def _assign(x, output):
    helper = LayerHelper("assign")
    if isinstance(x, Variable):
        if output is None:
            output = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op(type="assign", inputs={"X": [x]}, outputs={"Out": [output]})
        return output
    value = np.asarray(x)
    if value.dtype == np.float64:
        value = value.astype(np.float32)   # Python floats make float32 tensors, as in Paddle
    return _source_op("assign_value", value_attrs(value), value.dtype.name, out=output)


def exact_constant(array):
    """A constant holding the numpy `array` in its own dtype (assign_value; assign makes a
    float64 array float32, as Paddle's does with Python floats)."""
    array = np.asarray(array)
    return _source_op("assign_value", value_attrs(array), array.dtype.name)


def fluid_assign(input, output=None):
    """fluid.layers.assign: 1.8 names the source `input`."""
    return assign(input, output)


# -- ranges

def _scalar_tensor(value, dtype):
    return value if isinstance(value, Variable) else fill_constant([1], dtype, value)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = "int64" if ints else "float32"
    dtype = convert_dtype(dtype)
    numbers = not any(isinstance(v, Variable) for v in (start, end, step))
    count = math.ceil((end - start) / step) if numbers and step != 0 else None
    start, end, step = (_scalar_tensor(v, dtype) for v in (start, end, step))
    out = append_op_out("range", {"Start": [start], "End": [end], "Step": [step]}, {}, name,
                        out_dtype=dtype, stop_gradient=True)
    if count is not None and not mode.in_dynamic_mode() and \
            versions.switch("arange_static_shape") == "count":
        out._set_shape_dtype([count], None)
    return out


def fluid_range(start, end, step, dtype, name=None):
    return arange(start, end, step, dtype, name)


def linspace(start, stop, num, dtype=None, name=None):
    dtype = convert_dtype(dtype or "float32")
    inputs = {"Start": [_scalar_tensor(start, dtype)], "Stop": [_scalar_tensor(stop, dtype)],
              "Num": [_scalar_tensor(num, "int32")]}
    return append_op_out("linspace", inputs, {"dtype": dtype}, name, out_dtype=dtype,
                         stop_gradient=True)


# -- random tensors (seed 0: the global generator that paddle.seed resets)

def _random(op_type, shape, dtype, name, runtime_shape=False, **attrs):
    """A random op's output; `runtime_shape`: the op takes a shape known when it runs
    (Variables, or lists holding them: its ShapeTensor / ShapeTensorList inputs)."""
    dtype = convert_dtype(dtype or "float32")
    inputs = {}
    if runtime_shape and isinstance(shape, (list, tuple)) and not shape and \
            not mode.in_dynamic_mode():
        # Paddle 2.0's static random layers assert a non-empty list shape
        raise LayerAssertionError("%s: the size of 'shape' can't be zero" % op_type)
    if isinstance(shape, (list, tuple)):
        _check_shape_items([d for d in shape if not isinstance(d, Variable)], op_type)
    if runtime_shape:
        inputs, attrs["shape"] = runtime_int_list(shape, "shape", op_type, "ShapeTensor",
                                                  "ShapeTensorList")
    else:
        attrs["shape"] = _int_list(shape, op_type)
    attrs["dtype"] = dtype
    return _source_op(op_type, attrs, dtype, name, inputs=inputs)


def _check_shape_type(shape, layer):
    """uniform / rand / randint take a list, tuple or Variable shape, as 2.0 and 3.3.1 check
    (a numpy array is a TypeError there, measured on 3.3.1)."""
    if not isinstance(shape, (list, tuple, Variable)):
        raise TypeError("%s: shape must be a list, tuple or Variable, got %s"
                        % (layer, type(shape).__name__))


_GAUSSIAN_APIS = "gaussian/standard_normal/randn/normal"     # 2.0's name in their errors


def _float_default(dtype, layer):
    """paddle.uniform / rand / randn / normal without a dtype draw in the default dtype
    (paddle.set_default_dtype), as Paddle 2.0 and 3.3.1 (measured) do; a default outside
    the float dtypes they draw (switch random_float_dtypes) is a TypeError, and so is a
    static program's explicit one (2.0 checks that after its dynamic branch)."""
    allowed = versions.switch("random_float_dtypes")
    if dtype is None:
        dtype = get_default_dtype()
        if dtype not in allowed:
            raise TypeError("%s only supports [%s], but the default dtype is %s"
                            % (layer, ", ".join(allowed), dtype))
    elif not mode.dynamic and convert_dtype(dtype) not in allowed:
        raise TypeError("The data type of 'dtype' in %s must be %s, but received %s (the "
                        "given dtype)." % (layer, list(allowed), convert_dtype(dtype)))
    return dtype


def uniform(shape, dtype=None, min=None, max=1.0, seed=0, name=None):
    """paddle.uniform: U(min, max); min by default -1 in 2.0, 0 in 3.3.1 (switch
    uniform_default_min)."""
    _check_shape_type(shape, "uniform")
    if min is None:
        min = versions.switch("uniform_default_min")
    return _random("uniform_random", shape, _float_default(dtype, "uniform/rand"), name, True,
                   min=float(min), max=float(max), seed=int(seed))


def fluid_uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0, name=None):
    """uniform; under switch shape_of_shape_op, a static shape Variable made by the `shape`
    op gives the output the shape that op read (Paddle 2.0: [-1, 2], not [-1, -1])."""
    out = uniform(shape, dtype, min, max, seed, name)
    if versions.switch("shape_of_shape_op"):
        try_set_static_shape_tensor(out, shape)
    return out


def try_set_static_shape_tensor(tensor, shape):
    """Paddle 3's paddle.utils helper: in a static program, a `tensor` with unknown (-1)
    dims whose `shape` is a shape op's output gets that op's input's build-time shape
    (paddle.uniform(paddle.shape(x)) then has x's shape). Else nothing changes."""
    if mode.dynamic or not isinstance(shape, Variable) or -1 not in tensor.shape:
        return
    op = shape.op
    if op is not None and op.type == "shape":
        source = op.block._find_var_recursive(op.input("Input")[0])
        tensor._set_shape_dtype(source.shape, None)


def rand(shape, dtype=None, name=None):
    return uniform(shape, dtype, 0.0, 1.0, name=name)


def fluid_gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32", name=None):
    return _random("gaussian_random", shape, dtype, name, True, mean=float(mean),
                   std=float(std), seed=int(seed))


def randn(shape, dtype=None, name=None):
    _check_shape_type(shape, "randn")
    return fluid_gaussian_random(shape, dtype=_float_default(dtype, _GAUSSIAN_APIS), name=name)


def gaussian(shape, mean=0.0, std=1.0, dtype=None, name=None):
    """paddle.tensor.random.gaussian (Paddle 2.0): N(mean, std) in `dtype`, by default the
    default dtype."""
    return fluid_gaussian_random(shape, mean, std, name=name,
                                 dtype=_float_default(dtype, _GAUSSIAN_APIS))


def standard_normal(shape, dtype=None, name=None):
    """paddle.standard_normal (Paddle 2.0): gaussian(shape, 0, 1, dtype)."""
    return gaussian(shape, 0.0, 1.0, dtype, name)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    return seeded_randint(low, high, shape, dtype, name)


def seeded_randint(low, high, shape, dtype, name, seed=0):
    """paddle.randint with the op's seed attr (1.8's fluid.layers.randint takes one)."""
    if high is None:
        low, high = 0, low
    _check_shape_type(shape, "randint")
    dtype = convert_dtype(dtype or "int64")
    if dtype not in ("int32", "int64"):      # 2.0's test_randint_op; 3.3.1 too (measured)
        raise TypeError("The data type of 'dtype' in randint must be ['int32', 'int64'], but "
                        "received %s." % dtype)
    if low >= high:
        raise ValueError("randint: low %s must be < high %s" % (low, high))
    return _random("randint", shape, dtype, name, True, low=int(low),
                   high=int(high), seed=int(seed))


# -- variables

def _check_shape_items(shape, layer):
    for d in shape:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError("%s: the items of shape must be ints, got %r in %s"
                            % (layer, d, list(shape)))


# the dtypes create_global_var takes (Paddle 2.0's and 3.3.1's check_dtype; no complex)
_GLOBAL_VAR_DTYPES = ("bool", "float16", "uint16", "float32", "float64", "int8", "int16",
                      "int32", "int64", "uint8")


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global-block variable initialized to `value` in the startup program."""
    _check_shape_items(shape, "create_global_var")
    if convert_dtype(dtype) not in _GLOBAL_VAR_DTYPES:
        raise TypeError("create_global_var: dtype must be one of %s, got %s"
                        % (list(_GLOBAL_VAR_DTYPES), convert_dtype(dtype)))
    helper = LayerHelper("global_var")
    var = helper.create_global_variable(
        name=name or unique_name.generate("global_var"), shape=list(shape),
        dtype=convert_dtype(dtype), persistable=persistable, stop_gradient=True)
    Constant(_global_var_value(value))(var)
    return var


def _global_var_value(value):
    """create_global_var's value as a float: a number, or a one-element array where numpy
    1.x converted it (the profiles of size1_arrays_are_scalars; 2.0's test_queue passes
    np.random.rand(1))."""
    array = np.asarray(value)
    if array.ndim and array.size == 1 and versions.switch("size1_arrays_are_scalars"):
        array = array.reshape(())
    if array.ndim:
        raise TypeError("create_global_var: value must be a number, got an array of shape %s"
                        % list(array.shape))
    return float(array)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    from ..framework.param_attr import ParamAttr
    _check_shape_items(shape, "create_parameter")
    attr = ParamAttr._to_attr(attr) if attr is not None else ParamAttr(name=name)
    return LayerHelper("create_parameter").create_parameter(attr, shape, convert_dtype(dtype),
                                                            is_bias, default_initializer)


def create_tensor(dtype, name=None, persistable=False):
    return default_main_program().current_block().create_var(
        name=name or unique_name.generate("create_tensor"), dtype=convert_dtype(dtype),
        persistable=persistable)


_SHARED = {"assign": assign, "fill_constant": fill_constant,
           "create_global_var": create_global_var, "create_parameter": create_parameter,
           "create_tensor": create_tensor, "linspace": linspace}


_EMPTY_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64")


def _empty_dtype(dtype, default, layer):
    dtype = convert_dtype(dtype if dtype is not None else default)
    if dtype not in _EMPTY_DTYPES:
        raise TypeError("%s: dtype must be one of %s, got %s" % (layer, list(_EMPTY_DTYPES), dtype))
    return dtype


def empty(shape, dtype=None, name=None):
    """paddle.empty: the empty op (zeros here, see ops/empty.py); `shape` ints and 1-element
    int Tensors, or an int Tensor, read at run time; dtype default: the default dtype."""
    dtype = _empty_dtype(dtype, get_default_dtype(), "empty")
    inputs, shape = runtime_int_list(shape, "shape", "empty", "ShapeTensor", "ShapeTensorList")
    return _source_op("empty", {"shape": shape, "dtype": dtype}, dtype, name, inputs=inputs)


def empty_like(x, dtype=None, name=None):
    """paddle.empty_like: x's shape (a static x's run-time shape when some of its dims are
    unknown) and dtype (default x's); in dynamic mode, as in Paddle 2.0, x may be any
    array with a shape."""
    if not mode.in_dynamic_mode() and not isinstance(x, Variable):
        raise TypeError("empty_like: x must be a Variable, got %s" % type(x).__name__)
    dtype = _empty_dtype(dtype, x.dtype, "empty_like")
    if isinstance(x, Variable):
        _empty_dtype(x.dtype, None, "empty_like")
    if isinstance(x, Variable) and any(d < 0 for d in x.shape):
        x_shape = append_op_out("shape", {"Input": [x]}, {}, out_dtype="int32",
                                stop_gradient=True)
        return _source_op("empty", {"shape": [], "dtype": dtype}, dtype, name,
                          inputs={"ShapeTensor": [x_shape]})
    return _source_op("empty", {"shape": [int(d) for d in x.shape], "dtype": dtype}, dtype,
                      name)


def autoincreased_step_counter(counter_name=None, begin=1, step=1):
    """A persistable int64 [1] counter, begin - 1 at startup, that the main program
    increments by `step` at its start (so with step 1 the first run sees `begin`, as in
    Paddle). The same name returns the same counter."""
    name = counter_name or "@STEP_COUNTER@"
    block = LayerHelper("global_step_counter").main_program.global_block()
    if name in block.vars:
        return block.vars[name]
    counter = create_global_var([1], begin - 1, "int64", persistable=True, name=name)
    block._prepend_op(type="increment", inputs={"X": [counter]}, outputs={"Out": [counter]},
                      attrs={"step": float(step)})
    counter.stop_gradient = True
    return counter


EXPORTS = {
    "paddle": dict(_SHARED, full=full, zeros=zeros, ones=ones, full_like=full_like,
                   zeros_like=zeros_like, ones_like=ones_like, arange=arange, uniform=uniform,
                   rand=rand, randn=randn, randint=randint, empty=empty,
                   empty_like=empty_like, standard_normal=standard_normal),
    "tensor": {"gaussian": gaussian},
    "fluid.layers": dict(_SHARED, assign=fluid_assign, zeros=fluid_zeros, ones=fluid_ones,
                         zeros_like=fluid_zeros_like, ones_like=fluid_ones_like,
                         fill_constant_batch_size_like=fill_constant_batch_size_like,
                         uniform_random_batch_size_like=uniform_random_batch_size_like,
                         gaussian_random_batch_size_like=gaussian_random_batch_size_like,
                         range=fluid_range, uniform_random=fluid_uniform_random,
                         gaussian_random=fluid_gaussian_random,
                         autoincreased_step_counter=autoincreased_step_counter),
    "static": {"create_global_var": create_global_var, "create_parameter": create_parameter},
}
