"""Message and enum definitions read from a .proto file (the proto2 subset framework.proto
uses: nested messages and enums, optional / required / repeated fields of scalar, enum and
message types, [default = ...] options, reserved ranges, // comments).

    schema = load("framework.proto")
    schema["ProgramDesc"].fields_by_name["blocks"].number   # 1
"""
import functools
import os
import re

__all__ = ["Field", "Message", "Enum", "parse", "load", "SCALAR_TYPES"]

# scalar type -> protobuf wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32)
SCALAR_TYPES = {"int32": 0, "int64": 0, "uint32": 0, "uint64": 0, "bool": 0,
                "float": 5, "double": 1, "string": 2, "bytes": 2}

_TOKEN = re.compile(r'\s*(//[^\n]*|"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|-?\d+(?:\.\d*)?|\S)')


class Enum:
    def __init__(self, name):
        self.name = name
        self.numbers = {}    # value name -> number
        self.names = {}      # number -> first value name

    def add(self, value_name, number):
        self.numbers[value_name] = number
        self.names.setdefault(number, value_name)


class Field:
    def __init__(self, label, type_name, name, number):
        self.label, self.type_name, self.name, self.number = label, type_name, name, number
        self.repeated = label == "repeated"
        self.type = None          # a Message, an Enum, or None for scalar types

    @property
    def wire_type(self):
        if isinstance(self.type, Message):
            return 2
        if isinstance(self.type, Enum):
            return 0
        return SCALAR_TYPES[self.type_name]

    @property
    def packable(self):
        return self.repeated and self.wire_type != 2


class Message:
    def __init__(self, name):
        self.name = name
        self.full_name = name       # with the names of the messages it is nested in
        self.fields = {}            # number -> Field
        self.fields_by_name = {}

    def add(self, field):
        self.fields[field.number] = field
        self.fields_by_name[field.name] = field


def _tokens(text):
    for match in _TOKEN.finditer(text):
        token = match.group(1)
        if not token.startswith("//"):
            yield token


class _Parser:
    def __init__(self, text):
        self.tokens = list(_tokens(text))
        self.pos = 0
        self.types = {}             # full dotted name -> Message / Enum
        self.fields = []            # (scope, Field) to resolve once every type is known

    def take(self, expected=None):
        if self.pos >= len(self.tokens):
            raise ValueError("unexpected end of .proto text")
        token = self.tokens[self.pos]
        self.pos += 1
        if expected is not None and token != expected:
            raise ValueError("expected %r in .proto text, got %r" % (expected, token))
        return token

    def skip_statement(self):
        while self.take() != ";":
            pass

    def parse_file(self):
        while self.pos < len(self.tokens):
            token = self.take()
            if token in ("syntax", "package", "option", "import"):
                self.skip_statement()
            elif token == "message":
                self.parse_message("")
            elif token == "enum":
                self.parse_enum("")
            else:
                raise ValueError("unexpected %r at the top of the .proto text" % token)
        for scope, field in self.fields:
            field.type = self.resolve(scope, field.type_name)
        return self.types

    def parse_message(self, scope):
        message = Message(self.take())
        full = message.full_name = scope + message.name
        self.types[full] = message
        self.take("{")
        while True:
            token = self.take()
            if token == "}":
                break
            if token == ";":
                continue
            if token == "message":
                self.parse_message(full + ".")
            elif token == "enum":
                self.parse_enum(full + ".")
            elif token in ("reserved", "option"):
                self.skip_statement()
            elif token in ("optional", "required", "repeated"):
                field = Field(token, self.take(), self.take(), None)
                self.take("=")
                field.number = int(self.take())
                if self.take() == "[":          # options such as [default = -1]
                    while self.take() != "]":
                        pass
                    self.take(";")
                message.add(field)
                self.fields.append((full, field))
            else:
                raise ValueError("unexpected %r in message %s" % (token, full))

    def parse_enum(self, scope):
        enum = Enum(self.take())
        self.types[scope + enum.name] = enum
        self.take("{")
        while True:
            token = self.take()
            if token == "}":
                break
            if token == "option":
                self.skip_statement()
                continue
            self.take("=")
            enum.add(token, int(self.take()))
            self.take(";")

    def resolve(self, scope, type_name):
        if type_name in SCALAR_TYPES:
            return None
        parts = scope.split(".")
        for cut in range(len(parts), -1, -1):    # innermost scope first, as protoc does
            candidate = ".".join(parts[:cut] + [type_name])
            if candidate in self.types:
                return self.types[candidate]
        raise ValueError("unknown type %r in message %s" % (type_name, scope))


def parse(text):
    """{dotted name: Message or Enum} of the definitions in .proto `text`."""
    return _Parser(text).parse_file()


@functools.lru_cache(maxsize=None)
def load(file_name):
    """parse() of a .proto file next to this module, once a process (the definitions are
    never changed: program_desc and fluid.proto's classes share them)."""
    with open(os.path.join(os.path.dirname(__file__), file_name), encoding="utf-8") as f:
        return parse(f.read())
