"""paddle.dataset: small files written in each dataset's format under a temporary
DATA_HOME, read back as Paddle 1.8's readers give them (specs/dataset.md)."""
import gzip
import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

from refimpl import dataset

from helpers import put_data_file, tar_archive


def test_missing_file_says_where_to_put_it(dataset_home):
    with pytest.raises(FileNotFoundError) as e:
        dataset.uci_housing.train()().__next__()
    assert str(dataset_home / "uci_housing" / "housing.data") in str(e.value)
    assert dataset.uci_housing.URL in str(e.value)


def test_fetch_checks_each_file_of_the_module_is_cached(dataset_home):
    # Paddle's mnist.fetch() downloads its four files; refimpl's finds them or says which
    # is missing
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                 "t10k-images-idx3-ubyte.gz"):
        put_data_file(dataset_home, "mnist", name, b"x")
    with pytest.warns(UserWarning, match="md5"), pytest.raises(FileNotFoundError) as e:
        dataset.mnist.fetch()
    assert "t10k-labels-idx1-ubyte.gz" in str(e.value)
    put_data_file(dataset_home, "mnist", "t10k-labels-idx1-ubyte.gz", b"x")
    with pytest.warns(UserWarning, match="md5"):
        assert dataset.mnist.fetch() is None


def test_uci_housing_normalizes_features_and_splits(dataset_home):
    rows = np.arange(10 * 14, dtype=float).reshape(10, 14)
    put_data_file(dataset_home, "uci_housing", "housing.data",
                  " ".join(map(str, rows.ravel())).encode())
    with pytest.warns(UserWarning, match="md5"):
        train = list(dataset.uci_housing.train()())
    test = list(dataset.uci_housing.test()())
    assert len(train) == 8 and len(test) == 2
    features = rows[:, :-1]
    want = (features - features.mean(0)) / (features.max(0) - features.min(0))
    np.testing.assert_allclose(train[0][0], want[0])
    np.testing.assert_allclose(test[1][1], [rows[9, -1]])


def test_mnist_idx_files(dataset_home):
    images = np.arange(3 * 28 * 28, dtype=np.uint8).reshape(3, 28, 28)
    labels = np.array([7, 0, 9], np.uint8)
    put_data_file(dataset_home, "mnist", "train-images-idx3-ubyte.gz",
                  gzip.compress(struct.pack(">IIII", 2051, 3, 28, 28) + images.tobytes()))
    put_data_file(dataset_home, "mnist", "train-labels-idx1-ubyte.gz",
                  gzip.compress(struct.pack(">II", 2049, 3) + labels.tobytes()))
    samples = list(dataset.mnist.train()())
    assert [s[1] for s in samples] == [7, 0, 9]
    np.testing.assert_allclose(samples[1][0], images[1].ravel() / 255.0 * 2 - 1, atol=1e-6)
    assert samples[0][0].dtype == np.float32 and samples[0][0].shape == (784,)


def test_cifar_batches_without_running_pickles(dataset_home):
    data = np.arange(2 * 3072, dtype=np.uint8).reshape(2, 3072)
    batch = pickle.dumps({b"data": data, b"labels": [3, 1]}, protocol=2)
    put_data_file(dataset_home, "cifar", "cifar-10-python.tar.gz",
                  tar_archive({"cifar-10-batches-py/data_batch_1": batch,
                               "cifar-10-batches-py/test_batch": batch}))
    samples = list(dataset.cifar.train10()())
    assert [s[1] for s in samples] == [3, 1]
    np.testing.assert_allclose(samples[0][0], data[0] / 255.0, rtol=1e-6)

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    put_data_file(dataset_home, "cifar", "cifar-10-python.tar.gz", tar_archive({
        "cifar-10-batches-py/data_batch_1": pickle.dumps({b"data": Evil()})}))
    with pytest.raises(ValueError, match="refused"):
        list(dataset.cifar.train10()())


