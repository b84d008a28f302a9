"""Paddle's pickles (.pdparams, .pdopt, paddle.save files), read without running any of
their code and written opcode by opcode.

Reading: Paddle pickles plain containers of numpy arrays, which a pickle builds by calling
a few numpy functions. `loads` first walks the opcodes (pickletools) to check the stream is
whole and every declared length fits in it, then unpickles with each allowed global mapped
to a stand-in here that checks its arguments (dtype, shape, data size) and builds the value
with numpy - never the named callable itself. Any other global (os.system, eval beyond
Paddle's one use, a class) is refused before anything runs.

Writing: `dump` emits protocol-4 opcodes for dicts, lists, tuples, str, int, float, bool,
None and ndarrays, naming `numpy.core.multiarray._reconstruct` as numpy 1.x writes it, so
that Paddle on numpy 1 (1.8.5) and numpy 2 (3.3.1) both read the file.
"""
import builtins
import collections
import io
import math
import pickle
import pickletools
import struct

import numpy as np

from . import DecodeError

__all__ = ["loads", "chunks", "dump", "dumps"]

_MAX_DIMS = 64
_MAX_DEPTH = 200
# opcodes a pickle of containers and arrays never needs: persistent ids and the extension
# registry (they reach outside the file), and class instantiation
_REFUSED_OPCODES = {"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4", "INST", "OBJ", "NEWOBJ",
                    "NEWOBJ_EX", "NEXT_BUFFER", "READONLY_BUFFER"}
# numpy dtype strings a saved array may have (numeric and bool only: no objects)
_DTYPE_CODES = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8",
                "c8", "c16"}


class _NDArrayClass:
    """Stands in for numpy.ndarray, which a pickle only passes to _reconstruct."""


class _DType:
    """numpy.dtype(code, align, copy) followed by BUILD(state): only a plain numeric dtype,
    with the byte order the state gives."""

    def __init__(self, code, align=False, copy=True):
        code = _text_of(code)
        if not isinstance(code, str) or code not in _DTYPE_CODES:
            raise DecodeError("dtype %r is refused (allowed: %s)"
                              % (code, ", ".join(sorted(_DTYPE_CODES))))
        self.dtype = np.dtype(code)

    def __setstate__(self, state):
        if isinstance(state, tuple) and len(state) == 8:
            state = state[:1] + (_text_of(state[1]),) + state[2:]
        if not (isinstance(state, tuple) and len(state) == 8 and state[0] == 3
                and state[1] in ("<", ">", "|", "=") and state[2:5] == (None, None, None)
                and state[7] == 0):
            raise DecodeError("dtype state %r is refused (only plain numeric dtypes)"
                              % (state,))
        if state[1] in "<>":
            self.dtype = self.dtype.newbyteorder(state[1])


def _text_of(value):
    """Python 2 strings read with encoding='bytes' arrive as bytes: numpy's dtype codes and
    byte orders as text."""
    return value.decode("ascii", "replace") if isinstance(value, bytes) else value


def _dtype_of(value, where):
    if not isinstance(value, _DType):
        raise DecodeError("%s: expected a numpy dtype, got %s" % (where, type(value).__name__))
    return value.dtype


def _shape_of(value, where):
    if not (isinstance(value, tuple) and len(value) <= _MAX_DIMS and all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value)):
        raise DecodeError("%s: invalid shape %r" % (where, value))
    return value


def _array_from(data, dtype, shape, fortran, where):
    if isinstance(data, str):           # protocol 2 without _codecs: latin-1 text
        data = data.encode("latin1")
    if not isinstance(data, (bytes, bytearray)):
        raise DecodeError("%s: array data must be bytes, got %s (object arrays are refused)"
                          % (where, type(data).__name__))
    count = math.prod(shape)
    if count * dtype.itemsize != len(data):
        raise DecodeError("%s: shape %s of %s needs %d bytes, the pickle holds %d"
                          % (where, list(shape), dtype, count * dtype.itemsize, len(data)))
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
    return array.astype(dtype.newbyteorder("="), order="C")     # a writable native copy


