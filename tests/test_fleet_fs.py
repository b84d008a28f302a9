"""paddle.distributed.fleet.utils' file-system clients: LocalFS on a temporary folder,
HDFSClient's error without Hadoop (Paddle 2.0's rules, specs/distributed.md#fleet)."""
import os

import pytest

from refimpl.distributed.fleet.utils import HDFSClient, LocalFS
from refimpl.distributed.fleet.utils.fs import FSFileExistsError, FSFileNotExistsError


def test_local_fs_lists_makes_moves_and_deletes(tmp_path):
    fs, root = LocalFS(), str(tmp_path)
    assert fs.ls_dir(os.path.join(root, "missing")) == ([], [])
    assert fs.list_dirs(os.path.join(root, "missing")) == []
    fs.mkdirs(os.path.join(root, "a", "b"))
    fs.mkdirs(os.path.join(root, "a", "b"))                       # exists: nothing
    fs.touch(os.path.join(root, "f"))
    with open(os.path.join(root, "f"), "w") as f:
        f.write("kept")
    fs.touch(os.path.join(root, "f"))                            # exist_ok: unchanged
    assert open(os.path.join(root, "f")).read() == "kept"
    with pytest.raises(FSFileExistsError):
        fs.touch(os.path.join(root, "f"), exist_ok=False)
    with pytest.raises(FSFileExistsError, match="already a file"):
        fs.mkdirs(os.path.join(root, "f"))
    dirs, files = fs.ls_dir(root)
    assert (sorted(dirs), sorted(files)) == (["a"], ["f"])
    assert fs.list_dirs(root) == ["a"]
    assert (fs.is_file(os.path.join(root, "f")), fs.is_dir(os.path.join(root, "a"))) == \
        (True, True)
    fs.touch(os.path.join(root, "g"))
    with pytest.raises(FSFileExistsError, match="overwrite=False"):
        fs.mv(os.path.join(root, "g"), os.path.join(root, "f"))
    fs.mv(os.path.join(root, "g"), os.path.join(root, "f"), overwrite=True)
    assert open(os.path.join(root, "f")).read() == "" and not fs.is_exist(os.path.join(root, "g"))
    with pytest.raises(FSFileNotExistsError):
        fs.mv(os.path.join(root, "g"), os.path.join(root, "h"))
    fs.rename(os.path.join(root, "a"), os.path.join(root, "c"))
    assert fs.list_dirs(os.path.join(root, "c")) == ["b"]
    fs.delete(os.path.join(root, "c"))                           # a tree
    fs.delete(os.path.join(root, "f"))                           # a file
    fs.delete(os.path.join(root, "missing"))                     # nothing
    assert fs.ls_dir(root) == ([], []) and fs.need_upload_download() is False


def test_hdfs_client_without_hadoop_says_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no Hadoop client at .*bin/hadoop"):
        HDFSClient(str(tmp_path), {"fs.default.name": "hdfs://x:54310",
                                   "hadoop.job.ugi": "u,p"})
