"""Program.to_string: a Program in the text format of Paddle's ProgramDesc protobuf
(`blocks { idx: 0 parent_idx: -1 vars {...} ops {...} }`), which Paddle's to_string prints;
with_details adds the Python-side fields Paddle appends to each variable (stop_gradient,
error_clip, and a Parameter's trainable, optimize_attr, regularizer, do_model_average,
need_clip). specs/program.md."""
import numbers

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


def _scalar(value):
    """(type name, field, text) of one attribute value."""
    if isinstance(value, bool):
        return "BOOLEAN", "b", "true" if value else "false"
    if isinstance(value, numbers.Integral):
        wide = not -2 ** 31 <= int(value) < 2 ** 31
        return ("LONG", "l", str(int(value))) if wide else ("INT", "i", str(int(value)))
    if isinstance(value, numbers.Real):
        return "FLOAT", "f", repr(float(value))
    return "STRING", "s", _quote(value)


_LIST_TYPES = {"BOOLEAN": ("BOOLEANS", "bools"), "INT": ("INTS", "ints"),
               "LONG": ("LONGS", "longs"), "FLOAT": ("FLOATS", "floats"),
               "STRING": ("STRINGS", "strings")}


def _attr_lines(name, value):
    lines = ["name: %s" % _quote(name)]
    if name in _BLOCK_ATTRS and isinstance(value, numbers.Integral):
        return lines + ["type: BLOCK", "block_idx: %d" % value]
    if name == "op_callstack" and isinstance(value, str):
        value = [value]
    if isinstance(value, (list, tuple)):
        kinds = [_scalar(v) for v in value]
        kind = kinds[0][0] if kinds else ("STRING" if name == "op_role_var" else "INT")
        if any(k[0] == "LONG" for k in kinds) and kind == "INT":
            kind = "LONG"
        if any(k[0] == "FLOAT" for k in kinds) and kind in ("INT", "LONG"):
            kind = "FLOAT"
        list_type, field = _LIST_TYPES[kind]
        texts = [_scalar(float(v) if kind == "FLOAT" else v)[2] for v in value]
        return lines + ["type: %s" % list_type] + ["%s: %s" % (field, t) for t in texts]
    if value is None:
        return lines + ["type: STRING", 's: ""']
    kind, field, text = _scalar(value)
    return lines + ["type: %s" % kind, "%s: %s" % (field, text)]


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