class _ArrayBuild:
    """numpy.core.multiarray._reconstruct(ndarray, (0,), b'b') followed by BUILD(state)."""

    def __init__(self, cls, shape, typecode):
        if cls is not _NDArrayClass or shape != (0,) or typecode not in (b"b", "b"):
            raise DecodeError("_reconstruct(%r, %r, %r) is refused (only numpy arrays)"
                              % (cls, shape, typecode))
        self.array = None

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            raise DecodeError("array state %r is refused" % (state,))
        if len(state) == 5:
            if state[0] != 1:
                raise DecodeError("array state version %r is not supported" % (state[0],))
            state = state[1:]
        shape, dtype, fortran, data = state
        self.array = _array_from(data, _dtype_of(dtype, "array"), _shape_of(shape, "array"),
                                 bool(fortran), "array")


def _scalar(dtype, data):
    """numpy.core.multiarray.scalar(dtype, bytes): one numpy number."""
    dtype = _dtype_of(dtype, "numpy scalar")
    if isinstance(data, str):
        data = data.encode("latin1")
    if not isinstance(data, bytes) or len(data) != dtype.itemsize:
        raise DecodeError("numpy scalar of %s: %r is not %d bytes" % (dtype, data, dtype.itemsize))
    return np.frombuffer(data, dtype)[0]


def _frombuffer(buffer, dtype, shape, order):
    """numpy.core.numeric._frombuffer, how protocol 5 pickles arrays."""
    if isinstance(buffer, pickle.PickleBuffer):
        buffer = bytes(buffer)
    if order not in ("C", "F"):
        raise DecodeError("array order %r is refused" % (order,))
    return _array_from(buffer, _dtype_of(dtype, "array"), _shape_of(shape, "array"),
                       order == "F", "array")


