"""fill_constant and the creation functions built on it (zeros, ones, full): which dtypes
each Paddle version takes (switch fill_constant_dtypes, specs/versions.md)."""
import re

import numpy as np
import pytest

from helpers import build_and_run
import refimpl as paddle
from refimpl import fluid, versions
from refimpl.framework.errors import LayerAssertionError


def _run(build):
    return build_and_run(lambda: [build()])[0]


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_fill_constant_dtypes_by_version(version, paddle_version):
    with paddle_version(version):
        for build in (lambda: paddle.ones([2], "int8"), lambda: paddle.zeros([2], "uint8"),
                      lambda: fluid.layers.fill_constant([2], "int16", 3),
                      lambda: paddle.full([2], 1, "int8")):
            with pytest.raises(TypeError, match=r"in fill_constant must be \['bool', "
                               r"'float16', 'float32', 'float64', 'int32', 'int64'\], but "
                               r"received (int8|uint8|int16)"):
                _run(build)
        value = _run(lambda: paddle.ones([3], "int64"))
        assert value.dtype == np.int64 and value.tolist() == [1, 1, 1]


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_full_like_dtypes_by_version(version, paddle_version):
    """full_like (so zeros_like, ones_like) refuses the same dtypes under 1.8 / 2.0 (2.0's
    test_full_like_op, test_zeros_like_op and test_ones_like assert int16 / int8 refused)."""
    with paddle_version(version):
        for build in (lambda v: paddle.zeros_like(v, "int8"),
                      lambda v: paddle.ones_like(v, "int8"),
                      lambda v: paddle.full_like(v, 2, "int16")):
            with pytest.raises(TypeError, match=r"'dtype' in full_like must be \['bool', "
                               r"'float16', 'float32', 'float64', 'int32', 'int64'\], but "
                               r"received (int8|int16)"):
                _run(lambda: build(paddle.full([2], 1.5, "float32")))
        value = _run(lambda: paddle.full_like(paddle.full([2], 1.5), 3, "int32"))
        assert value.dtype == np.int32 and value.tolist() == [3, 3]


def test_full_like_takes_any_dtype_under_3(paddle_version):
    with paddle_version("3"):
        value = _run(lambda: paddle.full_like(paddle.full([3], 1.5), 7, "int16"))
        assert value.dtype == np.int16 and value.tolist() == [7, 7, 7]


def test_full_like_checks_dtypes_in_legacy_ir_programs_under_3(paddle_version):
    # 3.3.1 with FLAGS_enable_pir_api off (its early-2024 tests' setting) still refuses
    # int8 / uint8 for full_like in a static program, and takes int16 there (measured);
    # in dynamic mode it takes int8
    from refimpl.pir_utils import OldIrGuard
    with paddle_version("3"), OldIrGuard():
        for dtype in ("int8", "uint8"):
            with pytest.raises(TypeError, match=r"'dtype' in full_like/zeros_like/ones_like "
                               r"must be \['bool', .*'int16', 'int32', 'int64', 'uint16'\], "
                               r"but received " + dtype):
                _run(lambda: paddle.ones_like(paddle.full([2], 1.5), dtype))
        value = _run(lambda: paddle.zeros_like(paddle.full([2], 1.5), "int16"))
        assert value.dtype == np.int16 and value.tolist() == [0, 0]
        with fluid.dygraph.guard():
            value = paddle.ones_like(paddle.to_tensor([1.5, 2.5]), "int8").numpy()
        assert value.dtype == np.int8 and value.tolist() == [1, 1]


def test_fill_constant_takes_any_dtype_under_3(paddle_version):
    with paddle_version("3"):
        value = _run(lambda: paddle.ones([2], "int8"))
        assert value.dtype == np.int8 and value.tolist() == [1, 1]
        value = _run(lambda: fluid.layers.fill_constant([2], "int16", 7))
        assert value.dtype == np.int16 and value.tolist() == [7, 7]


