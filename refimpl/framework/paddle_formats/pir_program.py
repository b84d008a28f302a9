"""Paddle 3's PIR program (`*.json`, what 3.x's save_inference_model writes by default) <->
refimpl Program, for the ops in PIR_OPS (and, writing, mul / fill_constant / elementwise
ops with an axis, rewritten).

The file (version 1-4 of `base_code`) is one region of one block of ops in SSA form:

    {"base_code": {"magic": "pir", "version": 4, ...},
     "program": {"regions": [{"blocks": [{"ops": [op, ...]}]}]}}
    op: {"#": "1.matmul",                        # dialect index . name (0 builtin, 1 pd_op)
         "I": [{"%": value id}, ...],            # inputs; id 0 is an absent optional input
         "O": [{"%": id, "TT": type}, ...],      # outputs with their types
         "A": [{"N": name, "AT": {"#": attribute type, "D": data}}, ...]}
    parameters: {"#": "p", "A": [is_distributed, is_parameter, need_clip, name],
                 "O": {"%": id, "TT": type}, "OA": [persistable, stop_gradient, trainable]}

Each pd_op becomes the legacy op refimpl has (matmul -> matmul_v2, add -> elementwise_add,
...); inputs PIR passes as constant tensors (a pool's kernel_size, a reshape's shape, a
scale's factor) become the legacy op's attributes; `data` ops are the feed targets, `fetch`
ops the fetch targets, parameters keep their names and other values are named pir_<id>.

Writing inverts this for inference programs, each attribute typed as Paddle declares it
(pir_op_facts.json, measured by tools/pir_op_facts.py); Paddle 3.3.1 loads the result.
"""
import json
import os

import numpy as np

from . import DecodeError
from .program_desc import UnsupportedOps, float32_value
from ..dtypes import convert_dtype, get_dtype
from ..dataflow import append_conditional_block, append_while
from ..program import Block, Parameter, Program, Variable

__all__ = ["decode_program", "encode_program", "is_pir_json", "PIR_OPS", "unsupported_op_types",
           "feed_specs"]

_VERSIONS = (1, 2, 3, 4)
_DTYPES = {"0.t_f16": "float16", "0.t_f32": "float32", "0.t_f64": "float64",
           "0.t_i8": "int8", "0.t_ui8": "uint8", "0.t_i16": "int16", "0.t_i32": "int32",
           "0.t_i64": "int64", "0.t_bool": "bool"}


class _Op:
    """How one PIR op maps to a refimpl op.

    inputs: a slot per PIR input, in order: "X" a tensor, "X*" a vector (from
    builtin.combine), "=attr" a constant input that becomes attribute `attr`, None an input
    refimpl's op does not take. outputs: a slot per PIR output (None: not kept). rename:
    PIR attribute -> legacy attribute; fixed: attributes PIR does not carry; tensors: the
    legacy input slot that takes attribute `attr` as a tensor (when it is not a constant:
    a slice's starts computed in a loop)."""

    def __init__(self, op_type, inputs, outputs, rename=None, fixed=None, convert=None,
                 tensors=None):
        self.type, self.inputs, self.outputs = op_type, inputs, outputs
        self.rename, self.fixed = rename or {}, fixed or {}
        self.convert, self.tensors = convert, tensors or {}


def _unary(op_type, **kw):
    return _Op(op_type, ["X"], ["Out"], **kw)


def _binary(op_type):
    return _Op(op_type, ["X", "Y"], ["Out"], fixed={"axis": -1})


def _reduce_all_without_dims(attrs):
    attrs["reduce_all"] = not attrs.get("dim")
    return attrs


def _reduce(op_type):
    return _Op(op_type, ["X", "=dim"], ["Out"], rename={"keepdim": "keep_dim"},
               convert=_reduce_all_without_dims)


def _bool_reduce(op_type):
    """any / all: the axes an attribute (reduce_all: none given)."""
    return _Op(op_type, ["X"], ["Out"], rename={"axis": "dim", "keepdim": "keep_dim"},
               convert=_reduce_all_without_dims)


def _interp(op_type):
    return _Op(op_type, ["X", "OutSize", "SizeTensor*", "Scale"], ["Out"],
               rename={"data_format": "data_layout"})


def _cast(attrs):
    attrs["out_dtype"] = attrs.pop("dtype")
    return attrs


_COMPARISONS = ("equal", "not_equal", "less_than", "less_equal", "greater_than",
                "greater_equal")


