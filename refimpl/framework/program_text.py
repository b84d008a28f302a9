"""Program.to_string: a Program in the text format of Paddle's ProgramDesc protobuf
(`blocks { idx: 0 parent_idx: -1 vars {...} ops {...} }`), which Paddle's to_string prints;
with_details adds the Python-side fields Paddle appends to each variable (stop_gradient,
error_clip, and a Parameter's trainable, optimize_attr, regularizer, do_model_average,
need_clip). specs/program.md."""
import numbers

from .desc import (ATTR_TYPE_NAMES, ATTR_VALUE_FIELDS, GENERATED_ATTR_TYPES, AttrType,
                   attr_type_of)

__all__ = ["program_to_text"]

_TENSOR_TYPES = {"LOD_TENSOR": "lod_tensor", "LOD_TENSOR_ARRAY": "tensor_array",
                 "SELECTED_ROWS": None}
_BLOCK_ATTRS = ("sub_block",)


def _quote(text):
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"%s"' % escaped


def _indent(lines, depth=1):
    return ["  " * depth + line for line in lines]


def _tensor_lines(var):
    lines = ["data_type: %s" % (var.dtype.var_type if var.dtype is not None else "FP32")]
    lines += ["dims: %d" % d for d in (var.shape or ())]
    return ["tensor {"] + _indent(lines) + ["}"]


def _var_lines(var, with_details):
    kind = var.type if isinstance(var.type, str) else "LOD_TENSOR"
    type_lines = ["type: %s" % kind]
    if kind in _TENSOR_TYPES:
        field = _TENSOR_TYPES[kind]
        if field is None:     # SELECTED_ROWS holds a bare tensor description
            type_lines += ["selected_rows {"] + _indent(_tensor_lines(var)[1:-1]) + ["}"]
        else:
            type_lines += ["%s {" % field] + _indent(
                _tensor_lines(var) + ["lod_level: %d" % (var.lod_level or 0)]) + ["}"]
    lines = ["name: %s" % _quote(var.name), "type {"] + _indent(type_lines) + ["}"]
    lines.append("persistable: %s" % ("true" if var.persistable else "false"))
    if var.need_check_feed:
        lines.append("need_check_feed: true")
    if with_details:
        lines += ["error_clip: None", "stop_gradient: %s" % var.stop_gradient]
        if hasattr(var, "trainable"):   # a Parameter
            lines += ["trainable: %s" % var.trainable,
                      "optimize_attr: %s" % (var.optimize_attr,),
                      "regularizer: %s" % (var.regularizer,),
                      "do_model_average: %s" % (var.do_model_average,),
                      "need_clip: %s" % (var.need_clip,)]
    return lines


def _value_text(kind, value):
    """One value (an element of a list) as an attribute of type `kind` prints it."""
    if kind in (AttrType.BOOLEAN, AttrType.BOOLEANS):
        return "true" if value else "false"
    if kind in (AttrType.FLOAT, AttrType.FLOATS):
        return repr(float(value))
    if kind in (AttrType.STRING, AttrType.STRINGS):
        return _quote(value)
    return str(int(value))


def _attr_lines(name, value):
    lines = ["name: %s" % _quote(name)]
    if name in _BLOCK_ATTRS and isinstance(value, numbers.Integral):
        return lines + ["type: BLOCK", "block_idx: %d" % value]
    if name == "op_callstack" and isinstance(value, str):
        value = [value]
    if value is None:    # an unset attribute
        return lines + ["type: STRING", 's: ""']
    kind = GENERATED_ATTR_TYPES.get(name)
    if kind is None:
        kind = attr_type_of(value)
    if kind is None:     # a value no attribute type holds: its text
        kind, value = AttrType.STRING, str(value)
    values = value if isinstance(value, (list, tuple)) else [value]
    type_name = ATTR_TYPE_NAMES[kind]
    return lines + ["type: %s" % type_name] + [
        "%s: %s" % (ATTR_VALUE_FIELDS[type_name], _value_text(kind, v)) for v in values]


def _op_lines(op):
    lines = []
    for key, slots in (("inputs", op.inputs), ("outputs", op.outputs)):
        for slot, names in slots.items():
            lines += ["%s {" % key] + _indent(["parameter: %s" % _quote(slot)] + [
                "arguments: %s" % _quote(n) for n in names]) + ["}"]
    lines.append("type: %s" % _quote(op.type))
    for name, value in op.attrs.items():
        lines += ["attrs {"] + _indent(_attr_lines(name, value)) + ["}"]
    return lines


def program_to_text(program, with_details=False):
    lines = []
    for block in program.blocks:
        body = ["idx: %d" % block.idx, "parent_idx: %d" % block.parent_idx]
        for var in block.vars.values():
            body += ["vars {"] + _indent(_var_lines(var, with_details)) + ["}"]
        for op in block.ops:
            body += ["ops {"] + _indent(_op_lines(op)) + ["}"]
        if block.forward_block_idx >= 0:
            body.append("forward_block_idx: %d" % block.forward_block_idx)
        lines += ["blocks {"] + _indent(body) + ["}"]
    return "\n".join(lines) + "\n"
