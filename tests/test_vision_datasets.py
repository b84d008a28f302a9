"""paddle.vision.datasets read small files written here in the real formats (idx gzip,
CIFAR pickled batches in tar.gz, Flowers tgz + .mat, VOC tar); absent files give an error
naming the file and where it goes; CIFAR pickles never run code."""
import gzip
import io as _io
import os
import pickle
import struct
import tarfile

import numpy as np
import pytest

from refimpl import io, versions
from refimpl.vision import datasets, transforms
from refimpl.vision.datasets import _files

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _write_idx(path, array, magic):
    path.parent.mkdir(parents=True, exist_ok=True)
    header = struct.pack(">%dI" % (1 + array.ndim), magic, *array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def _mnist_files(directory, n=5, prefix="train"):
    images = (np.arange(n * 28 * 28) % 251).reshape(n, 28, 28).astype(np.uint8)
    labels = np.arange(n) % 10
    _write_idx(directory / ("%s-images-idx3-ubyte.gz" % prefix), images, 2051)
    _write_idx(directory / ("%s-labels-idx1-ubyte.gz" % prefix), labels, 2049)
    return images, labels


def test_mnist_from_the_cache_directory_both_backends(cache):
    images, labels = _mnist_files(cache / "mnist")
    pil = datasets.MNIST()
    image, label = pil[3]
    assert isinstance(image, Image.Image) and image.mode == "L" and image.size == (28, 28)
    np.testing.assert_array_equal(np.asarray(image), images[3])
    assert label.dtype == np.int64 and label.tolist() == [3] and len(pil) == 5
    arrays = datasets.MNIST(backend="cv2")
    image, label = arrays[4]
    assert image.dtype == np.float32 and image.shape == (28, 28)
    np.testing.assert_array_equal(image, images[4])
    tensor, _ = datasets.MNIST(transform=transforms.ToTensor())[1]
    assert tensor.shape == (1, 28, 28)
    np.testing.assert_allclose(tensor[0], images[1] / 255.0, rtol=1e-6)


def test_mnist_attributes_are_paddles_float_rows_and_int64_label_columns(cache):
    # Paddle 2.0's MNIST keeps images as float32 rows of 784 pixels and labels as int64
    # [1] arrays; subclasses (2.0's tests/test_model.py) slice and read them directly
    images, labels = _mnist_files(cache / "mnist", n=4)
    ds = datasets.MNIST()
    assert ds.images.dtype == np.float32 and ds.images.shape == (4, 784)
    np.testing.assert_array_equal(ds.images[2], images[2].ravel())
    assert ds.labels.dtype == np.int64 and ds.labels.shape == (4, 1)
    assert ds.labels[:, 0].tolist() == labels.tolist()


def test_mnist_paths_and_errors(cache, tmp_path):
    images, _ = _mnist_files(tmp_path / "own", n=3, prefix="t10k")
    test = datasets.MNIST(image_path=str(tmp_path / "own" / "t10k-images-idx3-ubyte.gz"),
                          label_path=str(tmp_path / "own" / "t10k-labels-idx1-ubyte.gz"),
                          mode="test", backend="cv2")
    assert len(test) == 3
    expected = os.path.join(str(cache), "mnist", "train-images-idx3-ubyte.gz")
    with pytest.raises(FileNotFoundError) as info:
        datasets.MNIST()
    assert expected in str(info.value) and "downloads nothing" in str(info.value) \
        and "image_path=" in str(info.value)
    with pytest.raises(FileNotFoundError, match="fashion-mnist"):
        datasets.FashionMNIST()
    with pytest.raises(ValueError, match="download=False"):
        datasets.MNIST(download=False)
    with pytest.raises(ValueError, match="mode must be one of"):
        datasets.MNIST(mode="valid")
    with pytest.raises(ValueError, match="backend must be one of"):
        datasets.MNIST(backend="tf")
    bad = tmp_path / "bad"
    _write_idx(bad / "i.gz", np.zeros((2, 28, 28)), 2049)
    _write_idx(bad / "l.gz", np.zeros(2), 2049)
    with pytest.raises(ValueError, match="magic number 2049, expected 2051"):
        datasets.MNIST(str(bad / "i.gz"), str(bad / "l.gz"))


def _batches(loader):
    """A static-mode loader's batches: under 1.8 each step is [batch], one per place
    (switch static_dataloader_one_place)."""
    steps = list(loader)
    if versions.switch("static_dataloader_one_place") == "per_place":
        return [batch for (batch,) in steps]
    return steps


def test_fashion_mnist_and_a_dataloader_with_workers(cache):
    images, labels = _mnist_files(cache / "fashion-mnist", n=8)
    ds = datasets.FashionMNIST(backend="cv2", transform=lambda image: (image - 127.5) / 127.5)
    loader = io.DataLoader(ds, batch_size=4, num_workers=2, return_list=True)
    batches = _batches(loader)
    x = np.concatenate([b[0] for b in batches])
    y = np.concatenate([b[1] for b in batches])
    assert x.shape == (8, 28, 28) and y.shape == (8, 1)
    np.testing.assert_allclose(x, (images - 127.5) / 127.5, rtol=1e-6)
    assert y.ravel().tolist() == labels.tolist()


def _cifar_archive(path, root, batches, protocol=2):
    with tarfile.open(path, "w:gz") as tar:
        for name, batch in batches.items():
            data = pickle.dumps(batch, protocol=protocol)
            info = tarfile.TarInfo("%s/%s" % (root, name))
            info.size = len(data)
            tar.addfile(info, _io.BytesIO(data))


def _cifar_batch(n, first, key=b"labels"):
    data = (np.arange(n * 3072) + first).reshape(n, 3072) % 256
    return {b"batch_label": b"batch", b"data": data.astype(np.uint8),
            key: list(range(first, first + n)), b"filenames": [b"f"] * n}


@pytest.mark.parametrize("protocol", [2, 4])
def test_cifar10_reads_pickled_batches(cache, protocol):
    (cache / "cifar").mkdir(parents=True)
    batches = {"data_batch_1": _cifar_batch(2, 0), "data_batch_2": _cifar_batch(3, 2),
               "test_batch": _cifar_batch(1, 7), "batches.meta": {b"label_names": []}}
    _cifar_archive(cache / "cifar" / "cifar-10-python.tar.gz", "cifar-10-batches-py",
                   batches, protocol)
    train = datasets.Cifar10()
    assert len(train) == 5
    image, label = train[3]
    expected = batches["data_batch_2"][b"data"][1].reshape(3, 32, 32).transpose(1, 2, 0)
    assert isinstance(image, Image.Image) and image.size == (32, 32)
    np.testing.assert_array_equal(np.asarray(image), expected)
    assert label.dtype == np.int64 and label.shape == () and int(label) == 3
    test = datasets.Cifar10(mode="test", backend="cv2")
    image, label = test[0]
    assert len(test) == 1 and image.dtype == np.float32 and image.shape == (32, 32, 3)
    assert int(label) == 7


def test_cifar100_uses_fine_labels(tmp_path):
    path = tmp_path / "c100.tar.gz"
    _cifar_archive(path, "cifar-100-python", {"train": _cifar_batch(2, 40, b"fine_labels"),
                                              "test": _cifar_batch(1, 0, b"fine_labels")})
    train = datasets.Cifar100(str(path), backend="cv2")
    assert len(train) == 2 and int(train[1][1]) == 41


class _Exploit:
    def __reduce__(self):
        return (os.system, ("touch %s" % _Exploit.marker,))


def test_cifar_pickles_never_run_code(tmp_path):
    _Exploit.marker = str(tmp_path / "pwned")
    path = tmp_path / "evil.tar.gz"
    _cifar_archive(path, "cifar-10-batches-py",
                   {"data_batch_1": {b"data": _Exploit(), b"labels": [0]}})
    with pytest.raises(ValueError, match=r"data_batch_1 .*the pickle calls "
                                         r"(posix|os)\.system; refused"):
        datasets.Cifar10(str(path), backend="cv2")
    assert not os.path.exists(_Exploit.marker)
    objects = tmp_path / "objects.tar.gz"
    _cifar_archive(objects, "cifar-10-batches-py",
                   {"data_batch_1": {b"data": np.array([None], dtype=object), b"labels": []}})
    with pytest.raises(ValueError, match="dtype 'O8' is refused"):
        datasets.Cifar10(str(objects), backend="cv2")


def _jpeg(color, size=(6, 4)):
    buffer = _io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "JPEG", quality=95)
    return buffer.getvalue()


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, _io.BytesIO(data))


