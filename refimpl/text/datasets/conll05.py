"""Conll05st: paddle.dataset.conll05's semantic-role samples (the CoNLL-2005 test set) as
a Dataset."""
import numpy as np

from ...dataset import conll05
from ...io import Dataset
from ._files import locate_file


class Conll05st(Dataset):
    """One sample per predicate of a sentence: nine int64 arrays (word ids, ctx_n2, ctx_n1,
    ctx_0, ctx_p1, ctx_p2, predicate ids, verb-window mark, label ids), as
    paddle.dataset.conll05.test() yields them. Each file: the one given, or Paddle's
    cached copy under `conll05st/`."""

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download=True):
        def find(path, url, md5):
            return locate_file("Conll05st", path, url, "conll05st", md5, download)
        self.data_file = find(data_file, conll05.DATA_URL, conll05.DATA_MD5)
        self.word_dict_file = find(word_dict_file, conll05.WORDDICT_URL, conll05.WORDDICT_MD5)
        self.verb_dict_file = find(verb_dict_file, conll05.VERBDICT_URL, conll05.VERBDICT_MD5)
        self.target_dict_file = find(target_dict_file, conll05.TRGDICT_URL,
                                     conll05.TRGDICT_MD5)
        self.emb_file = find(emb_file, conll05.EMB_URL, conll05.EMB_MD5)
        self.word_dict = conll05.load_dict(self.word_dict_file)
        self.predicate_dict = conll05.load_dict(self.verb_dict_file)
        self.label_dict = conll05.load_label_dict(self.target_dict_file)
        corpus = conll05.corpus_reader(self.data_file, conll05.WORDS_MEMBER,
                                       conll05.PROPS_MEMBER)
        self.data = list(conll05.reader_creator(corpus, self.word_dict, self.predicate_dict,
                                                self.label_dict)())

    def __getitem__(self, idx):
        return tuple(np.array(column, np.int64) for column in self.data[idx])

    def __len__(self):
        return len(self.data)

    def get_dict(self):
        """(word, predicate, label) dictionaries."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the word-embedding file."""
        return self.emb_file
