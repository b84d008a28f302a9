"""Paddle's ProgramDesc protobuf (`__model__`, `*.pdmodel`, serialize_program bytes) <->
refimpl's Program.

    desc = decode_desc(data)                       # the message as dicts (framework.proto)
    program, feeds, fetches = program_from_desc(desc)
    data = encode_program(program, feeds, fetches, paddle_version="2.0")

Reading keeps everything refimpl can hold: every block (parent, forward block), every
variable (type, dtype, shape, lod_level, persistable, need_check_feed, stop_gradient,
Parameters), every op with all its attributes, converted to refimpl's conventions (a dtype
attribute as its name, a sub-block as its index, FLOAT as the shortest decimal that gives
the stored float32). Inference programs' feed / fetch ops become the feed and fetch names.
The file's version and op version maps stay on the Program (`paddle_desc_versions`) so that
writing it again keeps them.

Writing gives each attribute the type Paddle declares for it (paddle_op_facts.json, measured
from Paddle 1.8.5 and 3.3.1), else the type its value has; see specs/io.md.
"""
import functools

import numpy as np

from . import DecodeError, proto_schema, wire
from .grad_ops import (ForwardOps, paddle_grad_type, paddle_held_attrs, paddle_op_slots,
                       reconcile_grad_slots, refimpl_grad_type)
from .op_facts import FACTS as _FACTS
from ..desc import (ATTR_TYPE_NAMES, ATTR_VALUE_FIELDS, GENERATED_ATTR_TYPES, INT32_BOUNDS,
                    attr_type_of)
from ..dtypes import DType, convert_dtype
from ..program import (GRAD_SUFFIX, Block, Operator, Parameter, Program, Variable,
                       op_definition, op_types)

__all__ = ["decode_desc", "encode_desc", "program_from_desc", "program_to_desc",
           "decode_program", "encode_program", "unsupported_op_types", "feed_specs",
           "float32_value", "declared_attr_types", "op_attr_desc", "desc_attr_names",
           "desc_version", "desc_holds_lod_level", "desc_holds_persistable", "block_writers",
           "UnsupportedOps",
           "PROFILE_RELEASES", "DATA_TYPES", "DTYPE_OF"]

SCHEMA = proto_schema.load("framework.proto")
PROGRAM_DESC = SCHEMA["ProgramDesc"]

# the Paddle release each version profile writes as (ProgramDesc.version: major*1e6 + ...)
PROFILE_RELEASES = {"1.8": "1.8.5", "2.0": "2.0.0", "3": "3.3.1"}

# refimpl dtype name <-> VarType.Type value name (tensor_stream uses them too)
DATA_TYPES = {"bool": "BOOL", "int8": "INT8", "int16": "INT16", "int32": "INT32",
               "int64": "INT64", "uint8": "UINT8", "float16": "FP16", "float32": "FP32",
               "float64": "FP64", "complex64": "COMPLEX64", "complex128": "COMPLEX128"}
DTYPE_OF = {v: k for k, v in DATA_TYPES.items()}
_TYPE_NUMBERS = SCHEMA["VarType.Type"].numbers
# which VarType field describes the tensor of each kind of variable
_TENSOR_FIELD = {"LOD_TENSOR": "lod_tensor", "LOD_TENSOR_ARRAY": "tensor_array",
                 "SELECTED_ROWS": "selected_rows", "STRING": "string", "STRINGS": "strings",
                 "VOCAB": "vocab", "SPARSE_COO": "sparse_coo", "SPARSE_CSR": "sparse_csr"}
_WITH_LOD_LEVEL = ("lod_tensor", "tensor_array")

# attributes every op carries, whatever the op: the framework's own, and Paddle 3's
# with_quant_attr (in every op proto, though not a generated attribute)
_COMMON_ATTR_TYPES = dict({name: ATTR_TYPE_NAMES[code]
                           for name, code in GENERATED_ATTR_TYPES.items()},
                          with_quant_attr="BOOLEAN")


class UnsupportedOps(DecodeError):
    """A program using op types refimpl does not implement (`op_types`, sorted)."""

    def __init__(self, op_types):
        self.op_types = sorted(op_types)
        super().__init__("the program uses op types refimpl does not implement: %s"
                         % ", ".join(self.op_types))