def test_flowers(cache):
    scipy_io = pytest.importorskip("scipy.io")
    directory = cache / "flowers"
    directory.mkdir(parents=True)
    colors = [(250, 0, 0), (0, 250, 0), (0, 0, 250), (250, 250, 250)]
    with tarfile.open(directory / "102flowers.tgz", "w:gz") as tar:
        for i, color in enumerate(colors, 1):
            _add(tar, "jpg/image_%05d.jpg" % i, _jpeg(color))
    scipy_io.savemat(str(directory / "imagelabels.mat"), {"labels": np.array([[5, 7, 9, 11]])})
    scipy_io.savemat(str(directory / "setid.mat"), {"trnid": np.array([[1, 2]]),
                                                    "valid": np.array([[3]]),
                                                    "tstid": np.array([[4, 1, 2]])})
    train = datasets.Flowers()                     # Paddle: 'train' reads tstid
    assert len(train) == 3
    image, label = train[0]
    assert isinstance(image, Image.Image) and image.size == (6, 4)
    assert label.tolist() == [11] and label.dtype == np.int64
    assert np.abs(np.asarray(image).astype(int) - 250).max() < 8
    assert os.path.isdir(directory / "102flowers" / "jpg")     # extracted once, beside it
    test = datasets.Flowers(mode="test", backend="cv2")
    image, label = test[1]
    assert len(test) == 2 and image.shape == (4, 6, 3) and image.dtype == np.float32
    assert label.tolist() == [7] and image[..., 1].mean() > 200
    assert len(datasets.Flowers(mode="valid")) == 1