PIR_OPS = {
    "matmul": _Op("matmul_v2", ["X", "Y"], ["Out"],
                  rename={"transpose_x": "trans_x", "transpose_y": "trans_y"}),
    "add": _binary("elementwise_add"), "subtract": _binary("elementwise_sub"),
    "multiply": _binary("elementwise_mul"), "divide": _binary("elementwise_div"),
    "maximum": _binary("elementwise_max"), "minimum": _binary("elementwise_min"),
    "elementwise_pow": _binary("elementwise_pow"),
    "relu": _unary("relu"), "sigmoid": _unary("sigmoid"), "tanh": _unary("tanh"),
    "exp": _unary("exp"), "sqrt": _unary("sqrt"), "abs": _unary("abs"), "log": _unary("log"),
    "silu": _unary("swish", fixed={"beta": 1.0}),      # x * sigmoid(x) both
    "relu6": _unary("relu6"), "gelu": _unary("gelu"),
    "softmax": _unary("softmax"), "hardswish": _unary("hard_swish"),
    "leaky_relu": _unary("leaky_relu", rename={"negative_slope": "alpha"}),
    "cast": _Op("cast", ["X"], ["Out"], convert=_cast),
    "scale": _Op("scale", ["X", "=scale"], ["Out"], tensors={"scale": "ScaleTensor"}),
    "full": _Op("fill_constant", [], ["Out"]),
    "reshape": _Op("reshape2", ["X", "=shape"], ["Out", "XShape"], tensors={"shape": "Shape"}),
    "transpose": _Op("transpose2", ["X"], ["Out", "XShape"], rename={"perm": "axis"}),
    "flatten": _Op("flatten_contiguous_range", ["X"], ["Out", "XShape"]),
    "arange": _Op("range", ["Start", "End", "Step"], ["Out"]),      # read by arange()
    "concat": _Op("concat", ["X*", "=axis"], ["Out"]),
    "squeeze": _Op("squeeze2", ["X", "=axes"], ["Out", "XShape"]),
    "unsqueeze": _Op("unsqueeze2", ["X", "=axes"], ["Out", "XShape"]),
    "mean": _reduce("reduce_mean"), "sum": _reduce("reduce_sum"),
    "max": _reduce("reduce_max"), "min": _reduce("reduce_min"),
    "conv2d": _Op("conv2d", ["Input", "Filter"], ["Output"]),
    "depthwise_conv2d": _Op("depthwise_conv2d", ["Input", "Filter"], ["Output"]),
    "pool2d": _Op("pool2d", ["X", "=ksize"], ["Out"]),
    "batch_norm": _Op("batch_norm", ["X", "Mean", "Variance", "Scale", "Bias"],
                      ["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance",
                       "ReserveSpace"], rename={"data_format": "data_layout"}),
    "layer_norm": _Op("layer_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"]),
    "dropout": _Op("dropout", ["X", None, "=dropout_prob"], ["Out", "Mask"],
                   rename={"mode": "dropout_implementation"}),
    "embedding": _Op("lookup_table_v2", ["Ids", "W"], ["Out"], rename={"sparse": "is_sparse"}),
    "pow": _unary("pow", rename={"y": "factor"}),
    "log_softmax": _unary("log_softmax"),
    "slice": _Op("slice", ["Input", "=starts", "=ends"], ["Out"],
                 tensors={"starts": "StartsTensor", "ends": "EndsTensor"}),
    "stack": _Op("stack", ["X*"], ["Y"]),
    "split": _Op("split", ["X", "=sections", "=axis"], ["Out*"], fixed={"num": 0}),
    "split_with_num": _Op("split", ["X", "=axis"], ["Out*"], fixed={"sections": []}),
    "mean_all": _unary("mean"), "assign": _unary("assign"),
    "shape": _Op("shape", ["Input"], ["Out"]),
    "argmax": _Op("arg_max", ["X", "=axis"], ["Out"]),
    "topk": _Op("top_k_v2", ["X", "=k"], ["Out", "Indices"]),
    "gather": _Op("gather", ["X", "Index", "=axis"], ["Out"], tensors={"axis": "Axis"}),
    "gather_nd": _Op("gather_nd", ["X", "Index"], ["Out"]),
    "where": _Op("where", ["Condition", "X", "Y"], ["Out"]),
    "clip": _Op("clip", ["X", "=min", "=max"], ["Out"], tensors={"min": "Min", "max": "Max"}),
    "expand": _Op("expand_v2", ["X", "=shape"], ["Out"], tensors={"shape": "Shape"}),
    "tile": _Op("tile", ["X", "=repeat_times"], ["Out"],
                tensors={"repeat_times": "RepeatTimes"}),
    "cumsum": _Op("cumsum", ["X", "=axis"], ["Out"]),
    "prod": _reduce("reduce_prod"), "any": _bool_reduce("reduce_any"),
    "all": _bool_reduce("reduce_all"),
    "one_hot": _Op("one_hot_v2", ["X", "=depth"], ["Out"],
                   fixed={"dtype": "float32", "allow_out_of_range": False}),
    "instance_norm": _Op("instance_norm", ["X", "Scale", "Bias"],
                         ["Y", "SavedMean", "SavedVariance"]),
    "group_norm": _Op("group_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"],
                      rename={"data_format": "data_layout"}),
    "prelu": _Op("prelu", ["X", "Alpha"], ["Out"]),
    "hardsigmoid": _unary("hard_sigmoid"), "swish": _unary("swish", fixed={"beta": 1.0}),
    "floor": _unary("floor"), "square": _unary("square"), "erf": _unary("erf"),
    "sin": _unary("sin"), "cos": _unary("cos"), "reciprocal": _unary("reciprocal"),
    "remainder": _binary("elementwise_mod"), "floor_divide": _binary("elementwise_floordiv"),
    "conv2d_transpose": _Op("conv2d_transpose", ["Input", "Filter", "=output_size"],
                            ["Output"]),
    "bilinear_interp": _interp("bilinear_interp_v2"),
    "nearest_interp": _interp("nearest_interp_v2"),
    "pad3d": _Op("pad3d", ["X", "=paddings"], ["Out"], rename={"pad_value": "value"}),
    "index_select": _Op("index_select", ["X", "Index"], ["Out"], rename={"axis": "dim"}),
    "logical_not": _unary("logical_not"),
    "full_like": _Op("fill_any_like", ["X", "=value"], ["Out"]),
    "array_length": _Op("lod_array_length", ["X"], ["Out"]),
    "array_read": _Op("read_from_array", ["X", "I"], ["Out"]),
    "slice_array_dense": _Op("read_from_array", ["X", "I"], ["Out"]),
    "array_to_tensor": _Op("tensor_array_to_tensor", ["X"], ["Out", "OutIndex"]),
    "full_batch_size_like": _Op("fill_constant_batch_size_like", ["Input"], ["Out"]),
    "unstack": _Op("unstack", ["X"], ["Y*"]), "add_n": _Op("sum", ["X*"], ["Out"]),
    "full_with_tensor": _Op("fill_constant", ["ValueTensor", "ShapeTensor"], ["Out"]),
    # the last input is the dropout state (a uint8 `full` or a non-persistable parameter)
    "rnn": _Op("rnn", ["Input", "PreState*", "WeightList*", "SequenceLength", None],
               ["Out", "DropoutState", "State*", "Reserve"]),
}
PIR_OPS.update({name: _binary(name) for name in _COMPARISONS})
PIR_OPS.update({name: _Op(name, ["X", "Y"], ["Out"])
                for name in ("logical_and", "logical_or", "logical_xor")})
PIR_OPS["batch_norm_"] = PIR_OPS["batch_norm"]
# legacy ops that give [1] where PIR's give a 0-d tensor (a slice decreasing every axis):
# read as that, reshaped to []
_ONE_ELEMENT_SCALARS = {"slice"}
# the attributes PIR passes as tensors that are lists (a `full` can make them too)
_LIST_ATTRS = {"shape", "axes", "dim", "ksize", "starts", "ends", "sections", "repeat_times",
               "output_size", "paddings"}
# attributes PIR keeps for itself
_DROPPED_ATTRS = {"struct_name", "place", "stop_gradient", "persistable"}


def is_pir_json(data):
    """Whether `data` (bytes) looks like a PIR program, without parsing all of it."""
    head = bytes(data[:200]).lstrip()
    return head.startswith(b"{") and b'"base_code"' in head


def _load(data):
    try:
        doc = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise DecodeError("not a PIR program (not UTF-8 JSON: %s)" % e) from None
    base = doc.get("base_code") if isinstance(doc, dict) else None
    if not isinstance(base, dict) or base.get("magic") != "pir":
        raise DecodeError("not a PIR program (no base_code with magic 'pir')")
    if base.get("version") not in _VERSIONS:
        raise DecodeError("PIR program version %r is not supported (refimpl reads %s)"
                          % (base.get("version"), ", ".join(map(str, _VERSIONS))))
    try:
        regions = doc["program"]["regions"]
        if len(regions) != 1 or len(regions[0]["blocks"]) != 1:
            raise DecodeError("PIR program with %d regions; refimpl reads one region of one "
                              "block (no control flow)" % len(regions))
        ops = regions[0]["blocks"][0]["ops"]
        if not isinstance(ops, list):
            raise TypeError("ops is not a list")
    except (KeyError, IndexError, TypeError) as e:
        raise DecodeError("malformed PIR program: %s" % e) from None
    return ops


def _op_name(op, where):
    name = op.get("#") if isinstance(op, dict) else None
    if not isinstance(name, str):
        raise DecodeError("%s: op without a name" % where)
    if name == "p":
        return "builtin.parameter"
    dialect, _, short = name.partition(".")
    return {"0": "builtin.", "1": "pd_op.", "2": "cf."}.get(dialect, dialect + ".") + short


def _all_ops(ops):
    """The ops of a list and of the regions they hold (control flow), depth first."""
    for op in ops:
        yield op
        for region in op.get("regions", []) if isinstance(op, dict) else []:
            for block in region.get("blocks", []):
                yield from _all_ops(block.get("ops", []))


def unsupported_op_types(data):
    """The PIR op names in `data` that refimpl cannot translate."""
    handled = set(_READERS) | {"pd_op." + k for k in PIR_OPS}
    names = {_op_name(op, "op %d" % i) for i, op in enumerate(_all_ops(_load(data)))}
    return sorted(names - handled)