# -- bytes


def decode_desc(data):
    """The ProgramDesc in `data` as dicts (wire.decode); DecodeError if it is not one."""
    desc = wire.decode(data, PROGRAM_DESC)
    if not desc.get("blocks"):
        raise DecodeError("ProgramDesc: no blocks (not a Paddle program, or an empty one)")
    return desc


def encode_desc(desc):
    return wire.encode(desc, PROGRAM_DESC)


def decode_program(data):
    """(Program, feed names, fetch names) of ProgramDesc bytes (feed / fetch names are
    None for a program without feed / fetch ops)."""
    return program_from_desc(decode_desc(data))


def encode_program(program, feed_names=None, fetch_names=None, paddle_version="2.0"):
    return encode_desc(program_to_desc(program, feed_names, fetch_names, paddle_version))


# -- reading


def float32_value(f):
    """The shortest decimal that rounds to the float32 `f`: 0.1 written as FLOAT reads back
    as 0.1, and Paddle computes with the same float32."""
    return float(str(np.float32(f)))


def _scalar_value(scalar, where):
    kind = scalar.get("type")
    if kind == "BOOLEAN":
        return bool(scalar.get("b", False))
    if kind == "LONG":
        return int(scalar.get("i", 0))
    if kind == "FLOAT64":
        return float(scalar.get("r", 0.0))
    if kind == "COMPLEX128":
        c = scalar.get("c", {})
        return complex(c.get("r", 0.0), c.get("i", 0.0))
    raise DecodeError("%s: scalar of unknown type %r" % (where, kind))


def _attr_value(attr, where):
    """The Python value of an OpDesc.Attr, by its declared type."""
    kind = attr.get("type")
    if kind not in ATTR_VALUE_FIELDS:
        raise DecodeError("%s: unknown attribute type %r" % (where, kind))
    field = ATTR_VALUE_FIELDS[kind]
    repeated = SCHEMA["OpDesc.Attr"].fields_by_name[field].repeated
    value = attr.get(field, [] if repeated else None)
    if value is None:
        value = {"INT": 0, "FLOAT": 0.0, "STRING": "", "BOOLEAN": False, "BLOCK": 0,
                 "LONG": 0, "VAR": "", "FLOAT64": 0.0}.get(kind)
        if value is None:
            raise DecodeError("%s: %s attribute without a value" % (where, kind))
    if kind == "FLOAT":
        return float32_value(value)
    if kind == "FLOATS":
        return [float32_value(v) for v in value]
    if kind == "SCALAR":
        return _scalar_value(value, where)
    if kind == "SCALARS":
        return [_scalar_value(v, where) for v in value]
    return list(value) if repeated else value


def _to_refimpl_attr(op_def, name, value, kind):
    """Paddle's value in refimpl's convention: dtype attributes by name, op_callstack as
    one string."""
    if name == "op_callstack" and isinstance(value, list):
        return "".join(value)
    default = op_def.attrs.get(name)
    if kind == "INT" and isinstance(default, (str, DType)) and _is_dtype_name(default):
        for dtype_name, type_name in DATA_TYPES.items():
            if _TYPE_NUMBERS[type_name] == value:
                return dtype_name
    return value


def op_attrs(op_def, op_desc, where):
    """{name: value} of a decoded OpDesc's attributes, in refimpl's convention."""
    attrs = {}
    for attr in op_desc.get("attrs", []):
        name = attr.get("name")
        if name is None:
            raise DecodeError("%s: an attribute without a name" % where)
        value = _attr_value(attr, "%s attr %r" % (where, name))
        attrs[name] = _to_refimpl_attr(op_def, name, value, attr.get("type"))
    return attrs


def _is_dtype_name(value):
    try:
        convert_dtype(value)
    except (TypeError, ValueError):
        return False
    return True


