"""Paddle's LoDTensor stream: how parameter files hold tensors.

One tensor (a file of fluid.io.save_vars / save_params / save_persistables, or of
save_inference_model without params_filename):

    uint32  version (0)
    uint64  LoD levels, then per level: uint64 byte count, that many bytes of uint64 offsets
    uint32  tensor version (0)
    int32   byte count of the TensorDesc that follows
    bytes   VarType.TensorDesc protobuf (data_type, dims)
    bytes   the data: prod(dims) items of data_type, C order, little-endian

A combined file (`__params__`, `*.pdiparams`, save_combine / serialize_persistables) is such
streams one after another, for the variables sorted by name; the names are not stored.
All integers are little-endian. Every declared size is checked against the bytes left
before anything is read, so a corrupt file is refused without a large allocation.
"""
import struct

import numpy as np

from . import DecodeError, wire
from .program_desc import SCHEMA, DATA_TYPES, DTYPE_OF

__all__ = ["StoredTensor", "read_tensor", "read_combined", "tensor_bytes", "combined_bytes",
           "TensorReader"]

TENSOR_DESC = SCHEMA["VarType.TensorDesc"]
_U32, _U64, _I32 = struct.Struct("<I"), struct.Struct("<Q"), struct.Struct("<i")
_MAX_DIMS = 64


class StoredTensor:
    """A tensor read from a stream: `array` and its `lod` (offsets per level, e.g.
    [[0, 2, 5]] for two sequences of 2 and 3 rows; [] without LoD)."""

    __slots__ = ("array", "lod")

    def __init__(self, array, lod=()):
        self.array = array
        self.lod = [list(level) for level in lod]

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self.array, dtype=dtype, copy=True)
        return np.asarray(self.array, dtype=dtype)

    def __repr__(self):
        return "StoredTensor(%r, lod=%r)" % (self.array, self.lod)


class TensorReader:
    """Reads streams from a binary file object holding `size` bytes from its position."""

    def __init__(self, file, size):
        self.file = file
        self.left = size

    def take(self, count, what):
        if count > self.left:
            raise DecodeError("%s: needs %d bytes, only %d left (truncated file?)"
                              % (what, count, self.left))
        data = self.file.read(count)
        if len(data) != count:
            raise DecodeError("%s: the file ended %d bytes early" % (what, count - len(data)))
        self.left -= count
        return data

    def unpack(self, layout, what):
        return layout.unpack(self.take(layout.size, what))[0]

    def read(self, where="tensor"):
        version = self.unpack(_U32, "%s: version" % where)
        if version != 0:
            raise DecodeError("%s: LoDTensor version %d is not supported (only 0 exists)"
                              % (where, version))
        levels = self.unpack(_U64, "%s: LoD level count" % where)
        if levels * 8 > self.left:
            raise DecodeError("%s: %d LoD levels declared, more than the file holds"
                              % (where, levels))
        lod = []
        for i in range(levels):
            size = self.unpack(_U64, "%s: LoD level %d size" % (where, i))
            if size % 8:
                raise DecodeError("%s: LoD level %d is %d bytes, not a whole number of "
                                  "uint64 offsets" % (where, i, size))
            raw = self.take(size, "%s: LoD level %d" % (where, i))
            lod.append(np.frombuffer(raw, "<u8").astype(np.int64).tolist())
        tensor_version = self.unpack(_U32, "%s: tensor version" % where)
        if tensor_version != 0:
            raise DecodeError("%s: tensor version %d is not supported (only 0 exists)"
                              % (where, tensor_version))
        desc_size = self.unpack(_I32, "%s: TensorDesc size" % where)
        if desc_size < 0:
            raise DecodeError("%s: negative TensorDesc size %d" % (where, desc_size))
        desc = wire.decode(self.take(desc_size, "%s: TensorDesc" % where), TENSOR_DESC)
        data_type = desc.get("data_type", "BOOL")
        if data_type not in DTYPE_OF:
            raise DecodeError("%s: data type %s is not supported (supported: %s)"
                              % (where, data_type, ", ".join(sorted(DTYPE_OF))))
        dims = desc.get("dims", [])
        if len(dims) > _MAX_DIMS or any(d < 0 for d in dims):
            raise DecodeError("%s: invalid dims %s" % (where, dims))
        dtype = np.dtype(DTYPE_OF[data_type]).newbyteorder("<")
        count = 1
        for d in dims:
            count *= d
        raw = self.take(count * dtype.itemsize, "%s: data of shape %s %s"
                        % (where, dims, dtype.name))
        array = np.frombuffer(raw, dtype).reshape(dims).astype(dtype.newbyteorder("="))
        for i, level in enumerate(lod):
            if any(b < a for a, b in zip(level, level[1:])):
                raise DecodeError("%s: LoD level %d offsets decrease: %s" % (where, i, level))
        return StoredTensor(array, lod)


def read_tensor(file, size, where="tensor"):
    """The one StoredTensor of a separate parameter file (`size` bytes); refuses trailing
    bytes."""
    reader = TensorReader(file, size)
    tensor = reader.read(where)
    if reader.left:
        raise DecodeError("%s: %d bytes after the tensor (not a single-tensor file?)"
                          % (where, reader.left))
    return tensor


def read_combined(file, size, names):
    """{name: StoredTensor} of a combined file holding `names` in order (sorted by name
    is Paddle's order); the file must hold exactly that many tensors."""
    reader = TensorReader(file, size)
    out = {}
    for i, name in enumerate(names):
        if not reader.left:
            raise DecodeError("holds %d tensors, but the program has %d persistables: no "
                              "data for %r and after" % (i, len(names), name))
        out[name] = reader.read("tensor %d (%r)" % (i, name))
    if reader.left:
        raise DecodeError("%d bytes after the %d tensors the program's persistables need "
                          "(another program's file?)" % (reader.left, len(names)))
    return out


def _lod_of(value):
    lod = getattr(value, "lod", None)
    lod = lod() if callable(lod) else lod
    return [list(level) for level in (lod or [])]


def tensor_bytes(value):
    """One stream of `value` (an ndarray, a StoredTensor, or a tensor with .lod())."""
    array = np.asarray(value)
    name = array.dtype.name
    if name not in DATA_TYPES:
        raise ValueError("arrays of dtype %s cannot be written as a Paddle tensor (supported: "
                         "%s)" % (array.dtype, ", ".join(sorted(DATA_TYPES))))
    parts = [_U32.pack(0)]
    lod = _lod_of(value)
    parts.append(_U64.pack(len(lod)))
    for level in lod:
        parts.append(_U64.pack(8 * len(level)))
        parts.append(np.asarray(level, "<u8").tobytes())
    desc = wire.encode({"data_type": DATA_TYPES[name], "dims": list(array.shape)},
                       TENSOR_DESC)
    parts += [_U32.pack(0), _I32.pack(len(desc)), desc,
              array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes(order="C")]
    return b"".join(parts)


def combined_bytes(values):
    """The combined stream of {name: value}, in sorted name order (Paddle's)."""
    return b"".join(tensor_bytes(values[name]) for name in sorted(values))
