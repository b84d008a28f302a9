"""paddle.sysconfig: the folders of the C++ headers and of the framework library, beside
the package as Paddle computes them. refimpl is pure Python and Cython, so neither holds
anything here; the paths are what a build script asks for, as Paddle gives them."""
import os

__all__ = ["get_include", "get_lib"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def get_include():
    return os.path.join(_PACKAGE_DIR, "include")


def get_lib():
    return os.path.join(_PACKAGE_DIR, "libs")