def _tensor_desc(var_type, where):
    """(dtype name or None, shape tuple or None, lod_level) of a VarType."""
    field = _TENSOR_FIELD.get(var_type.get("type"))
    desc = var_type.get(field) if field else None
    if desc is None:
        return None, None, 0
    lod_level = desc.get("lod_level", 0) if field in _WITH_LOD_LEVEL else 0
    tensor = desc.get("tensor") if field in _WITH_LOD_LEVEL else desc
    if tensor is None:              # Paddle writes no tensor for variables it knows nothing of
        return None, None, lod_level
    data_type = tensor.get("data_type", "BOOL")
    if data_type not in DTYPE_OF:
        raise DecodeError("%s: data type %s is not supported by refimpl (supported: %s)"
                          % (where, data_type, ", ".join(sorted(DTYPE_OF))))
    return DTYPE_OF[data_type], tuple(tensor.get("dims", [])), lod_level


def _parameter_names(desc):
    """Which variables are Parameters: Paddle 2.x and later mark them (is_parameter); 1.8
    does not, and then they are the variables optimizer ops update (their `Param` input)."""
    blocks = desc["blocks"]
    marked = {v.get("name") for b in blocks for v in b.get("vars", []) if v.get("is_parameter")}
    if marked or any("is_parameter" in v for b in blocks for v in b.get("vars", [])):
        return marked
    return {name for b in blocks for op in b.get("ops", []) for slot in op.get("inputs", [])
            if slot.get("parameter") == "Param" for name in slot.get("arguments", [])}


def _variable(block, vd, is_parameter, where):
    var_type = vd.get("type") or {}
    kind = var_type.get("type")
    if kind is None:
        raise DecodeError("%s: variable without a type" % where)
    dtype, shape, lod_level = _tensor_desc(var_type, where)
    fields = dict(name=vd["name"], shape=shape, dtype=dtype, lod_level=lod_level,
                  type=kind,
                  persistable=vd.get("persistable", False),
                  stop_gradient=vd.get("stop_gradient", False),
                  need_check_feed=vd.get("need_check_feed", False),
                  is_data=vd.get("need_check_feed", False))
    if not is_parameter:
        var = Variable(block, **fields)
        var.persistable_given = "persistable" in vd
        if vd.get("attrs"):
            var.desc_attrs = {a.get("name"): _attr_value(a, "%s attr %r" % (where, a.get("name")))
                              for a in vd["attrs"]}
        return var
    if shape is None or any(d < 0 for d in shape):
        raise DecodeError("%s: parameter with shape %s (parameters have known shapes)"
                          % (where, None if shape is None else list(shape)))
    fields.pop("persistable")
    stop_gradient = fields.pop("stop_gradient")
    return Parameter(block, fields.pop("shape"), fields.pop("dtype"),
                     trainable=not stop_gradient, **fields)


def unsupported_op_types(desc):
    """The op types of a decoded ProgramDesc that refimpl does not implement."""
    known = set(op_types()) | {"feed", "fetch"}
    types = set()
    for i, block in enumerate(desc["blocks"]):
        for j, op in enumerate(block.get("ops", [])):
            if "type" not in op:
                raise DecodeError("ProgramDesc.blocks[%d].ops[%d]: op without a type" % (i, j))
            types.add(refimpl_grad_type(op["type"]))
    return sorted(types - known)


def _slots(op_desc, key, where="op"):
    """{slot: [names]} without the empty slots Paddle writes for absent optional inputs."""
    slots = {}
    for v in op_desc.get(key, []):
        if "parameter" not in v:
            raise DecodeError("%s: an %s entry without a slot name" % (where, key[:-1]))
        if v.get("arguments"):
            slots[v["parameter"]] = list(v["arguments"])
    return slots


def _feed_fetch(block_desc, op_type, slot, where):
    """Names of the feed (Out) or fetch (X) targets, in `col` order."""
    by_col = {}
    for op in block_desc.get("ops", []):
        if op.get("type") != op_type:
            continue
        attrs = {a.get("name"): a for a in op.get("attrs", [])}
        col = attrs["col"].get("i", 0) if "col" in attrs else len(by_col)
        names = _slots(op, "outputs" if op_type == "feed" else "inputs").get(slot, [])
        if len(names) != 1 or col in by_col:
            raise DecodeError("%s: malformed %s op (col %d, %s %s)"
                              % (where, op_type, col, slot, names))
        by_col[col] = names[0]
    if sorted(by_col) != list(range(len(by_col))):
        raise DecodeError("%s: %s ops have columns %s, expected 0..%d"
                          % (where, op_type, sorted(by_col), len(by_col) - 1))
    return [by_col[c] for c in range(len(by_col))] if by_col else None


