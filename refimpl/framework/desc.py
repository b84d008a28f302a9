"""Desc views: Paddle's C++-side descriptions of ops, blocks and programs (`op.desc`,
`block.desc`, `program.desc`) as thin views over refimpl's Python IR.

Paddle keeps the IR twice (Python objects and protobuf descs) and code written against it
(Paddle's OpTest, passes, tools) reads and edits the descs: `op.desc.input("X")`,
`op.desc.infer_shape(block.desc)`, `block.desc.append_op()` then `copy_from(...)` and
`program._sync_with_cpp()`. refimpl has one IR; these views read and write it. An OpDesc
made by `block.desc.append_op()` or `core.get_grad_op_desc` stands alone until
`program._sync_with_cpp()` turns it into an Operator of its block.
"""
import hashlib

import numpy as np

from .dtypes import DType, is_integer_value

__all__ = ["OpDesc", "BlockDesc", "ProgramDesc", "VarDesc", "AttrType", "ATTR_TYPE_NAMES",
           "ATTR_VALUE_FIELDS", "GENERATED_ATTR_TYPES", "INT32_BOUNDS", "attr_type_of"]

# Paddle's attribute types (framework.proto's AttrType), by code
ATTR_TYPE_NAMES = ("INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN",
                   "BOOLEANS", "BLOCK", "LONG", "BLOCKS", "LONGS")


# the OpDesc.Attr field holding each attribute type's value (framework.proto; FLOAT64S
# and the types after it are Paddle 3's)
ATTR_VALUE_FIELDS = {"INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints",
                     "FLOATS": "floats", "STRINGS": "strings", "BOOLEAN": "b",
                     "BOOLEANS": "bools", "BLOCK": "block_idx", "LONG": "l",
                     "BLOCKS": "blocks_idx", "LONGS": "longs", "FLOAT64S": "float64s",
                     "VAR": "var_name", "VARS": "vars_name", "FLOAT64": "float64",
                     "SCALAR": "scalar", "SCALARS": "scalars"}


class AttrType:
    """Paddle's attribute type codes (framework.proto)."""
    INT, FLOAT, STRING, INTS, FLOATS, STRINGS, BOOLEAN, BOOLEANS, BLOCK, LONG, BLOCKS, \
        LONGS = range(len(ATTR_TYPE_NAMES))


# the attributes the framework adds to every op (OpProtoHolder.generated_op_attr_names)
# and their types; Paddle 1.8.5 and 3.3.1 both type op_callstack STRINGS (one line a frame)
GENERATED_ATTR_TYPES = {"op_role": AttrType.INT, "op_role_var": AttrType.STRINGS,
                        "op_namescope": AttrType.STRING, "op_callstack": AttrType.STRINGS,
                        "op_device": AttrType.STRING}

# the ints an INT attribute holds (int32); a wider one is a LONG
INT32_BOUNDS = (-(1 << 31), 1 << 31)
# the list types and the element types each holds, narrowest first (an empty list: INTS)
_LIST_ELEMENTS = ((AttrType.INTS, {AttrType.INT}),
                  (AttrType.LONGS, {AttrType.INT, AttrType.LONG}),
                  (AttrType.FLOATS, {AttrType.INT, AttrType.LONG, AttrType.FLOAT}),
                  (AttrType.BOOLEANS, {AttrType.BOOLEAN}),
                  (AttrType.STRINGS, {AttrType.STRING}))


def attr_type_of(value):
    """The AttrType a value has by itself, as Paddle's pybind types an attribute set from
    Python: an int is INT when it fits int32, else LONG; a dtype is INT (its code); a list
    takes its elements' widest type (ints with floats: FLOATS; empty: INTS). None when no
    attribute type holds the value (None itself, a list of strings and numbers, ...)."""
    if isinstance(value, (bool, np.bool_)):
        return AttrType.BOOLEAN
    if isinstance(value, (int, np.integer)):
        return AttrType.INT if INT32_BOUNDS[0] <= value < INT32_BOUNDS[1] else AttrType.LONG
    if isinstance(value, (float, np.floating)):
        return AttrType.FLOAT
    if isinstance(value, DType):
        return AttrType.INT
    if isinstance(value, str):
        return AttrType.STRING
    if isinstance(value, (list, tuple)):
        kinds = {attr_type_of(v) for v in value}
        for list_type, held in _LIST_ELEMENTS:
            if kinds <= held:
                return list_type
    return None