def feed_specs(data):
    """[(name, dtype, shape)] of the `data` ops (the feed targets), without translating the
    program (so also for programs refimpl cannot run)."""
    specs = []
    for i, op in enumerate(_load(data)):
        if _op_name(op, "op %d" % i) == "pd_op.data":
            try:
                attrs = {a["N"]: _attr(a["AT"], "PIR op %d" % i) for a in op.get("A", [])}
                specs.append((attrs["name"], attrs["dtype"], list(attrs["shape"])))
            except (KeyError, TypeError) as e:
                raise DecodeError("PIR op %d (pd_op.data): malformed: %s: %s"
                                  % (i, type(e).__name__, e)) from None
    return specs


def _attr(at, where):
    """The Python value of a PIR attribute {"#": type, "D": data}."""
    if not isinstance(at, dict) or "#" not in at:
        raise DecodeError("%s: malformed attribute %r" % (where, at))
    kind, data = at["#"], at.get("D")
    if kind == "0.a_f32":
        return float32_value(data)
    if kind in ("0.a_bool", "0.a_i32", "0.a_i64", "0.a_f64", "0.a_str", "1.a_intarray",
                "1.a_place", "1.a_datalayout"):
        return data
    if kind == "0.a_array":
        return [_attr(item, where) for item in data]
    if kind == "1.a_dtype":      # "Undefined(ALL_DTYPE)": none given (sum's dtype)
        return None if str(data).startswith("Undefined") else convert_dtype(data)
    if kind == "1.a_scalar":
        return data[-1] if isinstance(data, list) else data
    raise DecodeError("%s: PIR attribute type %s is not supported" % (where, kind))


_ARRAY_TYPE = "1.t_dense_tensor_array"


def _value_type(tt, where):
    """(dtype, shape) of a dense tensor type; None for vectors and other types."""
    if not isinstance(tt, dict) or tt.get("#") != "0.t_dtensor":
        return None
    dtype_tag = tt["D"][0].get("#")
    if dtype_tag not in _DTYPES:
        raise DecodeError("%s: element type %s is not supported" % (where, dtype_tag))
    return _DTYPES[dtype_tag], tuple(tt["D"][1])


