"""paddle.text.datasets: the Dataset classes over paddle.dataset's files, read from a
temporary DATA_HOME (specs/text_datasets.md)."""
import gzip
import io
import zipfile

import numpy as np
import pytest

import refimpl
from refimpl.text.datasets import WMT14, WMT16, Conll05st, Imdb, Imikolov, Movielens, UCIHousing

from helpers import put_data_file, tar_archive


def test_namespace_lists_the_classes():
    assert refimpl.text.Imdb is Imdb and refimpl.text.datasets.UCIHousing is UCIHousing
    assert refimpl.text.datasets.__all__ == ["Conll05st", "Imdb", "Imikolov", "Movielens",
                                             "UCIHousing", "WMT14", "WMT16"]


@pytest.mark.filterwarnings("ignore:paddle.dataset.uci_housing")
def test_uci_housing_samples_in_the_default_dtype(dataset_home):
    rows = np.arange(10 * 14, dtype=float).reshape(10, 14) ** 1.5
    put_data_file(dataset_home, "uci_housing", "housing.data",
                  " ".join(map(str, rows.ravel())).encode())
    train, test = UCIHousing(mode="train"), UCIHousing(mode="TEST")
    assert (len(train), len(test)) == (8, 2)
    features = rows[:, :-1]
    want = (features - features.mean(0)) / (features.max(0) - features.min(0))
    x, y = train[3]
    assert x.dtype == np.float32 and x.shape == (13,) and y.shape == (1,)
    np.testing.assert_allclose(x, want[3], rtol=1e-6)
    np.testing.assert_allclose(test[1][1], [rows[9, -1]], rtol=1e-6)
    refimpl.set_default_dtype("float64")
    try:
        x64, _ = UCIHousing(mode="train")[3]
    finally:
        refimpl.set_default_dtype("float32")
    assert x64.dtype == np.float64
    np.testing.assert_allclose(x64, want[3], rtol=1e-12)


def test_uci_housing_refuses_bad_mode_and_missing_file(dataset_home):
    with pytest.raises(ValueError, match="mode must be 'train' or 'test'"):
        UCIHousing(mode="valid")
    with pytest.raises(FileNotFoundError, match="housing.data"):
        UCIHousing()
    with pytest.raises(ValueError, match="download=False"):
        UCIHousing(download=False)


def test_imdb_dictionary_over_all_parts_and_labels(dataset_home, tmp_path):
    docs = {"aclImdb/train/pos/0_9.txt": b"Good, good movie!\n",
            "aclImdb/train/neg/1_1.txt": b"Bad movie.",
            "aclImdb/test/pos/2_8.txt": b"good bad",
            "aclImdb/test/neg/3_2.txt": b"dull"}
    path = tmp_path / "reviews.tar.gz"
    path.write_bytes(tar_archive(docs))
    train = Imdb(data_file=str(path), mode="train", cutoff=1)
    # words seen more than once: good (3), bad (2), movie (2); ties by the word's bytes
    assert train.word_idx == {b"good": 0, b"bad": 1, b"movie": 2, "<unk>": 3}
    assert len(train) == 2
    doc, label = train[0]
    assert doc.dtype == np.int64 and doc.tolist() == [0, 0, 2] and label.tolist() == [0]
    assert train[1][0].tolist() == [1, 2] and train[1][1].tolist() == [1]
    test = Imdb(data_file=str(path), mode="test", cutoff=1)
    assert test.docs == [[0, 1], [3]] and test.labels == [0, 1]


def _ptb(tmp_path):
    texts = {"./simple-examples/data/ptb.train.txt": b" a b a\n b c\n",
             "./simple-examples/data/ptb.valid.txt": b" a x a\n",
             "./simple-examples/data/ptb.test.txt": b" c a b b a\n"}
    path = tmp_path / "simple-examples.tgz"
    path.write_bytes(tar_archive(texts))
    return str(path)


