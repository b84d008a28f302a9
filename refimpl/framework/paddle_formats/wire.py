"""The protobuf wire format, driven by a proto_schema.Message: bytes <-> plain dicts.

A decoded message is a dict of the fields present, by name: scalars as Python values,
enums as their value name (the number when the schema does not know it), messages as
dicts, repeated fields as lists. Encoding takes the same dicts (enums by name or number)
and writes fields in number order, repeated scalars unpacked, as Paddle's C++ writer does;
decoding reads packed and unpacked alike and skips fields the schema does not know.

Every length is checked against the bytes that remain before anything is sliced, so a
corrupt or hostile file costs no more memory than its own size; problems raise
DecodeError naming the field path and byte offset.
"""
import struct

from . import DecodeError
from .proto_schema import Message

__all__ = ["decode", "encode", "DecodeError"]

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_MAX_DEPTH = 64        # messages nest a few levels in framework.proto; more is corruption


def _read_varint(data, pos, end, where):
    result = shift = 0
    while True:
        if pos >= end:
            raise DecodeError("%s: truncated varint at byte %d" % (where, pos))
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("%s: varint longer than 10 bytes at byte %d" % (where, pos))


def _signed(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _scalar_from_varint(field, value):
    kind = field.type_name
    if field.type is not None:                       # an enum: int32 on the wire
        number = _signed(value, 32)
        return field.type.names.get(number, number)
    if kind == "bool":
        return value != 0
    if kind == "int32":
        return _signed(value, 32)
    if kind == "int64":
        return _signed(value, 64)
    if kind == "uint32":
        return value & 0xFFFFFFFF
    return value & 0xFFFFFFFFFFFFFFFF


def _check_room(size, pos, end, where):
    if size > end - pos:
        raise DecodeError("%s: %d bytes declared at byte %d runs past the end (%d bytes left)"
                          % (where, size, pos, end - pos))


def _skip(data, pos, end, wire_type, where):
    if wire_type == 0:
        return _read_varint(data, pos, end, where)[1]
    if wire_type in (1, 5):
        size = 8 if wire_type == 1 else 4
    elif wire_type == 2:
        size, pos = _read_varint(data, pos, end, where)
    else:
        raise DecodeError("%s: unsupported wire type %d at byte %d" % (where, wire_type, pos))
    _check_room(size, pos, end, where)
    return pos + size


def _decode_fixed(field, data, pos, end, where):
    layout = _FLOAT if field.wire_type == 5 else _DOUBLE
    if layout.size > end - pos:
        raise DecodeError("%s: truncated %s at byte %d" % (where, field.type_name, pos))
    return layout.unpack_from(data, pos)[0], pos + layout.size


def _decode_one(field, data, pos, end, wire_type, where, depth):
    """(value, new pos) of one occurrence of `field`; a list for a packed run."""
    expected = field.wire_type
    if wire_type == 2 and field.packable:
        size, pos = _read_varint(data, pos, end, where)
        _check_room(size, pos, end, where)
        stop, values = pos + size, []
        while pos < stop:
            value, pos = _decode_one(field, data, pos, stop, expected, where, depth)
            values.append(value)
        return values, pos
    if wire_type != expected:
        raise DecodeError("%s: wire type %d, but field %r (%s) is written with wire type %d"
                          % (where, wire_type, field.name, field.type_name, expected))
    if wire_type == 0:
        value, pos = _read_varint(data, pos, end, where)
        return _scalar_from_varint(field, value), pos
    if wire_type in (1, 5):
        return _decode_fixed(field, data, pos, end, where)
    size, pos = _read_varint(data, pos, end, where)
    _check_room(size, pos, end, where)
    stop = pos + size
    if field.type is not None:
        return _decode_message(field.type, data, pos, stop, where, depth + 1), stop
    raw = bytes(data[pos:stop])
    if field.type_name == "string":
        try:
            return raw.decode("utf-8"), stop
        except UnicodeDecodeError as e:
            raise DecodeError("%s: string at byte %d is not UTF-8 (%s)" % (where, pos, e)) \
                from None
    return raw, stop


def _decode_message(message, data, pos, end, where, depth):
    if depth > _MAX_DEPTH:
        raise DecodeError("%s: messages nested more than %d deep" % (where, _MAX_DEPTH))
    out = {}
    while pos < end:
        key, pos = _read_varint(data, pos, end, where)
        number, wire_type = key >> 3, key & 7
        field = message.fields.get(number)
        if number == 0:
            raise DecodeError("%s: field number 0 at byte %d" % (where, pos))
        if field is None:
            pos = _skip(data, pos, end, wire_type, where)
            continue
        path = "%s.%s" % (where, field.name)
        if field.repeated:
            items = out.setdefault(field.name, [])
            path = "%s[%d]" % (path, len(items))
        value, pos = _decode_one(field, data, pos, end, wire_type, path, depth)
        if not field.repeated:
            out[field.name] = value
        elif isinstance(value, list):
            items.extend(value)
        else:
            items.append(value)
    return out


def decode(data, message):
    """The dict of `message` (a proto_schema.Message) encoded in `data` (bytes-like)."""
    view = memoryview(data).cast("B")
    return _decode_message(message, view, 0, len(view), message.name, 0)


# -- encoding


def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF                     # negatives: 10-byte two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _encode_scalar(field, value, where):
    if field.type is not None:
        if isinstance(value, str):
            if value not in field.type.numbers:
                raise ValueError("%s: %r is not a value of enum %s"
                                 % (where, value, field.type.name))
            value = field.type.numbers[value]
        return _varint(value)
    kind = field.type_name
    if kind == "bool":
        return _varint(1 if value else 0)
    if kind in ("int32", "int64", "uint32", "uint64"):
        bits = 32 if kind.endswith("32") else 64
        low, high = (0, 1 << bits) if kind.startswith("u") else \
            (-(1 << (bits - 1)), 1 << (bits - 1))
        if not low <= value < high:
            raise ValueError("%s: %d does not fit %s" % (where, value, kind))
        return _varint(value)
    if kind == "float":
        return _FLOAT.pack(value)
    if kind == "double":
        return _DOUBLE.pack(value)
    if kind == "string":
        value = value.encode("utf-8")
    return _varint(len(value)) + bytes(value)


def _encode_message(message, values, where):
    unknown = set(values) - set(message.fields_by_name)
    if unknown:
        raise ValueError("%s: no field %s in message %s" % (where, sorted(unknown), message.name))
    parts = []
    for number in sorted(message.fields):
        field = message.fields[number]
        if field.name not in values:
            continue
        value = values[field.name]
        key = _varint(number << 3 | field.wire_type)
        for i, item in enumerate(value if field.repeated else [value]):
            path = "%s.%s" % (where, field.name) + ("[%d]" % i if field.repeated else "")
            if isinstance(field.type, Message):
                body = _encode_message(field.type, item, path)
                parts.append(key + _varint(len(body)) + body)
            else:
                parts.append(key + _encode_scalar(field, item, path))
    return b"".join(parts)


def encode(values, message):
    """The bytes of `values` (a dict as decode returns) as `message`."""
    return _encode_message(message, values, message.name)
