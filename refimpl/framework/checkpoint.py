"""Checkpoints: the files of one save, committed together by a manifest (specs/io.md).

static.save writes <prefix>.pdparams, .pdopt and .pdmodel, save_inference_model .pdmodel and
.pdiparams: the files of one checkpoint, whatever their format. `write_checkpoint` stages
each file (a temp file next to it, fsynced), then replaces the manifest <prefix>.pdmanifest
with one that lists every file's name, size and sha256 and the staged file holding that
content ("pending"). That replace is the commit. Then the staged files are renamed into
place and the manifest is written again without "pending".

A directory checkpoint (prefix `dirname/`: fluid.io's save_vars / save_params /
save_persistables / save_inference_model layouts) holds exactly Paddle's files once saved,
since users and Paddle's own tests list those directories: there the manifest is a journal,
removed (after a directory fsync) once every file is in place. A crash leaves it, pending
entries and all, for the next reader.

`read_checkpoint_files` checks each file it reads against the manifest. A file that does not
match while its pending file does was committed by a writer that was killed before renaming
it: the pending file is read instead. So after a crash at any point a reader gets all of the
old checkpoint or all of the new one; anything else (a file changed after the manifest was
written) is a TornCheckpointError. Without a manifest (a completed directory checkpoint,
Paddle's files, an older refimpl's) the files are read as they are, then checked unchanged
(same inode, size and mtime) with still no manifest: a save that renamed any of them
meanwhile makes the reader read again (a few times, then TornCheckpointError). Files the
manifest does not list are read as they are.
"""
import hashlib
import json
import os
import re

from . import atomic_file
from .file_digest import file_hexdigest
from .serialization import FileFormatError, read_file

__all__ = ["write_checkpoint", "read_checkpoint_files", "listed_files", "manifest_path",
           "TornCheckpointError", "MANIFEST_SUFFIX"]

MANIFEST_SUFFIX = ".pdmanifest"
MANIFEST_FORMAT = "refimpl.checkpoint"
MANIFEST_VERSION = 1
STABLE_READ_TRIES = 5    # reads of a manifest-less checkpoint that a running save disturbed
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


class TornCheckpointError(FileFormatError):
    """A file of a checkpoint disagrees with the checkpoint's manifest: it was changed after
    the save that wrote the manifest (by hand, another tool, or an older refimpl), so the
    files may not belong together."""


def manifest_path(prefix):
    return os.fspath(prefix) + MANIFEST_SUFFIX


def _is_directory_checkpoint(prefix):
    return os.path.basename(os.fspath(prefix)) == ""


def _manifest_bytes(saved_by, entries):
    return json.dumps({"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION,
                       "saved_by": saved_by, "files": entries}, indent=1).encode("utf-8")


def write_checkpoint(prefix, files, saved_by):
    """Write the checkpoint `prefix`: `files` maps a suffix ('.pdparams') to `write(file)`
    writing that file's whole content (checked beforehand: see atomic_file.write). All the
    files change together, as described above; an exception before the commit leaves the
    old checkpoint as it was and no temp files."""
    manifest = manifest_path(prefix)
    directory = os.path.dirname(manifest)
    staged, commit = [], None
    try:
        for suffix, write in files.items():
            staged.append(atomic_file.StagedFile(os.fspath(prefix) + suffix))
            write(staged[-1].file)
            staged[-1].finish()
        atomic_file.fsync_directory(directory)     # pending names before the manifest
        entries = [{"name": os.path.basename(s.path), "size": os.path.getsize(s.temp_path),
                    "sha256": file_hexdigest(s.temp_path, "sha256"),
                    "pending": os.path.basename(s.temp_path)} for s in staged]
        commit = atomic_file.StagedFile(manifest)
        commit.file.write(_manifest_bytes(saved_by, entries))
        commit.finish()
        commit.commit()
    except BaseException:
        # an interrupt can land just after the commit's rename: then the staged files are
        # the committed checkpoint's and stay
        if commit is None or os.path.exists(commit.temp_path):
            for s in staged if commit is None else staged + [commit]:
                s.discard()
        raise
    atomic_file.fsync_directory(directory)
    for s in staged:
        s.commit()
    atomic_file.fsync_directory(directory)
    if _is_directory_checkpoint(prefix):
        os.remove(manifest)          # every file in place: the journal is done
        atomic_file.fsync_directory(directory)
    else:
        for entry in entries:
            del entry["pending"]
        atomic_file.write_bytes(manifest, _manifest_bytes(saved_by, entries))
    for s in staged:
        atomic_file.remove_stale_temps(s.path)


def listed_files(prefix):
    """The names of the files the manifest of checkpoint `prefix` lists; None when it has
    no manifest (files another tool wrote)."""
    entries = _read_manifest(manifest_path(prefix))
    return None if entries is None else set(entries)