class _Translator:
    def __init__(self):
        self.program = Program()
        self.block = self.program.global_block()
        self.names = {}          # value id -> variable name (or list of names: a vector)
        self.constants = {}      # value id -> the Python value a full / full_int_array made
        self.feeds, self.fetches = [], []

    def define(self, value, name, where, **fields):
        self.names[value["%"]] = name
        return self.declare(name, value.get("TT"), where, **fields)

    def define_value(self, value, where):
        """The variable pir_<id> of an output value (not a feed: those keep their names)."""
        return self.define(value, "pir_%d" % value["%"], where)

    def declare(self, name, tt, where, **fields):
        """The variable `name` of a value of type `tt` (none for vectors, other types)."""
        if isinstance(tt, dict) and tt.get("#") == _ARRAY_TYPE and name not in self.block.vars:
            self.block.vars[name] = Variable(self.block, name=name, type="LOD_TENSOR_ARRAY",
                                             dtype=_DTYPES.get(tt["D"][0].get("#")))
            return name
        info = _value_type(tt, where)
        if info is not None and name not in self.block.vars:
            self.block.vars[name] = Variable(self.block, name=name, dtype=info[0],
                                             shape=info[1], **fields)
        return name

    def define_vector(self, value, where):
        """Variables pir_<id>_<i> for the elements of a vector value (their types in its
        0.t_vec type)."""
        tt = value.get("TT", {})
        if tt.get("#") != "0.t_vec":
            raise DecodeError("%s: expected a vector output, got %s" % (where, tt.get("#")))
        names = []
        for i, element in enumerate(tt["D"]):
            names.append(self.declare("pir_%d_%d" % (value["%"], i), element, where))
        self.names[value["%"]] = names
        return names

    def name_of(self, ref, where):
        vid = ref.get("%") if isinstance(ref, dict) else None
        if vid not in self.names:
            raise DecodeError("%s: uses value %r before it is defined" % (where, vid))
        if vid in self.constants and self.names[vid] is None:
            self.materialize(vid, where)
        return self.names[vid]

    def materialize(self, vid, where):
        """A constant used as a tensor: a fill_constant op making it, in the block that
        defines the constant (a block holding the current one: its control-flow op comes
        after what is appended to it now)."""
        value, dtype, shape, block = self.constants[vid]
        name = "pir_%d" % vid
        block.vars[name] = Variable(block, name=name, dtype=dtype, shape=shape)
        self.names[vid] = name
        if isinstance(value, list):     # a full_int_array's int64 values (an array index)
            block.append_op("assign_value", {}, {"Out": [name]},
                            {"shape": [len(value)], "dtype": "int64",
                             "int64_values": [int(v) for v in value]})
            return
        block.append_op("fill_constant", {}, {"Out": [name]},     # PIR's full: a double
                        {"shape": list(shape), "value": float(value), "dtype": dtype,
                         "str_value": str(float(value))})

    def parameter(self, op, where):
        attrs, outs = op.get("A", []), op.get("OA", [])
        if len(attrs) != 4 or len(outs) != 3 or not isinstance(op.get("O"), dict):
            raise DecodeError("%s: malformed parameter op" % where)
        is_parameter, name = attrs[1], attrs[3]
        persistable, stop_gradient, trainable = outs
        info = _value_type(op["O"].get("TT"), where)
        if info is None:
            raise DecodeError("%s: parameter %r is not a dense tensor" % (where, name))
        self.names[op["O"]["%"]] = name
        if is_parameter and trainable:
            var = Parameter(self.block, info[1], info[0], name=name)
        else:
            var = Variable(self.block, name=name, dtype=info[0], shape=info[1],
                           persistable=bool(persistable), stop_gradient=bool(stop_gradient))
        self.block.vars[name] = var

    def translate(self, op, where):
        name = _op_name(op, where)
        if name == "builtin.parameter":
            return self.parameter(op, where)
        attrs = {a["N"]: _attr(a["AT"], "%s attr %r" % (where, a.get("N")))
                 for a in op.get("A", [])}
        inputs, outputs = op.get("I", []), op.get("O", [])
        reader = _READERS.get(name)
        if reader is not None:
            return reader(self, name, op, attrs, inputs, outputs, where)
        self.legacy_op(name, PIR_OPS[name[len("pd_op."):]], attrs, inputs, outputs, where)

    def combine(self, name, op, attrs, inputs, outputs, where):
        self.names[outputs[0]["%"]] = [self.name_of(i, where) for i in inputs]

    def split(self, name, op, attrs, inputs, outputs, where):
        """builtin.split: a vector's elements, each its own value; builtin.slice: its
        element `index`."""
        elements = self.name_of(inputs[0], where)
        if name == "builtin.slice":
            elements = elements[attrs["index"]:attrs["index"] + 1]
        for value, element in zip(outputs, elements):
            self.names[value["%"]] = element

    def data(self, name, op, attrs, inputs, outputs, where):
        self.feeds.append(self.define(outputs[0], attrs["name"], where, is_data=True,
                                      need_check_feed=True, stop_gradient=True))

    def fetch(self, name, op, attrs, inputs, outputs, where):
        self.fetches.append(self.name_of(inputs[0], where))

    def create_array(self, name, op, attrs, inputs, outputs, where):
        self.define_value(outputs[0], where)

    def array_write(self, name, op, attrs, inputs, outputs, where):
        """array_write_: in place, its output is the array."""
        array, x, i = (self.name_of(ref, where) for ref in inputs)
        self.names[outputs[0]["%"]] = array
        self.block.append_op("write_to_array", {"X": [x], "I": [i]}, {"Out": [array]}, {})

    def select_input(self, name, op, attrs, inputs, outputs, where):
        """select_input (mask, then each branch's value) and select_output (mask, value;
        an output per branch)."""
        mask, *values = (self.name_of(ref, where) for ref in inputs)
        results = [self.define_value(value, where) for value in outputs]
        self.block.append_op(name[len("pd_op."):], {"X": values, "Mask": [mask]},
                             {"Out": results}, {})

    def shape64(self, name, op, attrs, inputs, outputs, where):
        """The int32 shape, cast."""
        shape = "pir_%d_int32" % outputs[0]["%"]
        self.block.vars[shape] = Variable(self.block, name=shape, dtype="int32", shape=[
            len(self.block._find_var_recursive(self.name_of(inputs[0], where)).shape)])
        self.block.append_op("shape", {"Input": [self.name_of(inputs[0], where)]},
                             {"Out": [shape]}, {})
        self.block.append_op("cast", {"X": [shape]},
                             {"Out": [self.define_value(outputs[0], where)]},
                             {"in_dtype": "int32", "out_dtype": "int64"})

    def stray_yield(self, name, op, attrs, inputs, outputs, where):
        raise DecodeError("%s: cf.yield outside a region's end" % where)

    def constant(self, name, op, attrs, inputs, outputs, where):
        """full / full_int_array: a value made only if something uses it as a tensor."""
        info = _value_type(outputs[0].get("TT"), where)
        vid = outputs[0]["%"]
        value = attrs["value"]
        if get_dtype(info[0]).np.kind in "iub" and isinstance(value, float):
            value = int(value)          # full writes every value as float64
        self.constants[vid] = (value, info[0], info[1], self.block)
        self.names[vid] = None

    def arange(self, name, op, attrs, inputs, outputs, where):
        """range, its start, end and step cast to the dtype arange gives (Paddle 3 makes
        them float64 for an int64 arange; legacy range has its inputs' dtype)."""
        dtype, output = attrs["dtype"], outputs[0]
        bounds = {}
        for slot, ref in zip(("Start", "End", "Step"), inputs):
            name = self.name_of(ref, where)
            var = self.block._find_var_recursive(name)
            if var.dtype.name != dtype:
                cast = "pir_%d_%s" % (output["%"], slot.lower())
                self.block.vars[cast] = Variable(self.block, name=cast, dtype=dtype,
                                                 shape=var.shape)
                self.block.append_op("cast", {"X": [name]}, {"Out": [cast]},
                                     {"in_dtype": var.dtype.name, "out_dtype": dtype})
                name = cast
            bounds[slot] = [name]
        self.block.append_op("range", bounds, {"Out": [
            self.define_value(output, where)]}, {})

    def region(self, region, where, args=()):
        """The ops of a region's one block, translated into a new sub-block of the current
        block (`args`: the names its block arguments stand for); (the block, the names its
        cf.yield gives)."""
        blocks = region.get("blocks", [])
        if len(blocks) != 1:
            raise DecodeError("%s: a region of %d blocks (refimpl reads one)"
                              % (where, len(blocks)))
        *ops, end = blocks[0].get("ops") or [None]
        if end is None or _op_name(end, where) != "cf.yield":
            raise DecodeError("%s: a region that does not end in cf.yield" % where)
        parent = self.block
        self.block = self.program._create_block(parent.idx)
        self.program._rollback()
        try:
            for arg, name in zip(blocks[0].get("args", []), args):
                self.names[arg["#"]] = name
            for i, op in enumerate(ops):
                self.translate(op, "%s, op %d (%s)" % (where, i, _op_name(op, where)))
            return self.block, [self.name_of(ref, where) for ref in end.get("I", [])]
        finally:
            self.block = parent

    def control_flow(self, name, op, attrs, inputs, outputs, where):
        """pd_op.if: a conditional_block per branch (the false one under logical_not of the
        condition), each assigning what its region yields to the if's outputs. pd_op.while
        (condition, initial values): the values copied into the outputs, which the loop's
        block arguments name and its cf.yield (next condition, next values) updates."""
        regions = op.get("regions", [])
        results = [self.define_value(value, where) for value in outputs]
        if name == "pd_op.if":
            if len(regions) != 2:
                raise DecodeError("%s: %d regions, an if has two" % (where, len(regions)))
            cond = self.name_of(inputs[0], where)
            negated = "pir_%d_not" % inputs[0]["%"]
            conditions = [cond, negated]
            for k, region in enumerate(regions):
                block, yielded = self.region(region, "%s region %d" % (where, k))
                self.assign_all(block, yielded, results, where)
                if k == 1:
                    self.block.vars[negated] = Variable(
                        self.block, name=negated, dtype="bool",
                        shape=self.block._find_var_recursive(cond).shape)
                    self.block.append_op("logical_not", {"X": [cond]}, {"Out": [negated]}, {})
                append_conditional_block(self.block, block, [conditions[k]])
            return
        if len(regions) != 1 or len(inputs) != len(outputs) + 1:
            raise DecodeError("%s: a while takes a condition and a value per output, and one "
                              "region; got %d inputs, %d outputs, %d regions"
                              % (where, len(inputs), len(outputs), len(regions)))
        condition = "pir_%d_cond" % outputs[0]["%"] if outputs else "pir_while_cond"
        self.block.vars[condition] = Variable(
            self.block, name=condition, dtype="bool",
            shape=self.block._find_var_recursive(self.name_of(inputs[0], where)).shape)
        self.assign_all(self.block, [self.name_of(i, where) for i in inputs],
                        [condition] + results, where)
        block, yielded = self.region(regions[0], "%s region 0" % where, results)
        self.assign_all(block, yielded, [condition] + results, where)
        # its step scopes named from the condition: a program read draws no unique name
        append_while(self.block, block, condition, is_test=True,
                     steps_name=condition + "_steps")

    def assign_all(self, block, sources, targets, where):
        """assign ops in `block`: targets[i] = sources[i], all sources read before any
        target is written (a loop may yield its arguments in another order)."""
        if len(sources) != len(targets):
            raise DecodeError("%s: yields %d values for %d results"
                              % (where, len(sources), len(targets)))
        pending = []
        for source, target in zip(sources, targets):
            if source in targets and source != target:     # copied before it is overwritten
                copy = target + "_copy"
                var = block._find_var_recursive(source)
                block.vars[copy] = Variable(block, name=copy, dtype=var.dtype, shape=var.shape)
                block.append_op("assign", {"X": [source]}, {"Out": [copy]}, {})
                source = copy
            pending.append((source, target))
        for source, target in pending:
            if source != target:
                block.append_op("assign", {"X": [source]}, {"Out": [target]}, {})

    def legacy_op(self, name, spec, attrs, inputs, outputs, where):
        if len(inputs) > len(spec.inputs) or len(outputs) > len(spec.outputs):
            raise DecodeError("%s: %d inputs / %d outputs, refimpl maps %d / %d for %s"
                              % (where, len(inputs), len(outputs), len(spec.inputs),
                                 len(spec.outputs), name))
        legacy_inputs = {}
        for slot, ref in zip(spec.inputs, inputs):
            if slot is None or ref.get("%") == 0:
                continue
            if slot.startswith("=") and ref["%"] not in self.constants and \
                    slot[1:] in spec.tensors:
                tensor = self.name_of(ref, where)
                if isinstance(tensor, list):
                    raise DecodeError("%s: input %r is a vector of tensors, refimpl's %s takes "
                                      "one tensor" % (where, slot[1:], spec.type))
                legacy_inputs[spec.tensors[slot[1:]]] = [tensor]
            elif slot.startswith("="):
                vid = ref["%"]
                if vid not in self.constants:
                    raise DecodeError("%s: input %r must be a constant (full / "
                                      "full_int_array) for refimpl's %s"
                                      % (where, slot[1:], spec.type))
                value, _, shape, _ = self.constants[vid]
                if slot[1:] in _LIST_ATTRS and not isinstance(value, list):
                    value = [value] * int(np.prod(shape))     # a full of a list's length
                attrs[slot[1:]] = value
            elif slot.endswith("*"):
                legacy_inputs[slot[:-1]] = list(self.name_of(ref, where))
            else:
                legacy_inputs[slot] = [self.name_of(ref, where)]
        legacy_outputs, scalars = {}, []
        for slot, value in zip(spec.outputs, outputs):
            info = _value_type(value.get("TT"), where)
            if slot is not None and slot.endswith("*"):      # a vector, unpacked by split
                legacy_outputs[slot[:-1]] = self.define_vector(value, where)
            elif slot is not None and value.get("%") and info and not info[1] and \
                    spec.type in _ONE_ELEMENT_SCALARS:
                one = "pir_%d_one" % value["%"]
                self.block.vars[one] = Variable(self.block, name=one, dtype=info[0], shape=[1])
                legacy_outputs[slot] = [one]
                scalars.append((one, value))
            elif slot is not None and value.get("%"):
                legacy_outputs[slot] = [self.define_value(value, where)]
        attrs = {spec.rename.get(k, k): v for k, v in attrs.items()
                 if k not in _DROPPED_ATTRS and v is not None}
        attrs.update(spec.fixed)
        if spec.convert is not None:
            attrs = spec.convert(attrs)
        try:
            self.block.append_op(spec.type, legacy_inputs, legacy_outputs, attrs)
        except ValueError as e:
            raise DecodeError("%s: %s" % (where, e)) from None
        for one, value in scalars:
            self.block.append_op("reshape2", {"X": [one]},
                                 {"Out": [self.define_value(value, where)]}, {"shape": []})
        for value in outputs:
            self.refine_shape(value, where)

    def refine_shape(self, value, where):
        """The dims PIR's type of `value` knows where refimpl's inference has -1 (a
        full_with_tensor's shape comes at run time; Paddle knows the state's [1, -1, 3])."""
        info, name = _value_type(value.get("TT"), where), self.names.get(value.get("%"))
        var = self.block.vars.get(name) if isinstance(name, str) else None
        if info is None or var is None or var.shape is None or len(var.shape) != len(info[1]):
            return
        var._set_shape_dtype([d if d >= 0 else p for d, p in zip(var.shape, info[1])],
                             var.dtype)


