"""PASCAL VOC 2012 segmentation from VOCtrainval_11-May-2012.tar: the image names of
ImageSets/Segmentation/<split>.txt, each a JPEGImages/<name>.jpg with its
SegmentationClass/<name>.png. As in Paddle, mode 'train' reads 'trainval', 'test' reads
'train' and 'valid' reads 'val'. Members are read from the tar (not extracted)."""
import io
import os
import tarfile

import numpy as np

from ...io import Dataset
from ..image import check_backend, get_image_backend, pil_image_module
from ._files import check_mode, default_float, locate, transformed_image

__all__ = ["VOC2012"]

URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
ROOT = "VOCdevkit/VOC2012/"
SPLITS = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """Samples (image, label): the jpg and its class-index png, as PIL images, or as float
    arrays ([H, W, 3] and [H, W]) with backend 'cv2'; `transform` applies to the image."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        owner = "VOC2012"
        self.mode = check_mode(mode, tuple(SPLITS), owner)
        self.backend = check_backend(backend or get_image_backend(), owner)
        self._image = pil_image_module(owner)
        self.data_file = locate(owner, "data_file", data_file, "voc2012", URL, download)
        self.transform = transform
        self.dtype = default_float()
        self._tar, self._tar_pid = None, None
        members = {m.name: m for m in self._archive().getmembers() if m.isfile()}
        set_file = ROOT + "ImageSets/Segmentation/%s.txt" % SPLITS[self.mode]
        if set_file not in members:
            raise ValueError("%s: %s has no %s" % (owner, self.data_file, set_file))
        names = self._archive().extractfile(members[set_file]).read().decode().split()
        self.data, self.labels = [], []
        for name in names:
            image, label = ROOT + "JPEGImages/%s.jpg" % name, \
                ROOT + "SegmentationClass/%s.png" % name
            for needed in (image, label):
                if needed not in members:
                    raise ValueError("%s: %s lists %r but the archive has no %s"
                                     % (owner, set_file, name, needed))
            self.data.append(members[image])
            self.labels.append(members[label])

    def _archive(self):
        """The open tar, one per process: a worker must not share the parent's file
        offset."""
        if self._tar is None or self._tar_pid != os.getpid():
            self._tar, self._tar_pid = tarfile.open(self.data_file), os.getpid()
        return self._tar

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_tar"] = state["_tar_pid"] = None
        return state

    def _read(self, member):
        return self._image.open(io.BytesIO(self._archive().extractfile(member).read()))

    def __getitem__(self, idx):
        image, label = self._read(self.data[idx]), self._read(self.labels[idx])
        if self.backend == "cv2":
            image, label = np.array(image), np.array(label)
        image = transformed_image(image, self.transform, self.backend, self.dtype)
        if self.backend == "cv2":
            label = label.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.data)
