"""Layer functions: the static-graph building API.

Each module here defines its layer functions and an `EXPORTS` table saying under which
public name each appears in which namespace:

    EXPORTS = {"paddle": {"mean": mean}, "fluid.layers": {"mean": mean},
               "static.nn": {...}, "nn.functional": {...}}

The namespace modules (refimpl, refimpl.static.nn, refimpl.fluid.layers,
refimpl.nn.functional, ...) call `exports(namespace)`, so adding a layer never means
editing a namespace file.
"""
import importlib
import pkgutil

from .argument_checks import api_checked

__all__ = ["exports"]


def exports(namespace):
    """{public name: object} for `namespace`, gathered from every module's EXPORTS (the
    functions checking their arguments as Paddle 2.0's do under the 2.0 profile:
    argument_checks.PADDLE_API_20)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(__name__ + "." + info.name)
        for name, obj in getattr(module, "EXPORTS", {}).get(namespace, {}).items():
            if name in found and found[name] is not obj:
                raise ImportError("%s.%s is exported by two layer modules" % (namespace, name))
            found[name] = obj
    return {name: _checked(namespace, name, obj) for name, obj in found.items()}


_CHECKED = {}


def _checked(namespace, name, obj):
    # one wrapper per function, so that every namespace and the tensor methods built from
    # separate exports() calls hold the same object (paddle.allclose is Variable.allclose)
    key = (namespace, name, obj)
    if key not in _CHECKED:
        _CHECKED[key] = api_checked(namespace, name, obj)
    return _CHECKED[key]
