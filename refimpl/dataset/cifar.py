"""CIFAR-10 / 100: the python tarballs, whose members (data_batch_*, test_batch; train,
test) are pickled dicts with b'data' (uint8 [N, 3072]) and b'labels' / b'fine_labels',
read by vision.datasets' restricted unpickler, which runs no pickled code. Samples:
(image float32 [3072] scaled to [0, 1], label int)."""
import tarfile

import numpy as np

from ..vision.datasets.cifar import load_batch
from . import common

__all__ = ["train10", "test10", "train100", "test100"]

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
CIFAR100_MD5 = "eb9058c3a382ffc7106e4002c42a8d85"


def reader_creator(path, sub_name, cycle=False):
    """Samples of every member whose name contains `sub_name`, in the archive's order;
    cycle=True starts over forever."""
    def reader():
        while True:
            with tarfile.open(path, mode="r") as tar:
                for member in tar:
                    if sub_name not in member.name or not member.isfile():
                        continue
                    batch = load_batch(tar.extractfile(member).read(),
                                       "%s in %s" % (member.name, path))
                    labels = batch.get(b"labels", batch.get(b"fine_labels"))
                    if labels is None:
                        raise ValueError("paddle.dataset.cifar: %s in %s has no labels"
                                         % (member.name, path))
                    for sample, label in zip(batch[b"data"], labels):
                        yield (sample / 255.0).astype(np.float32), int(label)
            if not cycle:
                break
    return reader


def train10(cycle=False):
    return reader_creator(common.download(CIFAR10_URL, "cifar", CIFAR10_MD5), "data_batch",
                          cycle)


def test10(cycle=False):
    return reader_creator(common.download(CIFAR10_URL, "cifar", CIFAR10_MD5), "test_batch",
                          cycle)


def train100():
    return reader_creator(common.download(CIFAR100_URL, "cifar", CIFAR100_MD5), "train")


def test100():
    return reader_creator(common.download(CIFAR100_URL, "cifar", CIFAR100_MD5), "test")


def fetch():
    common.fetch("cifar", (CIFAR10_URL, CIFAR10_MD5), (CIFAR100_URL, CIFAR100_MD5))
