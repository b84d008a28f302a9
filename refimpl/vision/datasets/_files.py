"""Where the vision datasets find their files: a path given by the user, or Paddle's
cache directory ~/.cache/paddle/dataset/<dataset>/<file>. refimpl downloads nothing.
Also what they share in making a sample: the transformed image in the backend's form."""
import os

import numpy as np

from ...framework.dtypes import convert_dtype

DATA_HOME = os.path.join("~", ".cache", "paddle", "dataset")


def locate(owner, what, path, cache_dir, url, download):
    """The file to read: `path` when given, else the cached copy of `url`'s file."""
    if path is None:
        if not download:
            raise ValueError("%s: %s is not set and download=False; pass the path of %s"
                             % (owner, what, os.path.basename(url)))
        path = os.path.expanduser(os.path.join(DATA_HOME, cache_dir, os.path.basename(url)))
        if not os.path.exists(path):
            raise FileNotFoundError(
                "%s: %s is absent, and refimpl downloads nothing. Put the file there "
                "(Paddle fetches it from %s) or pass %s=<path>" % (owner, path, url, what))
    elif not os.path.exists(path):
        raise FileNotFoundError("%s: %s %s does not exist" % (owner, what, path))
    return path


def check_mode(mode, modes, owner):
    if not isinstance(mode, str) or mode.lower() not in modes:
        raise ValueError("%s: mode must be one of %s, got %r" % (owner, list(modes), mode))
    return mode.lower()


def default_float():
    from ... import get_default_dtype
    return convert_dtype(get_default_dtype())


def transformed_image(image, transform, backend, dtype):
    """`image` after `transform` (when given): as the transform leaves it with backend
    'pil', else as an array of `dtype` (the default float dtype)."""
    if transform is not None:
        image = transform(image)
    if backend == "pil":
        return image
    return np.asarray(image).astype(dtype)
