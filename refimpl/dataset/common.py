"""Where the dataset files are (Paddle's cache layout) and how they are checked."""
import hashlib
import io
import os
import pickle
import warnings

import numpy as np

__all__ = ["DATA_HOME", "download", "md5file", "restricted_unpickle", "write_atomically"]

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))

_md5_seen = {}   # (path, size, mtime) -> md5, so a file is hashed once per process


def md5file(fname):
    digest = hashlib.md5()
    with open(fname, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(url, module_name, md5sum, save_name=None):
    """The cached copy of `url`: DATA_HOME/<module_name>/<save_name or the URL's last part>.
    refimpl has no network access: a missing file raises FileNotFoundError saying where to
    put which file. A file whose md5 differs from Paddle's published one (e.g. a smaller
    test file in the same format) is used, with a warning."""
    path = os.path.join(DATA_HOME, module_name, save_name or url.split("/")[-1])
    if not os.path.isfile(path):
        raise FileNotFoundError(
            "paddle.dataset.%s: %s is not in the cache and refimpl downloads nothing; "
            "download %s and save it as %s (md5 %s)" % (module_name, os.path.basename(path),
                                                       url, path, md5sum))
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _md5_seen:
        _md5_seen[key] = md5file(path)
    if md5sum and _md5_seen[key] != md5sum:
        warnings.warn("paddle.dataset.%s: %s has md5 %s, not the %s of Paddle's file; "
                      "reading it anyway" % (module_name, path, _md5_seen[key], md5sum))
    return path


_RECONSTRUCT = (np._core if hasattr(np, "_core") else np.core).multiarray._reconstruct


class _ArrayUnpickler(pickle.Unpickler):
    """Unpickles containers, numbers, strings, bytes and numpy arrays; any other global
    (which could run code) is refused."""
    _ALLOWED = {("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
                ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
                ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
                ("builtins", "bytearray"): bytearray}

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return self._ALLOWED[module, name]
        raise pickle.UnpicklingError("refusing to unpickle %s.%s: only arrays and plain "
                                     "data are read" % (module, name))


def restricted_unpickle(data, encoding="bytes"):
    """The object pickled in `data`, built without running code."""
    return _ArrayUnpickler(io.BytesIO(data), encoding=encoding).load()


def write_atomically(path, data):
    """Write bytes to `path` through a temporary file and a rename."""
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
