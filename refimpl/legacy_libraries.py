"""What the 1.8 profile's runner and child processes restore of the libraries 1.8-era
scripts were written against: numpy 1's names, Pillow 9's resampling names, PyYAML 5's
default Loader, Python 3.9's collections ABC aliases (specs/runner.md)."""
from . import legacy_collections, legacy_numpy, legacy_pillow, legacy_yaml


def restore():
    legacy_numpy.restore()
    legacy_pillow.restore()
    legacy_yaml.restore()
    legacy_collections.restore()
