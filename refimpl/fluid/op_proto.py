"""Op protos: Paddle's description of each op type (framework.OpProtoHolder), built from
refimpl's OpDefs. A proto lists the op's input and output slots (duplicable: a list of
variables; dispensable: may be left out) and its attributes with their types, which is
what Paddle's OpTest and fluid.op.Operator read to build and drive an op."""
from .. import versions
from ..framework.desc import GENERATED_ATTR_TYPES, AttrType, attr_type_of
from ..framework.paddle_formats.program_desc import declared_attr_types
from ..ops.registry import all_op_types, get_op_def, is_duplicable, is_optional, slot_name

__all__ = ["OpProto", "VarProto", "AttrProto", "AttrType", "OpProtoHolder",
           "get_all_op_protos"]


class VarProto:
    def __init__(self, name, duplicable, dispensable, intermediate=False):
        self.name = name
        self.duplicable = duplicable
        self.dispensable = dispensable
        self.intermediate = intermediate
        self.comment = ""

    def __repr__(self):
        return "VarProto(%s%s%s)" % (self.name, ", duplicable" if self.duplicable else "",
                                     ", dispensable" if self.dispensable else "")


class AttrProto:
    def __init__(self, name, type):
        self.name = name
        self.type = type
        self.generated = False      # Paddle 1.8.5's protos leave it unset, op_role's too
        self.comment = ""

    def __repr__(self):
        return "AttrProto(%s)" % self.name


class OpProto:
    """type, inputs, outputs (VarProtos) and attrs (AttrProtos) of one op type.

    Inputs are dispensable when optional or filled from another input's LoD (lod_lengths:
    Paddle reads the LoD itself). Outputs are all dispensable: refimpl's kernels compute every output and the executor
    stores only those the op names, so any output may be left out."""

    def __init__(self, op_def):
        self.type = op_def.type
        self.comment = (type(op_def).__doc__ or "").strip()
        # a slot that an input's LoD can fill (lod_lengths) may be left out too
        self.inputs = [VarProto(slot_name(s), is_duplicable(s),
                                is_optional(s) or slot_name(s) in op_def.lod_lengths)
                       for s in op_def.inputs]
        self.outputs = [VarProto(slot_name(s), is_duplicable(s), True)
                        for s in op_def.outputs]
        # an empty list has no type of its own: Paddle's declared one (interp_v2's scale
        # is FLOATS), else INTS
        declared = declared_attr_types(versions.current()).get(op_def.type, {})
        self.attrs = [AttrProto(name, getattr(AttrType, declared[name])
                                if isinstance(value, list) and not value and name in declared
                                else attr_type_of(value))
                      for name, value in op_def.attrs.items()]
        self.attrs += [AttrProto(old, attr_type_of(op_def.attrs[new]))
                       for old, new in op_def.renamed_attrs.items()]
        self.attrs += [AttrProto(name, attr_type_of(value))
                       for name, value in op_def.desc_inert_attrs().items()]
        # the attributes the framework adds to every op (role, namescope, call stack, device)
        self.attrs += [AttrProto(name, kind)
                       for name, kind in GENERATED_ATTR_TYPES.items()
                       if name not in op_def.attrs]

    def __repr__(self):
        return "OpProto(%s, inputs=%s, outputs=%s, attrs=%s)" % (
            self.type, [v.name for v in self.inputs], [v.name for v in self.outputs],
            [a.name for a in self.attrs])


_protos = {}


def get_op_proto(op_type):
    proto = _protos.get(op_type)
    if proto is None:
        proto = _protos[op_type] = OpProto(get_op_def(op_type))
    return proto


def get_all_op_protos():
    return [get_op_proto(t) for t in sorted(all_op_types())]


class OpProtoHolder:
    """framework.OpProtoHolder.instance().get_op_proto(type)."""
    _instance = None

    @classmethod
    def instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def get_op_proto(self, type):
        if type not in all_op_types():
            raise ValueError('Operator "%s" has not been registered.' % type)
        return get_op_proto(type)

    def update_op_proto(self):
        """Protos are built on demand from the registry: nothing to refresh."""

    @staticmethod
    def generated_op_attr_names():
        return set(GENERATED_ATTR_TYPES)
