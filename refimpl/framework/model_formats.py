"""Which format a saved file is, and reading / writing it (specs/io.md, "Formats").

Writers produce Paddle's own formats: ProgramDesc protobuf for programs (as the version
profile's release writes it), pickles of {name: ndarray} for .pdparams / .pdopt and
paddle.save, the LoDTensor stream for parameter files and combined .pdiparams. Readers
choose by content, so they also read Paddle 3's PIR json and the JSON / .npz files earlier
refimpl versions wrote:

    programs   b"{" + "base_code"  -> PIR json       b"{" otherwise -> refimpl JSON
               anything else       -> ProgramDesc
    tensors    b"PK"               -> refimpl .npz    b"\\x80"       -> pickle
               b"\\0\\0\\0\\0"      -> LoDTensor stream

Everything here works on bytes but paddle.save / paddle.load (one file each, written
through atomic_file); static/io.py reads and writes its files through checkpoint. A file
that is not what it should be is a FileFormatError naming it and what is wrong.
"""
import io
import os

import numpy as np

from .. import versions
from . import mode
from . import atomic_file, serialization
from .paddle_formats import DecodeError, pir_program, program_desc, safe_pickle, tensor_stream
from .program import Program, Variable
from .serialization import FileFormatError, PathNotFoundError, SerializationError
from ..xp import to_host

__all__ = ["program_from_bytes", "inference_program_from_bytes", "program_to_bytes",
           "pir_program_to_bytes",
           "state_from_bytes", "state_writer", "combined_from_bytes", "combined_writer",
           "tensor_from_bytes", "tensor_writer", "object_from_bytes", "object_writer",
           "paddle_save_writer", "save", "load", "paddle_version", "NAME_TABLE_KEY"]

# paddle.save of a Layer's state_dict adds {structured name: parameter name} under this key
NAME_TABLE_KEY = "StructuredToParameterName@@"
# Paddle 2.x splits arrays over 4 GiB (pickle protocols 2 / 3) and records how here
_SPLIT_KEY = "UnpackBigParamInfor@@"


def paddle_version():
    """The version profile programs are written for ('1.8', '2.0' or '3')."""
    return versions.current()


def _decoded(decode, data, source, *args):
    try:
        return decode(data, *args)
    except DecodeError as e:
        raise FileFormatError(source, str(e)) from None


def _check_bytes(data, source, what):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("a serialized %s must be bytes, got %s" % (what, type(data).__name__))
    if not data:
        raise FileFormatError(source, "empty (0 bytes), not a %s" % what)
    return bytes(data)


# -- programs


def program_from_bytes(data, source="the data"):
    """(Program, feed names or None, fetch names or None) from a ProgramDesc, a PIR json
    or a refimpl JSON program."""
    data = _check_bytes(data, source, "program")
    if data.lstrip()[:1] != b"{":
        return _decoded(program_desc.decode_program, data, source)
    if pir_program.is_pir_json(data):
        return _decoded(pir_program.decode_program, data, source)
    program, feeds, fetches = serialization.inference_program_from_bytes(data, source) \
        if b'"feed_names"' in data else (serialization.program_from_bytes(data, source),
                                         None, None)
    return program, feeds, fetches and [v.name for v in fetches]


def inference_program_from_bytes(data, source="the data"):
    """(Program, feed names, fetch target Variables) of an inference program."""
    program, feeds, fetches = program_from_bytes(data, source)
    if feeds is None or fetches is None:
        raise FileFormatError(source, "a program without feed / fetch targets (save it with "
                                      "save_inference_model)")
    block = program.global_block()
    missing = [n for n in feeds + fetches if n not in block.vars]
    if missing:
        raise FileFormatError(source, "feed / fetch targets %s are not variables of the "
                                      "program" % missing)
    return program, feeds, [block.vars[n] for n in fetches]


def program_to_bytes(program, feed_names=None, fetch_names=None):
    """ProgramDesc bytes of `program` as the profile's Paddle release writes them; with
    feed / fetch names, an inference program's. ValueError naming the op and attribute for
    a value no Paddle attribute holds."""
    try:
        return program_desc.encode_program(program, feed_names, fetch_names, paddle_version())
    except ValueError as e:
        raise SerializationError("cannot write the program as a Paddle ProgramDesc: %s" % e) \
            from None


def pir_program_to_bytes(program, feed_names, fetch_names):
    """PIR json bytes of an inference program, as Paddle 3's save_inference_model writes
    it (the ops refimpl translates: specs/paddle_formats.md)."""
    try:
        return pir_program.encode_program(program, feed_names, fetch_names)
    except ValueError as e:
        raise SerializationError(
            "cannot write the program as a Paddle PIR program: %s; under "
            "paddle.pir_utils.OldIrGuard() (or FLAGS_enable_pir_api=0) save_inference_model "
            "writes the ProgramDesc .pdmodel, which Paddle 3 reads in its legacy IR mode" % e) \
            from None


