"""paddle.utils: deprecated, try_import, run_check, download (cached files only)."""
import hashlib
import io
import tarfile
import warnings
import zipfile

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
    # another md5 (a smaller file in the same format): used, with a warning, as refimpl
    # cannot download Paddle's again
    with pytest.warns(UserWarning, match="has md5 .*, not the 0{32} of https://host/w/"):
        assert download.get_path_from_url("https://host/w/model.pdparams", str(tmp_path),
                                          "0" * 32) == path


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_download_extracts_archives_next_to_themselves_as_paddle(tmp_path):
    # one top folder (PaddleNLP's chnsenticorp.tar.gz): extracted beside the archive, the
    # folder's path returned
    _tar(tmp_path / "corpus.tar.gz", {"corpus/train.tsv": b"label\ttext_a\n1\tgood\n",
                                      "corpus/dev.tsv": b"label\ttext_a\n"})
    with pytest.warns(UserWarning, match="has md5"):
        path = download.get_path_from_url("https://host/d/corpus.tar.gz", str(tmp_path),
                                          "0" * 32)
    assert path == str(tmp_path / "corpus")
    assert (tmp_path / "corpus" / "train.tsv").read_bytes() == b"label\ttext_a\n1\tgood\n"
    # loose files: into a folder named after the archive (its name less the last suffix)
    _tar(tmp_path / "loose.tgz", {"a.txt": b"a", "b.txt": b"b"})
    assert download.get_path_from_url("https://host/d/loose.tgz", str(tmp_path)) == \
        str(tmp_path / "loose")
    assert (tmp_path / "loose" / "b.txt").read_bytes() == b"b"
    # one file: beside the archive, its path returned; a zip the same way
    with zipfile.ZipFile(tmp_path / "one.zip", "w") as z:
        z.writestr("vocab.txt", "[PAD]\n")
    assert download.get_path_from_url("https://host/d/one.zip", str(tmp_path)) == \
        str(tmp_path / "vocab.txt")
    assert (tmp_path / "vocab.txt").read_text() == "[PAD]\n"
    # decompress=False leaves it alone; members escaping the folder are refused
    assert download.get_path_from_url("https://host/d/one.zip", str(tmp_path),
                                      decompress=False) == str(tmp_path / "one.zip")
    _tar(tmp_path / "evil.tar", {"../outside.txt": b"x"})
    with pytest.raises(RuntimeError, match="outside its folder; not extracted"):
        download.get_path_from_url("https://host/d/evil.tar", str(tmp_path))
    assert not (tmp_path.parent / "outside.txt").exists()


def test_deprecated_puts_paddles_note_on_top_of_the_docstring():
    def old(a):
        """Adds one."""
        return a + 1

    new = paddle.utils.deprecated(update_to="paddle.add", since="2.0.0")(old)
    assert new.__doc__.splitlines() == [
        "", "", 'Warning: API "%s.old" is deprecated since 2.0.0, and will be removed in '
        'future versions. Please use "paddle.add" instead.' % __name__, "Adds one."]
    assert old.__doc__ == "Adds one."


def test_fluid_apis_paddle_2_deprecates_carry_the_note_and_paddle_apis_do_not():
    fluid = paddle.fluid
    note = {api: api.__doc__.splitlines()[2] for api in (
        fluid.data, fluid.layers.elementwise_mul, fluid.layers.reduce_mean)}
    assert note[fluid.data].endswith(
        'is deprecated since 2.0.0, and will be removed in future versions. '
        'Please use "paddle.static.data" instead.')
    assert note[fluid.layers.elementwise_mul].endswith('Please use "paddle.multiply" instead.')
    assert note[fluid.layers.reduce_mean].endswith('Please use "paddle.mean" instead.')
    assert "deprecated" not in paddle.multiply.__doc__
    assert "deprecated" not in paddle.static.data.__doc__
    assert "deprecated" not in fluid.layers.fc.__doc__
    with warnings.catch_warnings(), fluid.dygraph.guard():
        warnings.simplefilter("error")       # 2.0 notes them without warning at the call
        x = paddle.to_tensor([1.0, 2.0])
        assert fluid.layers.elementwise_mul(x, x).numpy().tolist() == [1.0, 4.0]


def test_try_set_static_shape_tensor_takes_the_shape_ops_input_shape():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            data = paddle.static.data("x", [-1, 2], "float32")
            shape = paddle.shape(data)
            x = paddle.uniform(shape)
            assert x.shape == (-1, -1)
            paddle.utils.try_set_static_shape_tensor(x, shape)
            assert x.shape == (-1, 2)
            # a shape that no shape op made leaves the tensor as it is
            y = paddle.uniform(shape)
            paddle.utils.try_set_static_shape_tensor(y, paddle.static.data("s", [2], "int32"))
            assert y.shape == (-1, -1)
    finally:
        paddle.disable_static()
