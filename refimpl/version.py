"""paddle.version: the Paddle release refimpl's version profile follows (specs/versions.md),
as Paddle's generated version module gives it: full_version, major, minor, patch, rc.
full_version and its parts are read when asked, so a profile chosen after import (the
runner's --paddle) is the one they give."""
from . import versions

__all__ = ["full_version", "major", "minor", "patch", "rc", "istaged", "commit",
           "with_mkl", "show", "mkl"]

rc = "0"
istaged = True
commit = "refimpl"
with_mkl = "OFF"
_PARTS = ("major", "minor", "patch")


def __getattr__(name):
    if name == "full_version":
        return versions.release()
    if name in _PARTS:
        return versions.release().split(".")[_PARTS.index(name)]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def show():
    major, minor, patch = versions.release().split(".")
    print("full_version: %s\nmajor: %s\nminor: %s\npatch: %s\nrc: %s\ncommit: %s"
          % (versions.release(), major, minor, patch, rc, commit))


def mkl():
    return with_mkl
