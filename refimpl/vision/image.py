"""The image backend the vision datasets return: 'pil' (PIL.Image, the default, needs
Pillow) or 'cv2' (numpy arrays, HWC)."""

__all__ = ["set_image_backend", "get_image_backend"]

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
