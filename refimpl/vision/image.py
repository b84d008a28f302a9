"""The image backend the vision datasets return: 'pil' (PIL.Image, the default, needs
Pillow) or 'cv2' (numpy arrays, HWC, BGR as OpenCV reads them)."""

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

_BACKENDS = ("pil", "cv2")
_backend = "pil"


def check_backend(backend, owner):
    if backend not in _BACKENDS:
        raise ValueError("%s: backend must be one of %s, got %r" % (owner, list(_BACKENDS),
                                                                  backend))
    return backend


def set_image_backend(backend):
    global _backend
    _backend = check_backend(backend, "set_image_backend")


def get_image_backend():
    return _backend


def pil_image_module(owner):
    """PIL.Image, or an ImportError saying what needs it."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("%s needs Pillow to build or decode images (pip install pillow), "
                          "or pass backend='cv2' where the data are raw arrays" % owner) \
            from None
    return Image


def image_load(path, backend=None):
    """The image file at `path` as the backend (default: the one set) reads it: a PIL
    image, opened lazily, or cv2.imread's array (None where cv2 cannot read the file)."""
    backend = check_backend(get_image_backend() if backend is None else backend, "image_load")
    if backend == "pil":
        return pil_image_module("image_load").open(path)
    from ..utils import try_import
    return try_import("cv2").imread(path)