def feed_specs(desc):
    """[(name, dtype, shape)] of an inference ProgramDesc's feed targets, from the desc
    alone (so also for programs refimpl cannot build)."""
    block = desc["blocks"][0]
    names = _feed_fetch(block, "feed", "Out", "ProgramDesc.blocks[0]") or []
    var_descs = {v.get("name"): v for v in block.get("vars", [])}
    specs = []
    for name in names:
        if name not in var_descs:
            raise DecodeError("ProgramDesc.blocks[0]: feed target %r has no variable" % name)
        dtype, shape, _ = _tensor_desc(var_descs[name].get("type", {}), name)
        specs.append((name, dtype, list(shape or ())))
    return specs


def program_from_desc(desc):
    """(Program, feed names or None, fetch names or None) of a decoded ProgramDesc; raises
    UnsupportedOps (before building anything) if it uses ops refimpl lacks."""
    missing = unsupported_op_types(desc)
    if missing:
        raise UnsupportedOps(missing)
    parameters = _parameter_names(desc)
    program = Program()
    program.blocks = []
    for i, bd in enumerate(desc["blocks"]):
        block = Block(program, bd.get("idx", i), bd.get("parent_idx", -1))
        block.forward_block_idx = bd.get("forward_block_idx", -1)
        program.blocks.append(block)
    if [b.idx for b in program.blocks] != list(range(len(program.blocks))):
        raise DecodeError("ProgramDesc: block indices %s are not 0..%d"
                          % ([b.idx for b in program.blocks], len(program.blocks) - 1))
    global_desc = desc["blocks"][0]
    feeds = _feed_fetch(global_desc, "feed", "Out", "ProgramDesc.blocks[0]")
    fetches = _feed_fetch(global_desc, "fetch", "X", "ProgramDesc.blocks[0]")
    for block, bd in zip(program.blocks, desc["blocks"]):
        where = "ProgramDesc.blocks[%d]" % block.idx
        for j, vd in enumerate(bd.get("vars", [])):
            if vd.get("type", {}).get("type") in ("FEED_MINIBATCH", "FETCH_LIST"):
                continue        # written again from the feed / fetch names
            if "name" not in vd:
                raise DecodeError("%s.vars[%d]: variable without a name" % (where, j))
            block.vars[vd["name"]] = _variable(block, vd, vd["name"] in parameters,
                                               "%s.vars[%d] (%r)" % (where, j, vd["name"]))
        forward_ops = ForwardOps()
        for j, od in enumerate(bd.get("ops", [])):
            op_type = refimpl_grad_type(od.get("type"))
            if op_type in ("feed", "fetch"):
                continue
            op_where = "%s.ops[%d] (%s)" % (where, j, od.get("type"))
            op_def = op_definition(op_type)
            attrs = op_attrs(op_def, od, op_where)
            inputs, outputs = _slots(od, "inputs", op_where), _slots(od, "outputs", op_where)
            forward_ops.add(op_type, inputs, outputs)
            inputs = reconcile_grad_slots(op_type, inputs, forward_ops)
            try:
                # the saved variables are the truth: no shape inference
                op = Operator(block, op_type, inputs, outputs, attrs, infer=False)
            except ValueError as e:
                raise DecodeError("%s: %s" % (op_where, e)) from None
            # a desc op without input entries was made without an inputs dict
            op.lists_proto_inputs = bool(od.get("inputs"))
            block.ops.append(op)
    if feeds is not None:
        program._is_test = True
        for name in feeds:
            var = program.global_block().vars.get(name)
            if var is not None:
                var.is_data = True
    program.paddle_desc_versions = {k: desc[k] for k in
                                    ("version", "op_version_map", "op_compatible_map")
                                    if k in desc}
    program._bump()
    return program, feeds, fetches


# -- writing


@functools.lru_cache(maxsize=None)
def declared_attr_types(paddle_version):
    """{op type: {attr: AttrType}} Paddle declares in the release a profile writes as."""
    release = PROFILE_RELEASES[paddle_version]
    table = {op: dict(attrs) for op, attrs in _FACTS["attr_types"][_FACTS["reference"]].items()}
    for op, attrs in _FACTS["attr_types"].get(release, {}).items():
        table.setdefault(op, {}).update(attrs)
    for op, names in _FACTS["absent_attrs"].get(release, {}).items():   # 1.8.5's momentum
        for name in names:                              # has no regularization_coeff
            table.get(op, {}).pop(name, None)
    return table


