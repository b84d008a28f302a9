"""Make `import paddle` (and every `paddle.*` submodule) resolve to refimpl.

`paddle.X.Y` is `refimpl.X.Y`: a module file, or a module object refimpl.X holds as its
attribute Y (fluid.initializer, fluid.layers.nn, ...), as Paddle's module tree has them."""
import importlib
import importlib.abc
import importlib.util
import os
import sys
import types

ALIAS = "paddle"
TARGET = "refimpl"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass

    def get_code(self, fullname):
        """The code of the refimpl module file (what `python -m paddle.X` runs), or None
        for a module refimpl holds only as an attribute."""
        spec = getattr(self.module, "__spec__", None)
        loader = getattr(spec, "loader", None)
        return loader.get_code(spec.name) if hasattr(loader, "get_code") else None


def resolve(target_name):
    """The refimpl module `target_name` names (a file or a module attribute), or None."""
    if target_name in sys.modules:
        return sys.modules[target_name]
    try:
        if importlib.util.find_spec(target_name) is not None:
            return importlib.import_module(target_name)
    except ModuleNotFoundError:
        return None
    parent, _, attr = target_name.rpartition(".")
    if not parent:
        return None
    owner = resolve(parent)
    member = getattr(owner, attr, None) if owner is not None else None
    return member if isinstance(member, types.ModuleType) else None


class _AliasFinder(importlib.abc.MetaPathFinder):
    def __init__(self, on_first_import=None):
        self.on_first_import = on_first_import

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        if fullname == ALIAS and self.on_first_import is not None:
            first, self.on_first_import = self.on_first_import, None
            first()
        module = resolve(TARGET + fullname[len(ALIAS):])
        if module is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# a folder whose `paddle` package installs the alias: on PYTHONPATH for the runner's children
CHILD_PATH = os.path.join(_PACKAGE_DIR, "child_process_alias")


def install_for_children():
    """Put CHILD_PATH, then the folder refimpl was imported from, first on PYTHONPATH, so
    the Python processes started from here import refimpl as `paddle` too (the version
    profile reaches them as REFIMPL_PADDLE)."""
    first = [CHILD_PATH, os.path.dirname(_PACKAGE_DIR)]
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and p not in first]
    os.environ["PYTHONPATH"] = os.pathsep.join(first + rest)


def install(on_first_import=None):
    """Idempotently put the alias finder first on sys.meta_path; `on_first_import()` runs
    when the script first imports `paddle` (what Paddle does at its import, for a script
    that ran with refimpl already imported)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(on_first_import))
