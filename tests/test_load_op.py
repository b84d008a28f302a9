"""fluid.layers.load and the load op: a tensor file as save_vars writes it (Paddle's
LoDTensor stream) into a variable, as Paddle 1.8.5's load op reads it (specs/fluid_io.md)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.paddle_formats import tensor_stream
from refimpl.framework.serialization import FileFormatError

pytestmark = pytest.mark.paddle("1.8")


def _load_program(path, dtype="float32", **kwargs):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        out = fluid.layers.create_tensor(dtype=dtype)
        assert fluid.layers.load(out, str(path), **kwargs) is None
    return main, out


def test_load_reads_what_save_vars_wrote(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([2, 3], "float32", name="w",
                                          default_initializer=fluid.initializer.Constant(1.5))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    fluid.io.save_vars(exe, str(tmp_path), main, vars=[w])
    program, out = _load_program(tmp_path / "w")
    assert program.global_block().ops[0].type == "load"
    value, = exe.run(program, fetch_list=[out])
    np.testing.assert_array_equal(value, np.full((2, 3), 1.5, np.float32))
    half_program, half = _load_program(tmp_path / "w", "float16", load_as_fp16=True)
    value, = exe.run(half_program, fetch_list=[half])
    assert value.dtype == np.float16 and value.tolist() == [[1.5] * 3] * 2   # as 1.8.5


def test_load_keeps_the_files_lod(tmp_path):
    stored = tensor_stream.StoredTensor(np.arange(10, dtype=np.int64).reshape(5, 2),
                                        [[0, 2, 5]])
    (tmp_path / "seq").write_bytes(tensor_stream.tensor_bytes(stored))
    program, out = _load_program(tmp_path / "seq", "int64")
    value, = fluid.Executor(fluid.CPUPlace()).run(program, fetch_list=[out],
                                                  return_numpy=False)
    assert value.lod() == [[0, 2, 5]]
    np.testing.assert_array_equal(np.array(value), stored.array)


def test_load_names_a_missing_or_corrupt_file(tmp_path):
    exe = fluid.Executor(fluid.CPUPlace())
    program, out = _load_program(tmp_path / "absent")
    with pytest.raises(Exception, match="absent"):
        exe.run(program, fetch_list=[out])
    (tmp_path / "bad").write_bytes(b"\x00\x00\x00\x00\x05")
    program, out = _load_program(tmp_path / "bad")
    with pytest.raises(Exception, match="bad") as error:
        exe.run(program, fetch_list=[out])
    assert isinstance(error.value, FileFormatError) or \
        isinstance(error.value.__cause__, FileFormatError)
    with fluid.program_guard(fluid.Program()):
        with pytest.raises(TypeError, match="file_path"):
            fluid.layers.load(fluid.layers.create_tensor("float32"), "")