# the PIR ops that are no PIR_OPS entry: how the translator reads each
_READERS = {"builtin.parameter": None,      # translate reads it first (its A is a list)
            "builtin.combine": _Translator.combine,
            "builtin.split": _Translator.split, "builtin.slice": _Translator.split,
            "pd_op.data": _Translator.data,
            "pd_op.fetch": _Translator.fetch, "pd_op.if": _Translator.control_flow,
            "pd_op.while": _Translator.control_flow, "cf.yield": _Translator.stray_yield,
            "pd_op.create_array": _Translator.create_array,
            "pd_op.array_write_": _Translator.array_write, "pd_op.arange": _Translator.arange,
            "pd_op.shape64": _Translator.shape64, "pd_op.full": _Translator.constant,
            "pd_op.full_int_array": _Translator.constant,
            "pd_op.select_input": _Translator.select_input,
            "pd_op.select_output": _Translator.select_input}


def decode_program(data):
    """(Program, feed names, fetch names) of a PIR program (JSON bytes); UnsupportedOps if
    it uses ops refimpl cannot translate."""
    ops = _load(data)
    missing = unsupported_op_types(data)
    if missing:
        raise UnsupportedOps(missing)
    translator = _Translator()
    for i, op in enumerate(ops):
        where = "PIR op %d (%s)" % (i, _op_name(op, "op %d" % i))
        try:
            translator.translate(op, where)
        except (KeyError, IndexError, TypeError, AttributeError) as e:
            raise DecodeError("%s: malformed op: %s: %s" % (where, type(e).__name__, e)) \
                from None
    program = translator.program
    program._is_test = True
    return program, translator.feeds, translator.fetches


# -- writing

with open(os.path.join(os.path.dirname(__file__), "pir_op_facts.json")) as _f:
    _FACTS = json.load(_f)      # tools/pir_op_facts.py: each PIR op's attributes, measured
_DTYPE_TAGS = {v: k for k, v in _DTYPES.items()}
# legacy op type -> the PIR op it is written as (PIR_OPS inverted; batch_norm as Paddle's
# translator writes it, in place)
_PIR_NAME = {}
for _name, _spec in PIR_OPS.items():
    _PIR_NAME.setdefault(_spec.type, _name)
_PIR_NAME.update(batch_norm="batch_norm_", swish="swish")
# PIR ops with an output per legacy output variable (no vector)
_VARIADIC_OUTPUTS = {"select_output"}
# the dtype of the `full` constant each op takes as a tensor (its axis, a factor)
_FULL_DTYPES = {("concat", "axis"): "int32", ("split", "axis"): "int32",
                ("arg_max", "axis"): "int64", ("top_k_v2", "k"): "int32",
                ("gather", "axis"): "int32", ("cumsum", "axis"): "int32",
                ("one_hot_v2", "depth"): "int32"}


def _tensor_type(dtype, shape, where):
    if dtype is None or shape is None:
        raise ValueError("%s: a PIR value needs a dtype and a shape, got %s %s"
                         % (where, dtype, shape))
    if dtype.name not in _DTYPE_TAGS:
        raise ValueError("%s: PIR programs of dtype %s are not written" % (where, dtype.name))
    return {"#": "0.t_dtensor", "D": [{"#": _DTYPE_TAGS[dtype.name]}, [int(d) for d in shape],
                                      "NCHW", [], 0]}


def _array_type(dtype, dims, where):
    """A tensor array's PIR type: its items' dtype and dims."""
    return {"#": _ARRAY_TYPE, "D": [_tensor_type(dtype, dims, where)["D"][0], list(dims),
                                    "NCHW"]}


def _attr_json(tag, item, value):
    """A PIR attribute {"#": tag, "D": data} of `value`."""
    if tag == "0.a_array":
        if value and item is None:
            raise ValueError("no item type is known for the array %r" % (value,))
        return {"#": tag, "D": [_attr_json(item, None, v) for v in value]}
    convert = {"0.a_f32": lambda v: float(np.float32(v)), "0.a_f64": float, "0.a_i32": int,
               "0.a_i64": int, "0.a_bool": bool, "0.a_str": str,
               "1.a_intarray": lambda v: [int(d) for d in v],
               "1.a_dtype": lambda v: v if str(v).startswith("Undefined") else
               convert_dtype(v)}.get(tag, lambda v: v)
    return {"#": tag, "D": convert(value)}