def _latin1_encode(text, encoding="utf-8"):
    """_codecs.encode(str, 'latin1'): how protocol 2 pickles bytes."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise DecodeError("_codecs.encode(%r, %r) is refused" % (type(text).__name__, encoding))
    return text.encode("latin1")


def _bytes(*args):
    """builtins.bytes() or bytes(str, 'latin1'): how protocol 2 pickles (empty) bytes; never
    bytes(n), which would allocate n bytes."""
    if args == ():
        return b""
    return _latin1_encode(*args)


def _tensor_data(expression, namespace):
    """builtins.eval('data', {'data': array}): Paddle's pickler writes a LoDTensor so; this
    returns the array and evaluates nothing."""
    if expression != "data" or not isinstance(namespace, dict) or set(namespace) != {"data"}:
        raise DecodeError("eval(%r, ...) is refused (only Paddle's tensor form "
                          "eval('data', {'data': array}))" % (expression,))
    return namespace["data"]


_NUMPY_MODULES = ("numpy.core.multiarray", "numpy._core.multiarray")
_ALLOWED = {("numpy", "ndarray"): _NDArrayClass, ("numpy", "dtype"): _DType,
            ("numpy.core.numeric", "_frombuffer"): _frombuffer,
            ("numpy._core.numeric", "_frombuffer"): _frombuffer,
            ("_codecs", "encode"): _latin1_encode, ("builtins", "bytes"): _bytes,
            ("builtins", "eval"): _tensor_data,
            ("collections", "OrderedDict"): collections.OrderedDict}
_ALLOWED.update({(m, "_reconstruct"): _ArrayBuild for m in _NUMPY_MODULES})
_ALLOWED.update({(m, "scalar"): _scalar for m in _NUMPY_MODULES})
_ALLOWED.update({("builtins", name): getattr(builtins, name)
                 for name in ("tuple", "list", "dict", "set", "frozenset", "bytearray",
                              "complex")})


def _allowed(module, name):
    """The stand-in for global `module.name`; DecodeError for anything not allowed."""
    module = "builtins" if module == "__builtin__" else module      # Python 2 pickles
    try:
        return _ALLOWED[module, name]
    except KeyError:
        raise DecodeError("the pickle calls %s.%s; refused (only numpy arrays and plain "
                          "containers are loaded, nothing is executed)" % (module, name)) \
            from None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        return _allowed(module, name)

    def persistent_load(self, pid):
        raise DecodeError("the pickle refers to an outside object; refused")


# the counts before a counted argument (BINBYTES, BINUNICODE, ...): its struct format
_COUNTS = {pickletools.TAKEN_FROM_ARGUMENT1: "<B", pickletools.TAKEN_FROM_ARGUMENT4: "<i",
           pickletools.TAKEN_FROM_ARGUMENT4U: "<I", pickletools.TAKEN_FROM_ARGUMENT8U: "<Q"}


def _check_opcodes(data):
    """Walk the opcodes without running them: the stream must be complete, use no refused
    opcode, and end at its STOP. A counted argument (an array's bytes) is skipped, not
    read: a 2.7 GB parameter was copied once more here (pickletools.genops reads each)."""
    stream = io.BytesIO(data)
    try:
        while True:
            pos = stream.tell()
            code = stream.read(1)
            if not code:
                raise ValueError("pickle exhausted before seeing STOP")
            opcode = pickletools.code2op.get(code.decode("latin-1"))
            if opcode is None:
                raise ValueError("at position %d, opcode %r unknown" % (pos, code))
            if opcode.name in _REFUSED_OPCODES:
                raise DecodeError("the pickle uses opcode %s at byte %d; refused"
                                  % (opcode.name, pos))
            arg = opcode.arg
            if arg is not None and arg.n in _COUNTS:
                size = struct.calcsize(_COUNTS[arg.n])
                raw = stream.read(size)
                if len(raw) != size:
                    raise ValueError("the count of %s at byte %d is cut short"
                                     % (opcode.name, pos))
                count = struct.unpack(_COUNTS[arg.n], raw)[0]
                if count < 0 or stream.tell() + count > len(data):
                    raise ValueError("%s at byte %d holds %d bytes, past the end"
                                     % (opcode.name, pos, count))
                stream.seek(count, io.SEEK_CUR)
            elif arg is not None:
                value = arg.reader(stream)
                if opcode.name == "GLOBAL":
                    _allowed(*value.split(" ", 1))
            if opcode.name == "STOP":
                break
    except DecodeError:
        raise
    except (ValueError, EOFError) as e:
        raise DecodeError("not a complete pickle: %s" % e) from None
    end = stream.tell()
    if end != len(data):
        raise DecodeError("%d bytes after the end of the pickle" % (len(data) - end))


def _finish(value, done, depth=0):
    """`value` with every stand-in replaced by what it built (shared objects once)."""
    if depth > _MAX_DEPTH:
        raise DecodeError("objects nested more than %d deep" % _MAX_DEPTH)
    if isinstance(value, (str, bytes, int, float, complex, bool, type(None), np.generic,
                          np.ndarray)):
        return value
    key = id(value)
    if key in done:
        return done[key]
    if isinstance(value, _ArrayBuild):
        if value.array is None:
            raise DecodeError("an array without its data (no BUILD)")
        done[key] = value.array
    elif isinstance(value, _DType):
        done[key] = value.dtype
    elif isinstance(value, dict):
        out = type(value)()
        done[key] = out
        for k, v in value.items():
            if not isinstance(k, (str, bytes, int, float, bool, type(None))):
                raise DecodeError("dict key of type %s is refused" % type(k).__name__)
            out[k] = _finish(v, done, depth + 1)
    elif isinstance(value, list):
        out = []
        done[key] = out
        for v in value:
            out.append(_finish(v, done, depth + 1))
    elif isinstance(value, (tuple, set, frozenset)):
        items = []
        for v in value:
            items.append(_finish(v, done, depth + 1))
        done[key] = type(value)(items)
    elif isinstance(value, bytearray):
        done[key] = value
    else:
        raise DecodeError("unexpected %s in the pickle" % type(value).__name__)
    return done[key]


def loads(data, encoding="latin1"):
    """The object pickled in `data` (bytes), arrays as writable native ndarrays; DecodeError
    for anything but plain containers of arrays, numbers and strings. `encoding` is how
    Python 2 strings are read (pickle's: 'latin1' as Paddle does, 'bytes' for datasets
    that key their dicts by them)."""
    data = bytes(data)
    _check_opcodes(data)
    try:
        value = _Unpickler(io.BytesIO(data), encoding=encoding).load()
    except DecodeError:
        raise
    except (pickle.UnpicklingError, ValueError, TypeError, EOFError, AttributeError,
            IndexError, KeyError, OverflowError, MemoryError) as e:
        raise DecodeError("the pickle does not load: %s: %s" % (type(e).__name__, e)) from None
    return _finish(value, {})


# -- writing


def _int(value):
    if 0 <= value < 256:
        return b"K" + bytes([value])
    if -(1 << 31) <= value < (1 << 31):
        return b"J" + struct.pack("<i", value)
    body = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(body)]) + body if len(body) < 256 else \
        b"\x8b" + struct.pack("<i", len(body)) + body


def _text(value):
    body = value.encode("utf-8", "surrogatepass")
    if len(body) < 256:
        return b"\x8c" + bytes([len(body)]) + body
    return b"X" + struct.pack("<I", len(body)) + body if len(body) < (1 << 32) else \
        b"\x8d" + struct.pack("<Q", len(body)) + body


def _bytes_header(size):
    if size < 256:
        return b"C" + bytes([size])
    return b"B" + struct.pack("<I", size) if size < (1 << 32) else \
        b"\x8e" + struct.pack("<Q", size)


def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _dtype(dtype):
    code = dtype.str[1:]
    order = "|" if dtype.itemsize == 1 else "<"
    return (_global("numpy", "dtype") + _text(code) + b"\x89\x88\x87R" + b"(" + _int(3)
            + _text(order) + b"NNN" + _int(-1) + _int(-1) + _int(0) + b"tb")


def _array_chunks(array, where):
    """numpy's own pickle of an array: _reconstruct, then BUILD with (1, shape, dtype,
    False, data); the data is a view of the array, not a copy."""
    if array.dtype.str[1:] not in _DTYPE_CODES:
        raise ValueError("%s: arrays of dtype %s cannot be saved (numeric and bool only)"
                         % (where, array.dtype))
    array = array.astype(array.dtype.newbyteorder("<"), order="C", copy=False)
    shape = b"(" + b"".join(_int(d) for d in array.shape) + b"t"
    head = (_global("numpy.core.multiarray", "_reconstruct") + _global("numpy", "ndarray")
            + _int(0) + b"\x85" + _bytes_header(1) + b"b" + b"\x87R"
            + b"(" + _int(1) + shape + _dtype(array.dtype) + b"\x89"
            + _bytes_header(array.nbytes))
    data = memoryview(array.reshape(-1)).cast("B") if array.size else b""
    return [head, data, b"tb"]


def _chunks(value, where, path, out):
    if value is None:
        out.append(b"N")
    elif isinstance(value, (bool, np.bool_)):
        out.append(b"\x88" if value else b"\x89")
    elif isinstance(value, (int, np.integer)):
        out.append(_int(int(value)))
    elif isinstance(value, (float, np.floating)):
        out.append(b"G" + struct.pack(">d", float(value)))
    elif isinstance(value, str):
        out.append(_text(value))
    elif isinstance(value, np.ndarray) or hasattr(value, "__array__"):
        out.extend(_array_chunks(np.asarray(value), where))
    elif isinstance(value, (dict, list, tuple)):
        if id(value) in path:
            raise ValueError("%s contains itself" % where)
        path.add(id(value))
        if isinstance(value, dict):
            out.append(b"}(")
            for k, v in value.items():
                if not isinstance(k, (str, int)) or isinstance(k, bool):
                    raise ValueError("%s: dict keys must be str or int, got %r" % (where, k))
                _chunks(k, where, path, out)
                _chunks(v, "%s[%r]" % (where, k), path, out)
            out.append(b"u")
        else:
            out.append(b"](" if isinstance(value, list) else b"(")
            for i, v in enumerate(value):
                _chunks(v, "%s[%d]" % (where, i), path, out)
            out.append(b"e" if isinstance(value, list) else b"t")
        path.discard(id(value))
    else:
        raise ValueError("%s: cannot save an object of type %s (supported: ndarray, Tensor, "
                         "numbers, str, None, and dicts / lists / tuples of them)"
                         % (where, type(value).__name__))


def chunks(value, where="obj"):
    """The pickle of `value` as a list of bytes and memoryviews (array data are views, not
    copies); ValueError naming the path inside `value` if it holds something unsupported."""
    out = [b"\x80\x04"]
    _chunks(value, where, set(), out)
    out.append(b".")
    return out


def dump(value, file, where="obj"):
    """Pickle `value` into the binary file object; ValueError before any byte is written if
    it holds something unsupported."""
    for chunk in chunks(value, where):
        file.write(chunk)


def dumps(value, where="obj"):
    buf = io.BytesIO()
    dump(value, buf, where)
    return buf.getvalue()
