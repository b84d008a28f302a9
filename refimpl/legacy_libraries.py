"""What the runner and its child processes restore under the profiles whose scripts were
written against older libraries (switch legacy_library_names: 1.8 and 2.0): numpy 1's
names, Pillow 9's resampling names, PyYAML 5's default Loader, Python 3.9's collections
ABC aliases (specs/runner.md)."""
from . import legacy_collections, legacy_numpy, legacy_pillow, legacy_yaml


def restore(profile):
    """`profile`: the version profile named in the notices."""
    legacy_numpy.restore(profile)
    legacy_pillow.restore(profile)
    legacy_yaml.restore(profile)
    legacy_collections.restore(profile)