class _Writer:
    """Ops of one block, written in PIR's SSA form: every variable write is a new value."""

    def __init__(self, program):
        self.block = program.global_block()
        self.ops, self.values, self.next_id = [], {}, 1
        self.next_arg, self.regions = -1, 0      # block arguments' ids count down

    def write_ops(self, ops, where):
        """The ops of the block being written; a conditional_block, logical_not of its
        condition, conditional_block under that (cond's two branches) become one pd_op.if."""
        i = 0
        while i < len(ops):
            op, here = ops[i], "%sop %d (%s)" % (where, i, ops[i].type)
            if op.type == "conditional_block" and _negated_branch(op, ops[i + 1:i + 3]):
                self.legacy_op(ops[i + 1], "%sop %d (logical_not)" % (where, i + 1))
                self.write_if(op, ops[i + 2], here)
                i += 3
                continue
            if op.type == "conditional_block":
                self.write_if(op, None, here)
            elif op.type == "while":
                self.write_while(op, here)
            else:
                self.legacy_op(op, here)
            i += 1

    def region(self, block, results, where, args=()):
        """A region of one block: `block`'s ops, then a cf.yield of the values of the
        names `results`; `args` ([(name, type)]) its block arguments. The values it makes
        stay inside it."""
        outer = self.block, self.ops, dict(self.values)
        self.regions += 1
        number = self.regions
        self.block, self.ops = block, []
        try:
            arguments = []
            for name, tt in args:
                arguments.append({"#": self.next_arg, "TT": tt})
                self.values[name] = {"%": self.next_arg}
                self.next_arg -= 1
            self.write_ops(block.ops, "%s, block %d, " % (where, block.idx))
            self.ops.append({"#": "2.yield", "A": [], "I": [self.use(n, where) for n in results],
                             "O": []})
            return {"#": "region_%d" % number, "blocks": [
                {"#": "block_%d" % number, "args": arguments, "ops": self.ops}]}
        finally:
            self.block, self.ops, self.values = outer

    def control_op(self, name, inputs, results, regions, where):
        """pd_op.if / pd_op.while: the values of `results` after it are its outputs."""
        outputs = [self.value(self.var_type(n, where)) for n in results]
        self.ops.append({"#": "1." + name, "A": [], "I": inputs, "O": outputs,
                         "regions": regions})
        self.values.update(zip(results, outputs))

    def write_if(self, true_op, false_op, where):
        """A conditional_block (and, for cond, the one running the other branch) as a
        pd_op.if; a branch that does not write a result yields its value before the if
        (so does the missing branch of a lone conditional_block)."""
        if not true_op.attrs.get("is_scalar_condition", True) or len(true_op.input("Cond")) != 1:
            raise ValueError("%s: a conditional_block on the non-emptiness of tensors is not "
                             "written as PIR" % where)
        program = self.block.program
        results = list(dict.fromkeys(true_op.output("Out") +
                                     (false_op.output("Out") if false_op else [])))
        regions = []
        for op in (true_op, false_op):
            block = program.block(op.attrs["sub_block"]) if op else \
                Block(program, len(program.blocks), self.block.idx)     # empty, not kept
            regions.append(self.region(block, results, where))
        self.control_op("if", [self.use(true_op.input("Cond")[0], where)], results, regions,
                        where)

    def write_while(self, op, where):
        """A while as a pd_op.while: its condition and the values before it of the names
        the body writes (its block arguments inside, its outputs after)."""
        condition = op.input("Condition")[0]
        carried = [n for n in op.output("Out") if n != condition]
        block = self.block.program.block(op.attrs["sub_block"])
        for name in carried:
            if name not in self.values and self.var(name, where).type == "LOD_TENSOR_ARRAY":
                self.created_array(name, where, block)     # first written in the loop
            if name not in self.values:
                raise ValueError("%s: the loop writes %r, which has no value before it (PIR "
                                 "carries each value the loop writes)" % (where, name))
        inputs = [self.use(n, where) for n in [condition] + carried]
        region = self.region(block, [condition] + carried, where,
                             [(n, self.var_type(n, where)) for n in carried])
        self.control_op("while", inputs, carried, [region], where)

    def value(self, tt):
        vid, self.next_id = self.next_id, self.next_id + 1
        return {"%": vid, "TT": tt}

    def var(self, name, where):
        """Variable `name` of the block being written or a block holding it."""
        var = self.block._find_var_recursive(name)
        if var is None:
            raise ValueError("%s: no variable %r" % (where, name))
        return var

    def var_type(self, name, where):
        """The PIR type of variable `name`; a tensor array's is its value's (the dims of
        what was written into it last), an array without one yet has dims [0]."""
        var = self.var(name, where)
        if var.type == "LOD_TENSOR_ARRAY":
            if name in self.values:
                return self.values[name]["TT"]
            return _array_type(var.dtype, [0], "%s: variable %r" % (where, name))
        return _tensor_type(var.dtype, var.shape, "%s: variable %r" % (where, name))

    def created_array(self, name, where, loop=None):
        """A ref to tensor array `name`, a create_array where nothing wrote it yet (before
        `loop`, the block of a while that writes it first: its type has the dims of the
        items written there, the type the loop carries)."""
        if name not in self.values:
            dtype, dims = self.var(name, where).dtype, [0]
            writes = [op for op in (loop.ops if loop else []) if op.type == "write_to_array"
                      and op.output("Out") == [name]]
            if writes:
                dims = loop._find_var_recursive(writes[0].input("X")[0]).shape
            out, = self.emit("create_array", [], [{"TT": _array_type(dtype, dims, where)}],
                             {"dtype": dtype.name}, where)
            self.values[name] = out
        return self.use(name, where)

    def use(self, name, where):
        if name not in self.values:
            raise ValueError("%s: variable %r is read before anything writes it" % (where, name))
        return {"%": self.values[name]["%"]}

    def parameter(self, var):
        out = self.value(self.var_type(var.name, "parameter"))
        self.values[var.name] = out
        trainable = isinstance(var, Parameter) and var.trainable
        self.ops.append({"#": "p", "A": [0, 1, int(trainable), var.name], "DA": [], "O": out,
                         "OA": [1, int(bool(var.stop_gradient)), int(trainable)], "QA": []})

    def emit(self, name, inputs, outputs, attrs, where):
        """A PIR op `name` (pd_op) with input refs, outputs (each a variable name, a list of
        them: a vector unpacked by builtin.split, a type {"TT": ...}: a value no variable
        holds, or None: a value nobody reads; as many as its facts count, a
        select_output's one per branch) and the attributes its facts list (values from
        `attrs`, else Paddle's). Returns the output values."""
        facts = _FACTS["ops"].get("1." + name)
        if facts is None:
            raise ValueError("%s: refimpl has no facts for PIR op pd_op.%s "
                             "(tools/pir_op_facts.py)" % (where, name))
        out_values, unpack = [], []
        count = len(outputs) if name in _VARIADIC_OUTPUTS else facts["outputs"]
        for i in range(count):
            var_name = outputs[i] if i < len(outputs) else None
            if isinstance(var_name, list):      # a vector, unpacked by builtin.split
                out_values.append(self.value({"#": "0.t_vec", "D": [
                    self.var_type(n, where) for n in var_name]}))
                unpack.append((out_values[-1], var_name))
                continue
            if isinstance(var_name, dict):
                out_values.append(self.value(var_name["TT"]))
                continue
            tt = self.var_type(var_name, where) if var_name else {"#": "NULL"}
            out_values.append(self.value(tt))
            if var_name:
                self.values[var_name] = out_values[-1]
        json_attrs = [{"N": n, "AT": _attr_json(tag, item, attrs.get(n, default))}
                      for n, tag, item, default in facts["attrs"]]
        self.ops.append({"#": "1." + name, "A": json_attrs, "I": inputs, "O": out_values})
        for vector, names in unpack:
            elements = [self.value(self.var_type(n, where)) for n in names]
            self.values.update(zip(names, elements))
            self.ops.append({"#": "0.split", "A": [], "I": [{"%": vector["%"]}],
                             "O": elements})
        return out_values

    def constant(self, value, dtype, where):
        """A ref to the value of full_int_array (a list) or full (a number)."""
        if isinstance(value, (list, tuple)):
            tt = _tensor_type(get_dtype("int64"), [len(value)], where)
            out, = self.emit("full_int_array", [], [{"TT": tt}], {"value": list(value)}, where)
        else:
            tt = _tensor_type(get_dtype(dtype), [1], where)
            out, = self.emit("full", [], [{"TT": tt}],
                             {"shape": [1], "value": value, "dtype": dtype}, where)
        return {"%": out["%"]}

    def reshaped(self, name, shape, where):
        """A ref to variable `name` reshaped to `shape` (a new value)."""
        tt = _tensor_type(self.var(name, where).dtype, shape, where)
        out, = self.emit("reshape", [self.use(name, where),
                                     self.constant(list(shape), None, where)],
                         [{"TT": tt}], {}, where)
        return {"%": out["%"]}

    def legacy_op(self, op, where):
        special = _SPECIAL_WRITERS.get(op.type)
        if special is not None:
            return special(self, op, where)
        name = _PIR_NAME.get(op.type)
        if name is None:
            raise ValueError("%s: refimpl does not write op %s as PIR" % (where, op.type))
        self.translated(op, name, where)

    def translated(self, op, name, where):
        """Legacy op `op` as PIR op `name` (PIR_OPS[name] read backwards)."""
        spec = PIR_OPS[name]
        legacy = {k: v for k, v in op.attrs.items() if v is not None}
        attrs = {pir: legacy[old] for pir, old in spec.rename.items() if old in legacy}
        attrs.update({k: v for k, v in legacy.items() if k not in attrs})
        if op.type in _ATTR_RULES:
            attrs = _ATTR_RULES[op.type](self, op, attrs, where)
        outputs = [list(op.outputs.get(slot[:-1], [])) if slot and slot.endswith("*") else
                   (op.outputs.get(slot) or [None])[0] if slot else None
                   for slot in spec.outputs]
        self.emit(name, self.inputs_of(op, spec, attrs, where), outputs, attrs, where)

    def inputs_of(self, op, spec, attrs, where):
        """The input refs of legacy op `op` for PIR op `spec` (its attributes `attrs`, in
        PIR's names): constants made of attributes, vectors combined, id 0 where absent."""
        inputs = []
        for slot in spec.inputs:
            if slot is None:
                inputs.append({"%": 0})
            elif slot.startswith("=") and op.inputs.get(spec.tensors.get(slot[1:])):
                inputs.append(self.use(op.inputs[spec.tensors[slot[1:]]][0], where))
            elif slot.startswith("="):
                inputs.append(self.constant(attrs[slot[1:]],
                                            _FULL_DTYPES.get((op.type, slot[1:]), "float32"),
                                            where))
            elif slot.endswith("*") and not op.inputs.get(slot[:-1]):
                inputs.append({"%": 0})          # an absent optional vector
            elif slot.endswith("*"):
                names = op.inputs.get(slot[:-1], [])
                out = self.value({"#": "0.t_vec", "D": [self.var_type(n, where) for n in names]})
                self.ops.append({"#": "0.combine", "A": [],
                                 "I": [self.use(n, where) for n in names], "O": [out]})
                inputs.append({"%": out["%"]})
            else:
                names = op.inputs.get(slot)
                inputs.append(self.use(names[0], where) if names else {"%": 0})
        return inputs


