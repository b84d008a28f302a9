"""PyYAML 5's one-argument `yaml.load(stream)` / `yaml.load_all(stream)`, which Paddle
1.8-era scripts call (the models repository's dygraph/lac, transformer and bmn read their
YAML configs so) and PyYAML 6 removed by making `Loader` required. PyYAML 5.1-5.4 loaded
with FullLoader when none was given; `python -m refimpl run --paddle 1.8` gives the two
functions that default back (specs/runner.md); a plain `import refimpl` never imports yaml."""
import functools
import importlib.util
import inspect
import sys

NAMES = ("load", "load_all")


def _with_full_loader_default(load):
    @functools.wraps(load)
    def load_with_default(stream, Loader=None):
        import yaml
        return load(stream, Loader=yaml.FullLoader if Loader is None else Loader)
    return load_with_default


def restore(profile, stream=sys.stderr):
    """Gives yaml.load / yaml.load_all PyYAML 5's default Loader where the installed PyYAML
    requires one (nothing when PyYAML is absent); says so on `stream` (one line, naming the
    version `profile`) and returns the names changed."""
    if importlib.util.find_spec("yaml") is None:
        return []
    import yaml
    missing = [name for name in NAMES
               if inspect.signature(getattr(yaml, name)).parameters["Loader"].default
               is inspect.Parameter.empty]
    for name in missing:
        setattr(yaml, name, _with_full_loader_default(getattr(yaml, name)))
    if missing:
        print("refimpl run: PyYAML %s requires yaml.%s's Loader; defaults to FullLoader as "
              "in PyYAML 5 (Paddle %s profile)" % (yaml.__version__, "/".join(missing), profile),
              file=stream)
    return missing
