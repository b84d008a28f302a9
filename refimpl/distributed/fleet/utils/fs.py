"""fleet.utils' file-system clients (Paddle 2.0's paddle.distributed.fleet.utils.fs):
LocalFS, the local file system, and HDFSClient, which drives a Hadoop client
(specs/distributed.md#fleet)."""
import os
import shutil

__all__ = ["FS", "LocalFS", "HDFSClient", "ExecuteError", "FSFileExistsError",
           "FSFileNotExistsError", "FSTimeOut", "FSShellCmdAborted"]


class ExecuteError(Exception):
    pass


class FSFileExistsError(Exception):
    pass


class FSFileNotExistsError(Exception):
    pass


class FSTimeOut(Exception):
    pass


class FSShellCmdAborted(ExecuteError):
    pass


class FS:
    """What a file-system client offers (each client implements every method)."""


class LocalFS(FS):
    """The local file system. A path that does not exist lists as empty and deletes as
    nothing; touch and mv refuse to overwrite unless told (Paddle 2.0's rules)."""

    def ls_dir(self, fs_path):
        """(subdirectory names, file names) directly under `fs_path`; ([], []) if it does
        not exist."""
        if not self.is_exist(fs_path):
            return [], []
        dirs, files = [], []
        for name in os.listdir(fs_path):
            (dirs if os.path.isdir(os.path.join(fs_path, name)) else files).append(name)
        return dirs, files

    def list_dirs(self, fs_path):
        """The subdirectory names directly under `fs_path` ([] if it does not exist)."""
        return self.ls_dir(fs_path)[0]

    def mkdirs(self, fs_path):
        """Create the directory and its missing parents (nothing if it exists)."""
        if os.path.isfile(fs_path):
            raise FSFileExistsError("LocalFS.mkdirs: %s is already a file" % fs_path)
        os.makedirs(fs_path, exist_ok=True)

    def rename(self, fs_src_path, fs_dst_path):
        os.rename(fs_src_path, fs_dst_path)

    def delete(self, fs_path):
        """Remove the file or the directory tree (nothing if it does not exist)."""
        if not self.is_exist(fs_path):
            return
        if os.path.isdir(fs_path) and not os.path.islink(fs_path):
            shutil.rmtree(fs_path)
        else:
            os.remove(fs_path)

    def need_upload_download(self):
        return False

    def is_file(self, fs_path):
        return os.path.isfile(fs_path)

    def is_dir(self, fs_path):
        return os.path.isdir(fs_path)

    def is_exist(self, fs_path):
        return os.path.exists(fs_path)

    def touch(self, fs_path, exist_ok=True):
        """Create an empty file; if the path exists, nothing when exist_ok, else
        FSFileExistsError."""
        if self.is_exist(fs_path):
            if exist_ok:
                return
            raise FSFileExistsError("LocalFS.touch: %s exists" % fs_path)
        open(fs_path, "a").close()

    def mv(self, src_path, dst_path, overwrite=False, test_exists=False):
        """Move a file or directory; an existing destination is FSFileExistsError unless
        overwrite (then it is deleted first); a missing source is FSFileNotExistsError."""
        if not self.is_exist(src_path):
            raise FSFileNotExistsError("LocalFS.mv: %s does not exist" % src_path)
        if overwrite:
            self.delete(dst_path)
        if self.is_exist(dst_path):
            raise FSFileExistsError("LocalFS.mv: %s exists (overwrite=False)" % dst_path)
        self.rename(src_path, dst_path)


class HDFSClient(FS):
    """A client of HDFS through the `hadoop fs` command of `hadoop_home`. refimpl does not
    drive Hadoop: without a Hadoop client the error says what is missing; with one,
    NotImplementedError."""

    def __init__(self, hadoop_home, configs, time_out=5 * 60 * 1000, sleep_inter=1000):
        hadoop = os.path.join(str(hadoop_home), "bin", "hadoop")
        if not os.access(hadoop, os.X_OK):
            raise FileNotFoundError(
                "HDFSClient: no Hadoop client at %s (hadoop_home=%r); HDFSClient runs "
                "`hadoop fs` commands, so it needs Hadoop (and JAVA_HOME) installed; for local "
                "paths use fleet.utils.LocalFS" % (hadoop, hadoop_home))
        raise NotImplementedError("HDFSClient: refimpl does not drive the Hadoop client at %s; "
                                  "use fleet.utils.LocalFS for local paths" % hadoop)
