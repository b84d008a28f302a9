"""paddle.text.datasets: the Dataset classes over paddle.dataset's files, read from a
temporary DATA_HOME (specs/text_datasets.md)."""
import numpy as np
import pytest

import refimpl
from refimpl.text.datasets import Imdb, Imikolov, UCIHousing

from helpers import put_data_file, tar_archive


def test_namespace_lists_the_classes():
    assert refimpl.text.Imdb is Imdb and refimpl.text.datasets.UCIHousing is UCIHousing
    assert refimpl.text.datasets.__all__ == ["Imdb", "Imikolov", "UCIHousing"]


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