class OpDesc:
    """An op's description: type, named input/output slots of variable names, attrs.
    Views a live Operator (`op`), or stands alone (`op` None) until synced into a block."""

    def __init__(self, op=None, type=None, inputs=None, outputs=None, attrs=None):
        self._op = op
        if op is None:
            self._type = type or ""
            self._inputs = {k: list(v) for k, v in (inputs or {}).items()}
            self._outputs = {k: list(v) for k, v in (outputs or {}).items()}
            self._attrs = dict(attrs or {})

    # the fields, wherever they live
    @property
    def _fields(self):
        op = self._op
        if op is None:
            return self._inputs, self._outputs, self._attrs
        return op.inputs, op.outputs, op.attrs

    def type(self):
        return self._op.type if self._op is not None else self._type

    def set_type(self, type):
        if self._op is not None:
            raise ValueError("set_type: op %r is already in a block; build a new op instead"
                             % self._op.type)
        self._type = type

    def input(self, slot):
        return list(self._fields[0].get(slot, []))

    def output(self, slot):
        return list(self._fields[1].get(slot, []))

    def input_names(self):
        return list(self._fields[0])

    def output_names(self):
        return list(self._fields[1])

    def input_arg_names(self):
        return [n for names in self._fields[0].values() for n in names]

    def output_arg_names(self):
        return [n for names in self._fields[1].values() for n in names]

    def set_input(self, slot, names):
        self._fields[0][slot] = list(names)
        self._changed()

    def set_output(self, slot, names):
        self._fields[1][slot] = list(names)
        self._changed()

    def remove_input(self, slot):
        self._fields[0].pop(slot, None)
        self._changed()

    def remove_output(self, slot):
        self._fields[1].pop(slot, None)
        self._changed()

    def _rename(self, which, old, new):
        for names in self._fields[which].values():
            names[:] = [new if n == old else n for n in names]
        self._changed()

    def rename_input(self, old, new):
        self._rename(0, old, new)

    def rename_output(self, old, new):
        self._rename(1, old, new)

    def attr(self, name):
        return self._fields[2][name]

    def has_attr(self, name):
        return name in self._fields[2]

    def attr_names(self):
        return list(self._fields[2])

    def attr_type(self, name):
        """Paddle's AttrType code of attribute `name`: the framework's own attributes have
        theirs; another is typed by the op's declared default (an empty list says nothing
        of its elements), else by its value."""
        value = self._fields[2][name]
        if name in GENERATED_ATTR_TYPES:
            return GENERATED_ATTR_TYPES[name]
        if self._op is not None:
            op_def = self._op.op_def
            default = op_def.attrs.get(name, op_def.inert_attrs.get(
                name, op_def.mkldnn_attrs.get(name)))
            if default is not None and default != []:
                return attr_type_of(default)
        kind = attr_type_of(value)
        # an unset optional attribute (None) reads as Paddle's empty one, a STRING
        return AttrType.STRING if kind is None else kind

    def set_attr(self, name, value):
        self._fields[2][name] = value
        self._changed()

    _set_attr = set_attr

    def remove_attr(self, name):
        self._fields[2].pop(name, None)
        self._changed()

    def copy_from(self, other):
        """Take type, slots and attrs of another OpDesc (this one must stand alone)."""
        inputs, outputs, attrs = other._fields
        self.set_type(other.type())
        self._inputs = {k: list(v) for k, v in inputs.items()}
        self._outputs = {k: list(v) for k, v in outputs.items()}
        self._attrs = dict(attrs)

    def infer_shape(self, block_desc=None):
        """Shape/dtype inference of a live op (refimpl also does it when the op is built)."""
        if self._op is not None:
            self._op.op_def.run_infer_shape(self._op)

    def infer_var_type(self, block_desc=None):
        """Variable kinds follow the op's declared slots in refimpl: nothing to infer."""

    def check_attrs(self):
        """Attributes are checked when refimpl binds the op's kernel."""

    def _changed(self):
        if self._op is not None:
            self._op.block.program._bump()

    def __eq__(self, other):
        if isinstance(other, OpDesc) and self._op is not None:
            return self._op is other._op
        return self is other

    def __hash__(self):
        return id(self._op) if self._op is not None else id(self)

    def __repr__(self):
        return "OpDesc(%s, inputs=%s, outputs=%s)" % (self.type(), self._fields[0],
                                                      self._fields[1])