def test_imikolov_reads_the_mode_file_with_the_train_and_valid_dictionary(tmp_path):
    path = _ptb(tmp_path)
    # counts over train + valid: a 4, <s> 3, <e> 3, b 2 (kept: more than 1), c 1, x 1
    # (Paddle 3.3.1 gives the same; it cannot sort a tie between a marker and a word)
    ngram = Imikolov(data_file=path, data_type="ngram", window_size=3, mode="test",
                     min_word_freq=1)
    assert ngram.word_idx == {b"a": 0, "<e>": 1, "<s>": 2, b"b": 3, "<unk>": 4}
    # ptb.test.txt: <s> c a b b a <e> -> 2 4 0 3 3 0 1
    assert len(ngram) == 5
    first = ngram[0]
    assert len(first) == 3 and all(a.shape == () and a.dtype == np.int64 for a in first)
    assert [int(a) for a in first] == [2, 4, 0]
    assert [int(a) for a in ngram[4]] == [3, 0, 1]
    seq = Imikolov(data_file=path, data_type="SEQ", window_size=3, mode="train",
                   min_word_freq=1)
    # train: "a b a" has a 4-id source (skipped, longer than 3); "b c" -> [2, 3, 4], [3, 4, 1]
    assert len(seq) == 1
    assert [a.tolist() for a in seq[0]] == [[2, 3, 4], [3, 4, 1]]
    with pytest.raises(ValueError, match="NGRAM reader needs n >= 1"):
        Imikolov(data_file=path)
    with pytest.raises(ValueError, match="data_type must be 'NGRAM' or 'SEQ'"):
        Imikolov(data_file=path, data_type="BOW")


def _movielens_zip():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n"
                                       "2::Heat (1995)::Action\n")
        z.writestr("ml-1m/users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n")
        # RandomState(0)'s first draws: .549 .715 .603 .545 .424 .646: with test_ratio 0.5
        # the fifth rating is the only test sample
        z.writestr("ml-1m/ratings.dat", "".join("%d::%d::%d::0\n" % r for r in [
            (1, 1, 5), (1, 2, 3), (2, 1, 4), (2, 2, 1), (2, 1, 2), (1, 2, 4)]))
    return buf.getvalue()