def _natural_attr_type(value):
    """The AttrType name a Python value has by itself (when Paddle declares none)."""
    code = attr_type_of(value)
    if code is None:
        raise ValueError("cannot be written as a Paddle attribute: %r (%s)"
                         % (value, type(value).__name__))
    return ATTR_TYPE_NAMES[code]


def _scalar_desc(value):
    if isinstance(value, (bool, np.bool_)):
        return {"type": "BOOLEAN", "b": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"type": "LONG", "i": int(value)}
    if isinstance(value, complex):
        return {"type": "COMPLEX128", "c": {"r": value.real, "i": value.imag}}
    return {"type": "FLOAT64", "r": float(value)}


def _dtype_code(value):
    return _TYPE_NUMBERS[DATA_TYPES[convert_dtype(value)]]


def _coerce(kind, value):
    """`value` as the contents of an Attr of type `kind`; ValueError when it does not fit."""
    if kind in ("INT", "LONG"):
        if isinstance(value, (str, DType)):
            value = _dtype_code(value)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError("expected an integer, got %r" % (value,))
        if kind == "INT" and not INT32_BOUNDS[0] <= value < INT32_BOUNDS[1]:
            raise ValueError("%d does not fit INT (int32)" % value)
        return int(value)
    if kind in ("FLOAT", "FLOAT64"):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise ValueError("expected a number, got %r" % (value,))
        return float(value)
    if kind in ("STRING", "VAR"):
        if not isinstance(value, str):
            raise ValueError("expected a string, got %r" % (value,))
        return value
    if kind == "BOOLEAN":
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError("expected a bool, got %r" % (value,))
        return bool(value)
    if kind == "BLOCK":
        return _coerce("INT", getattr(value, "idx", value))
    if kind == "SCALAR":
        return _scalar_desc(value)
    if kind.endswith("S") and kind != "SCALARS":
        if not isinstance(value, (list, tuple)):
            raise ValueError("expected a list, got %r" % (value,))
        one = {"INTS": "INT", "FLOATS": "FLOAT", "STRINGS": "STRING", "BOOLEANS": "BOOLEAN",
               "BLOCKS": "BLOCK", "LONGS": "LONG", "FLOAT64S": "FLOAT64", "VARS": "VAR"}[kind]
        return [_coerce(one, v) for v in value]
    if kind == "SCALARS":
        return [_scalar_desc(v) for v in value]
    raise ValueError("unknown attribute type %s" % kind)


def _attr_desc(op_type, name, value, declared):
    if name == "op_callstack" and isinstance(value, str):
        value = [value] if value else []
    kind = _COMMON_ATTR_TYPES.get(name) or declared.get(name)
    if kind is None:
        kind = _natural_attr_type(value)
    return {"name": name, "type": kind, ATTR_VALUE_FIELDS[kind]: _coerce(kind, value)}


def block_writers(block):
    """{variable name: (Paddle op type, output slot)} of the variables one op of `block`
    writes (desc_holds_lod_level's `writer`)."""
    found = {}
    for op in block.ops:
        for slot, names in op.outputs.items():
            for name in names:
                found[name] = None if name in found else (paddle_grad_type(op.type), slot)
    return {name: writer for name, writer in found.items() if writer is not None}


def desc_holds_lod_level(var, writer=None, paddle_version=None):
    """Whether Paddle's VarDesc of `var` holds its lod_level: not a persistable one's
    (parameters, optimizer accumulators, global variables: Paddle's Python gives them none)
    unless it is nonzero (measured on 1.8.5 and 3.3.1); of a variable one op writes (`writer`:
    its Paddle type and output slot), as the release's kernel sets it (its compile-time
    InferShape shares a LoD, or not: paddle_op_facts.json output_lod_levels, measured on
    1.8.5's programs); else held."""
    if var.persistable or var.lod_level:
        return bool(var.lod_level)
    if writer is None or paddle_version is None:
        return True
    op_type, slot = writer
    known = _FACTS["output_lod_levels"].get(PROFILE_RELEASES[paddle_version], {})
    return known.get(op_type, {}).get(slot, True)


