"""Oxford 102 Flowers: 102flowers.tgz (jpg/image_NNNNN.jpg), imagelabels.mat (labels,
1-based image order) and setid.mat (trnid / valid / tstid image numbers). As in Paddle,
mode 'train' reads 'tstid' (the largest split) and 'test' reads 'trnid'."""
import os
import shutil
import tarfile
import tempfile

import numpy as np

from ...io import Dataset
from ..image import check_backend, get_image_backend, pil_image_module
from ._files import check_mode, default_float, locate, transformed_image

__all__ = ["Flowers"]

URL_PREFIX = "http://paddlemodels.bj.bcebos.com/flowers/"
SPLITS = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _load_mat(path, key, owner):
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError("%s needs scipy to read %s (pip install scipy)" % (owner, path)) \
            from None
    content = loadmat(path)
    if key not in content:
        raise ValueError("%s: %s has no %r entry (found %s)"
                         % (owner, path, key, sorted(k for k in content if not
                                                     k.startswith("__"))))
    return np.asarray(content[key]).reshape(-1).astype(np.int64)


def extracted_images(data_file, owner):
    """The directory the archive's jpg/ is extracted to (next to it, as Paddle does),
    extracted once, completely or not at all, with tarfile's 'data' filter (no links
    outside, no absolute paths)."""
    target = data_file[:-len(".tgz")] if data_file.endswith(".tgz") else data_file + ".d"
    if os.path.isdir(os.path.join(target, "jpg")):
        return target
    staging = tempfile.mkdtemp(prefix=".extracting-", dir=os.path.dirname(target) or ".")
    try:
        with tarfile.open(data_file) as tar:
            tar.extractall(staging, filter="data")
        if not os.path.isdir(os.path.join(staging, "jpg")):
            raise ValueError("%s: %s has no jpg/ directory" % (owner, data_file))
        os.makedirs(target, exist_ok=True)
        os.replace(os.path.join(staging, "jpg"), os.path.join(target, "jpg"))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


class Flowers(Dataset):
    """Samples (image, label): image the decoded jpg (PIL image, or a float array [H, W, 3]
    with backend 'cv2') after `transform`; label an int64 array [1] in 1..102."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train",
                 transform=None, download=True, backend=None):
        owner = "Flowers"
        self.mode = check_mode(mode, tuple(SPLITS), owner)
        self.backend = check_backend(backend or get_image_backend(), owner)
        self._image = pil_image_module(owner)   # jpgs are decoded with Pillow either way
        data_file = locate(owner, "data_file", data_file, "flowers",
                           URL_PREFIX + "102flowers.tgz", download)
        label_file = locate(owner, "label_file", label_file, "flowers",
                            URL_PREFIX + "imagelabels.mat", download)
        setid_file = locate(owner, "setid_file", setid_file, "flowers",
                            URL_PREFIX + "setid.mat", download)
        self.labels = _load_mat(label_file, "labels", owner)
        self.indexes = _load_mat(setid_file, SPLITS[self.mode], owner)
        if self.indexes.size and (self.indexes.min() < 1
                                  or self.indexes.max() > len(self.labels)):
            raise ValueError("%s: %s numbers images outside 1..%d (the labels of %s)"
                             % (owner, setid_file, len(self.labels), label_file))
        self.data_path = extracted_images(data_file, owner)
        self.transform = transform
        self.dtype = default_float()

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]], dtype=np.int64)
        path = os.path.join(self.data_path, "jpg", "image_%05d.jpg" % index)
        image = self._image.open(path)
        if self.backend == "cv2":
            image = np.array(image)
        return transformed_image(image, self.transform, self.backend, self.dtype), label

    def __len__(self):
        return len(self.indexes)
