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


def tokenize(pattern, path=None):
    """The word lists of the reviews whose member names match `pattern`, in archive order,
    from the archive at `path` (default: the cached aclImdb_v1.tar.gz)."""
    with tarfile.open(path or common.download(URL, "imdb", MD5)) as tar:
        for member in tar:
            if pattern.match(member.name):
                text = tar.extractfile(member).read().rstrip(b"\n\r")
                yield text.translate(None, _PUNCTUATION).lower().split()


def build_dict(pattern, cutoff, path=None):
    """{word: id} for words seen more than `cutoff` times, most frequent first (ties by
    word); '<unk>' is the last id."""
    freq = collections.Counter(w for doc in tokenize(pattern, path) for w in doc)
    kept = sorted(((w, n) for w, n in freq.items() if n > cutoff), key=lambda x: (-x[1], x[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


ALL_REVIEWS = re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")


def samples(part, word_idx, path=None):
    """[(word ids, label)] of the `part` ('train' or 'test') reviews, pos (0) then neg (1)."""
    unk = word_idx["<unk>"]
    return [([word_idx.get(w, unk) for w in doc], label)
            for polarity, label in (("pos", 0), ("neg", 1))
            for doc in tokenize(re.compile(r"aclImdb/%s/%s/.*\.txt$" % (part, polarity)), path)]


def _reader(part, word_idx):
    data = samples(part, word_idx)
    return lambda: iter(data)


def train(word_idx):
    return _reader("train", word_idx)


def test(word_idx):
    return _reader("test", word_idx)


def word_dict():
    return build_dict(ALL_REVIEWS, 150)


def fetch():
    common.fetch("imdb", (URL, MD5))
