"""WMT16: paddle.dataset.wmt16's English <-> German pairs as a Dataset."""
from ...dataset import wmt16
from ._files import TranslationTriples, locate_file

_MODES = ("train", "test", "val")
_OTHER = {"en": "de", "de": "en"}


class WMT16(TranslationTriples):
    """Samples (<s> + source ids + <e>, <s> + target ids, target ids + <e>), int64 arrays,
    of the archive's member wmt16/<mode>; `lang` is the source language. Dictionaries as
    paddle.dataset.wmt16 builds and keeps them (DATA_HOME/wmt16/<lang>_<size>.dict), each
    from its own language's column."""

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1,
                 lang="en", download=True):
        if not isinstance(mode, str) or mode.lower() not in _MODES:
            raise ValueError("WMT16: mode must be 'train', 'test' or 'val', got %r" % (mode,))
        self.mode = mode.lower()
        for name, size in (("src_dict_size", src_dict_size), ("trg_dict_size", trg_dict_size)):
            if not isinstance(size, int) or size <= 0:
                raise ValueError("WMT16: %s must be a positive int, got %r" % (name, size))
        self.src_dict_size, self.trg_dict_size = wmt16.dict_sizes(src_dict_size,
                                                                  trg_dict_size, lang)
        self.lang = lang
        self.data_file = locate_file("WMT16", data_file, wmt16.DATA_URL, "wmt16",
                                     wmt16.DATA_MD5, download)
        self.src_dict = wmt16.load_dict(self.data_file, self.src_dict_size, lang)
        self.trg_dict = wmt16.load_dict(self.data_file, self.trg_dict_size, _OTHER[lang])
        self._keep(wmt16.samples(self.data_file, "wmt16/" + self.mode, self.src_dict,
                                 self.trg_dict, lang))

    def get_dict(self, lang, reverse=False):
        """The `lang` ('en' or 'de') dictionary; reverse=True maps ids to words."""
        if lang not in _OTHER:
            raise ValueError("WMT16.get_dict: lang must be 'en' or 'de', got %r" % (lang,))
        words = self.src_dict if lang == self.lang else self.trg_dict
        return {i: w for w, i in words.items()} if reverse else words
