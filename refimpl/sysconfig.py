"""paddle.sysconfig: where a C++ extension built against the framework finds its headers
and libraries. refimpl has no C++ framework library; its compiled parts are the Cython
kernels, whose sources (.pyx, .pxd) and built modules both lie in refimpl/_kernels, so
both answers name that folder."""
import os

__all__ = ["get_include", "get_lib"]

_KERNELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels")


def get_include():
    """The folder of refimpl's Cython kernel sources (Paddle: its C++ headers)."""
    return _KERNELS_DIR


def get_lib():
    """The folder of refimpl's compiled kernel modules (Paddle: libpaddle_framework)."""
    return _KERNELS_DIR
