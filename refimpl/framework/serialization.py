"""Saving and loading: programs as JSON, tensors as .npz archives of .npy members.

One format for everything (specs/io.md describes it byte for byte):
  - a Program is UTF-8 JSON: {"format": "refimpl.program", "version": 1, "blocks": [...]}
  - tensors are a zip archive (uncompressed) of numpy .npy members, one per name,
    exactly what numpy.savez writes, so `numpy.load(path)` reads them too
  - a nested object (paddle.save of lists / dicts / scalars) is such an archive plus a
    member "__refimpl_tree__.npy": uint8 UTF-8 JSON of the structure, leaves
    {"@array": member}
JSON cannot say tuple, non-finite float, dtype or ndarray: those are one-key objects
whose key starts with "@" (a dict of that shape is refused rather than misread).
Loading never unpickles: numpy.load(..., allow_pickle=False) reads the arrays.
"""
import io
import json
import math
import os
import zipfile

import numpy as np

from .dtypes import DType, convert_dtype, get_dtype
from .program import Block, Operator, Parameter, Program, Variable
from .regularizer import L1Decay, L2Decay
from .scope import Tensor
from ..dygraph.tensor import Tensor as EagerTensor

__all__ = ["program_to_bytes", "program_from_bytes", "arrays_to_bytes", "arrays_from_bytes",
           "write_arrays", "read_arrays", "save", "load", "SerializationError"]

PROGRAM_FORMAT = "refimpl.program"
TREE_FORMAT = "refimpl.tree"
FORMAT_VERSION = 1
TREE_MEMBER = "__refimpl_tree__"
_REGULARIZERS = {"L1Decay": L1Decay, "L2Decay": L2Decay}


class SerializationError(ValueError):
    pass


# -- values: JSON plus tagged one-key objects


def encode_value(value, where, put_array=None):
    """`value` as JSON-ready data. ndarrays go to `put_array(array) -> member name` when
    given (tensor archives), else inline as nested lists (op attributes)."""
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
        return [encode_value(v, where, put_array) for v in value]
    if isinstance(value, tuple):
        return {"@tuple": [encode_value(v, where, put_array) for v in value]}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise SerializationError("%s: dict keys must be str, got %r (%s)"
                                         % (where, k, type(k).__name__))
            out[k] = encode_value(v, "%s[%r]" % (where, k), put_array)
        if len(out) == 1 and next(iter(out)).startswith("@"):
            raise SerializationError("%s: a dict whose only key starts with '@' (%r) is "
                                     "reserved by the format" % (where, next(iter(out))))
        return out
    if isinstance(value, DType):
        return {"@dtype": value.name}
    if isinstance(value, (Tensor, EagerTensor)):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        _check_array(value, where)
        if put_array is not None:
            return {"@array": put_array(value)}
        return {"@ndarray": {"dtype": convert_dtype(value.dtype), "shape": list(value.shape),
                             "data": value.ravel().tolist()}}
    raise SerializationError("%s: cannot save an object of type %s (supported: ndarray, "
                             "Tensor, numbers, str, None, and lists / tuples / dicts of them)"
                             % (where, type(value).__name__))


def decode_value(data, get_array=None):
    if isinstance(data, list):
        return [decode_value(v, get_array) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) == 1:
        (tag, body), = data.items()
        if tag == "@tuple":
            return tuple(decode_value(v, get_array) for v in body)
        if tag == "@float":
            return float(body)
        if tag == "@dtype":
            return get_dtype(body)
        if tag == "@ndarray":
            return np.array(body["data"], dtype=body["dtype"]).reshape(body["shape"])
        if tag == "@array":
            if get_array is None:
                raise SerializationError("an array reference outside a tensor archive")
            return get_array(body)
        if tag.startswith("@"):
            raise SerializationError("unknown tag %r (written by a newer refimpl?)" % tag)
    return {k: decode_value(v, get_array) for k, v in data.items()}


def _check_array(value, where):
    if value.dtype.hasobject or value.dtype.fields is not None:
        raise SerializationError("%s: arrays of dtype %s cannot be saved (only plain numeric "
                                 "and bool arrays; loading never unpickles)" % (where, value.dtype))


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


def _var_from_dict(block, d):
    fields = {k: d[k] for k in ("name", "type", "shape", "dtype", "lod_level", "persistable",
                                "stop_gradient", "is_data", "need_check_feed")}
    p = d.get("parameter")
    if p is None:
        return Variable(block, **fields)
    reg = p["regularizer"]
    var = Parameter(block, fields.pop("shape"), fields.pop("dtype"),
                    trainable=p["trainable"], optimize_attr=decode_value(p["optimize_attr"]),
                    do_model_average=p["do_model_average"], need_clip=p["need_clip"],
                    regularizer=_REGULARIZERS[reg["type"]](reg["coeff"]) if reg else None,
                    **fields)
    var.stop_gradient = d["stop_gradient"]
    return var


def _op_to_dict(op):
    where = "op %s attr" % op.type
    return {"type": op.type, "inputs": op.inputs, "outputs": op.outputs,
            "attrs": {k: encode_value(v, "%s %r" % (where, k)) for k, v in op.attrs.items()}}


def program_to_dict(program, **extra):
    """The program as JSON-ready data; `extra` adds top-level fields (feed/fetch names)."""
    blocks = [{"idx": b.idx, "parent_idx": b.parent_idx,
               "forward_block_idx": b.forward_block_idx,
               "vars": [_var_to_dict(v) for v in b.vars.values()],
               "ops": [_op_to_dict(op) for op in b.ops]} for b in program.blocks]
    return dict({"format": PROGRAM_FORMAT, "version": FORMAT_VERSION,
                 "random_seed": program.random_seed, "is_test": program._is_test,
                 "blocks": blocks}, **extra)


