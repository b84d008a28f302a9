"""paddle.utils.download: refimpl reaches no network, so these return a file already in
place (Paddle's cache layout) or say where to put it."""
import os
import os.path as osp

from ..framework.file_digest import file_hexdigest

__all__ = ["get_weights_path_from_url", "get_path_from_url", "WEIGHTS_HOME"]

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True):
    """The path of `url`'s file under `root_dir` (its basename), which must exist."""
    path = osp.join(root_dir, url.split("/")[-1])
    if not osp.exists(path):
        raise RuntimeError("get_path_from_url: refimpl does not download; put the file from "
                           "%s at %s" % (url, path))
    if md5sum is not None:
        digest = file_hexdigest(path, "md5")
        if digest != md5sum:
            raise RuntimeError("get_path_from_url: %s has md5 %s, expected %s"
                               % (path, digest, md5sum))
    return path


def get_weights_path_from_url(url, md5sum=None):
    """The cached weights file of `url` in ~/.cache/paddle/hapi/weights."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
