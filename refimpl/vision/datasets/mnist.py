"""MNIST and Fashion-MNIST from their idx files (gzip: big-endian magic 2051 / 2049, the
counts and dimensions, then uint8 pixels / labels)."""
import gzip
import struct

import numpy as np

from ...io import Dataset
from ..image import check_backend, get_image_backend, pil_image_module
from ._files import check_mode, default_float, locate, transformed_image

__all__ = ["MNIST", "FashionMNIST"]

IMAGES_MAGIC, LABELS_MAGIC = 2051, 2049


def read_idx(path, magic, owner):
    """The array of an idx file: [n, rows, cols] for images, [n] for labels."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = 3 if magic == IMAGES_MAGIC else 1
    header = ">%dI" % (1 + dims)
    if len(data) < struct.calcsize(header):
        raise ValueError("%s: %s is too short for an idx header" % (owner, path))
    found, *shape = struct.unpack_from(header, data)
    if found != magic:
        raise ValueError("%s: %s has magic number %d, expected %d (an idx %s file)"
                         % (owner, path, found, magic,
                            "images" if magic == IMAGES_MAGIC else "labels"))
    body = data[struct.calcsize(header):]
    if len(body) != int(np.prod(shape)):
        raise ValueError("%s: %s holds %d bytes of data, its header says %s"
                         % (owner, path, len(body), shape))
    return np.frombuffer(body, np.uint8).reshape(shape)


class MNIST(Dataset):
    """Samples (image, label): image a 28x28 PIL 'L' image (backend 'pil') or a float
    array [28, 28] (backend 'cv2'), after `transform`; label an int64 array [1]."""

    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        owner = type(self).__name__
        self.mode = check_mode(mode, ("train", "test"), owner)
        self.backend = check_backend(backend or get_image_backend(), owner)
        if self.backend == "pil":
            pil_image_module(owner)
        prefix = "train" if self.mode == "train" else "t10k"
        self.image_path = locate(owner, "image_path", image_path, self.NAME,
                                 self.URL_PREFIX + prefix + "-images-idx3-ubyte.gz", download)
        self.label_path = locate(owner, "label_path", label_path, self.NAME,
                                 self.URL_PREFIX + prefix + "-labels-idx1-ubyte.gz", download)
        self.transform = transform
        self.dtype = default_float()
        # Paddle's attributes, which subclasses read: images one float32 row of
        # rows * cols pixels per sample, labels one int64 [1] per sample
        images = read_idx(self.image_path, IMAGES_MAGIC, owner)
        self.image_shape = images.shape[1:]
        self.images = images.reshape(len(images), -1).astype(np.float32)
        self.labels = read_idx(self.label_path, LABELS_MAGIC, owner).astype(np.int64)[:, None]
        if len(self.images) != len(self.labels):
            raise ValueError("%s: %s has %d images but %s has %d labels"
                             % (owner, self.image_path, len(self.images), self.label_path,
                                len(self.labels)))

    def __getitem__(self, idx):
        image, label = self.images[idx].reshape(self.image_shape), self.labels[idx]
        if self.backend == "pil":   # uint8 [28, 28]: mode "L"
            image = pil_image_module(type(self).__name__).fromarray(image.astype(np.uint8))
        return transformed_image(image, self.transform, self.backend, self.dtype), label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: the same files and format as MNIST, in its own cache directory."""

    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