def desc_holds_persistable(var):
    """Whether Paddle's VarDesc of `var` holds `persistable`: not a gradient variable's
    (Paddle's backward makes them in C++, without it), nor one declared without it
    (Variable.persistable_given). Measured on 1.8.5 and 3.3.1."""
    return bool(var.persistable) or (var.persistable_given and GRAD_SUFFIX not in var.name)


def _var_desc(var, writer, paddle_version):
    kind = var.type
    var_type = {"type": kind}
    field = _TENSOR_FIELD.get(kind)
    if field is not None:
        body = {}
        if var.dtype is not None:
            tensor = {"data_type": DATA_TYPES[var.dtype.name],
                      "dims": [int(d) for d in (var.shape or ())]}
            body = {"tensor": tensor} if field in _WITH_LOD_LEVEL else tensor
        if field in _WITH_LOD_LEVEL and desc_holds_lod_level(var, writer, paddle_version):
            body["lod_level"] = int(var.lod_level or 0)
        if body:
            var_type[field] = body
    vd = {"name": var.name, "type": var_type}
    if desc_holds_persistable(var):
        vd["persistable"] = bool(var.persistable)
    if var.need_check_feed:
        vd["need_check_feed"] = True
    if isinstance(var, Parameter):
        vd["is_parameter"] = True
    if var.stop_gradient:
        vd["stop_gradient"] = True
    if var.desc_attrs and paddle_version != "1.8":      # 1.8's VarDesc has no attrs
        vd["attrs"] = [_var_attr_desc(name, value) for name, value in var.desc_attrs.items()]
    return vd


def _var_attr_desc(name, value):
    """VarDesc.Attr: an int (INT), a string (STRING) or a list of ints (INTS)."""
    if isinstance(value, str):
        return {"name": name, "type": "STRING", "s": value}
    if isinstance(value, list):
        return {"name": name, "type": "INTS", "ints": [int(v) for v in value]}
    return {"name": name, "type": "INT", "i": int(value)}


def _declared_for(op_type, declared_by_op):
    """The attribute types Paddle declares for `op_type` (a grad op: its forward op's)."""
    return declared_by_op.get(op_type[:-len("_grad")] if op_type.endswith("_grad")
                              else op_type, {})


def op_attr_desc(op, name, paddle_version):
    """The OpDesc.Attr dict of `op`'s attribute `name` as Paddle `paddle_version` writes
    it (Program.to_string prints it); ValueError when that type cannot hold the value."""
    declared = _declared_for(op.type, declared_attr_types(paddle_version))
    return _attr_desc(op.type, name, op.attrs[name], declared)


def _attr_defaults(op_type):
    """refimpl's defaults of `op_type`'s attributes (a grad op: also its forward op's)."""
    defaults = {}
    if op_type.endswith("_grad") and op_type[:-len("_grad")] in op_types():
        defaults.update(op_definition(op_type[:-len("_grad")]).attrs)
    if op_type in op_types():
        defaults.update(op_definition(op_type).attrs)
    return defaults


def desc_attr_names(op, paddle_version):
    """The names of `op`'s attributes Paddle `paddle_version`'s desc holds, sorted (the
    order the writer stores and to_string prints): not one set to None (Paddle sets none),
    not one Paddle's backward leaves unset (paddle_held_attrs), not a refimpl-only one (of
    an op Paddle declares, an attribute no release declares: While's max_steps) holding its
    default. Each left out reads back as its default."""
    table = declared_attr_types(paddle_version)
    declared = _declared_for(op.type, table)
    held = paddle_held_attrs(op, PROFILE_RELEASES[paddle_version])
    # only for an op Paddle's facts know: of another every attribute is unknown
    defaults = _attr_defaults(op.type) if declared or op.type in table else {}
    names = []
    for name in sorted(op.attrs):
        value = op.attrs[name]
        if value is None or (held is not None and name not in held):
            continue
        if name not in declared and name not in _COMMON_ATTR_TYPES and name in defaults \
                and isinstance(value, (bool, int, float, str, list)) and value == defaults[name]:
            continue
        names.append(name)
    return names


