"""WMT16 English <-> German (wmt16.tar.gz: wmt16/train, wmt16/test, wmt16/val, one
'english<TAB>german' pair a line). The dictionary of a language and size is built from
the training text ('<s>', '<e>', '<unk>', then the words by falling frequency) and kept
as DATA_HOME/wmt16/<lang>_<size>.dict, as Paddle keeps it. Samples: (source ids with
<s>, <e>; target ids after <s>; target ids then <e>)."""
import collections
import os
import tarfile

from ..framework import atomic_file
from . import common

__all__ = ["train", "test", "validation", "get_dict"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
DATA_MD5 = "0c38be43600334966403524a40dcd81e"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


def _pairs(tar_path, member):
    with tarfile.open(tar_path, mode="r") as tar:
        for line in tar.extractfile(member):
            pair = line.decode().strip().split("\t")
            if len(pair) == 2:
                yield pair


def _dict_path(lang, dict_size):
    return os.path.join(common.DATA_HOME, "wmt16", "%s_%d.dict" % (lang, dict_size))


def _build_dict(tar_path, dict_size, lang):
    column = 0 if lang == "en" else 1
    freq = collections.Counter(w for pair in _pairs(tar_path, "wmt16/train")
                               for w in pair[column].split())
    words = [START_MARK, END_MARK, UNK_MARK] + \
        [w for w, _ in sorted(freq.items(), key=lambda x: x[1], reverse=True)]
    path = _dict_path(lang, dict_size)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_file.write_bytes(path, "".join(w + "\n" for w in words[:dict_size]).encode())


def load_dict(tar_path, dict_size, lang, reverse=False):
    """The `lang` dictionary of dict_size words, built from the training text unless
    DATA_HOME/wmt16 keeps one of that size."""
    path = _dict_path(lang, dict_size)
    if not os.path.exists(path) or len(open(path, "rb").readlines()) != dict_size:
        _build_dict(tar_path, dict_size, lang)
    with open(path, "rb") as f:
        words = [line.decode().strip() for line in f]
    return dict(enumerate(words)) if reverse else {w: i for i, w in enumerate(words)}


def dict_sizes(src_dict_size, trg_dict_size, src_lang):
    """The sizes clamped to the words the archive has; src_lang checked."""
    if src_lang not in ("en", "de"):
        raise ValueError("An error language type. Only support: en (for English); "
                         "de(for Germany).")
    en, de = (src_dict_size, trg_dict_size) if src_lang == "en" else \
        (trg_dict_size, src_dict_size)
    en, de = min(en, TOTAL_EN_WORDS), min(de, TOTAL_DE_WORDS)
    return (en, de) if src_lang == "en" else (de, en)


def samples(tar_path, file_name, src_dict, trg_dict, src_lang):
    """(<s> + source ids + <e>, <s> + target ids, target ids + <e>) of each pair of the
    member `file_name`."""
    start, end, unk = src_dict[START_MARK], src_dict[END_MARK], src_dict[UNK_MARK]
    src_col = 0 if src_lang == "en" else 1
    for pair in _pairs(tar_path, file_name):
        src = [start] + [src_dict.get(w, unk) for w in pair[src_col].split()] + [end]
        trg = [trg_dict.get(w, unk) for w in pair[1 - src_col].split()]
        yield src, [start] + trg, trg + [end]


def reader_creator(tar_path, file_name, src_dict_size, trg_dict_size, src_lang):
    trg_lang = "de" if src_lang == "en" else "en"
    return lambda: samples(tar_path, file_name, load_dict(tar_path, src_dict_size, src_lang),
                           load_dict(tar_path, trg_dict_size, trg_lang), src_lang)


def _split(file_name):
    def creator(src_dict_size, trg_dict_size, src_lang="en"):
        src_size, trg_size = dict_sizes(src_dict_size, trg_dict_size, src_lang)
        return reader_creator(common.download(DATA_URL, "wmt16", DATA_MD5, "wmt16.tar.gz"),
                              file_name, src_size, trg_size, src_lang)
    return creator


train = _split("wmt16/train")
test = _split("wmt16/test")
validation = _split("wmt16/val")


def get_dict(lang, dict_size, reverse=False):
    """A dictionary built by an earlier train / test / validation reader."""
    dict_size = min(dict_size, TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)
    if not os.path.exists(_dict_path(lang, dict_size)):
        raise FileNotFoundError("Word dictionary does not exist. Please invoke "
                                "paddle.dataset.wmt16.train/test/validation first to build "
                                "the dictionary.")
    return load_dict(os.path.join(common.DATA_HOME, "wmt16.tar.gz"), dict_size, lang,
                      reverse)
