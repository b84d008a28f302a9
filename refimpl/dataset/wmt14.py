"""WMT14 English -> French (the shrunk wmt14.tgz): members ending in src.dict / trg.dict
(one word a line; the first dict_size lines are the dictionary) and train/train,
test/test (one 'source<TAB>target' pair a line). Samples: (source ids with <s>, <e>;
target ids after <s>; target ids then <e>); pairs longer than 80 ids are skipped."""
import tarfile

from . import common

__all__ = ["train", "test", "get_dict"]

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2
_MAX_IDS = 80


def _member(tar, suffix):
    names = [m.name for m in tar if m.name.endswith(suffix)]
    if len(names) != 1:
        raise ValueError("paddle.dataset.wmt14: expected one member ending in %r, found %s"
                         % (suffix, names))
    return tar.extractfile(names[0])


def dicts(path, dict_size):
    """(source, target) word -> id: the first dict_size lines of src.dict / trg.dict."""
    def read(f):
        out = {}
        for i, line in enumerate(f):
            if i >= dict_size:
                break
            out[line.decode().strip()] = i
        return out
    with tarfile.open(path, mode="r") as tar:
        return read(_member(tar, "src.dict")), read(_member(tar, "trg.dict"))


def samples(path, file_name, src_dict, trg_dict):
    """(source ids, <s> + target ids, target ids + <e>) of the members ending in
    `file_name`."""
    with tarfile.open(path, mode="r") as tar:
        for member in [m for m in tar if m.name.endswith(file_name)]:
            for line in tar.extractfile(member):
                pair = line.decode().strip().split("\t")
                if len(pair) != 2:
                    continue
                src = [src_dict.get(w, UNK_IDX) for w in [START] + pair[0].split() + [END]]
                trg = [trg_dict.get(w, UNK_IDX) for w in pair[1].split()]
                if len(src) > _MAX_IDS or len(trg) > _MAX_IDS:
                    continue
                yield src, [trg_dict[START]] + trg, trg + [trg_dict[END]]


def reader_creator(path, file_name, dict_size):
    return lambda: samples(path, file_name, *dicts(path, dict_size))


def train(dict_size):
    return reader_creator(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), "train/train",
                          dict_size)


def test(dict_size):
    return reader_creator(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), "test/test",
                          dict_size)


def get_dict(dict_size, reverse=True):
    """(source, target) dictionaries; reverse=True maps ids to words."""
    src_dict, trg_dict = dicts(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), dict_size)
    if reverse:
        src_dict = {i: w for w, i in src_dict.items()}
        trg_dict = {i: w for w, i in trg_dict.items()}
    return src_dict, trg_dict