def _reduce_attrs(writer, op, attrs, where):
    attrs["dim"] = [] if attrs.get("reduce_all") else list(attrs.get("dim", []))
    attrs["keepdim"] = attrs.get("keep_dim", False)
    return attrs


def _bool_reduce_attrs(writer, op, attrs, where):
    attrs = _reduce_attrs(writer, op, attrs, where)
    attrs["axis"] = attrs["dim"]
    return attrs


def _cast_attrs(writer, op, attrs, where):
    attrs["dtype"] = attrs["out_dtype"]
    return attrs


def _out_dtype_attrs(writer, op, attrs, where):
    """range, fill_any_like: PIR's dtype is the output's (legacy: the inputs', -1: X's)."""
    attrs["dtype"] = writer.var(op.output("Out")[0], where).dtype.name
    return attrs


def _swish_attrs(writer, op, attrs, where):
    if attrs.get("beta", 1.0) != 1.0:       # PIR's swish has no beta
        raise ValueError("%s: swish with beta %r is not written as PIR (its swish is x * "
                         "sigmoid(x))" % (where, attrs["beta"]))
    return attrs


_ATTR_RULES = dict({"cast": _cast_attrs, "range": _out_dtype_attrs,
                    "fill_any_like": _out_dtype_attrs, "swish": _swish_attrs,
                    "reduce_any": _bool_reduce_attrs, "reduce_all": _bool_reduce_attrs},
                   **{t: _reduce_attrs for t in ("reduce_mean", "reduce_sum", "reduce_max",
                                                  "reduce_min", "reduce_prod")})


def _write_mul(writer, op, where):
    """mul: X and Y flattened to matrices at x_num_col_dims / y_num_col_dims, a matmul,
    the result reshaped to X's leading and Y's trailing dims (reshapes only where a shape
    changes)."""
    x, y, out = op.input("X")[0], op.input("Y")[0], op.output("Out")[0]
    xs, ys = writer.var(x, where).shape, writer.var(y, where).shape
    xd, yd = op.attrs.get("x_num_col_dims", 1), op.attrs.get("y_num_col_dims", 1)
    rows, cols = int(np.prod(xs[xd:])), int(np.prod(ys[yd:]))
    x_ref = writer.use(x, where) if len(xs) == 2 else writer.reshaped(x, [-1, rows], where)
    y_ref = writer.use(y, where) if len(ys) == 2 else writer.reshaped(y, [-1, cols], where)
    out_shape = list(writer.var(out, where).shape)
    if xd == 1:
        writer.emit("matmul", [x_ref, y_ref], [out], {}, where)
        return
    if out_shape.count(-1) > 1:
        raise ValueError("%s: mul with x_num_col_dims %d and several unknown dims %s is not "
                         "written as PIR" % (where, xd, out_shape))
    flat, = writer.emit("matmul", [x_ref, y_ref],
                        [{"TT": _tensor_type(writer.var(out, where).dtype, [-1, cols], where)}],
                        {}, where)
    writer.emit("reshape", [{"%": flat["%"]}, writer.constant(out_shape, None, where)], [out],
                {}, where)


def _write_elementwise(writer, op, where):
    """elementwise_*: Y broadcast from `axis` (legacy) is Y reshaped with ones around it
    (PIR broadcasts trailing dims only)."""
    name = {spec.type: pir for pir, spec in PIR_OPS.items()}[op.type]
    x, y = op.input("X")[0], op.input("Y")[0]
    xr, ys = len(writer.var(x, where).shape), list(writer.var(y, where).shape)
    axis = op.attrs.get("axis", -1)
    y_ref = writer.use(y, where)
    if axis not in (-1, xr - len(ys)) and len(ys) < xr:
        y_ref = writer.reshaped(y, [1] * axis + ys + [1] * (xr - axis - len(ys)), where)
    writer.emit(name, [writer.use(x, where), y_ref], [op.output("Out")[0]], {}, where)


