"""paddle.fluid.layers: the 1.8 layer functions (refimpl/layers, and the RNN and decoding API
of fluid/rnn.py), checking their arguments as 1.8 does
(refimpl/layers/argument_checks.py), and the 1.8 layer functions that are a fluid.dygraph Layer applied
once (parametric.py).

Paddle 1.8 also lets users import its submodules (`fluid.layers.nn`, `.control_flow`,
`.tensor`, `.rnn`, ...). refimpl groups its layers along other lines, so each of those
modules gives every fluid.layers name; fluid.layers.utils holds the nested-structure
helpers."""
import sys
import types

from ...layers import exports
from ...static.py_func import py_func
from .. import rnn as _rnn_api
from ..op_proto import OpProtoHolder
from . import parametric, utils
from ...layers.argument_checks import checked
from ..deprecation import mark

# every layer module's fluid.layers exports, the RNN and decoding API (fluid/rnn.py) and
# the layers built on fluid.dygraph's Layer classes (parametric.py)
_NAMES = dict(exports("fluid.layers"), **_rnn_api.EXPORTS["fluid.layers"])
_NAMES.update((name, getattr(parametric, name)) for name in parametric.__all__)
globals().update(mark("fluid.layers", {name: checked(name, fn) for name, fn in _NAMES.items()}))
py_func = checked("py_func", py_func)
__all__ = sorted(_NAMES) + ["py_func", "OpProtoHolder"]

_SUBMODULES = ("nn", "io", "tensor", "control_flow", "ops", "device", "math_op_patch",
               "detection", "metric_op", "learning_rate_scheduler", "collective",
               "distributions", "sequence_lod", "loss", "rnn", "layer_function_generator")


class _CallableModule(types.ModuleType):
    """fluid.layers.rnn is both a function and a submodule: importing the submodule sets
    the package attribute to it, so the module calls the function."""

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)


for _name in _SUBMODULES:
    _function = globals().get(_name)
    _module = (_CallableModule if callable(_function) else types.ModuleType)(
        __name__ + "." + _name, "fluid.layers.%s: the fluid.layers names" % _name)
    _module.__dict__.update((n, globals()[n]) for n in __all__)
    _module.__dict__.update(exports("fluid.layers." + _name))   # names outside __all__
    _module.__all__ = list(__all__)
    if callable(_function):
        _module._function = _function
    sys.modules[_module.__name__] = _module
    globals().setdefault(_name, _module)
