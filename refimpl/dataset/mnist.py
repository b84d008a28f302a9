"""MNIST: the idx files (gzip), images [N, 28, 28] uint8 and labels [N] uint8, big-endian
headers (magic, count, rows, cols / magic, count). Samples: (image float32 [784] scaled to
[-1, 1], label int)."""
import gzip
import struct

import numpy as np

from . import common

__all__ = ["train", "test"]

URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"


def _idx(path, header):
    with gzip.open(path, "rb") as f:
        data = f.read()
    fields = struct.unpack_from(header, data)
    return fields, np.frombuffer(data, np.uint8, offset=struct.calcsize(header))


def reader_creator(image_path, label_path):
    def reader():
        (_, count, rows, cols), pixels = _idx(image_path, ">IIII")
        (_, label_count), labels = _idx(label_path, ">II")
        if label_count != count or pixels.size != count * rows * cols:
            raise ValueError("paddle.dataset.mnist: %s and %s do not hold %d images and "
                             "labels" % (image_path, label_path, count))
        images = pixels.reshape(count, rows * cols).astype(np.float32) / 255.0 * 2.0 - 1.0
        for image, label in zip(images, labels):
            yield image, int(label)
    return reader


def train():
    return reader_creator(common.download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5),
                          common.download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5))


def test():
    return reader_creator(common.download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5),
                          common.download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5))