def test_random_layers_check_shape_and_dtype_in_static_mode():
    """As Paddle 2.0's static random layers: an empty list shape is an AssertionError, a
    shape that is no list / tuple / Variable a TypeError, randn's int dtype a TypeError;
    dygraph mode draws float64 as asked."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        with pytest.raises(AssertionError, match="gaussian_random.*zero"):
            paddle.randn([])
        with pytest.raises(AssertionError, match="uniform_random.*zero"):
            paddle.uniform([])
        with pytest.raises(TypeError, match="randn.*int"):
            paddle.randn(1)
        # float16 too under 3 (switch random_float_dtypes)
        with pytest.raises(TypeError, match=r"randn/normal must be %s.*int32" % re.escape(
                str(list(versions.switch("random_float_dtypes"))))):
            paddle.randn([1, 2], "int32")
        out = paddle.randn([2, 3], "float64")
    assert tuple(out.shape) == (2, 3) and out.dtype.name == "float64"
    with fluid.dygraph.guard():
        got = paddle.randn([4, 2], "float64").numpy()
    assert got.shape == (4, 2) and got.dtype == np.float64 and np.all(np.isfinite(got))


def test_paddle_seed_returns_the_generator():
    """paddle.seed returns a generator (2.0's core.Generator): its initial_seed, a settable
    _is_init_py (Paddle's tests clear it), manual_seed seeding again: the same draws."""
    gen = paddle.seed(7)
    assert gen.initial_seed() == 7
    gen._is_init_py = False
    with fluid.dygraph.guard():
        first = paddle.rand([3]).numpy()
        assert gen.manual_seed(7).initial_seed() == 7
        np.testing.assert_array_equal(paddle.rand([3]).numpy(), first)


def test_assign_of_an_array_into_a_given_eager_tensor_replaces_it():
    # Paddle 2.0's test_assign_op: paddle.assign(array, output) in dynamic mode writes the
    # array, its shape included, into `output`
    with paddle.fluid.dygraph.guard():
        out = paddle.zeros([3, 3], "float32")
        got = paddle.assign(np.array([[1.5, 2.5]], "float32"), out)
        assert got is out
        assert out.numpy().tolist() == [[1.5, 2.5]]


def test_gaussian_and_standard_normal_of_paddle_20():
    # Paddle 2.0's paddle.tensor.random.gaussian / paddle.standard_normal (its
    # test_gaussian_random_op): the default dtype, which must be float32 or float64
    with paddle.fluid.dygraph.guard():
        try:
            paddle.set_default_dtype("float64")
            paddle.seed(3)
            x = paddle.tensor.random.gaussian([400, 500], mean=2.0, std=3.0)
            assert x.dtype.name == "float64"
            assert abs(x.numpy().mean() - 2.0) < 0.05 and abs(x.numpy().std() - 3.0) < 0.05
            assert paddle.standard_normal([2, 3], "float32").dtype.name == "float32"
            assert paddle.tensor.random.standard_normal is paddle.standard_normal
            paddle.set_default_dtype("float16")
            if "float16" in versions.switch("random_float_dtypes"):    # 3.3.1
                assert paddle.standard_normal([2, 3]).dtype.name == "float16"
            else:
                with pytest.raises(TypeError, match="only supports \\[float32, float64\\]"):
                    paddle.standard_normal([2, 3])
        finally:
            paddle.set_default_dtype("float32")


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_fill_constant_of_an_empty_shape_by_version(version, paddle_version):
    """An empty shape is a 0-D tensor under profile 3 (3.3.1: paddle.full([], 3, 'int64')
    in a static program gives the 0-D 3; Paddle 3's test_cond builds its constants so); 1.8
    and 2.0 have no 0-D tensors and refuse it when the program is built."""
    with paddle_version(version):
        if version != "3":
            with pytest.raises(LayerAssertionError, match="shape must not be empty"):
                _run(lambda: paddle.full([], 3, "int64"))
            return
        value = _run(lambda: paddle.full([], 3, "int64"))
        assert value.shape == () and value.dtype == np.int64 and value == 3
