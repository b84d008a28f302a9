"""Golden-vector storage: .npz files that regenerate byte for byte, and the JSON index.

np.savez stamps zip entries with the current time, so archives are written here with
zipfile, a fixed date and sorted entries. Arrays are stored without pickle, so
`np.load(path, allow_pickle=False)` reads them and loading never runs code.
"""
import io
import json
import os
import zipfile

import numpy as np

from ..framework import atomic_file

__all__ = ["GOLDEN_DIR", "INDEX_NAME", "FORMAT_VERSION", "write_npz", "read_npz",
           "write_index", "read_index", "describe", "array_key"]

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
INDEX_NAME = "index.json"
FORMAT_VERSION = 1
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)   # the earliest date a zip entry can carry


def array_key(case_key, role, slot, j=None):
    """Name of one array inside a case's .npz: '<case>/<role>/<slot>[/<j>]'.
    role is in, out, cot (output cotangent) or grad (input gradient)."""
    parts = [case_key, role, slot] + ([str(j)] if j is not None else [])
    return "/".join(parts)


def write_npz(path, arrays):
    """Write {key: ndarray} as a deterministic, uncompressed-metadata-free .npz (all or
    nothing: atomic_file)."""
    def write(file):
        with zipfile.ZipFile(file, "w") as zf:
            for key in sorted(arrays):
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.asarray(arrays[key], order="C"),
                                          allow_pickle=False)
                info = zipfile.ZipInfo(key + ".npy", date_time=_FIXED_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3           # unix, whatever the host
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue(), compresslevel=9)
    atomic_file.write(path, write)


def read_npz(path):
    """{key: ndarray} from a golden .npz (never unpickles)."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def write_index(path, index):
    atomic_file.write_bytes(path, (json.dumps(index, indent=1, sort_keys=True) + "\n")
                           .encode("utf-8"))


def read_index(golden_dir=GOLDEN_DIR):
    path = os.path.join(golden_dir, INDEX_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError("no golden index at %s; run `python -m refimpl conformance "
                                "generate`" % path)
    with open(path) as f:
        index = json.load(f)
    if index.get("format") != FORMAT_VERSION:
        raise ValueError("golden index %s has format %r; this checker reads format %d"
                         % (path, index.get("format"), FORMAT_VERSION))
    return index


def describe(array):
    """'float64[3, 4]': an array's dtype and shape as the index shows it."""
    a = np.asarray(array)
    return "%s%s" % (a.dtype.name, list(a.shape))
