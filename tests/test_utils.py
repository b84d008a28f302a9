"""paddle.utils: deprecated, try_import, run_check, download (cached files only)."""
import hashlib
import warnings

import pytest

import refimpl as paddle
from refimpl.utils import download


def test_deprecated_warns_or_raises_with_paddles_message():
    @paddle.utils.deprecated(update_to="paddle.new_api", since="2.0.0", reason="renamed")
    def old(a):
        return a + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert old(1) == 2
    assert 'is deprecated since 2.0.0' in str(caught[0].message)
    assert 'Please use "paddle.new_api" instead' in str(caught[0].message)
    with pytest.raises(RuntimeError, match="is deprecated"):
        paddle.utils.deprecated(level=2)(lambda: 1)()
    with pytest.raises(ValueError, match="level must be 0, 1 or 2"):
        paddle.utils.deprecated(level=3)


def test_try_import_names_the_package_to_install():
    assert paddle.utils.try_import("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="pip install no_such_module_xyz"):
        paddle.utils.try_import("no_such_module_xyz.sub")


def test_run_check_trains_on_one_and_two_places(capsys):
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "works well on 1 CPU" in out and "works well on 2 CPUs" in out
    assert "installed successfully" in out


def test_download_returns_cached_files_and_says_where_missing_ones_go(tmp_path):
    with pytest.raises(RuntimeError, match="refimpl does not download; put the file from "
                                           "https://host/w/model.pdparams at .*model.pdparams"):
        download.get_path_from_url("https://host/w/model.pdparams", str(tmp_path))
    (tmp_path / "model.pdparams").write_bytes(b"weights")
    path = download.get_path_from_url("https://host/w/model.pdparams", str(tmp_path),
                                      hashlib.md5(b"weights").hexdigest())
    assert path == str(tmp_path / "model.pdparams")
    with pytest.raises(RuntimeError, match="has md5"):
        download.get_path_from_url("https://host/w/model.pdparams", str(tmp_path), "0" * 32)
