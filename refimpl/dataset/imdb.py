"""IMDB reviews: aclImdb_v1.tar.gz, one review per aclImdb/{train,test}/{pos,neg}/*.txt.
A review's words: its bytes with trailing newlines dropped, ASCII punctuation removed,
lower-cased, split on whitespace (bytes, as Paddle gives them under Python 3). Samples:
(word ids, label) with label 0 for pos, 1 for neg; all pos reviews come first."""
import collections
import re
import string
import tarfile

from . import common

__all__ = ["build_dict", "word_dict", "train", "test"]

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"
_PUNCTUATION = string.punctuation.encode()


def tokenize(pattern):
    """The word lists of the reviews whose member names match `pattern`, in archive order."""
    with tarfile.open(common.download(URL, "imdb", MD5)) as tar:
        for member in tar:
            if pattern.match(member.name):
                text = tar.extractfile(member).read().rstrip(b"\n\r")
                yield text.translate(None, _PUNCTUATION).lower().split()


def build_dict(pattern, cutoff):
    """{word: id} for words seen more than `cutoff` times, most frequent first (ties by
    word); '<unk>' is the last id."""
    freq = collections.Counter(w for doc in tokenize(pattern) for w in doc)
    kept = sorted(((w, n) for w, n in freq.items() if n > cutoff), key=lambda x: (-x[1], x[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


def _reader(pos_pattern, neg_pattern, word_idx):
    unk = word_idx["<unk>"]
    samples = [([word_idx.get(w, unk) for w in doc], label)
               for pattern, label in ((pos_pattern, 0), (neg_pattern, 1))
               for doc in tokenize(pattern)]
    return lambda: iter(samples)


def train(word_idx):
    return _reader(re.compile(r"aclImdb/train/pos/.*\.txt$"),
                   re.compile(r"aclImdb/train/neg/.*\.txt$"), word_idx)


def test(word_idx):
    return _reader(re.compile(r"aclImdb/test/pos/.*\.txt$"),
                   re.compile(r"aclImdb/test/neg/.*\.txt$"), word_idx)


def word_dict():
    return build_dict(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$"), 150)
