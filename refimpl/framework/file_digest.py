"""The hex digest of a file's bytes, read in 1 MiB chunks so a large file never sits in
memory whole (dataset md5 checks, checkpoint manifests, downloaded weights)."""
import hashlib

__all__ = ["file_hexdigest"]

_CHUNK = 1 << 20


def file_hexdigest(path, algorithm):
    """hashlib's `algorithm` ("md5", "sha256", ...) over the file at `path`."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()