def _write_fill_constant(writer, op, where):
    if op.inputs:
        raise ValueError("%s: fill_constant with tensor inputs %s is not written as PIR"
                         % (where, sorted(op.inputs)))
    writer.emit("full", [], [op.output("Out")[0]],
                {"shape": op.attrs["shape"], "value": op.attrs.get("value", 0.0),
                 "dtype": op.attrs.get("dtype", "float32")}, where)


def _negated_branch(op, following):
    """Whether `following` are logical_not of conditional_block `op`'s condition and a
    conditional_block under it: cond's other branch."""
    if len(following) != 2 or following[0].type != "logical_not" or \
            following[1].type != "conditional_block":
        return False
    negate, other = following
    return negate.input("X") == op.input("Cond") and \
        other.input("Cond") == negate.output("Out")


def _write_matmul(writer, op, where):
    """matmul (v1): PIR's matmul, then a scale by alpha where it is not 1, as Paddle's
    translator writes it."""
    if op.attrs.get("head_number", 1) != 1:
        raise ValueError("%s: matmul with head_number %r is not written as PIR"
                         % (where, op.attrs["head_number"]))
    out, alpha = op.output("Out")[0], op.attrs.get("alpha", 1.0)
    inputs = [writer.use(op.input("X")[0], where), writer.use(op.input("Y")[0], where)]
    attrs = {"transpose_x": op.attrs.get("transpose_X", False),
             "transpose_y": op.attrs.get("transpose_Y", False)}
    if alpha == 1.0:
        writer.emit("matmul", inputs, [out], attrs, where)
        return
    product, = writer.emit("matmul", inputs, [{"TT": writer.var_type(out, where)}], attrs,
                           where)
    writer.emit("scale", [{"%": product["%"]}, writer.constant(alpha, "float32", where)],
                [out], {"bias": 0.0, "bias_after_scale": True}, where)


def _write_split(writer, op, where):
    """split: in `num` equal parts (split_with_num) or in `sections`."""
    writer.translated(op, "split_with_num" if op.attrs.get("num") else "split", where)


def _write_lookup_table(writer, op, where):
    """lookup_table (v1, ids [..., 1]): embedding of the ids, then the 1 squeezed out, as
    Paddle's translator writes it."""
    ids, w, out = op.input("Ids")[0], op.input("W")[0], op.output("Out")[0]
    ids_shape = list(writer.var(ids, where).shape)
    if not ids_shape or ids_shape[-1] != 1:
        raise ValueError("%s: lookup_table's Ids %r must end in a dim of 1, got shape %s"
                         % (where, ids, ids_shape))
    width = writer.var(w, where).shape[-1]
    tt = _tensor_type(writer.var(out, where).dtype, ids_shape + [width], where)
    looked_up, = writer.emit("embedding", [writer.use(ids, where), writer.use(w, where)],
                             [{"TT": tt}], {"padding_idx": op.attrs.get("padding_idx", -1),
                                            "sparse": op.attrs.get("is_sparse", False)},
                             where)
    writer.emit("squeeze", [{"%": looked_up["%"]}, writer.constant([-2], None, where)], [out],
                {}, where)


def _write_array_write(writer, op, where):
    """write_to_array as array_write_ (in place: its output is the array's next value),
    after a create_array where nothing wrote the array yet."""
    array, x = op.output("Out")[0], op.input("X")[0]
    inputs = [writer.created_array(array, where), writer.use(x, where),
              writer.use(op.input("I")[0], where)]
    tt = _array_type(writer.var(array, where).dtype, writer.var(x, where).shape, where)
    out, = writer.emit("array_write_", inputs, [{"TT": tt}], {}, where)
    writer.values[array] = out


def _write_select_input(writer, op, where):
    """select_input: the mask, then each branch's value (no combine)."""
    inputs = [writer.use(op.input("Mask")[0], where)] + [writer.use(n, where)
                                                          for n in op.input("X")]
    writer.emit("select_input", inputs, [op.output("Out")[0]], {}, where)


def _write_select_output(writer, op, where):
    """select_output: the mask and the value; an output per branch (no split)."""
    writer.emit("select_output", [writer.use(op.input("Mask")[0], where),
                                  writer.use(op.input("X")[0], where)],
                list(op.output("Out")), {}, where)


def _write_rnn(writer, op, where):
    """rnn: its dropout state in a uint8 0-d `full` and its DropoutState and Reserve 0-d
    values nobody reads, as Paddle's translator writes them (inference keeps no mask)."""
    attrs = {k: v for k, v in op.attrs.items() if v is not None}
    state = _tensor_type(get_dtype("uint8"), [], where)
    dropout, = writer.emit("full", [], [{"TT": state}],
                           {"shape": [], "value": 0.0, "dtype": "uint8"}, where)
    inputs = writer.inputs_of(op, PIR_OPS["rnn"], attrs, where)
    inputs[-1] = {"%": dropout["%"]}
    writer.emit("rnn", inputs, [op.output("Out")[0], {"TT": state}, list(op.output("State")),
                                {"TT": state}], attrs, where)


_SPECIAL_WRITERS = dict({"mul": _write_mul, "matmul": _write_matmul,
                         "fill_constant": _write_fill_constant,
                         "split": _write_split, "lookup_table": _write_lookup_table,
                         "write_to_array": _write_array_write,
                         "select_input": _write_select_input,
                         "select_output": _write_select_output, "rnn": _write_rnn},
                        **{t: _write_elementwise for t in
                           ("elementwise_add", "elementwise_sub", "elementwise_mul",
                            "elementwise_div", "elementwise_max", "elementwise_min",
                            "elementwise_pow", "elementwise_mod", "elementwise_floordiv")
                           + _COMPARISONS})


def encode_program(program, feed_names, fetch_names):
    """PIR json bytes of an inference program (one block), as Paddle 3's
    save_inference_model writes it: parameters, a data op per feed target, the ops
    (each legacy op as the PIR op Paddle translates it to), a fetch op per fetch target.
    ValueError naming the op for what cannot be written."""
    writer = _Writer(program)
    block = writer.block
    for var in block.vars.values():
        if var.persistable and var.name not in feed_names and var.type == "LOD_TENSOR":
            writer.parameter(var)
    for name in feed_names:
        var = block.vars[name]
        out, = writer.emit("data", [], [name], {"name": name, "shape": list(var.shape),
                                                "dtype": var.dtype.name}, "feed %r" % name)
        writer.ops[-1]["OA"] = [{"N": "stop_gradient", "AT": _attr_json(
            "0.a_array", "0.a_bool", [True])}]
    writer.write_ops(block.ops, "")
    for col, name in enumerate(fetch_names):
        writer.emit("fetch", [writer.use(name, "fetch %r" % name)], [name],
                    {"name": name, "col": col}, "fetch %r" % name)
        writer.ops[-1]["OA"] = [{"N": "persistable", "AT": _attr_json(
            "0.a_array", "0.a_bool", [True])}]
    doc = {"base_code": _FACTS["base_code"],
           "program": {"regions": [{"#": "region_0", "blocks": [
               {"#": "block_0", "args": [], "ops": writer.ops}]}]}}
    return json.dumps(doc, separators=(",", ":")).encode("utf-8")
