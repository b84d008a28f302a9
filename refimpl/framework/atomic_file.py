"""Writing a file all or nothing (specs/io.md, "Guarantees").

Every file refimpl writes goes through here: the content goes to a temporary file in the
target's directory, which is flushed and fsynced, then `os.replace`d over the target, and
the directory is fsynced. A reader sees the old file or the new one, never a part; a
failure (an exception, a full disk) removes the temporary file and leaves the target as it
was. A process killed mid-write leaves its temporary file behind: temporary files are named

    .<target name>.<host>.<pid>.<random>.refimpl-tmp

and the next successful write of the same target (or `remove_stale_temps`) deletes those
of processes on this host that no longer run.
"""
import contextlib
import hashlib
import os
import re
import secrets
import socket
import stat

__all__ = ["StagedFile", "write", "write_bytes", "fsync_directory", "remove_stale_temps",
           "is_temp_name", "TEMP_SUFFIX"]

TEMP_SUFFIX = ".refimpl-tmp"
_PID_AND_RANDOM = re.compile(r"(\d+)\.[0-9a-f]{8}\Z")
_LONG_NAME = 120   # longer target names are shortened in temp names (NAME_MAX is 255)


def _host():
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def _temp_stem(target_name):
    """'.<name>.' (or a shortened, hashed form of a long name) that starts its temp files."""
    if len(target_name) > _LONG_NAME:
        digest = hashlib.sha256(target_name.encode("utf-8", "surrogatepass")).hexdigest()
        target_name = "%s~%s" % (target_name[:80], digest[:16])
    return "." + target_name + "."


def is_temp_name(file_name):
    """Whether `file_name` (a name in a directory, not a path) is one of our temp files."""
    return file_name.startswith(".") and file_name.endswith(TEMP_SUFFIX)


def fsync_directory(directory):
    """Make the names created / replaced in `directory` durable (no-op where directories
    cannot be opened, e.g. Windows)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class StagedFile:
    """A new temporary file next to `path` (`.file`, binary, open for writing) that becomes
    `path` on `commit()`. `finish()` makes its content durable; `discard()` removes it.
    Multi-file saves stage every file first and commit them together (framework/checkpoint)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.directory = os.path.dirname(self.path)
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        stem = _temp_stem(os.path.basename(self.path))
        while True:
            name = "%s%s.%d.%s%s" % (stem, _host(), os.getpid(), secrets.token_hex(4),
                                     TEMP_SUFFIX)
            self.temp_path = os.path.join(self.directory, name)
            try:
                fd = os.open(self.temp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                continue
        self.file = os.fdopen(fd, "wb")
        with contextlib.suppress(FileNotFoundError):     # a replaced file keeps its mode
            os.chmod(self.temp_path, stat.S_IMODE(os.stat(self.path).st_mode))

    def finish(self):
        """Flush and fsync the content and close the file (still under its temp name)."""
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()

    def commit(self):
        """Atomically put the finished content at `path` (the directory still needs an
        fsync for the new name to survive a power loss)."""
        os.replace(self.temp_path, self.path)

    def discard(self):
        self.file.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp_path)


def write(path, write_content):
    """Write `path` all or nothing: `write_content(file)` writes the whole content into a
    binary file object (a temp file; it may seek). Validate before calling this: whatever
    `write_content` raises is re-raised after the temp file is removed."""
    staged = StagedFile(path)
    try:
        write_content(staged.file)
        staged.finish()
        staged.commit()
    except BaseException:
        staged.discard()
        raise
    fsync_directory(staged.directory)
    remove_stale_temps(staged.path)


def write_bytes(path, data):
    write(path, lambda f: f.write(data))


def _process_is_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:     # someone else's process
        return False
    return False


def remove_stale_temps(path):
    """Delete the temp files of `path` left by processes of this host that no longer run
    (killed mid-write); returns their paths. Temp files of running processes are kept."""
    path = os.fspath(path)
    directory = os.path.dirname(path)
    stem = _temp_stem(os.path.basename(path)) + _host() + "."
    removed = []
    for name in os.listdir(directory or "."):
        if not (name.startswith(stem) and name.endswith(TEMP_SUFFIX)):
            continue
        pid_and_random = _PID_AND_RANDOM.match(name[len(stem):-len(TEMP_SUFFIX)])
        if pid_and_random and _process_is_gone(int(pid_and_random.group(1))):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
    return removed