# -- {name: array} files: .pdparams / .pdopt (pickles), .pdiparams and parameter files
# (LoDTensor streams), and the .npz archives earlier refimpl versions wrote for all of them


def _kind(data):
    if data[:2] == b"PK":
        return "npz"
    if data[:1] == b"\x80":
        return "pickle"
    if data[:4] == b"\x00\x00\x00\x00":
        return "stream"
    return None


def _unsplit(state, source):
    """Paddle's pickles of arrays over 4 GiB (protocols 2 / 3) hold slices and, under
    _SPLIT_KEY, {name: {"OriginShape": shape, "slices": [slice keys]}}: join them."""
    info = state.pop(_SPLIT_KEY, None)
    if info is None:
        return state
    try:
        for name, parts in info.items():
            slices = [state.pop(key) for key in parts["slices"]]
            state[name] = np.concatenate([s.reshape(-1) for s in slices]).reshape(
                parts["OriginShape"])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise FileFormatError(source, "malformed %r: %s: %s" % (_SPLIT_KEY, type(e).__name__,
                                                                e)) from None
    return state


def _unpickled(data, source, what, read_archive):
    """(what Paddle's pickle in `data` holds, False), or (read_archive(data, source), True)
    for the archive an earlier refimpl wrote."""
    data = _check_bytes(data, source, what)
    kind = _kind(data)
    if kind == "npz":
        return read_archive(data, source), True
    if kind != "pickle":
        raise FileFormatError(source, "not a %s (neither a pickle nor a refimpl .npz archive)"
                              % what)
    return _decoded(safe_pickle.loads, data, source), False


def state_from_bytes(data, source="the data"):
    """{name: ndarray} of a .pdparams / .pdopt file: Paddle's pickle of a dict (also a
    dygraph state_dict's, whose name table is dropped) or an earlier refimpl's .npz."""
    state, archived = _unpickled(data, source, "tensor file", serialization.arrays_from_bytes)
    if archived:
        return state
    if not isinstance(state, dict):
        raise FileFormatError(source, "the pickle holds a %s, not a dict of tensors"
                              % type(state).__name__)
    state = _unsplit(dict(state), source)
    state.pop(NAME_TABLE_KEY, None)
    bad = [k for k, v in state.items() if not (isinstance(k, str) and isinstance(v, np.ndarray))]
    if bad:
        raise FileFormatError(source, "entries %s are not name -> array" % bad[:5])
    return state


def _checked_arrays(values, what):
    out = {}
    for name, value in values.items():
        if not isinstance(name, str):
            raise SerializationError("%s names must be str, got %r" % (what, name))
        array = np.asarray(value)
        if array.dtype.name not in program_desc.DATA_TYPES:
            raise SerializationError("%s %r: arrays of dtype %s cannot be saved (supported: %s)"
                                     % (what, name, array.dtype,
                                        ", ".join(sorted(program_desc.DATA_TYPES))))
        out[name] = array
    return out


def state_writer(values, what="tensor"):
    """Check {name: array} now; `write(file)` writes Paddle's pickle of it (.pdparams,
    .pdopt)."""
    arrays = _checked_arrays(values, what)
    return lambda file: safe_pickle.dump(arrays, file)


def combined_from_bytes(data, source, names):
    """{name: ndarray} of a combined parameter file holding `names` (Paddle's order: sorted
    by name), or of an earlier refimpl's .npz."""
    data = _check_bytes(data, source, "parameter file")
    if _kind(data) == "npz":
        return serialization.arrays_from_bytes(data, source)
    stored = _decoded(tensor_stream.read_combined, io.BytesIO(data), source, len(data),
                      sorted(names))
    return {name: t.array for name, t in stored.items()}


def combined_writer(values, what="tensor"):
    """Check {name: array} now; `write(file)` writes the combined LoDTensor stream."""
    arrays = _checked_arrays(values, what)
    return lambda file: file.write(tensor_stream.combined_bytes(arrays))


def tensor_from_bytes(data, source):
    """The StoredTensor (array and LoD) of a one-variable parameter file."""
    data = _check_bytes(data, source, "parameter file")
    return _decoded(tensor_stream.read_tensor, io.BytesIO(data), source, len(data))


def tensor_writer(value, what="tensor"):
    array = _checked_arrays({what: value}, "tensor")[what]
    return lambda file: file.write(tensor_stream.tensor_bytes(array))


# -- paddle.save / paddle.load