def test_movielens_samples_split_and_cache_path(dataset_home):
    with pytest.raises(FileNotFoundError, match="sentiment.movielens%2Fml-1m.zip"):
        Movielens()
    put_data_file(dataset_home, "sentiment", "movielens%2Fml-1m.zip", _movielens_zip())
    with pytest.warns(UserWarning, match="md5"):
        train = Movielens(test_ratio=0.5)
    with pytest.warns(UserWarning, match="md5"):
        test = Movielens(mode="test", test_ratio=0.5)
    assert (len(train), len(test)) == (5, 1)
    # categories and title words numbered in sorted order: Action 0, Animation 1, Comedy 2;
    # heat 0, story 1, toy 2
    want = [[2], [0], [6], [16], [1], [1, 2], [2, 1], [-1.0]]   # user 2, Toy Story, 2 stars
    got = test[0]
    assert len(got) == 8 and all(g.ndim == 1 for g in got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert [int(s[0][0]) for s in train] == [1, 1, 2, 2, 1]
    np.testing.assert_array_equal(train[1][5], [0])       # Heat: Action
    np.testing.assert_array_equal(train[0][7], [5.0])     # 5 stars -> 5 * 2 - 5
    assert train.user_info[1].is_male is False and train.movie_info[2].title == "Heat "


def _wmt14_tgz():
    return tar_archive({"wmt14/src.dict": b"<s>\n<e>\n<unk>\nhello\nworld\n",
                 "wmt14/trg.dict": b"<s>\n<e>\n<unk>\nbonjour\nmonde\n",
                 "wmt14/train/train": b"hello world\tbonjour monde\nno tab\n",
                 "wmt14/test/test": b"world hello\tmonde\n",
                 "wmt14/gen/gen": b"hello\tbonjour\n"})


def test_wmt14_modes_dictionary_size_and_reverse_dict(dataset_home):
    put_data_file(dataset_home, "wmt14", "wmt14.tgz", _wmt14_tgz())
    with pytest.warns(UserWarning, match="md5"):
        train = WMT14(dict_size=4)
    assert len(train) == 1       # the line without a tab is skipped
    src, trg, trg_next = train[0]
    assert src.dtype == np.int64
    assert (src.tolist(), trg.tolist(), trg_next.tolist()) == ([0, 3, 2, 1], [0, 3, 2], [3, 2, 1])
    with pytest.warns(UserWarning, match="md5"):
        test = WMT14(mode="TEST", dict_size=5)
        gen = WMT14(mode="gen", dict_size=5)
    assert [a.tolist() for a in test[0]] == [[0, 4, 3, 1], [0, 4], [4, 1]]
    assert [a.tolist() for a in gen[0]] == [[0, 3, 1], [0, 3], [3, 1]]
    src_dict, trg_dict = train.get_dict()
    assert src_dict == {"<s>": 0, "<e>": 1, "<unk>": 2, "hello": 3}
    assert train.get_dict(reverse=True)[1] == {0: "<s>", 1: "<e>", 2: "<unk>", 3: "bonjour"}
    with pytest.raises(ValueError, match="dict_size must be a positive int"):
        WMT14()
    with pytest.raises(ValueError, match="'train', 'test' or 'gen'"):
        WMT14(mode="val", dict_size=4)


def test_conll05st_one_sample_per_predicate(dataset_home, tmp_path):
    words = b"He\nsaid\nshe\nleft\n\n"
    props = b"-\t(A0*)\t*\nsaid\t(V*)\t*\n-\t(A1*\t(A0*)\nleft\t*)\t(V*)\n\n"
    archive = tmp_path / "tests.tar.gz"
    archive.write_bytes(tar_archive({
        "conll05st-release/test.wsj/words/test.wsj.words.gz": gzip.compress(words),
        "conll05st-release/test.wsj/props/test.wsj.props.gz": gzip.compress(props)}))
    with pytest.raises(FileNotFoundError, match="conll05st.conll05st%2FwordDict.txt"):
        Conll05st(data_file=str(archive))
    put_data_file(dataset_home, "conll05st", "conll05st%2FwordDict.txt",
                  b"<unk>\nHe\nsaid\nshe\nleft\nbos\neos\n")
    put_data_file(dataset_home, "conll05st", "conll05st%2FverbDict.txt", b"said\nleft\n")
    put_data_file(dataset_home, "conll05st", "conll05st%2FtargetDict.txt",
                  b"B-A0\nI-A0\nB-A1\nI-A1\nB-V\nO\n")
    emb = put_data_file(dataset_home, "conll05st", "conll05st%2Femb", b"")
    with pytest.warns(UserWarning, match="md5"):
        data = Conll05st(data_file=str(archive))
    assert len(data) == 2 and data.get_embedding() == str(emb)
    word_dict, verb_dict, label_dict = data.get_dict()
    # tags sorted: A0, A1, V; then O
    assert label_dict == {"B-A0": 0, "I-A0": 1, "B-A1": 2, "I-A1": 3, "B-V": 4, "I-V": 5,
                          "O": 6}
    said, left = ([a.tolist() for a in data[i]] for i in (0, 1))
    assert all(a.dtype == np.int64 for a in data[0])
    # words, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate, mark, labels
    assert said == [[1, 2, 3, 4], [5] * 4, [1] * 4, [2] * 4, [3] * 4, [4] * 4, [0] * 4,
                    [1, 1, 1, 1], [0, 4, 2, 3]]
    assert left == [[1, 2, 3, 4], [2] * 4, [3] * 4, [4] * 4, [6] * 4, [6] * 4, [1] * 4,
                    [0, 1, 1, 1], [6, 6, 0, 4]]
    with pytest.raises(ValueError, match="download=False"):
        Conll05st(data_file=str(archive), download=False)


@pytest.mark.filterwarnings("ignore:paddle.dataset.wmt16")
def test_wmt16_dictionaries_per_language_and_modes(dataset_home):
    with pytest.raises(FileNotFoundError, match="wmt16.wmt16.tar.gz"):
        WMT16(src_dict_size=5, trg_dict_size=4)
    put_data_file(dataset_home, "wmt16", "wmt16.tar.gz", tar_archive({
        "wmt16/train": b"a b a\tx y\na c\tx\nno tab\n",
        "wmt16/test": b"c a\ty z\n",
        "wmt16/val": b"b\tx\n"}))
    train = WMT16(src_dict_size=5, trg_dict_size=4)
    # en: a (3), then b and c (1 each) in first-seen order, cut at 5 entries; de: x (2)
    assert train.get_dict("en") == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "b": 4}
    assert train.get_dict("de", reverse=True) == {0: "<s>", 1: "<e>", 2: "<unk>", 3: "x"}
    assert (dataset_home / "wmt16" / "en_5.dict").read_bytes() == b"<s>\n<e>\n<unk>\na\nb\n"
    assert len(train) == 2
    assert [a.tolist() for a in train[0]] == [[0, 3, 4, 3, 1], [0, 3, 2], [3, 2, 1]]
    assert train[0][0].dtype == np.int64
    test = WMT16(mode="TEST", src_dict_size=5, trg_dict_size=4)
    assert [a.tolist() for a in test[0]] == [[0, 2, 3, 1], [0, 2, 2], [2, 2, 1]]
    german = WMT16(mode="val", src_dict_size=4, trg_dict_size=5, lang="de")
    assert [a.tolist() for a in german[0]] == [[0, 3, 1], [0, 4], [4, 1]]
    with pytest.raises(ValueError, match="src_dict_size must be a positive int"):
        WMT16()
    with pytest.raises(ValueError, match="'train', 'test' or 'val'"):
        WMT16(mode="validation", src_dict_size=5, trg_dict_size=4)
    with pytest.raises(ValueError, match="lang must be 'en' or 'de'"):
        train.get_dict("fr")