def test_imdb_words_dictionary_and_labels(dataset_home):
    docs = {"aclImdb/train/pos/0_9.txt": b"Good, good movie!\n",
            "aclImdb/train/neg/1_1.txt": b"Bad movie.",
            "aclImdb/test/pos/2_8.txt": b"good"}
    put_data_file(dataset_home, "imdb", "imdb%2FaclImdb_v1.tar.gz", tar_archive(docs))
    import re
    word_idx = dataset.imdb.build_dict(re.compile(r"aclImdb/train/.*\.txt$"), 0)
    assert word_idx == {b"good": 0, b"movie": 1, b"bad": 2, "<unk>": 3}
    assert list(dataset.imdb.train(word_idx)()) == [([0, 0, 1], 0), ([2, 1], 1)]
    assert list(dataset.imdb.test(word_idx)()) == [([0], 0)]


def test_imikolov_ngrams_and_sequences(dataset_home):
    text = b"a b a\nb a\n"
    put_data_file(dataset_home, "imikolov", "imikolov%2Fsimple-examples.tgz", tar_archive({
        "./simple-examples/data/ptb.train.txt": text,
        "./simple-examples/data/ptb.valid.txt": b"a\n"}))
    word_idx = dataset.imikolov.build_dict(min_word_freq=0)
    # counts: a 4, <s> 3, <e> 3, b 2
    assert word_idx == {b"a": 0, "<e>": 1, "<s>": 2, b"b": 3, "<unk>": 4}
    grams = list(dataset.imikolov.train(word_idx, 3)())
    assert grams[:3] == [(2, 0, 3), (0, 3, 0), (3, 0, 1)]
    seqs = list(dataset.imikolov.test(word_idx, 0, dataset.imikolov.DataType.SEQ)())
    assert seqs == [([2, 0], [0, 1])]


def test_movielens_samples(dataset_home):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n")
        z.writestr("ml-1m/users.dat", "1::F::18::10::48067\n")
        z.writestr("ml-1m/ratings.dat", "1::1::5::978300760\n1::1::3::978300761\n")
    put_data_file(dataset_home, "movielens", "movielens%2Fml-1m.zip", buf.getvalue())
    rng = np.random.RandomState(0)
    in_test = [rng.random_sample() < 0.1 for _ in range(2)]
    train = list(dataset.movielens.train()())
    assert len(train) == in_test.count(False)
    assert train[0][:4] == [1, 1, 1, 10]            # user 1, female, age bucket 1, job 10
    assert train[0][4:6] == [1, [0, 1]] and train[0][6] == [1, 0]   # story, toy (sorted)
    assert dataset.movielens.max_movie_id() == 1 and dataset.movielens.max_job_id() == 10


def test_conll05_predicates_and_context(dataset_home):
    words = b"The\ncat\nsat\n\n"
    props = b"-\t(A0*\n-\t*)\nsat\t(V*)\n\n"
    put_data_file(dataset_home, "conll05st", "conll05st-tests.tar.gz", tar_archive({
        "conll05st-release/test.wsj/words/test.wsj.words.gz": gzip.compress(words),
        "conll05st-release/test.wsj/props/test.wsj.props.gz": gzip.compress(props)}))
    put_data_file(dataset_home, "conll05st", "conll05st%2FwordDict.txt",
                  b"<unk>\nThe\ncat\nsat\nbos\neos\n")
    put_data_file(dataset_home, "conll05st", "conll05st%2FverbDict.txt", b"sat\n")
    put_data_file(dataset_home, "conll05st", "conll05st%2FtargetDict.txt",
                  b"B-A0\nI-A0\nB-V\nI-V\nO\n")
    (sample,) = list(dataset.conll05.test()())
    words_idx, n2, n1, c0, p1, p2, pred, mark, labels = sample
    assert words_idx == [1, 2, 3] and n2 == [1] * 3 and n1 == [2] * 3 and c0 == [3] * 3
    assert p1 == [5] * 3 and p2 == [5] * 3 and pred == [0] * 3 and mark == [1, 1, 1]
    label_dict = dataset.conll05.get_dict()[2]
    assert labels == [label_dict["B-A0"], label_dict["I-A0"], label_dict["B-V"]]


