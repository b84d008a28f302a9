"""refimpl's own formats: programs as JSON, tensors as .npz archives of .npy members.

refimpl writes Paddle's formats (model_formats.py); these are the readable JSON dump of a
Program (`Program.to_json()`, `python -m refimpl dump-model`), and what earlier refimpl
versions wrote for every file, which the loaders still read (specs/io.md, byte for byte):
  - a Program is UTF-8 JSON: {"format": "refimpl.program", "version": 1, "blocks": [...]}
  - tensors are a zip archive (uncompressed) of numpy .npy members, one per name,
    exactly what numpy.savez writes; member names are the tensor names with unsafe
    characters percent-encoded (`tensor_name` decodes them)
  - a nested object (paddle.save of lists / dicts / scalars) is such an archive plus a
    member "__refimpl_tree__.npy": uint8 UTF-8 JSON of the structure, leaves
    {"@array": member}
JSON cannot say tuple, non-finite float, dtype or ndarray: those are one-key objects
whose key starts with "@" (a dict of that shape is refused rather than misread).

Readers check everything they decode and report a bad file as FileFormatError (path and
what is wrong), never as a KeyError deep inside. Loading never unpickles: .npy members are
read with allow_pickle=False.
"""
import io
import json
import math
import os
import zipfile

import numpy as np

from .dtypes import DType, VarType, convert_dtype, get_dtype
from .errors import OpError
from .program import Block, Operator, Parameter, Program, Variable
from .regularizer import L1Decay, L2Decay
from .scope import Tensor

__all__ = ["program_to_bytes", "program_from_bytes", "inference_program_from_bytes",
           "arrays_from_bytes", "archive_object_from_bytes", "read_file", "tensor_name",
           "SerializationError", "FileFormatError"]

PROGRAM_FORMAT = "refimpl.program"
TREE_FORMAT = "refimpl.tree"
FORMAT_VERSION = 1
TREE_MEMBER = "__refimpl_tree__"
_REGULARIZERS = {"L1Decay": L1Decay, "L2Decay": L2Decay}
_VAR_KINDS = {VarType.LOD_TENSOR, VarType.SELECTED_ROWS, VarType.LOD_TENSOR_ARRAY,
              VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.STEP_SCOPES,
              VarType.PLACE_LIST, VarType.READER, VarType.RAW}
_KIND_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
               list: "a list", dict: "an object", type(None): "null"}


class SerializationError(ValueError):
    """An object that cannot be saved, or data that cannot be loaded."""


class FileFormatError(SerializationError):
    """A file (or bytes) that is not what its format says: empty, truncated, corrupt, of
    another format, or of a version this refimpl does not read. `source` names the file,
    `problem` says what is wrong."""

    def __init__(self, source, problem):
        self.source, self.problem = source, problem
        super().__init__("%s: %s" % (source, problem))


class _Malformed(SerializationError):
    """What is wrong, and where, inside decoded data; the reader that knows the file's name
    turns it into a FileFormatError."""


# -- values: JSON plus tagged one-key objects


