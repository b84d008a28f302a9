"""CoNLL-2005 semantic role labelling, test set (conll05st-tests.tar.gz: gzipped
test.wsj.words, one word a line, and test.wsj.props, the verb column then one column per
predicate; sentences end at an empty line) and the dictionaries wordDict.txt,
verbDict.txt, targetDict.txt (one entry a line). Each predicate of a sentence is a
sample: (word ids, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2 (the words around the verb,
repeated per word), predicate ids, verb-window mark, label ids)."""
import gzip
import tarfile

from . import common

__all__ = ["test", "get_dict", "get_embedding"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"
UNK_IDX = 0
# the archive's members with the test set's words and props
WORDS_MEMBER = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS_MEMBER = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def load_dict(filename):
    with open(filename) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def load_label_dict(filename):
    """B-<tag>, I-<tag> for every tag of the target dictionary (tags sorted: Paddle
    numbers them in set order), then O."""
    with open(filename) as f:
        tags = sorted({line.strip()[2:] for line in f
                       if line.strip().startswith(("B-", "I-"))})
    labels = {}
    for tag in tags:
        labels["B-" + tag] = len(labels)
        labels["I-" + tag] = len(labels)
    labels["O"] = len(labels)
    return labels


def _bio(column):
    """A props column ('(A0*', '*', '*)', '(V*)') as B- / I- / O labels."""
    labels, tag, inside = [], "O", False
    for item in column:
        if item == "*":
            labels.append("I-" + tag if inside else "O")
        elif item == "*)":
            labels.append("I-" + tag)
            inside = False
        elif "(" in item:
            tag = item[1:item.find("*")]
            labels.append("B-" + tag)
            inside = ")" not in item
        else:
            raise RuntimeError("Unexpected label: %s" % item)
    return labels


def corpus_reader(data_path, words_name, props_name):
    """(sentence words, predicate, labels) per predicate of each sentence."""
    def reader():
        with tarfile.open(data_path) as tar, \
                gzip.GzipFile(fileobj=tar.extractfile(words_name)) as words, \
                gzip.GzipFile(fileobj=tar.extractfile(props_name)) as props:
            sentence, rows = [], []
            for word, prop in zip(words, props):
                prop = prop.decode().split()
                if prop:
                    sentence.append(word.decode().strip())
                    rows.append(prop)
                    continue
                columns = list(zip(*rows))
                if columns:
                    verbs = [v for v in columns[0] if v != "-"]
                    for verb, column in zip(verbs, columns[1:]):
                        yield sentence, verb, _bio(column)
                sentence, rows = [], []
    return reader


def reader_creator(corpus, word_dict, predicate_dict, label_dict):
    def reader():
        for sentence, predicate, labels in corpus():
            n = len(sentence)
            v = labels.index("B-V")
            mark = [0] * n
            for i in range(max(v - 2, 0), min(v + 3, n)):
                mark[i] = 1

            def word_at(i, outside):
                return sentence[i] if 0 <= i < n else outside
            context = [word_at(v - 2, "bos"), word_at(v - 1, "bos"), sentence[v],
                       word_at(v + 1, "eos"), word_at(v + 2, "eos")]
            yield ([word_dict.get(w, UNK_IDX) for w in sentence],
                   *[[word_dict.get(w, UNK_IDX)] * n for w in context],
                   [predicate_dict.get(predicate)] * n, mark,
                   [label_dict.get(label) for label in labels])
    return reader


def get_dict():
    return (load_dict(common.download(WORDDICT_URL, "conll05st", WORDDICT_MD5)),
            load_dict(common.download(VERBDICT_URL, "conll05st", VERBDICT_MD5)),
            load_label_dict(common.download(TRGDICT_URL, "conll05st", TRGDICT_MD5)))


def get_embedding():
    return common.download(EMB_URL, "conll05st", EMB_MD5)


def test():
    word_dict, verb_dict, label_dict = get_dict()
    corpus = corpus_reader(common.download(DATA_URL, "conll05st", DATA_MD5), WORDS_MEMBER,
                           PROPS_MEMBER)
    return reader_creator(corpus, word_dict, verb_dict, label_dict)
