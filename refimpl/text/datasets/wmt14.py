"""WMT14: paddle.dataset.wmt14's English -> French pairs as a Dataset."""
from ...dataset import wmt14
from ._files import TranslationTriples, locate_file

_MODES = ("train", "test", "gen")


class WMT14(TranslationTriples):
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
        self._keep(wmt14.samples(self.data_file, "%s/%s" % (self.mode, self.mode),
                                 self.src_dict, self.trg_dict))

    def get_dict(self, reverse=False):
        """(source, target) dictionaries; reverse=True maps ids to words."""
        if not reverse:
            return self.src_dict, self.trg_dict
        return ({i: w for w, i in self.src_dict.items()},
                {i: w for w, i in self.trg_dict.items()})
