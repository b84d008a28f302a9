"""paddle.utils.download: refimpl reaches no network, so these return a file already in
place (Paddle's cache layout; archives extracted as Paddle extracts a download) or say
where to put it."""
import os.path as osp
import tarfile
import warnings
import zipfile

from ..framework.file_digest import file_hexdigest

__all__ = ["get_weights_path_from_url", "get_path_from_url", "WEIGHTS_HOME"]

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True):
    """The path of `url`'s file under `root_dir` (its basename), which must exist. A file
    whose md5 differs from `md5sum` is used with a warning (Paddle would download it again;
    refimpl reaches no network, and a smaller file in the same format is how programs run
    here). A tar or zip archive is extracted next to itself, as Paddle does, and the path
    of what it holds is returned: its one file, its one top folder, or else the folder
    named after the archive that its members are extracted into."""
    path = osp.join(root_dir, url.split("/")[-1])
    if not osp.exists(path):
        raise RuntimeError("get_path_from_url: refimpl does not download; put the file from "
                           "%s at %s" % (url, path))
    if md5sum is not None:
        digest = file_hexdigest(path, "md5")
        if digest != md5sum:
            warnings.warn("get_path_from_url: %s has md5 %s, not the %s of %s; using it "
                          "(refimpl does not download)" % (path, digest, md5sum, url))
    if decompress and osp.isfile(path) and (tarfile.is_tarfile(path) or
                                            zipfile.is_zipfile(path)):
        return _extract(path)
    return path


def _extract(archive):
    opened = tarfile.open(archive) if tarfile.is_tarfile(archive) else zipfile.ZipFile(archive)
    with opened:
        names = opened.getnames() if isinstance(opened, tarfile.TarFile) else \
            [name.rstrip("/") for name in opened.namelist()]
        for name in names:
            if osp.isabs(name) or ".." in name.split("/"):
                raise RuntimeError("get_path_from_url: %s holds %r, outside its folder; "
                                   "not extracted" % (archive, name))
        folder = osp.dirname(archive)
        tops = {name.split("/")[0] for name in names if name}
        if len(names) == 1 or (len(tops) == 1 and any("/" in name for name in names)):
            target, result = folder, osp.join(folder, tops.pop())
        else:
            stem = osp.splitext(osp.basename(archive))[0]
            target = result = osp.join(folder, stem)
        opened.extractall(target)
    return result


def get_weights_path_from_url(url, md5sum=None):
    """The cached weights file of `url` in ~/.cache/paddle/hapi/weights."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
