"""The `collections.Sequence`-style names (aliases of collections.abc's classes) that Python
3.3-3.9 still served and Paddle 1.8-era code uses (the models repository's 1.8
similarity_net nets/paddle_layers.py tests `isinstance(seq, collections.Sequence)`);
Python 3.10 removed them. `python -m refimpl run --paddle 1.8` puts back the ones this
Python lacks (specs/runner.md); a plain `import refimpl` leaves collections alone."""
import collections
import collections.abc
import sys


def restore(profile, stream=sys.stderr):
    """Sets collections.<name> = collections.abc.<name> for each collections.abc name that
    collections lacks; says which on `stream` (one line, naming the version `profile`) and
    returns their names."""
    missing = [name for name in collections.abc.__all__ if not hasattr(collections, name)]
    for name in missing:
        setattr(collections, name, getattr(collections.abc, name))
    if missing:
        print("refimpl run: Python %d.%d lacks collections.%s; restored as aliases of "
              "collections.abc as in Python 3.9 (Paddle %s profile)"
              % (sys.version_info[0], sys.version_info[1], ", collections.".join(missing), profile),
              file=stream)
    return missing
