"""tools/make_dataset_cache.py: its generated files read back with paddle.dataset's readers
in their real formats, and learnable as specs/dataset.md says (the book tests train on them
to their thresholds)."""
import os

import numpy as np
import pytest

from refimpl import dataset

from helpers import tool_module


@pytest.fixture(scope="module")
def tool():
    return tool_module("make_dataset_cache")


def _write(tool, home, make):
    for name, data in make(np.random.RandomState(0)).items():
        tool._write(os.path.join(str(home), name), data, False)


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_uci_housing_price_is_linear_in_the_features(tool, dataset_home):
    _write(tool, dataset_home, tool.uci_housing)
    rows = list(dataset.uci_housing.train()()) + list(dataset.uci_housing.test()())
    x = np.array([np.append(f, 1.0) for f, _ in rows])
    y = np.array([p[0] for _, p in rows])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    assert len(rows) == 506 and np.std(y - x @ coef) < 1.2 and abs(coef[-1] - 22.5) < 0.5


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_mnist_digits_are_their_class_templates_plus_noise(tool, dataset_home):
    _write(tool, dataset_home, tool.mnist)
    train = list(dataset.mnist.train()())
    test = list(dataset.mnist.test()())
    assert (len(train), len(test)) == (9600, 1600)         # multiples of 100, as 1.8.5 reads
    images = np.array([img for img, _ in train])
    labels = np.array([label for _, label in train])
    means = np.array([images[labels == k].mean(0) for k in range(10)])
    guess = [np.argmin(((means - img) ** 2).sum(1)) for img, _ in test]
    assert np.mean(np.array(guess) == [label for _, label in test]) > 0.95


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_imikolov_words_follow_from_the_ones_before(tool, dataset_home):
    _write(tool, dataset_home, tool.imikolov)
    word_idx = dataset.imikolov.build_dict()
    assert len(word_idx) == tool.IMIKOLOV_WORDS + 3          # '<s>', '<e>', '<unk>'
    nexts, grams = {}, 0
    for gram in dataset.imikolov.train(word_idx, 5)():
        if gram[4] != word_idx["<e>"]:      # in a sentence, the four before decide the next
            assert nexts.setdefault(gram[:4], gram[4]) == gram[4]
            grams += 1
    assert grams > len(nexts) > 0
    from refimpl.text.datasets import Imikolov          # 2.0's test split: ptb.test.txt
    assert len(Imikolov(mode="test", data_type="SEQ", window_size=-1)) == 100


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_wmt14_targets_are_the_sources_word_for_word(tool, dataset_home):
    _write(tool, dataset_home, tool.wmt14)
    src_dict, trg_dict = dataset.wmt14.get_dict(30000, reverse=True)
    assert src_dict[0] == "<s>" and trg_dict[2] == "<unk>" and len(src_dict) == 33
    samples = list(dataset.wmt14.train(30000)())
    assert len(samples) == 200
    for src, trg, trg_next in samples:
        assert [src_dict[i][1:] for i in src[1:-1]] == [trg_dict[i][1:] for i in trg[1:]]
        assert trg[1:] == trg_next[:-1]


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_movielens_covers_the_ids_the_book_test_infers_for(tool, dataset_home):
    _write(tool, dataset_home, tool.movielens)
    assert dataset.movielens.max_movie_id() == 3952
    assert len(dataset.movielens.movie_categories()) == 18
    assert len(dataset.movielens.get_movie_title_dict()) == 4400
    assert dataset.movielens.max_job_id() <= 20
    ratings = [s[-1][0] for s in dataset.movielens.train()()]
    assert {-3.0, 1.0, 5.0} <= set(ratings) <= {-3.0, -1.0, 1.0, 3.0, 5.0}   # rating * 2 - 5


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_conll05_roles_follow_the_verb(tool, dataset_home):
    _write(tool, dataset_home, tool.conll05)
    words, verbs, labels = dataset.conll05.get_dict()
    assert len(labels) == 7 and len(verbs) == tool.CONLL05_VERBS
    names = {i: name for name, i in labels.items()}
    emb = np.fromfile(dataset.conll05.get_embedding(), dtype=np.float32, offset=16)
    assert emb.shape == (len(words) * 32,)
    samples = list(dataset.conll05.test()())
    assert len(samples) == tool.CONLL05_SENTENCES
    for sample in samples:
        tags = [names[i] for i in sample[-1]]
        v = tags.index("B-V")
        assert tags[0] == "B-A0" and set(tags[1:v]) <= {"I-A0"}
        assert tags[v + 1] == "B-A1" and set(tags[v + 2:]) <= {"I-A1"}


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_movielens_is_where_2_0s_text_datasets_look_too(tool, dataset_home):
    from refimpl.text.datasets import Movielens
    _write(tool, dataset_home, tool.movielens)
    assert (dataset_home / "sentiment" / "movielens%2Fml-1m.zip").read_bytes() == \
        (dataset_home / "movielens" / "movielens%2Fml-1m.zip").read_bytes()
    train, test = Movielens(mode="train"), Movielens(mode="test")
    assert len(train) + len(test) == tool.MOVIELENS_RATINGS and len(train[0]) == 8


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_wmt16_german_is_the_english_word_for_word(tool, dataset_home):
    from refimpl.text.datasets import WMT16
    _write(tool, dataset_home, tool.wmt16)
    size = tool.WMT16_WORDS + 3      # all: get_dict reads a dictionary of that many words
    samples = list(dataset.wmt16.train(size, size, src_lang="en")())
    assert len(samples) == tool.WMT16_PAIRS["train"]
    en = dataset.wmt16.get_dict("en", size, reverse=True)
    de = dataset.wmt16.get_dict("de", size, reverse=True)
    assert len(en) == len(de) == size and en[0] == "<s>" and de[2] == "<unk>"
    for src, trg, trg_next in samples:
        assert [en[i][1:] for i in src[1:-1]] == [de[i][1:] for i in trg[1:]]
        assert trg[1:] == trg_next[:-1]
    sizes = {mode: len(WMT16(mode=mode, src_dict_size=50, trg_dict_size=50))
             for mode in ("train", "test", "val")}
    assert sizes == tool.WMT16_PAIRS