def encode_value(value, where):
    """`value` (an op attribute) as JSON-ready data; ndarrays inline as nested lists."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else {"@float": repr(f)}
    if isinstance(value, list):
        return [encode_value(v, where) for v in value]
    if isinstance(value, tuple):
        return {"@tuple": [encode_value(v, where) for v in value]}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise SerializationError("%s: dict keys must be str, got %r (%s)"
                                         % (where, k, type(k).__name__))
            out[k] = encode_value(v, "%s[%r]" % (where, k))
        if len(out) == 1 and next(iter(out)).startswith("@"):
            raise SerializationError("%s: a dict whose only key starts with '@' (%r) is "
                                     "reserved by the format" % (where, next(iter(out))))
        return out
    if isinstance(value, DType):
        return {"@dtype": value.name}
    if isinstance(value, Tensor):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        _check_array(value, where)
        return {"@ndarray": {"dtype": convert_dtype(value.dtype), "shape": list(value.shape),
                             "data": value.ravel().tolist()}}
    raise SerializationError("%s: cannot save an object of type %s (supported: ndarray, "
                             "Tensor, numbers, str, None, and lists / tuples / dicts of them)"
                             % (where, type(value).__name__))


def decode_value(data, get_array=None, where="value"):
    """The value `encode_value` wrote; malformed tags raise SerializationError (where)."""
    if isinstance(data, list):
        return [decode_value(v, get_array, "%s[%d]" % (where, i)) for i, v in enumerate(data)]
    if not isinstance(data, dict):
        return data
    if len(data) == 1 and next(iter(data)).startswith("@"):
        (tag, body), = data.items()
        return _decode_tagged(tag, body, get_array, where)
    return {k: decode_value(v, get_array, "%s[%r]" % (where, k)) for k, v in data.items()}


def _decode_tagged(tag, body, get_array, where):
    if tag == "@tuple":
        _expect(body, list, where + "['@tuple']")
        return tuple(decode_value(v, get_array, "%s[%d]" % (where, i))
                     for i, v in enumerate(body))
    if tag == "@float":
        if body not in ("inf", "-inf", "nan"):
            raise _Malformed("%s: '@float' must be \"inf\", \"-inf\" or \"nan\", got %r"
                             % (where, body))
        return float(body)
    if tag == "@dtype":
        return get_dtype(_dtype_name(body, where + "['@dtype']"))
    if tag == "@ndarray":
        _expect(body, dict, where + "['@ndarray']")
        dtype = _dtype_name(_field(body, "dtype", str, where + "['@ndarray']"), where)
        shape = _shape(_field(body, "shape", list, where + "['@ndarray']"), where, False)
        flat = _field(body, "data", list, where + "['@ndarray']")
        if len(flat) != int(np.prod(shape)):
            raise _Malformed("%s: '@ndarray' of shape %s needs %d values, has %d"
                             % (where, shape, int(np.prod(shape)), len(flat)))
        try:
            return np.array(flat, dtype=dtype).reshape(shape)
        except (TypeError, ValueError) as e:
            raise _Malformed("%s: '@ndarray' data are not %s values (%s)"
                             % (where, dtype, e)) from None
    if tag == "@array":
        if get_array is None:
            raise _Malformed("%s: an array reference outside a tensor archive" % where)
        return get_array(_expect(body, str, where + "['@array']"), where)
    raise _Malformed("%s: unknown tag %r (written by a newer refimpl?)" % (where, tag))


def _check_array(value, where):
    if value.dtype.hasobject or value.dtype.fields is not None:
        raise SerializationError("%s: arrays of dtype %s cannot be saved (only plain numeric "
                                 "and bool arrays; loading never unpickles)" % (where, value.dtype))


# -- checking decoded JSON


def _expect(value, kind, where):
    """`value` if it is a `kind` (JSON: int is not bool, float accepts int), else _Malformed."""
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise _Malformed("%s must be %s, got %s" % (where, _KIND_NAMES[kind],
                                                    _KIND_NAMES.get(type(value), "?")))
    return value


def _field(obj, key, kind, where, nullable=False):
    if key not in obj:
        raise _Malformed("%s has no key %r" % (where, key))
    value = obj[key]
    if value is None and nullable:
        return None
    return _expect(value, kind, "%s[%r]" % (where, key))


def _dtype_name(name, where):
    try:
        return convert_dtype(_expect(name, str, where))
    except TypeError:
        raise _Malformed("%s: unknown dtype %r" % (where, name)) from None


def _shape(dims, where, unknown_ok=True):
    for i, d in enumerate(dims):
        _expect(d, int, "%s[%d]" % (where, i))
        if d < (-1 if unknown_ok else 0):
            raise _Malformed("%s[%d]: a dimension must be >= %d, got %d"
                             % (where, i, -1 if unknown_ok else 0, d))
    return dims


def _str_list(value, where):
    for i, item in enumerate(_expect(value, list, where)):
        _expect(item, str, "%s[%d]" % (where, i))
    return value


# -- programs


def _var_to_dict(var):
    d = {"name": var.name, "type": var.type,
         "shape": list(var.shape) if var.shape is not None else None,
         "dtype": var.dtype.name if var.dtype is not None else None,
         "lod_level": var.lod_level, "persistable": var.persistable,
         "stop_gradient": var.stop_gradient, "is_data": var.is_data,
         "need_check_feed": var.need_check_feed}
    if isinstance(var, Parameter):
        d["parameter"] = {"trainable": var.trainable,
                          "regularizer": _regularizer_to_dict(var.regularizer, var.name),
                          "optimize_attr": encode_value(var.optimize_attr, var.name),
                          "do_model_average": var.do_model_average,
                          "need_clip": var.need_clip}
    return d


def _regularizer_to_dict(reg, param_name):
    if reg is None:
        return None
    kind = type(reg).__name__
    if _REGULARIZERS.get(kind) is not type(reg):
        raise SerializationError("parameter %r: regularizer %s cannot be saved (known: %s)"
                                 % (param_name, kind, ", ".join(sorted(_REGULARIZERS))))
    return {"type": kind, "coeff": reg.coeff}


def _var_from_dict(block, d, where):
    _expect(d, dict, where)
    shape = _field(d, "shape", list, where, nullable=True)
    dtype = _field(d, "dtype", str, where, nullable=True)
    fields = {"name": _field(d, "name", str, where),
              "type": _field(d, "type", str, where),
              "shape": None if shape is None else _shape(shape, where + "['shape']"),
              "dtype": None if dtype is None else _dtype_name(dtype, where + "['dtype']"),
              "lod_level": _field(d, "lod_level", int, where)}
    for flag in ("persistable", "stop_gradient", "is_data", "need_check_feed"):
        fields[flag] = _field(d, flag, bool, where)
    if fields["type"] not in _VAR_KINDS:
        raise _Malformed("%s['type']: unknown variable type %r (known: %s)"
                         % (where, fields["type"], ", ".join(sorted(_VAR_KINDS))))
    if "parameter" not in d:
        return Variable(block, **fields)
    p = _field(d, "parameter", dict, where)
    where += "['parameter']"
    reg = _field(p, "regularizer", dict, where, nullable=True)
    if reg is not None:
        kind = _field(reg, "type", str, where + "['regularizer']")
        if kind not in _REGULARIZERS:
            raise _Malformed("%s['regularizer']: unknown regularizer %r (known: %s)"
                             % (where, kind, ", ".join(sorted(_REGULARIZERS))))
        reg = _REGULARIZERS[kind](_field(reg, "coeff", float, where + "['regularizer']"))
    if "optimize_attr" not in p:
        raise _Malformed("%s has no key 'optimize_attr'" % where)
    if fields["shape"] is None or min(fields["shape"], default=0) < 0:
        raise _Malformed("%s: a parameter needs a fully known shape, got %s"
                         % (where, fields["shape"]))
    var = Parameter(block, fields.pop("shape"), fields.pop("dtype"),
                    trainable=_field(p, "trainable", bool, where),
                    optimize_attr=decode_value(p["optimize_attr"],
                                               where=where + "['optimize_attr']"),
                    do_model_average=_field(p, "do_model_average", bool, where, nullable=True),
                    need_clip=_field(p, "need_clip", bool, where), regularizer=reg, **fields)
    var.stop_gradient = fields["stop_gradient"]
    return var


def _op_to_dict(op):
    where = "op %s attr" % op.type
    return {"type": op.type, "inputs": op.inputs, "outputs": op.outputs,
            "attrs": {k: encode_value(v, "%s %r" % (where, k)) for k, v in op.attrs.items()}}


def _op_from_dict(block, d, where):
    _expect(d, dict, where)
    op_type = _field(d, "type", str, where)
    slots = {}
    for key in ("inputs", "outputs"):
        slots[key] = _field(d, key, dict, where)
        for slot, names in slots[key].items():
            _str_list(names, "%s[%r][%r]" % (where, key, slot))
    attrs = {k: decode_value(v, where="%s['attrs'][%r]" % (where, k))
             for k, v in _field(d, "attrs", dict, where).items()}
    try:
        # shapes come from the saved vars; inferring again could only differ
        return Operator(block, op_type, slots["inputs"], slots["outputs"], attrs, infer=False)
    except OpError as e:
        raise _Malformed("%s: %s" % (where, e)) from None


def program_to_dict(program, **extra):
    """The program as JSON-ready data; `extra` adds top-level fields (feed/fetch names)."""
    blocks = [{"idx": b.idx, "parent_idx": b.parent_idx,
               "forward_block_idx": b.forward_block_idx,
               "vars": [_var_to_dict(v) for v in b.vars.values()],
               "ops": [_op_to_dict(op) for op in b.ops]} for b in program.blocks]
    return dict({"format": PROGRAM_FORMAT, "version": FORMAT_VERSION,
                 "random_seed": program.random_seed, "is_test": program._is_test,
                 "blocks": blocks}, **extra)


def _check_header(data, fmt, what):
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise _Malformed("not a %s (expected a JSON object with \"format\": %r)" % (what, fmt))
    if data.get("version") != FORMAT_VERSION:
        raise _Malformed("%s format version %r is not supported (this refimpl reads version "
                         "%d)" % (what, data.get("version"), FORMAT_VERSION))


def _program_from_dict(data):
    _check_header(data, PROGRAM_FORMAT, "refimpl program")
    program = Program()
    program.random_seed = _field(data, "random_seed", int, "the program")
    program._is_test = _field(data, "is_test", bool, "the program")
    block_dicts = _field(data, "blocks", list, "the program")
    if not block_dicts:
        raise _Malformed("the program has no blocks")
    program.blocks = []
    for i, bd in enumerate(block_dicts):
        where = "blocks[%d]" % i
        _expect(bd, dict, where)
        if _field(bd, "idx", int, where) != i:
            raise _Malformed("%s['idx'] is %d, expected %d" % (where, bd["idx"], i))
        block = Block(program, i, _block_ref(bd, "parent_idx", len(block_dicts), where))
        block.forward_block_idx = _block_ref(bd, "forward_block_idx", len(block_dicts), where)
        program.blocks.append(block)
    for i, (block, bd) in enumerate(zip(program.blocks, block_dicts)):
        for j, vd in enumerate(_field(bd, "vars", list, "blocks[%d]" % i)):
            var = _var_from_dict(block, vd, "blocks[%d]['vars'][%d]" % (i, j))
            if var.name in block.vars:
                raise _Malformed("blocks[%d]['vars'][%d]: a second variable %r"
                                 % (i, j, var.name))
            block.vars[var.name] = var
        for j, od in enumerate(_field(bd, "ops", list, "blocks[%d]" % i)):
            block.ops.append(_op_from_dict(block, od, "blocks[%d]['ops'][%d]" % (i, j)))
    program._bump()
    return program


def _block_ref(bd, key, n_blocks, where):
    idx = _field(bd, key, int, where)
    if not -1 <= idx < n_blocks:
        raise _Malformed("%s[%r] is %d; the program has blocks 0..%d (or -1 for none)"
                         % (where, key, idx, n_blocks - 1))
    return idx


def program_to_bytes(program, **extra):
    return json.dumps(program_to_dict(program, **extra), allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def _json_from_bytes(data, source, what):
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("a serialized %s must be bytes, got %s" % (what, type(data).__name__))
    if not data:
        raise FileFormatError(source, "empty (0 bytes), not a %s" % what)
    try:
        return json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FileFormatError(source, "not a %s (not UTF-8 JSON: %s)" % (what, e)) from None


def program_from_bytes(data, source="the data"):
    """The Program serialized in `data`; anything malformed is a FileFormatError naming
    `source` and where in the program the problem is."""
    try:
        return _program_from_dict(_json_from_bytes(data, source, "refimpl program"))
    except _Malformed as e:
        raise FileFormatError(source, str(e)) from None


def inference_program_from_bytes(data, source="the data"):
    """(program, feed names, fetch Variables) from save_inference_model's program bytes."""
    decoded = _json_from_bytes(data, source, "refimpl program")
    try:
        program = _program_from_dict(decoded)
        if "feed_names" not in decoded or "fetch_names" not in decoded:
            raise _Malformed("a program without feed / fetch targets (save it with "
                             "save_inference_model)")
        block = program.global_block()
        names = {}
        for key in ("feed_names", "fetch_names"):
            names[key] = _str_list(decoded[key], "the program[%r]" % key)
            missing = [n for n in names[key] if n not in block.vars]
            if missing:
                raise _Malformed("%s names variables the program does not have: %s"
                                 % (key, missing))
    except _Malformed as e:
        raise FileFormatError(source, str(e)) from None
    return program, names["feed_names"], [block.vars[n] for n in names["fetch_names"]]