def object_writer(obj, where="paddle.save(obj)"):
    """Check `obj` now; `write(file)` writes Paddle's pickle of it: dicts, lists, tuples,
    str, numbers, None, arrays and Tensors (as arrays)."""
    if isinstance(obj, (Program, Variable)) and not isinstance(obj, mode.eager.Tensor):
        raise SerializationError(
            "paddle.save: cannot save a %s; use paddle.static.save / save_inference_model, "
            "or save the values (global_scope().find_var(name).get_tensor())"
            % type(obj).__name__)
    try:
        pieces = safe_pickle.chunks(obj, where)
    except ValueError as e:
        raise SerializationError(str(e)) from None

    def write(file):
        for piece in pieces:
            file.write(piece)
    return write


def object_from_bytes(data, source="the data", keep_name_table=False):
    """What paddle.save wrote: Paddle's pickle (a dygraph state_dict's name table dropped
    unless `keep_name_table`) or an earlier refimpl's archive."""
    obj, archived = _unpickled(data, source, "paddle.save file",
                               serialization.archive_object_from_bytes)
    if archived:
        return obj
    if isinstance(obj, dict):
        obj = _unsplit(dict(obj), source) if _SPLIT_KEY in obj else obj
        if not keep_name_table and NAME_TABLE_KEY in obj:
            obj = {k: v for k, v in obj.items() if k != NAME_TABLE_KEY}
    return obj


def save(obj, path, protocol=4, **configs):
    """paddle.save: `obj` (dicts, lists, tuples, str, numbers, None, arrays, Tensors) as
    Paddle's pickle, all or nothing: nothing is written unless all of it can be saved, and
    the old file stays until the new one is complete. `path` may also be a binary file
    object (written as is). `protocol` must be 2, 3 or 4, as in Paddle; the file is
    protocol-4 opcodes whatever it is (specs/paddle_formats.md)."""
    check_protocol(protocol, "paddle.save")
    write = paddle_save_writer(obj)
    if not isinstance(obj, dict) and versions.switch("paddle_save_objects") == "dict":
        raise NotImplementedError(
            "paddle.save: Paddle 2.0 saves only a dict (the state_dict of a Layer or an "
            "optimizer), got %s" % type(obj).__name__)
    if isinstance(path, (str, os.PathLike)):
        if not os.path.basename(os.fspath(path)):
            raise ValueError("paddle.save: the path must be dirname/filename, got %r (its "
                             "file name is empty)" % os.fspath(path))
        atomic_file.write(path, write)
    else:
        write(path)


def load(path, **configs):
    """paddle.load of a file (directories: static/io.py paddle_load): what paddle.save wrote (Paddle's pickle, or an earlier refimpl's
    archive); its arrays as ndarrays, or as eager Tensors in dynamic mode where switch
    `paddle_load_tensors` says so (unless return_numpy=True). configs: keep_name_table
    keeps a dygraph state_dict's "StructuredToParameterName@@"; the others Paddle takes
    (model_filename, params_filename) are accepted."""
    if isinstance(path, (str, os.PathLike)):
        if not os.path.exists(path):
            raise PathNotFoundError("paddle.load: the path %r does not exist"
                                    % os.fspath(path))
        data, source = serialization.read_file(path, "paddle.load"), os.fspath(path)
    else:
        data, source = path.read(), "the file object"
    obj = object_from_bytes(data, source, configs.get("keep_name_table", False))
    tensors = mode.dynamic and versions.switch("paddle_load_tensors")
    return _as_tensors(obj) if tensors and not configs.get("return_numpy") else obj


def paddle_save_writer(obj):
    """Check `obj` now; `write(file)` writes what paddle.save(obj) writes."""
    return object_writer(_with_name_table(obj))


def _with_name_table(obj):
    """A dict of eager Tensors (a dynamic-mode state_dict) saves as Paddle 2.x saves it:
    the arrays, plus {structured name: tensor name} under NAME_TABLE_KEY."""
    if not (isinstance(obj, dict) and obj and
            all(isinstance(v, mode.eager.Tensor) for v in obj.values())):
        return obj
    saved = {k: to_host(v._array()) for k, v in obj.items()}
    saved[NAME_TABLE_KEY] = {k: v.name for k, v in obj.items()}
    return saved


def _as_tensors(obj):
    """The arrays of a loaded object as eager Tensors (paddle.load in dynamic mode)."""
    if isinstance(obj, np.ndarray):
        return mode.eager.Tensor(obj)
    if isinstance(obj, dict):
        return {k: v if k == NAME_TABLE_KEY else _as_tensors(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_as_tensors(v) for v in obj)
    return obj


def check_protocol(protocol, fn):
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 2 <= protocol <= 4:
        raise ValueError("%s: protocol must be 2, 3 or 4 (pickle protocols Paddle accepts), "
                         "got %r" % (fn, protocol))
