"""paddle.dataset (1.8): reader creators for the classic datasets, read from Paddle's cache
directory ~/.cache/paddle/dataset/<dataset>/ (refimpl downloads nothing: a missing file is
an error saying which file to put where). specs/dataset.md."""
from . import (cifar, common, conll05, image, imdb, imikolov, mnist, movielens, uci_housing,
               wmt14, wmt16)

__all__ = ["common", "uci_housing", "mnist", "cifar", "imdb", "imikolov", "movielens",
           "conll05", "wmt14", "wmt16", "image"]