class VarDesc:
    """A variable's description (name, shape, dtype, kind, persistable, lod level)."""

    def __init__(self, var):
        self._var = var

    def name(self):
        return self._var.name

    def shape(self):
        return list(self._var.shape or [])

    def set_shape(self, shape):
        self._var._set_shape_dtype(shape, None)

    def dtype(self):
        return self._var.dtype

    def set_dtype(self, dtype):
        self._var._set_shape_dtype(self._var.shape, dtype)

    def type(self):
        return self._var.type

    def set_type(self, type):
        self._var.type = type

    def persistable(self):
        return self._var.persistable

    def set_persistable(self, persistable):
        self._var.persistable = bool(persistable)

    def lod_level(self):
        return self._var.lod_level

    def set_lod_level(self, level):
        self._var.lod_level = int(level)

    def need_check_feed(self):
        return self._var.need_check_feed

    def set_need_check_feed(self, check):
        self._var.need_check_feed = bool(check)

    def stop_gradient(self):
        return self._var.stop_gradient

    def set_stop_gradient(self, stop):
        self._var.stop_gradient = bool(stop)
        self._changed()

    # the variable's own attributes (VarDesc.attrs of Paddle 2.x / 3's framework.proto:
    # ints, strings and lists of ints), written into its ProgramDesc
    def _set_attr(self, name, value):
        if not (is_integer_value(value) or isinstance(value, str) or
                (isinstance(value, (list, tuple)) and all(is_integer_value(v) for v in value))):
            raise ValueError("VarDesc._set_attr(%r): the value must be one of int, string, "
                             "list of int, got %r" % (name, value))
        if self._var.desc_attrs is None:
            self._var.desc_attrs = {}
        self._var.desc_attrs[name] = list(value) if isinstance(value, tuple) else value
        self._changed()

    def attr(self, name):
        attrs = self._var.desc_attrs or {}
        if name not in attrs:
            raise RuntimeError("(NotFound) Attribute %s is not found in variable %r."
                               % (name, self._var.name))
        return attrs[name]

    def has_attr(self, name):
        return name in (self._var.desc_attrs or {})

    def attr_names(self):
        return list(self._var.desc_attrs or {})

    def remove_attr(self, name):
        if (self._var.desc_attrs or {}).pop(name, None) is not None:
            self._changed()

    def _changed(self):
        block = getattr(self._var, "block", None)
        if block is not None and block.program is not None:
            block.program._bump()


def _text(name):
    return name.decode() if isinstance(name, bytes) else name


class BlockDesc:
    """A block's description: its ops (as OpDescs) and variables (as VarDescs)."""

    def __init__(self, block):
        self._block = block

    @property
    def id(self):
        return self._block.idx

    @property
    def parent(self):
        return self._block.parent_idx

    def append_op(self):
        """A new, empty OpDesc at the end of the block (an Operator after _sync_with_cpp)."""
        desc = OpDesc()
        self._block._pending_descs.append(desc)
        return desc

    def op_size(self):
        return len(self._block.ops)

    def op(self, index):
        return self._block.ops[index].desc

    def var(self, name):
        """The variable `name` (str, or bytes as Paddle's tests pass), created if absent."""
        name = _text(name)
        v = self._block._find_var_recursive(name)
        if v is None:
            v = self._block.create_var(name=name)
        return VarDesc(v)

    def find_var(self, name):
        v = self._block._find_var_recursive(_text(name))
        return VarDesc(v) if v is not None else None

    def has_var(self, name):
        return self._block.has_var(_text(name))

    def all_vars(self):
        return [VarDesc(v) for v in self._block.vars.values()]

    def _remove_op(self, start, end):
        del self._block.ops[start:end]
        self._block.program._bump()


class ProgramDesc:
    """A program's description. `program.desc` is a view of the program; built directly
    (`core.ProgramDesc()`), as in Paddle, it is a new empty program's, a copy of another
    ProgramDesc's program, or the program in ProgramDesc bytes."""

    def __init__(self, program=None):
        from .program import Program
        if program is None:
            program = Program()
        elif isinstance(program, ProgramDesc):
            program = program._program.clone()
        elif isinstance(program, (bytes, bytearray)):
            program = Program.parse_from_string(bytes(program))
        elif not isinstance(program, Program):
            raise TypeError("ProgramDesc(): expected nothing, a ProgramDesc or ProgramDesc "
                            "bytes, got %s" % type(program).__name__)
        self._program = program

    def serialize_to_string(self):
        """The program as Paddle's ProgramDesc bytes (what Paddle 1.8 users write to a
        `__model__`-style file; Program.parse_from_string reads them back)."""
        from .model_formats import program_to_bytes
        return program_to_bytes(self._program)

    def block(self, index):
        return self._program.block(index).desc

    # Paddle 3's cached program hash: need_update() says whether the program changed since
    # the last flush() (or cached_hash_str(), which flushes)
    def need_update(self):
        return self._program._version != self._program.desc_flushed_version

    def flush(self):
        self._program.desc_flushed_version = self._program._version

    def cached_hash_str(self):
        """A hash of the program's ProgramDesc bytes, as a decimal string (equal programs,
        a clone included, give the same); computed again after a change."""
        program = self._program
        if program.desc_hash is None or program.desc_hash[0] != program._version:
            digest = hashlib.sha256(self.serialize_to_string()).digest()
            program.desc_hash = (program._version, str(int.from_bytes(digest[:8], "little")))
        self.flush()
        return program.desc_hash[1]

    def num_blocks(self):
        return self._program.num_blocks
