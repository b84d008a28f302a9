"""paddle.dataset.image: decode, resize, crop, flip and transpose images held as numpy
arrays in OpenCV's layout (HWC, BGR; HW for a gray image). Decoding and resizing use
OpenCV (opencv-python), as Paddle's module does; the rest is numpy. specs/dataset.md."""
import io
import os
import pickle
import tarfile

import numpy as np

from ..framework import atomic_file
from ..utils import try_import

__all__ = ["load_image_bytes", "load_image", "resize_short", "to_chw", "center_crop",
           "random_crop", "left_right_flip", "simple_transform", "load_and_transform",
           "batch_images_from_tar"]


def _cv2(owner):
    try:
        return try_import("cv2")
    except ImportError:
        raise ImportError("paddle.dataset.image.%s needs OpenCV to decode and resize "
                          "images: pip install opencv-python" % owner) from None


def _flag(is_color):
    return 1 if is_color else 0     # cv2.IMREAD_COLOR / cv2.IMREAD_GRAYSCALE


def load_image_bytes(bytes, is_color=True):
    """The encoded image `bytes` (jpg, png, ...) decoded: uint8 [H, W, 3] BGR, or [H, W]
    gray when is_color is False; None where OpenCV cannot decode them."""
    return _cv2("load_image_bytes").imdecode(np.frombuffer(bytes, np.uint8), _flag(is_color))


def load_image(file, is_color=True):
    """The image file at path `file`, as load_image_bytes decodes it; None where the file
    is missing or not an image (cv2.imread's answer)."""
    return _cv2("load_image").imread(file, _flag(is_color))


def resize_short(im, size):
    """`im` resized (bicubic) so that its shorter side is `size`, the longer one scaled by
    the same factor, rounded down."""
    h, w = im.shape[:2]
    if h > w:
        h, w = size * h // w, size
    else:
        h, w = size, size * w // h
    cv2 = _cv2("resize_short")
    return cv2.resize(im, (w, h), interpolation=cv2.INTER_CUBIC)


def to_chw(im, order=(2, 0, 1)):
    """`im` with its axes in `order` (HWC -> CHW by default)."""
    if len(im.shape) != len(order):
        raise ValueError("paddle.dataset.image.to_chw: the image has %d axes, order %r has "
                         "%d" % (len(im.shape), tuple(order), len(order)))
    return im.transpose(order)


def _crop(im, top, left, size, is_color):
    window = (slice(top, top + size), slice(left, left + size))
    return im[window + (slice(None),)] if is_color else im[window]


def center_crop(im, size, is_color=True):
    """The size x size window in the middle of `im` (its offsets rounded down)."""
    h, w = im.shape[:2]
    return _crop(im, (h - size) // 2, (w - size) // 2, size, is_color)


def random_crop(im, size, is_color=True):
    """A size x size window of `im` at offsets drawn from numpy's global generator."""
    h, w = im.shape[:2]
    top = np.random.randint(0, h - size + 1)
    return _crop(im, top, np.random.randint(0, w - size + 1), size, is_color)


def left_right_flip(im, is_color=True):
    """`im` mirrored left to right (a view)."""
    return im[:, ::-1, :] if len(im.shape) == 3 and is_color else im[:, ::-1]


def simple_transform(im, resize_size, crop_size, is_train, is_color=True, mean=None):
    """resize_short to resize_size; in training a random crop of crop_size flipped with
    probability 1/2 (numpy's global generator), otherwise the centre crop; CHW float32, less
    `mean` (one value a channel, or one per element)."""
    im = resize_short(im, resize_size)
    if is_train:
        im = random_crop(im, crop_size, is_color)
        if np.random.randint(2) == 0:
            im = left_right_flip(im, is_color)
    else:
        im = center_crop(im, crop_size, is_color)
    if len(im.shape) == 3:
        im = to_chw(im)
    im = im.astype(np.float32)
    if mean is not None:
        mean = np.array(mean, dtype=np.float32)
        if mean.ndim == 1 and is_color:
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean.ndim > 1 and mean.shape != im.shape:
            raise ValueError("paddle.dataset.image.simple_transform: an element-wise mean "
                             "must have the image's shape %s, got %s"
                             % (im.shape, mean.shape))
        im -= mean
    return im


def load_and_transform(filename, resize_size, crop_size, is_train, is_color=True,
                       mean=None):
    """load_image(filename) through simple_transform."""
    im = load_image(filename, is_color)
    if im is None:
        raise ValueError("paddle.dataset.image.load_and_transform: cannot read an image "
                         "from %r" % filename)
    return simple_transform(im, resize_size, crop_size, is_train, is_color, mean)


def batch_images_from_tar(data_file, dataset_name, img2label, num_per_batch=1024):
    """Pickle the encoded images of tar `data_file` whose member names are keys of
    img2label into batch files of num_per_batch: <data_file>_batch/<dataset_name>/batch_<k>,
    each {'label': [...], 'data': [bytes, ...]} (pickle protocol 2). Returns the list file
    <data_file>_batch/<dataset_name>.txt, one batch file's absolute path a line; when the
    batch folder exists already, nothing is written and its list file is returned."""
    batch_dir = data_file + "_batch"
    out_path = os.path.join(batch_dir, dataset_name)
    meta_file = os.path.join(batch_dir, dataset_name + ".txt")
    if os.path.exists(out_path):
        return meta_file
    os.makedirs(out_path)
    batches, data, labels = [], [], []
    with tarfile.open(data_file) as tar:
        for member in tar.getmembers():
            if member.name in img2label:
                data.append(tar.extractfile(member).read())
                labels.append(img2label[member.name])
                if len(data) == num_per_batch:
                    batches.append((labels, data))
                    data, labels = [], []
    if data:
        batches.append((labels, data))
    for k, (labels, data) in enumerate(batches):
        payload = io.BytesIO()
        pickle.dump({"label": labels, "data": data}, payload, protocol=2)
        atomic_file.write_bytes(os.path.join(out_path, "batch_%d" % k), payload.getvalue())
    atomic_file.write_bytes(meta_file, "".join(
        os.path.abspath(os.path.join(out_path, name)) + "\n"
        for name in sorted(os.listdir(out_path))).encode())
    return meta_file
