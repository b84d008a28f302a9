"""UCI housing: 506 rows of 13 features and a price (housing.data, whitespace-separated).
Features are centred by their mean and divided by their range (max - min) over the whole
file; the first 80% of the rows are the training set, the rest the test set. Samples:
(features float64 [13], price [1])."""
import numpy as np

from . import common

__all__ = ["train", "test", "feature_names"]

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                 "PTRATIO", "B", "LSTAT"]
_COLUMNS = 14
_TRAIN_RATIO = 0.8


def rows(path):
    """The file's rows [n, 14], features normalized as the module docstring says."""
    data = np.fromfile(path, sep=" ")
    if data.size % _COLUMNS:
        raise ValueError("paddle.dataset.uci_housing: %s holds %d numbers, not rows of %d"
                         % (path, data.size, _COLUMNS))
    data = data.reshape(-1, _COLUMNS)
    features = data[:, :-1]
    span = features.max(axis=0) - features.min(axis=0)
    data[:, :-1] = (features - features.sum(axis=0) / len(data)) / span
    return data


def split(data, part):
    """The rows of `part`: the first 80% for 'train', the rest for 'test'."""
    offset = int(len(data) * _TRAIN_RATIO)
    return data[:offset] if part == "train" else data[offset:]


def _reader(part):
    def reader():
        for row in split(rows(common.download(URL, "uci_housing", MD5)), part):
            yield row[:-1], row[-1:]
    return reader


def train():
    return _reader("train")


def test():
    return _reader("test")


def fetch():
    common.fetch("uci_housing", (URL, MD5))
