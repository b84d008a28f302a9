"""Imikolov: paddle.dataset.imikolov's Penn Treebank samples as a Dataset."""
import numpy as np

from ...dataset import imikolov
from ...io import Dataset
from ._files import check_mode, locate_file

_DATA_TYPES = {"NGRAM": imikolov.DataType.NGRAM, "SEQ": imikolov.DataType.SEQ}


class Imikolov(Dataset):
    """Samples: NGRAM, a tuple of `window_size` 0-D int64 arrays (consecutive ids of
    '<s>' + sentence + '<e>'); SEQ, (source, target) int64 arrays, sentences longer than
    window_size (when > 0) skipped. The dictionary counts train and valid text; mode
    'train' reads ptb.train.txt, 'test' ptb.test.txt (the 1.8 reader's test is valid)."""

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train",
                 min_word_freq=50, download=True):
        if not isinstance(data_type, str) or data_type.upper() not in _DATA_TYPES:
            raise ValueError("Imikolov: data_type must be 'NGRAM' or 'SEQ', got %r"
                             % (data_type,))
        self.data_type = data_type.upper()
        self.mode = check_mode("Imikolov", mode)
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = locate_file("Imikolov", data_file, imikolov.URL, "imikolov",
                                     imikolov.MD5, download)
        self.word_idx = imikolov.build_dict(min_word_freq, self.data_file)
        kind = _DATA_TYPES[self.data_type]
        imikolov.check_args(window_size, kind)
        text = imikolov.lines("./simple-examples/data/ptb.%s.txt" % self.mode, self.data_file)
        self.data = list(imikolov.samples(text, self.word_idx, window_size, kind))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