def test_voc2012_labels_mark_the_coloured_block(tool, dataset_home):
    from refimpl.vision.datasets import VOC2012
    _write(tool, dataset_home, tool.voc2012)
    path = str(dataset_home / "voc2012" / "VOCtrainval_11-May-2012.tar")
    sizes = {mode: len(VOC2012(path, mode=mode)) for mode in ("train", "test", "valid")}
    assert sizes == {"train": 3, "test": 2, "valid": 1}       # Paddle's voc2012_stub
    for image, label in VOC2012(path, mode="train", backend="cv2"):
        assert image.shape == tool.VOC_SIZE + (3,) and label.shape == tool.VOC_SIZE
        classes = set(np.unique(label)) - {0, 255}
        assert len(classes) == 1                      # one object, outlined by 255
        inside, outside = image[label == classes.pop()], image[label == 0]
        assert np.abs(inside.mean(0) - outside.mean(0)).max() > 10


@pytest.mark.filterwarnings("ignore:paddle.dataset")
def test_cifar100_reads_its_fine_labels(tool, dataset_home):
    _write(tool, dataset_home, tool.cifar100)
    train, test = list(dataset.cifar.train100()()), list(dataset.cifar.test100()())
    assert len(train) == len(test) == tool.CIFAR_BATCH
    labels = {label for _, label in train}
    assert max(labels) <= 99 and len(labels) > 20      # fine labels, not the 20 coarse
    assert train[0][0].shape == (3072,) and 0 <= train[0][0].min() <= train[0][0].max() <= 1
