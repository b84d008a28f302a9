"""The Penn Treebank as shipped in simple-examples.tgz (./simple-examples/data/ptb.train.txt
and ptb.valid.txt, one sentence a line). Words are bytes, the markers '<s>', '<e>',
'<unk>' are str, as Paddle gives them under Python 3. NGRAM samples: every n consecutive
ids of '<s>' + sentence + '<e>'; SEQ samples: ('<s>' + sentence, sentence + '<e>')."""
import collections
import tarfile

from . import common

__all__ = ["train", "test", "build_dict", "DataType"]

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"
TRAIN_FILE = "./simple-examples/data/ptb.train.txt"
TEST_FILE = "./simple-examples/data/ptb.valid.txt"


class DataType:
    NGRAM = 1
    SEQ = 2


def lines(name, path=None):
    """The lines of member `name` of the archive at `path` (default: the cached one)."""
    with tarfile.open(path or common.download(URL, "imikolov", MD5)) as tar:
        yield from tar.extractfile(name)


def build_dict(min_word_freq=50, path=None):
    """{word: id} over the training and validation text for words seen more than
    min_word_freq times (each line also counts one '<s>' and one '<e>'), most frequent
    first (ties by word); '<unk>' is the last id."""
    freq = collections.Counter()
    for name in (TRAIN_FILE, TEST_FILE):
        for line in lines(name, path):
            freq.update(line.strip().split())
            freq.update(("<s>", "<e>"))
    freq.pop("<unk>", None)
    kept = sorted(((w, n) for w, n in freq.items() if n > min_word_freq),
                  key=lambda x: (-x[1], x[0] if isinstance(x[0], bytes) else x[0].encode()))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


def check_args(n, data_type):
    if data_type not in (DataType.NGRAM, DataType.SEQ):
        raise ValueError("paddle.dataset.imikolov: data_type must be DataType.NGRAM or SEQ, "
                         "got %r" % (data_type,))
    if data_type == DataType.NGRAM and n < 1:
        raise ValueError("paddle.dataset.imikolov: an NGRAM reader needs n >= 1, got %r" % n)


def samples(text_lines, word_idx, n, data_type):
    """The NGRAM or SEQ samples of the sentences `text_lines` (see the module docstring;
    SEQ keeps sentences whose source is at most n ids long when n > 0); check_args first."""
    unk = word_idx["<unk>"]
    for line in text_lines:
        words = line.strip().split()
        if data_type == DataType.NGRAM:
            ids = [word_idx.get(w, unk) for w in ["<s>"] + words + ["<e>"]]
            for i in range(n, len(ids) + 1):
                yield tuple(ids[i - n:i])
        else:
            ids = [word_idx.get(w, unk) for w in words]
            source, target = [word_idx["<s>"]] + ids, ids + [word_idx["<e>"]]
            if n <= 0 or len(source) <= n:
                yield source, target


def _reader(name, word_idx, n, data_type):
    check_args(n, data_type)
    return lambda: samples(lines(name), word_idx, n, data_type)


def train(word_idx, n, data_type=DataType.NGRAM):
    return _reader(TRAIN_FILE, word_idx, n, data_type)


def test(word_idx, n, data_type=DataType.NGRAM):
    return _reader(TEST_FILE, word_idx, n, data_type)


def fetch():
    common.fetch("imikolov", (URL, MD5))
