"""paddle.fluid.proto: the protobuf message classes Paddle 1.8 code imports, built from
refimpl's own .proto reader and wire codec (framework/paddle_formats; no protobuf
package): `profiler.profiler_pb2` (the profile fluid.profiler writes)."""
from ...framework.paddle_formats import proto_schema, wire
from ...framework.paddle_formats.proto_schema import Enum, Message

__all__ = ["message_classes"]

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
            make = self._classes[field.type.name]
            return _Repeated(make) if field.repeated else make()
        if field.repeated:
            return []
        return _DEFAULTS.get(field.type_name, 0)

    def ParseFromString(self, data):
        """Read the message from protobuf bytes (a DecodeError names what is wrong)."""
        self.__init__()
        self._fill(wire.decode(bytes(data), self._schema))
        return len(data)

    def _fill(self, values):
        for name, value in values.items():
            field = self._schema.fields_by_name[name]
            if isinstance(field.type, Message):
                make = self._classes[field.type.name]
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


def message_classes(proto_file):
    """{message name: class} for the messages of `proto_file` (next to proto_schema.py);
    a message's enum values are attributes of its class (Event.CPU), as in protobuf."""
    schema = proto_schema.load(proto_file)
    classes = {}
    for name, definition in schema.items():
        if isinstance(definition, Message):
            classes[name] = type(name.rsplit(".", 1)[-1], (_MessageBase,),
                                 {"_schema": definition, "_classes": classes})
    for name, definition in schema.items():
        if isinstance(definition, Enum) and "." in name:
            owner, _ = name.rsplit(".", 1)
            for value_name, number in definition.numbers.items():
                setattr(classes[owner], value_name, number)
    return classes
