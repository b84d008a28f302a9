"""WMT14: paddle.dataset.wmt14's English -> French pairs as a Dataset."""
import numpy as np

from ...dataset import wmt14
from ...io import Dataset
from ._files import locate_file

_MODES = ("train", "test", "gen")


class WMT14(Dataset):
    """Samples (source ids, <s> + target ids, target ids + <e>), int64 arrays, of the
    archive's `mode`/`mode` members; dictionaries of the first dict_size words."""

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        if not isinstance(mode, str) or mode.lower() not in _MODES:
            raise ValueError("WMT14: mode must be 'train', 'test' or 'gen', got %r" % (mode,))
        self.mode = mode.lower()
        if not isinstance(dict_size, int) or dict_size <= 0:
            raise ValueError("WMT14: dict_size must be a positive int, got %r" % (dict_size,))
        self.dict_size = dict_size
        self.data_file = locate_file("WMT14", data_file, wmt14.URL_TRAIN, "wmt14",
                                     wmt14.MD5_TRAIN, download)
        self.src_dict, self.trg_dict = wmt14.dicts(self.data_file, dict_size)
        triples = list(wmt14.samples(self.data_file, "%s/%s" % (self.mode, self.mode),
                                     self.src_dict, self.trg_dict))
        self.src_ids = [t[0] for t in triples]
        self.trg_ids = [t[1] for t in triples]
        self.trg_ids_next = [t[2] for t in triples]

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx], np.int64), np.array(self.trg_ids[idx], np.int64),
                np.array(self.trg_ids_next[idx], np.int64))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """(source, target) dictionaries; reverse=True maps ids to words."""
        if not reverse:
            return self.src_dict, self.trg_dict
        return ({i: w for w, i in self.src_dict.items()},
                {i: w for w, i in self.trg_dict.items()})
