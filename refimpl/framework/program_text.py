"""Program.to_string: a Program in the text format of Paddle's ProgramDesc protobuf
(`blocks { idx: 0 parent_idx: -1 vars {...} ops {...} }`), which Paddle's to_string prints;
with_details adds the Python-side fields Paddle appends to each variable (stop_gradient,
error_clip, and a Parameter's trainable, optimize_attr, regularizer, do_model_average,
need_clip under 2.0 and 3). Attributes are typed as the ProgramDesc writer types them.
specs/program.md."""
import numpy as np

from .. import versions
from .paddle_formats.grad_ops import ForwardOps, paddle_grad_type, paddle_op_slots
from .paddle_formats.program_desc import (block_writers, desc_attr_names,
                                          desc_holds_lod_level, desc_holds_persistable,
                                          desc_version, op_attr_desc)

__all__ = ["program_to_text"]

_TENSOR_TYPES = {"LOD_TENSOR": "lod_tensor", "LOD_TENSOR_ARRAY": "tensor_array",
                 "SELECTED_ROWS": None}


# the bytes protobuf's text format escapes by name; others outside printable ASCII: octal
_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _quote(text):
    """A string field as protobuf's text format prints it: its UTF-8 bytes, escaped."""
    return '"%s"' % "".join(_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else "\\%03o" % b)
                            for b in str(text).encode("utf-8"))


def _indent(lines, depth=1):
    return ["  " * depth + line for line in lines]


def _tensor_lines(var):
    lines = ["data_type: %s" % (var.dtype.var_type if var.dtype is not None else "FP32")]
    lines += ["dims: %d" % d for d in (var.shape or ())]
    return ["tensor {"] + _indent(lines) + ["}"]


def _var_lines(var, writer, with_details):
    kind = var.type if isinstance(var.type, str) else "LOD_TENSOR"
    type_lines = ["type: %s" % kind]
    if kind in _TENSOR_TYPES:
        field = _TENSOR_TYPES[kind]
        if field is None:     # SELECTED_ROWS holds a bare tensor description
            type_lines += ["selected_rows {"] + _indent(_tensor_lines(var)[1:-1]) + ["}"]
        else:
            lod_level = (["lod_level: %d" % (var.lod_level or 0)]
                         if desc_holds_lod_level(var, writer, versions.current()) else [])
            type_lines += ["%s {" % field] + _indent(_tensor_lines(var) + lod_level) + ["}"]
    lines = ["name: %s" % _quote(var.name), "type {"] + _indent(type_lines) + ["}"]
    if desc_holds_persistable(var):
        lines.append("persistable: %s" % ("true" if var.persistable else "false"))
    if var.need_check_feed:
        lines.append("need_check_feed: true")
    if with_details:
        lines += ["error_clip: None", "stop_gradient: %s" % var.stop_gradient]
        if hasattr(var, "trainable"):   # a Parameter
            lines += ["trainable: %s" % var.trainable,
                      "optimize_attr: %s" % (var.optimize_attr,),
                      "regularizer: %s" % (var.regularizer,),
                      "do_model_average: %s" % (var.do_model_average,)]
            if not versions.switch("fluid_debug_text"):
                lines.append("need_clip: %s" % (var.need_clip,))
    return lines


def _value_text(kind, value):
    """One value (an element of a list) of an attribute of type `kind`, as Paddle's text
    format prints it: a FLOAT is the float32 Paddle holds, printed as a double."""
    if kind.startswith("BOOLEAN"):
        return "true" if value else "false"
    if kind.startswith("FLOAT"):
        return repr(float(np.float32(value)) if kind in ("FLOAT", "FLOATS") else float(value))
    if kind.startswith("STRING"):
        return _quote(value)
    return str(value)


def _attr_lines(op, name):
    """An attribute typed as the ProgramDesc writer types it for the current profile (the
    type Paddle declares for it, else its value's own), its value in that type (a dtype
    as its VarType code)."""
    try:
        attr = op_attr_desc(op, name, versions.current())
    except ValueError:      # a refimpl-only value no Paddle attribute holds: its text
        attr = {"name": name, "type": "STRING", "s": str(op.attrs[name])}
    kind = attr["type"]
    (field, stored), = [(k, v) for k, v in attr.items() if k not in ("name", "type")]
    values = stored if isinstance(stored, list) else [stored]
    return ["name: %s" % _quote(name), "type: %s" % kind] + [
        "%s: %s" % (field, _value_text(kind, v)) for v in values]


def _op_lines(op, forward_ops):
    lines = []
    inputs, outputs = paddle_op_slots(op, forward_ops, versions.release())
    for key, slots in (("inputs", inputs), ("outputs", outputs)):
        for slot, names in slots.items():
            lines += ["%s {" % key] + _indent(["parameter: %s" % _quote(slot)] + [
                "arguments: %s" % _quote(n) for n in names]) + ["}"]
    lines.append("type: %s" % _quote(paddle_grad_type(op.type)))   # as the desc holds it
    # the writer's, in its order: a program read back prints as it did (1.8.5's order is
    # its attribute map's, the same for both)
    for name in desc_attr_names(op, versions.current()):
        lines += ["attrs {"] + _indent(_attr_lines(op, name)) + ["}"]
    return lines


def program_to_text(program, with_details=False):
    lines = []
    for block in program.blocks:
        body = ["idx: %d" % block.idx, "parent_idx: %d" % block.parent_idx]
        writers = block_writers(block)
        for var in block.vars.values():
            body += ["vars {"] + _indent(_var_lines(var, writers.get(var.name),
                                                    with_details)) + ["}"]
        forward_ops = ForwardOps()
        for op in block.ops:
            body += ["ops {"] + _indent(_op_lines(op, forward_ops)) + ["}"]
        if block.forward_block_idx >= 0:
            body.append("forward_block_idx: %d" % block.forward_block_idx)
        lines += ["blocks {"] + _indent(body) + ["}"]
    # 3.3.1 then prints its op registry's whole op_version_map, which refimpl does not
    lines += ["version {", "  version: %d" % desc_version(program, versions.current()), "}"]
    return "\n".join(lines) + "\n"
