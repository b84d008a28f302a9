"""paddle.version: the Paddle release refimpl's version profile follows (specs/versions.md),
as Paddle's generated version module gives it: full_version, major, minor, patch, rc."""
from . import versions

__all__ = ["full_version", "major", "minor", "patch", "rc", "istaged", "commit",
           "with_mkl", "show", "mkl"]

full_version = versions.release()
major, minor, patch = full_version.split(".")
rc = "0"
istaged = True
commit = "refimpl"
with_mkl = "OFF"


def show():
    print("full_version: %s\nmajor: %s\nminor: %s\npatch: %s\nrc: %s\ncommit: %s"
          % (full_version, major, minor, patch, rc, commit))


def mkl():
    return with_mkl
