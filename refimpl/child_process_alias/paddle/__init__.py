"""`paddle` for the Python processes a `python -m refimpl run` script starts.

The runner puts the folder above this one first on PYTHONPATH, so a child's `import
paddle` (`python -c 'import paddle.fluid'`, `python -m paddle.fluid.reader`, `python
train.py`) finds this module: it installs refimpl's alias and makes `paddle` refimpl, as in
the runner's own process (specs/runner.md)."""
import sys

import refimpl
from refimpl import _alias, versions

_alias.install()
sys.modules[__name__] = refimpl
if versions.switch("legacy_library_names"):
    from refimpl import legacy_libraries
    legacy_libraries.restore(versions.current())
