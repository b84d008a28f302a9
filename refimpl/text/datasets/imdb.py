"""Imdb: paddle.dataset.imdb's reviews as a Dataset."""
import numpy as np

from ...dataset import imdb
from ...io import Dataset
from ._files import check_mode, locate_file


class Imdb(Dataset):
    """Samples (word ids int64 [len], label int64 [1]): the `mode` reviews, positive (0)
    then negative (1); `word_idx` counts the words of all four parts and keeps those seen
    more than `cutoff` times, '<unk>' last."""

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        self.mode = check_mode("Imdb", mode)
        self.data_file = locate_file("Imdb", data_file, imdb.URL, "imdb", imdb.MD5, download)
        self.word_idx = imdb.build_dict(imdb.ALL_REVIEWS, cutoff, self.data_file)
        pairs = imdb.samples(self.mode, self.word_idx, self.data_file)
        self.docs = [doc for doc, _ in pairs]
        self.labels = [label for _, label in pairs]

    def __getitem__(self, idx):
        return np.array(self.docs[idx], np.int64), np.array([self.labels[idx]], np.int64)

    def __len__(self):
        return len(self.docs)
