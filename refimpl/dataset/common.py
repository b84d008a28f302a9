"""Where the dataset files are (Paddle's cache layout) and how they are checked."""
import os
import warnings

from ..framework.file_digest import file_hexdigest

__all__ = ["DATA_HOME", "download", "fetch", "md5file"]

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))

_md5_seen = {}   # (path, size, mtime) -> md5, so a file is hashed once per process


def md5file(fname):
    return file_hexdigest(fname, "md5")


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


def fetch(module_name, *files):
    """A dataset module's fetch(): Paddle downloads its (url, md5) files into the cache;
    refimpl downloads nothing, so each must be there already (download's
    FileNotFoundError says where to put a missing one)."""
    for url, md5 in files:
        download(url, module_name, md5)