def _read_manifest(path):
    """{file name: entry} of the manifest at `path`, or None when there is none."""
    try:
        data = read_file(path, "checkpoint manifest")
    except FileNotFoundError:
        return None
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FileFormatError(path, "not a checkpoint manifest (not UTF-8 JSON: %s)" % e) \
            from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise FileFormatError(path, "not a checkpoint manifest (expected a JSON object with "
                                    "\"format\": %r)" % MANIFEST_FORMAT)
    if manifest.get("version") != MANIFEST_VERSION:
        raise FileFormatError(path, "checkpoint manifest version %r is not supported (this "
                                    "refimpl reads version %d)"
                              % (manifest.get("version"), MANIFEST_VERSION))
    entries = manifest.get("files")
    if not isinstance(entries, list):
        raise FileFormatError(path, "'files' must be a list")
    by_name = {}
    for i, e in enumerate(entries):
        if not (isinstance(e, dict) and _plain_name(e.get("name"))
                and isinstance(e.get("size"), int) and not isinstance(e.get("size"), bool)
                and isinstance(e.get("sha256"), str) and _SHA256.match(e["sha256"])
                and (e.get("pending") is None or (_plain_name(e["pending"]) and
                                                  atomic_file.is_temp_name(e["pending"])))):
            raise FileFormatError(path, "files[%d] must be {\"name\": a file name, \"size\": "
                                        "int, \"sha256\": 64 hex digits, optional "
                                        "\"pending\": a temp file name}, got %r" % (i, e))
        by_name[e["name"]] = e
    return by_name


def _plain_name(name):
    """A file name in the manifest's own directory: no directories, no '..'."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and "\\" not in name and "\0" not in name and os.sep not in name)


def _matches(data, entry):
    return len(data) == entry["size"] and hashlib.sha256(data).hexdigest() == entry["sha256"]


def read_checkpoint_files(prefix, paths, fn, optional=()):
    """{path: bytes} of every path, checked against the manifest of checkpoint `prefix`
    when it lists the file. A missing file is FileNotFoundError, except the `optional` ones
    that the manifest does not list (left out of the result); a mismatch is
    TornCheckpointError. Reads everything before returning, so callers can check it all
    before they change anything."""
    manifest = manifest_path(prefix)
    for _ in range(STABLE_READ_TRIES):
        entries = _read_manifest(manifest)
        if entries is not None:
            return _read_all(manifest, entries, paths, fn, optional)
        seen = {}
        out = _read_all(manifest, {}, paths, fn, optional, seen)
        if not os.path.exists(manifest) and all(_signature(p) == sig
                                                for p, sig in seen.items()):
            return out
    raise TornCheckpointError(
        os.path.dirname(manifest) or ".", "kept changing while %s read it (another process "
        "is saving this checkpoint again and again?): %d reads did not see one complete "
        "checkpoint" % (fn, STABLE_READ_TRIES))


def _signature(path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _read_all(manifest, entries, paths, fn, optional, seen=None):
    """{path: bytes}; `seen` collects each unlisted file's signature from before its read."""
    directory = os.path.abspath(os.path.dirname(manifest))
    out = {}
    for path in paths:
        path = os.fspath(path)
        entry = entries.get(os.path.basename(path))
        if entry is None or os.path.abspath(os.path.dirname(path)) != directory:
            if seen is not None:
                seen[path] = _signature(path)
            if path in optional and not os.path.isfile(path):
                continue
            out[path] = read_file(path, fn)
        else:
            out[path] = _read_listed(path, entry, manifest, fn)
    return out


def _read_listed(path, entry, manifest, fn):
    candidates = [path]
    if entry.get("pending"):
        # committed but not renamed yet (writer killed); retry `path` in case a running
        # writer renamed it meanwhile
        candidates += [os.path.join(os.path.dirname(path), entry["pending"]), path]
    found = None
    for candidate in candidates:
        try:
            data = read_file(candidate, fn)
        except FileNotFoundError:
            continue
        if _matches(data, entry):
            return data
        found = data if candidate == path else found
    if found is None:
        raise FileNotFoundError("%s: no file %r, which %s lists: the checkpoint is "
                                "incomplete" % (fn, path, manifest))
    newer = os.path.getmtime(path) > os.path.getmtime(manifest)
    raise TornCheckpointError(
        path, "does not match the checkpoint manifest %s (file: %d bytes, sha256 %s...; "
        "manifest: %d bytes, sha256 %s...)%s: it was changed after the save that wrote the "
        "manifest (by another tool, a copy, or an older refimpl's save), so the checkpoint's "
        "files may not belong together. Remove %s to load the files as they are"
        % (manifest, len(found), hashlib.sha256(found).hexdigest()[:12], entry["size"],
           entry["sha256"][:12], " and is newer than the manifest" if newer else "", manifest))
