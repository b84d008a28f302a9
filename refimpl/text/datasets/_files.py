"""The data file a text dataset reads (the one given, or Paddle's cached copy), and the
sample store the translation datasets share."""
import numpy as np

from ...dataset import common
from ...io import Dataset


def locate_file(owner, path, url, module_name, md5, download):
    if path is not None:
        return path
    if not download:
        raise ValueError("%s: data_file is not set and download=False; pass the path of %s"
                         % (owner, url.split("/")[-1]))
    return common.download(url, module_name, md5)


def check_mode(owner, mode):
    if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
        raise ValueError("%s: mode must be 'train' or 'test', got %r" % (owner, mode))
    return mode.lower()


class TranslationTriples(Dataset):
    """A dataset of (source ids, target ids, next target ids) samples, int64 arrays: WMT14's
    and WMT16's. Subclasses call `_keep` with the reader's triples."""

    def _keep(self, triples):
        triples = list(triples)
        self.src_ids = [t[0] for t in triples]
        self.trg_ids = [t[1] for t in triples]
        self.trg_ids_next = [t[2] for t in triples]

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx], np.int64), np.array(self.trg_ids[idx], np.int64),
                np.array(self.trg_ids_next[idx], np.int64))

    def __len__(self):
        return len(self.src_ids)