# -- tensor archives


def tensor_name(member):
    """The tensor name of archive member `member`: `%XX` escapes decoded (earlier refimpl
    versions escaped every byte outside A-Z a-z 0-9 . _ - @); names written by numpy.savez
    come back as they are unless they hold '%XX'."""
    stem = member[:-len(".npy")] if member.endswith(".npy") else member
    raw, i = bytearray(), 0
    while i < len(stem):
        if stem[i] == "%":
            try:
                raw.append(int(stem[i + 1:i + 3], 16))
                i += 3
                continue
            except ValueError:
                raise _Malformed("member %r: '%%' must start a %%XX escape" % member) from None
        raw.extend(stem[i].encode("utf-8", "surrogatepass"))
        i += 1
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise _Malformed("member %r: its %%XX escapes are not UTF-8" % member) from None


def arrays_from_bytes(data, source="the data"):
    """{name: ndarray} from a tensor archive's bytes (an earlier refimpl's, or numpy.savez's).
    Every member is read and checked (zip CRC, .npy header, size); never unpickles."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("serialized tensors must be bytes, got %s" % type(data).__name__)
    if not data:
        raise FileFormatError(source, "empty (0 bytes), not a tensor archive")
    if bytes(data[:6]) == b"\x93NUMPY":
        raise FileFormatError(source, "a single .npy array, not a tensor archive (.npz)")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise FileFormatError(source, "not a tensor archive (.npz without pickles): not a "
                              "complete zip file, truncated or another format (%s)" % e) from None
    arrays = {}
    with zf:
        for info in zf.infolist():
            try:
                name = tensor_name(info.filename)
                if name in arrays:
                    raise _Malformed("two members hold tensor %r" % name)
                arrays[name] = _read_member(zf, info)
            except _Malformed as e:
                raise FileFormatError(source, str(e)) from None
    return arrays


def _read_member(zf, info):
    try:
        with zf.open(info) as member:
            value = np.lib.format.read_array(member, allow_pickle=False)
            if member.read(1):
                raise _Malformed("member %r has bytes after its array" % info.filename)
    except (ValueError, OSError, EOFError, RuntimeError, NotImplementedError,
            zipfile.BadZipFile) as e:
        # read_array's ValueError names allow_pickle for object arrays: kept in the message
        raise _Malformed("member %r is not a readable .npy array: %s" % (info.filename, e)) \
            from None
    return value


class PathNotFoundError(FileNotFoundError, ValueError):
    """A file or path to load that does not exist: Paddle raises ValueError there (2.0 and
    3.3.1: paddle.load, load_dygraph, load_inference_model's "There is no directory named
    ..."), a FileNotFoundError as well."""


def read_file(path, fn):
    """The bytes of `path`, or PathNotFoundError naming `fn` and the path."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        raise PathNotFoundError("%s: no file %r" % (fn, os.fspath(path))) from None


# -- objects (paddle.save files of earlier refimpl versions)


def archive_object_from_bytes(data, source="the data"):
    """What an earlier refimpl's paddle.save wrote: a tensor archive, {name: ndarray}, or
    with a structure member the object it describes (arrays as ndarrays)."""
    arrays = arrays_from_bytes(data, source)
    tree = arrays.pop(TREE_MEMBER, None)
    if tree is None:
        return arrays
    try:
        decoded = _json_from_bytes(tree.tobytes(), source, "structure member")
        _check_header(decoded, TREE_FORMAT, "refimpl structure")
        if "root" not in decoded:
            raise _Malformed("the structure has no key 'root'")
        return decode_value(decoded["root"],
                            lambda name, where: _tree_array(arrays, name, where), "root")
    except _Malformed as e:
        raise FileFormatError(source, "member %r: %s" % (TREE_MEMBER + ".npy", e)) from None


def _tree_array(arrays, name, where):
    if name not in arrays:
        raise _Malformed("%s refers to array %r, which the archive does not hold"
                         % (where, name))
    return arrays[name]
