"""Make `import paddle` (and every `paddle.*` submodule) resolve to refimpl."""
import importlib
import importlib.abc
import importlib.util
import sys

ALIAS = "paddle"
TARGET = "refimpl"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target_name):
        self.target_name = target_name

    def create_module(self, spec):
        return importlib.import_module(self.target_name)

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        if importlib.util.find_spec(target_name) is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(target_name))
        return spec


def install():
    """Idempotently put the alias finder first on sys.meta_path."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