def test_voc2012_with_workers(cache):
    directory = cache / "voc2012"
    directory.mkdir(parents=True)
    root = "VOCdevkit/VOC2012/"
    with tarfile.open(directory / "VOCtrainval_11-May-2012.tar", "w") as tar:
        for split, names in {"trainval": "a b c", "train": "a b", "val": "c"}.items():
            _add(tar, root + "ImageSets/Segmentation/%s.txt" % split, names.replace(" ", "\n")
                 .encode())
        for k, name in enumerate("abc"):
            _add(tar, root + "JPEGImages/%s.jpg" % name, _jpeg((40 * k, 0, 0), (5, 3)))
            mask = _io.BytesIO()
            Image.fromarray(np.full((3, 5), k + 1, np.uint8)).save(mask, "PNG")
            _add(tar, root + "SegmentationClass/%s.png" % name, mask.getvalue())
    train = datasets.VOC2012(backend="cv2")
    assert len(train) == 3 and len(datasets.VOC2012(mode="test")) == 2
    loader = io.DataLoader(train, batch_size=1, num_workers=2, return_list=True)
    masks = [np.asarray(label) for _, label in _batches(loader)]   # static mode: LoDTensors
    assert [m.shape for m in masks] == [(1, 3, 5)] * 3
    assert [float(m.mean()) for m in masks] == [1.0, 2.0, 3.0]
    image, label = datasets.VOC2012(mode="valid")[0]
    assert isinstance(image, Image.Image) and np.asarray(label).tolist() == [[3] * 5] * 3
