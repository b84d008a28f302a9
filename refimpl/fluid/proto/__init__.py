"""paddle.fluid.proto: the protobuf message classes Paddle code imports, built from
refimpl's own .proto reader and wire codec (framework/paddle_formats; no protobuf
package): `profiler.profiler_pb2` (the profile fluid.profiler writes) and `framework_pb2`
(the program format and the op protos core.get_all_op_protos() serializes)."""
from ...framework.paddle_formats import proto_schema, wire
from ...framework.paddle_formats.proto_schema import Enum, Message

__all__ = ["message_classes", "enum_types"]

_DEFAULTS = {"string": "", "bytes": b"", "bool": False, "float": 0.0, "double": 0.0}


class _Repeated(list):
    """A repeated message field: a list whose add() appends a new message."""

    def __init__(self, make, items=()):
        super().__init__(items)
        self._make = make

    def add(self, **fields):
        item = self._make(**fields)
        self.append(item)
        return item


class _MessageBase:
    _schema = None     # the proto_schema.Message
    _classes = None    # {message name: class} of its file

    def __init__(self, **fields):
        # proto2: a field set explicitly is written even when it holds its default
        object.__setattr__(self, "_present", set())
        for field in self._schema.fields.values():
            object.__setattr__(self, field.name, self._default(field))
        for name, value in fields.items():
            if name not in self._schema.fields_by_name:
                raise ValueError("%s has no field %r" % (type(self).__name__, name))
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name not in self._schema.fields_by_name:
            raise AttributeError("%s has no field %r" % (type(self).__name__, name))
        self._present.add(name)
        object.__setattr__(self, name, value)

    def _default(self, field):
        if isinstance(field.type, Message):
            make = self._classes[field.type.full_name]
            return _Repeated(make) if field.repeated else make()
        if field.repeated:
            return []
        return _DEFAULTS.get(field.type_name, 0)

    @classmethod
    def FromString(cls, data):
        """A new message read from protobuf bytes."""
        message = cls()
        message.ParseFromString(data)
        return message

    def CopyFrom(self, other):
        """This message made a copy of `other` (a message of the same type)."""
        if type(other) is not type(self):
            raise TypeError("%s.CopyFrom takes a %s, got %s" % (
                type(self).__name__, type(self).__name__, type(other).__name__))
        self.__init__()
        self._fill(other._decoded())

    def _decoded(self):
        """The message's fields as the wire codec decodes them (enums by name)."""
        return wire.decode(self.SerializeToString(), self._schema)

    def ParseFromString(self, data):
        """Read the message from protobuf bytes (a DecodeError names what is wrong)."""
        self.__init__()
        self._fill(wire.decode(bytes(data), self._schema))
        return len(data)

    def _fill(self, values):
        for name, value in values.items():
            field = self._schema.fields_by_name[name]
            if isinstance(field.type, Message):
                make = self._classes[field.type.full_name]
                if field.repeated:
                    getattr(self, name).extend(make()._filled(v) for v in value)
                else:
                    setattr(self, name, make()._filled(value))
            elif isinstance(field.type, Enum):   # numbers, as protobuf's classes give them
                number = field.type.numbers
                setattr(self, name, [number.get(v, v) for v in value] if field.repeated
                        else number.get(value, value))
            else:
                setattr(self, name, value)

    def _filled(self, values):
        self._fill(values)
        return self

    def _values(self):
        out = {}
        for field in self._schema.fields.values():
            value = getattr(self, field.name)
            if isinstance(field.type, Message):
                value = [v._values() for v in value] if field.repeated else value._values()
            if field.repeated:
                if value:
                    out[field.name] = value
            elif field.name in self._present or (isinstance(field.type, Message) and value):
                out[field.name] = value
        return out

    def SerializeToString(self):
        return wire.encode(self._values(), self._schema)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self._values())


class _EnumType:
    """An enum of a .proto file as protobuf's classes give it: its values as attributes
    (AttrType.INT, Scalar.Type.BOOLEAN), items(), Name(number) and Value(name)."""

    def __init__(self, definition):
        self._definition = definition
        for value_name, number in definition.numbers.items():
            setattr(self, value_name, number)

    def items(self):
        return list(self._definition.numbers.items())

    def Name(self, number):
        return self._definition.names[number]

    def Value(self, name):
        return self._definition.numbers[name]


def enum_types(proto_file):
    """{enum name: _EnumType} for the enums of `proto_file` (nested ones as Owner.Name)."""
    return {name: _EnumType(definition)
            for name, definition in proto_schema.load(proto_file).items()
            if isinstance(definition, Enum)}


def message_classes(proto_file):
    """{message name: class} for the messages of `proto_file` (next to proto_schema.py);
    a message's nested messages and enums are attributes of its class (OpDesc.Attr,
    Scalar.Type), and so are its enums' values (Event.CPU), as in protobuf."""
    schema = proto_schema.load(proto_file)
    classes = {}
    for name, definition in schema.items():
        if isinstance(definition, Message):
            classes[name] = type(name.rsplit(".", 1)[-1], (_MessageBase,),
                                 {"_schema": definition, "_classes": classes})
    for name, enum in enum_types(proto_file).items():
        if "." in name:
            owner, short = name.rsplit(".", 1)
            setattr(classes[owner], short, enum)
            for value_name, number in enum.items():
                setattr(classes[owner], value_name, number)
    for name, cls in classes.items():
        if "." in name:
            owner, short = name.rsplit(".", 1)
            setattr(classes[owner], short, cls)
    return classes


from . import framework_pb2  # noqa: E402  (paddle.base.proto.framework_pb2, an attribute too)