def program_from_dict(data):
    if not isinstance(data, dict) or data.get("format") != PROGRAM_FORMAT:
        raise SerializationError("not a refimpl program (expected a JSON object with "
                                 "\"format\": %r)" % PROGRAM_FORMAT)
    if data.get("version") != FORMAT_VERSION:
        raise SerializationError("program format version %r is not supported (this refimpl "
                                 "reads version %d)" % (data.get("version"), FORMAT_VERSION))
    program = Program()
    program.random_seed = data["random_seed"]
    program._is_test = data["is_test"]
    program.blocks = []
    for bd in data["blocks"]:
        block = Block(program, bd["idx"], bd["parent_idx"])
        block.forward_block_idx = bd["forward_block_idx"]
        program.blocks.append(block)
    for block, bd in zip(program.blocks, data["blocks"]):
        for vd in bd["vars"]:
            block.vars[vd["name"]] = _var_from_dict(block, vd)
        for od in bd["ops"]:
            attrs = {k: decode_value(v) for k, v in od["attrs"].items()}
            # shapes come from the saved vars; inferring again could only differ
            block.ops.append(Operator(block, od["type"], od["inputs"], od["outputs"], attrs,
                                      infer=False))
    program._bump()
    return program


def program_to_bytes(program, **extra):
    return json.dumps(program_to_dict(program, **extra), allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def parse_program_bytes(data):
    """The decoded JSON object of a serialized program (program_from_dict builds it)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("a serialized program must be bytes, got %s" % type(data).__name__)
    try:
        return json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SerializationError("not a refimpl program (not UTF-8 JSON: %s)" % e) from None


def program_from_bytes(data):
    return program_from_dict(parse_program_bytes(data))


# -- tensor archives


def write_arrays(file, arrays):
    """Write {name: ndarray} as an uncompressed zip of `<name>.npy` members (numpy's
    .npz layout) to a path or a binary file object."""
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, value in arrays.items():
            if not isinstance(name, str) or not name:
                raise SerializationError("tensor names must be non-empty str, got %r" % (name,))
            value = np.asarray(value)
            _check_array(value, "tensor %r" % name)
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(value),
                                          allow_pickle=False)


def read_arrays(file):
    """{name: ndarray} from a path or binary file object written by write_arrays (or
    numpy.savez). Never unpickles."""
    where = file if isinstance(file, (str, os.PathLike)) else "the data"
    try:
        loaded = np.load(file, allow_pickle=False)
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise SerializationError("%s is not a tensor archive (.npz without pickles): %s"
                                 % (where, e)) from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise SerializationError("%s is a single .npy array, not a tensor archive (.npz)"
                                 % where)
    with loaded:
        try:
            return {name: loaded[name] for name in loaded.files}
        except ValueError as e:
            raise SerializationError("%s: %s" % (where, e)) from None


def arrays_to_bytes(arrays):
    buf = io.BytesIO()
    write_arrays(buf, arrays)
    return buf.getvalue()


def arrays_from_bytes(data):
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("serialized tensors must be bytes, got %s" % type(data).__name__)
    return read_arrays(io.BytesIO(bytes(data)))


# -- paddle.save / paddle.load


def save(obj, path, protocol=4, **configs):
    """paddle.save: a {name: ndarray} dict, or nested dicts / lists / tuples of arrays,
    Tensors, numbers, str and None, to `path` (a tensor archive, specs/io.md). `protocol`
    (pickle's, in Paddle) is accepted and ignored: nothing is pickled."""
    if isinstance(obj, (Program, Variable)) and not isinstance(obj, EagerTensor):
        raise SerializationError(
            "paddle.save: cannot save a %s; use paddle.static.save / save_inference_model, "
            "or save the values (global_scope().find_var(name).get_tensor())"
            % type(obj).__name__)
    if isinstance(obj, dict) and obj and all(
            isinstance(k, str) and k != TREE_MEMBER
            and isinstance(v, (np.ndarray, Tensor, EagerTensor)) for k, v in obj.items()):
        arrays = {k: np.asarray(v) for k, v in obj.items()}   # a state dict: plain members, readable by numpy.load alone
    else:
        arrays = {}

        def put(array):
            name = "a%d" % len(arrays)
            arrays[name] = array
            return name
        tree = {"format": TREE_FORMAT, "version": FORMAT_VERSION,
                "root": encode_value(obj, "paddle.save(obj)", put)}
        arrays[TREE_MEMBER] = np.frombuffer(
            json.dumps(tree, allow_nan=False).encode("utf-8"), dtype=np.uint8)
    _make_parent_dir(path)
    write_arrays(path, arrays)


def load(path, return_numpy=False, **configs):
    """paddle.load: the object paddle.save wrote. Its arrays come back as eager Tensors in
    dynamic mode (ndarrays with return_numpy=True), as ndarrays in static mode."""
    if isinstance(path, (str, os.PathLike)) and not os.path.isfile(path):
        raise FileNotFoundError("paddle.load: no file %r" % os.fspath(path))
    arrays = read_arrays(path)
    tree = arrays.pop(TREE_MEMBER, None)
    from ..dygraph import mode
    if mode.dynamic and not return_numpy:
        arrays = {k: EagerTensor(v) for k, v in arrays.items()}
    if tree is None:
        return arrays
    data = json.loads(tree.tobytes().decode("utf-8"))
    if data.get("format") != TREE_FORMAT or data.get("version") != FORMAT_VERSION:
        raise SerializationError("paddle.load(%r): unknown structure format %r version %r"
                                 % (path, data.get("format"), data.get("version")))
    return decode_value(data["root"], arrays.__getitem__)


def _make_parent_dir(path):
    if isinstance(path, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(path))
        if parent:
            os.makedirs(parent, exist_ok=True)
