"""Paddle 3's padding layers of one mode each: ZeroPad1D/2D/3D, ConstantPad1D/2D/3D
(a value), ReflectionPad1D/2D/3D, ReplicationPad1D/2D/3D and CircularPad1D/2D/3D, each a
subclass of Pad1D / Pad2D / Pad3D with its mode fixed (3.3.1's classes, measured: the
same repr as the Pad they extend)."""
import inspect

from .common import Pad1D, Pad2D, Pad3D

_MODES = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect",
          "Replication": "replicate", "Circular": "circular"}
_BASES = {1: (Pad1D, "NCL"), 2: (Pad2D, "NCHW"), 3: (Pad3D, "NCDHW")}


def _padding_layer(kind, nd):
    """The class `<kind>Pad<nd>D`: (padding, [value,] data_format, name)."""
    base, layout = _BASES[nd]
    mode, takes_value = _MODES[kind], kind == "Constant"

    def __init__(self, padding, *args, **kwargs):
        given = signature.bind(self, padding, *args, **kwargs)
        given.apply_defaults()
        values = given.arguments
        base.__init__(self, padding, mode, values.get("value", 0.0), values["data_format"],
                      values["name"])

    parameters = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                  for p, d in [("self", inspect.Parameter.empty),
                               ("padding", inspect.Parameter.empty)]
                  + ([("value", inspect.Parameter.empty)] if takes_value else [])
                  + [("data_format", layout), ("name", None)]]
    signature = inspect.Signature(parameters)
    __init__.__signature__ = signature
    name = "%sPad%dD" % (kind, nd)
    return type(name, (base,), {"__init__": __init__, "__module__": __name__,
                                "__qualname__": name,
                                "__doc__": "%s padding of %d spatial dims." % (mode, nd)})


_LAYERS = {"%sPad%dD" % (kind, nd): _padding_layer(kind, nd) for kind in _MODES
           for nd in (1, 2, 3)}
globals().update(_LAYERS)
__all__ = sorted(_LAYERS)
