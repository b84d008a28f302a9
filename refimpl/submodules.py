"""Paddle keeps some namespaces' functions in submodules as well (paddle.tensor.stat.std,
paddle.nn.functional.common.interpolate) and its own tests and users call them there.
`group` makes those submodules, as module objects holding the same functions, from a
table {submodule: [names]} (each table is measured on Paddle 3.3.1 and limited to what
refimpl has; the alias resolves `paddle.X.Y` to such an attribute module)."""
import sys
import types

__all__ = ["group"]


def group(package, namespace, table):
    """{submodule name: module} for `package` (its dotted name), each module holding
    namespace[name] for the names the table gives it. A listed name the namespace lacks
    is an ImportError now, not an AttributeError in a user's call.

    `from paddle.nn.functional.common import interpolate` imports a submodule, which the
    import system looks for only in a package, a module with a __path__: a module file
    that is not one gets an empty __path__ (no files below it; the alias then finds the
    attribute module)."""
    owner = sys.modules[package]
    if not hasattr(owner, "__path__"):
        owner.__path__ = []
    modules = {}
    for sub, names in table.items():
        missing = [n for n in names if n not in namespace]
        if missing:
            raise ImportError("%s.%s: %s has no %s"
                              % (package, sub, package, ", ".join(missing)))
        module = types.ModuleType("%s.%s" % (package, sub),
                                  "The %s functions Paddle keeps in %s.%s."
                                  % (len(names), package, sub))
        module.__dict__.update({n: namespace[n] for n in names})
        module.__all__ = list(names)
        modules[sub] = module
    return modules