def test_wmt14_and_wmt16(dataset_home):
    put_data_file(dataset_home, "wmt14", "wmt14.tgz", tar_archive({
        "wmt14/src.dict": b"<s>\n<e>\n<unk>\nhello\n",
        "wmt14/trg.dict": b"<s>\n<e>\n<unk>\nbonjour\n",
        "wmt14/train/train": b"hello world\tbonjour\n"}))
    assert list(dataset.wmt14.train(4)()) == [([0, 3, 2, 1], [0, 3], [3, 1])]
    put_data_file(dataset_home, "wmt16", "wmt16.tar.gz", tar_archive({
        "wmt16/train": b"a b a\tx y\n", "wmt16/test": b"a c\tx\n", "wmt16/val": b"b\ty\n"}))
    assert list(dataset.wmt16.test(5, 5)()) == [([0, 3, 2, 1], [0, 3], [3, 1])]
    assert dataset.wmt16.get_dict("en", 5) == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "b": 4}
    assert os.path.isfile(dataset_home / "wmt16" / "de_5.dict")


def _png(rgb):
    """The lossless PNG bytes of the RGB uint8 image `rgb`."""
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "PNG")
    return buf.getvalue()


def test_image_decodes_to_bgr_and_gray():
    pytest.importorskip("cv2")
    rgb = np.zeros((4, 6, 3), np.uint8)
    rgb[..., 0], rgb[..., 2] = 200, 50                   # red 200, blue 50
    im = dataset.image.load_image_bytes(_png(rgb))
    assert im.shape == (4, 6, 3) and (im[0, 0] == [50, 0, 200]).all()     # BGR
    gray = dataset.image.load_image_bytes(_png(rgb), is_color=False)
    assert gray.shape == (4, 6) and abs(int(gray[0, 0]) - (0.299 * 200 + 0.114 * 50)) <= 1
    assert dataset.image.load_image("/nonexistent.png") is None


def test_image_resize_short_keeps_the_aspect_rounded_down():
    pytest.importorskip("cv2")
    assert dataset.image.resize_short(np.zeros((600, 800, 3), np.uint8), 256).shape == \
        (256, 341, 3)                                    # 256 * 800 // 600
    assert dataset.image.resize_short(np.zeros((50, 20), np.uint8), 8).shape == (20, 8)


def test_image_crops_flips_and_transposes():
    im = np.arange(5 * 6 * 3).reshape(5, 6, 3)
    assert (dataset.image.center_crop(im, 2) == im[1:3, 2:4]).all()     # (5-2)//2, (6-2)//2
    gray = im[..., 0]
    assert (dataset.image.center_crop(gray, 3, is_color=False) == gray[1:4, 1:4]).all()
    np.random.seed(5)
    top, left = np.random.randint(0, 4), np.random.randint(0, 5)
    np.random.seed(5)
    assert (dataset.image.random_crop(im, 2) == im[top:top + 2, left:left + 2]).all()
    assert (dataset.image.left_right_flip(im) == im[:, ::-1]).all()
    assert (dataset.image.left_right_flip(gray, is_color=False) == gray[:, ::-1]).all()
    assert dataset.image.to_chw(im).shape == (3, 5, 6)
    with pytest.raises(ValueError, match="to_chw: the image has 2 axes"):
        dataset.image.to_chw(gray)


def test_image_simple_transform_centre_crops_and_subtracts_the_mean():
    pytest.importorskip("cv2")
    im = np.full((8, 8, 3), 10, np.uint8)
    im[..., 1] = 20
    out = dataset.image.simple_transform(im, 8, 4, is_train=False, mean=[1, 2, 3])
    assert out.dtype == np.float32 and out.shape == (3, 4, 4)
    assert (out[0] == 9).all() and (out[1] == 18).all() and (out[2] == 7).all()
    with pytest.raises(ValueError, match="element-wise mean"):
        dataset.image.simple_transform(im, 8, 4, False, mean=np.zeros((3, 8, 8)))


def test_image_batch_images_from_tar(tmp_path):
    images = {"a/%d.jpg" % i: b"img%d" % i for i in range(5)}
    path = tmp_path / "images.tar"
    path.write_bytes(tar_archive(dict(images, **{"a/skip.txt": b"x"}), mode="w"))
    meta = dataset.image.batch_images_from_tar(
        str(path), "train", {name: i for i, name in enumerate(images)}, num_per_batch=2)
    assert meta == str(path) + "_batch/train.txt"
    batches = [pickle.load(open(line.strip(), "rb")) for line in open(meta)]
    assert [b["label"] for b in batches] == [[0, 1], [2, 3], [4]]
    assert batches[2]["data"] == [b"img4"]
    assert dataset.image.batch_images_from_tar(str(path), "train", {}) == meta   # kept