def _op_desc(op, declared_by_op, forward_ops, paddle_version, where):
    declared = _declared_for(op.type, declared_by_op)
    inputs, outputs = paddle_op_slots(op, forward_ops, PROFILE_RELEASES[paddle_version])
    attrs = []
    for name in desc_attr_names(op, paddle_version):
        value = op.attrs[name]
        try:
            attrs.append(_attr_desc(op.type, name, value, declared))
        except ValueError as e:
            raise ValueError("%s: attribute %r: %s" % (where, name, e)) from None
    return {"type": paddle_grad_type(op.type),
            "inputs": [{"parameter": k, "arguments": list(v)} for k, v in inputs.items()],
            "outputs": [{"parameter": k, "arguments": list(v)} for k, v in outputs.items()],
            "attrs": attrs}


def _feed_fetch_ops(feed_names, fetch_names):
    """Paddle's feed ops (feed -> each feed target) and fetch ops (each fetch target ->
    fetch), column i for the i-th name, and the two holder variables."""
    def op(op_type, x, out, col):
        return {"type": op_type, "inputs": [{"parameter": "X", "arguments": [x]}],
                "outputs": [{"parameter": "Out", "arguments": [out]}],
                "attrs": [{"name": "col", "type": "INT", "i": col},
                          {"name": "op_role", "type": "INT", "i": 0}]}
    feeds = [op("feed", "feed", name, i) for i, name in enumerate(feed_names)]
    fetches = [op("fetch", name, "fetch", i) for i, name in enumerate(fetch_names)]
    holders = [{"name": "feed", "type": {"type": "FEED_MINIBATCH"}, "persistable": True},
               {"name": "fetch", "type": {"type": "FETCH_LIST"}, "persistable": True}]
    return feeds, fetches, holders


def desc_version(program, paddle_version):
    """ProgramDesc.version of `program` as Paddle `paddle_version` writes it: the version it
    was read with, else the release's (major * 1000000 + minor * 1000 + patch)."""
    kept = program.paddle_desc_versions
    if kept:
        return kept.get("version", {}).get("version", 0)
    major, minor, patch = (int(p) for p in PROFILE_RELEASES[paddle_version].split("."))
    return major * 1000000 + minor * 1000 + patch


def _versions(program, paddle_version, op_types):
    kept = program.paddle_desc_versions
    if kept:
        return dict(kept)
    out = {"version": {"version": desc_version(program, paddle_version)}}
    if paddle_version != "1.8":     # 2.x and later record each op's definition version
        known = _FACTS["op_versions"][_FACTS["reference"]]
        pairs = [{"op_name": t, "op_version": {"version": known[t]}}
                 for t in sorted(op_types) if t in known]
        out["op_version_map"] = {"pair": pairs}
    return out


def program_to_desc(program, feed_names=None, fetch_names=None, paddle_version="2.0"):
    """The ProgramDesc dict of `program`, as Paddle `paddle_version` ('1.8', '2.0', '3')
    writes it; with feed / fetch names, the feed and fetch ops of an inference program.
    ValueError (naming the op and attribute) for a value no Paddle attribute can hold."""
    declared = declared_attr_types(paddle_version)
    blocks = []
    for block in program.blocks:
        writers = block_writers(block)
        bd = {"idx": block.idx, "parent_idx": block.parent_idx,
              "vars": [_var_desc(v, writers.get(v.name), paddle_version)
                       for v in block.vars.values()],
              "ops": []}
        forward_ops = ForwardOps()
        for i, op in enumerate(block.ops):
            bd["ops"].append(_op_desc(op, declared, forward_ops, paddle_version,
                                      "block %d op %d (%s)" % (block.idx, i, op.type)))
        if block.forward_block_idx != -1:
            bd["forward_block_idx"] = block.forward_block_idx
        blocks.append(bd)
    if feed_names is not None or fetch_names is not None:
        feeds, fetches, holders = _feed_fetch_ops(feed_names or [], fetch_names or [])
        blocks[0]["ops"] = feeds + blocks[0]["ops"] + fetches
        blocks[0]["vars"] = blocks[0]["vars"] + holders
    op_types = {op["type"] for b in blocks for op in b["ops"]}
    return dict({"blocks": blocks}, **_versions(program, paddle_version, op_types))
