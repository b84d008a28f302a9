"""paddle.text.datasets: map-style datasets over the files paddle.dataset reads
(specs/text_datasets.md)."""
from .imdb import Imdb
from .imikolov import Imikolov
from .uci_housing import UCIHousing

__all__ = ["Imdb", "Imikolov", "UCIHousing"]
