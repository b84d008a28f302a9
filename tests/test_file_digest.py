"""framework/file_digest: the chunked digest equals hashlib's over the whole content."""
import hashlib

import pytest

from refimpl.framework.file_digest import file_hexdigest


def test_known_digests_of_a_small_file(tmp_path):
    path = tmp_path / "abc"
    path.write_bytes(b"abc")
    # the published test vectors of MD5 (RFC 1321) and SHA-256 (FIPS 180-2) for "abc"
    assert file_hexdigest(path, "md5") == "900150983cd24fb0d6963f7d28e17f72"
    assert file_hexdigest(path, "sha256") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")


def test_a_file_of_several_chunks_and_an_empty_one(tmp_path):
    data = bytes(range(256)) * 10000 + b"tail"      # 2.4 MiB: three chunks, the last short
    big, empty = tmp_path / "big", tmp_path / "empty"
    big.write_bytes(data)
    empty.write_bytes(b"")
    assert file_hexdigest(big, "sha256") == hashlib.sha256(data).hexdigest()
    assert file_hexdigest(empty, "md5") == "d41d8cd98f00b204e9800998ecf8427e"


def test_a_missing_file_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        file_hexdigest(tmp_path / "absent", "md5")
