"""The data file a text dataset reads: the one given, or Paddle's cached copy."""
from ...dataset import common


def locate_file(owner, path, url, module_name, md5, download):
    if path is not None:
        return path
    if not download:
        raise ValueError("%s: data_file is not set and download=False; pass the path of %s"
                         % (owner, url.split("/")[-1]))
    return common.download(url, module_name, md5)


def check_mode(owner, mode):
    if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
        raise ValueError("%s: mode must be 'train' or 'test', got %r" % (owner, mode))
    return mode.lower()
