"""CIFAR-10 / CIFAR-100 from the python-version archives: a tar.gz of pickled batches,
each a dict {b'data': uint8 array [n, 3072], b'labels' (or b'fine_labels'): [n], ...}.
The batches are read by refimpl's restricted unpickler (framework/paddle_formats/
safe_pickle.py), which runs nothing: it builds plain containers, bytes, numbers and numeric
numpy arrays, and refuses every other global."""
import tarfile

import numpy as np

from ...framework.paddle_formats import DecodeError, safe_pickle
from ...io import Dataset
from ..image import check_backend, get_image_backend, pil_image_module
from ._files import check_mode, default_float, locate, transformed_image

__all__ = ["Cifar10", "Cifar100"]


def load_batch(data, where):
    """One pickled batch (bytes): Python 2 strings as bytes, as the archives key them."""
    try:
        batch = safe_pickle.loads(data, encoding="bytes")
    except DecodeError as exc:
        raise ValueError("%s: %s" % (where, exc)) from None
    if not isinstance(batch, dict) or b"data" not in batch:
        raise ValueError("%s: not a CIFAR batch (a dict with b'data')" % where)
    return batch


class Cifar10(Dataset):
    """Samples (image, label): image a 32x32 RGB PIL image (backend 'pil') or a float array
    [32, 32, 3] (backend 'cv2'), after `transform`; label an int64 scalar array."""

    URL = "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"
    BATCH_NAMES = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        owner = type(self).__name__
        self.mode = check_mode(mode, ("train", "test"), owner)
        self.backend = check_backend(backend or get_image_backend(), owner)
        if self.backend == "pil":
            pil_image_module(owner)
        self.data_file = locate(owner, "data_file", data_file, "cifar", self.URL, download)
        self.transform = transform
        self.dtype = default_float()
        self.data, self.labels = self._load(owner)

    def _load(self, owner):
        flag = self.BATCH_NAMES[self.mode]
        images, labels = [], []
        with tarfile.open(self.data_file, mode="r") as tar:
            members = sorted((m for m in tar.getmembers() if m.isfile() and flag in m.name),
                             key=lambda m: m.name)
            if not members:
                raise ValueError("%s: %s holds no %r batches" % (owner, self.data_file, flag))
            for member in members:
                where = "%s: %s in %s" % (owner, member.name, self.data_file)
                batch = load_batch(tar.extractfile(member).read(), where)
                batch_labels = batch.get(b"labels", batch.get(b"fine_labels"))
                data = np.asarray(batch[b"data"], dtype=np.uint8).reshape(-1, 3072)
                if batch_labels is None or len(batch_labels) != len(data):
                    raise ValueError("%s: needs one label per image (b'labels' or "
                                     "b'fine_labels')" % where)
                images.append(data)
                labels.append(np.asarray(batch_labels, dtype=np.int64))
        return np.concatenate(images), np.concatenate(labels)

    def __getitem__(self, idx):
        image = self.data[idx].reshape(3, 32, 32).transpose(1, 2, 0)
        label = np.array(self.labels[idx], dtype=np.int64)
        if self.backend == "pil":
            image = pil_image_module(type(self).__name__).fromarray(image)
        return transformed_image(image, self.transform, self.backend, self.dtype), label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100: batches 'train' and 'test', fine labels (100 classes)."""

    URL = "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"
    BATCH_NAMES = {"train": "train", "test": "test"}
