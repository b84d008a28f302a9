"""MNIST: the idx files (gzip), images [N, 28, 28] uint8 and labels [N] uint8, big-endian
headers (magic, count, rows, cols / magic, count). Samples: (image float32 [784] scaled to
[-1, 1], label int)."""
import numpy as np

from ..vision.datasets.mnist import IMAGES_MAGIC, LABELS_MAGIC, read_idx
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


def reader_creator(image_path, label_path):
    def reader():
        images = read_idx(image_path, IMAGES_MAGIC, "paddle.dataset.mnist")
        labels = read_idx(label_path, LABELS_MAGIC, "paddle.dataset.mnist")
        if len(images) != len(labels):
            raise ValueError("paddle.dataset.mnist: %s holds %d images, %s %d labels"
                             % (image_path, len(images), label_path, len(labels)))
        pixels = images.reshape(len(images), -1).astype(np.float32) / 255.0 * 2.0 - 1.0
        for image, label in zip(pixels, labels):
            yield image, int(label)
    return reader


def train():
    return reader_creator(common.download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5),
                          common.download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5))


def test():
    return reader_creator(common.download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5),
                          common.download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5))


def fetch():
    common.fetch("mnist", (TRAIN_IMAGE_URL, TRAIN_IMAGE_MD5), (TRAIN_LABEL_URL, TRAIN_LABEL_MD5),
                 (TEST_IMAGE_URL, TEST_IMAGE_MD5), (TEST_LABEL_URL, TEST_LABEL_MD5))
