"""Paddle 3's creation, generator and dtype names (refimpl/_env.py, layers/number_ranges.py,
layers/windows.py, framework/dtype_info.py): values and errors recorded on Paddle 3.3.1."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static

pytestmark = pytest.mark.paddle("3")


def test_dtype_aliases_and_constants():
    assert (paddle.float, paddle.double, paddle.half) == ("float32", "float64", "float16")
    assert (paddle.int, paddle.long, paddle.short) == ("int32", "int64", "int16")
    assert (paddle.cfloat, paddle.cdouble) == ("complex64", "complex128")
    assert paddle.int is paddle.int32 and isinstance(paddle.float32, paddle.dtype)
    assert (paddle.e, paddle.pi, paddle.inf) == (np.e, np.pi, np.inf)
    assert np.isnan(paddle.nan) and paddle.newaxis is None


def test_finfo_iinfo():
    f16 = paddle.finfo(paddle.float16)
    assert (f16.bits, f16.eps, f16.min, f16.max, f16.tiny, f16.resolution, f16.dtype) == \
        (16, 0.0009765625, -65504.0, 65504.0, 6.103515625e-05, 0.001, "float16")
    assert repr(f16) == ("paddle.finfo(min=-65504, max=65504, eps=0.000976562, "
                         "resolution=0.001, smallest_normal=6.10352e-05, tiny=6.10352e-05, "
                         "bits=16, dtype=float16)")
    assert paddle.finfo(np.float32).eps == 1.1920928955078125e-07
    assert paddle.finfo("complex128").dtype == "float64"
    i32 = paddle.iinfo("int32")
    assert (i32.bits, i32.min, i32.max, i32.dtype) == (32, -2 ** 31, 2 ** 31 - 1, "int32")
    assert repr(paddle.iinfo("uint8")) == "paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)"
    with pytest.raises(ValueError, match="paddle.iinfo can only be"):
        paddle.iinfo("bool")
    with pytest.raises(ValueError, match="paddle.finfo can only be"):
        paddle.finfo("int32")


def test_as_tensor_asarray_from_numpy_clone(dygraph):
    assert paddle.as_tensor([1, 2]).dtype == "int64"
    t = paddle.as_tensor([1., 2], dtype="float64", requires_grad=True)
    assert t.dtype == "float64" and not t.stop_gradient
    assert paddle.asarray(np.array([1, 2], np.int32)).dtype == "int32"
    a = np.array([1., 2.], np.float32)
    t = paddle.from_numpy(a)
    a[0] = 9                                   # 3.3.1's from_numpy copies too
    assert t.numpy().tolist() == [1, 2]
    with pytest.raises(TypeError, match="must be numpy.ndarray"):
        paddle.from_numpy([1, 2])
    x = paddle.to_tensor([1., 2], stop_gradient=False)
    (paddle.clone(x) * 2).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [2, 2])


def test_range_logspace(dygraph):
    assert paddle.range(5).numpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert paddle.range(5).dtype == "float32"
    assert paddle.range(0, 1, 0.25).numpy().tolist() == [0, 0.25, 0.5, 0.75, 1]
    assert paddle.range(1, 4, dtype="int64").numpy().tolist() == [1, 2, 3, 4]
    assert paddle.logspace(0, 3, 4).numpy().tolist() == [1, 10, 100, 1000]
    out = paddle.logspace(0, 3, 4, base=2, dtype="int32")
    assert out.dtype == "int32" and out.numpy().tolist() == [1, 2, 4, 8]
    assert paddle.logspace(1, 3, 1).numpy().tolist() == [10]
    assert paddle.logspace(0, 1, 3, dtype="float64").numpy().tolist() == \
        [1.0, 3.1622776601683795, 10.0]
    with pytest.raises(ValueError, match="num must be > 0"):
        paddle.logspace(0, 1, 0)


def test_logspace_static():
    out = paddle.logspace(0, 2, 3, dtype="float64")
    got, = static.Executor().run(fetch_list=[out])
    np.testing.assert_allclose(got, [1, 10, 100])


# 3.3.1's float32 values (it computes in float32: the last digits differ by an ulp)
WINDOWS = [
    ("hann_window", {}, [0.0, 0.3454914689, 0.9045084715, 0.9045084715, 0.3454914689]),
    ("hamming_window", {}, [0.0800000131, 0.3978521824, 0.9121478200, 0.9121478200,
                            0.3978521824]),
    ("blackman_window", {}, [-1.49e-08, 0.2007701099, 0.8492298127, 0.8492298127,
                             0.2007701099]),
    ("bartlett_window", {}, [0.0, 0.4, 0.8, 0.8, 0.4]),
    ("kaiser_window", {}, [5.27734373e-05, 0.1017197147, 0.7929394245, 0.7929394245,
                           0.1017197147]),
    ("hann_window", {"periodic": False, "dtype": "float64"}, [0, 0.5, 1, 0.5, 0]),
    ("hamming_window", {"periodic": False, "dtype": "float64"}, [0.08, 0.54, 1, 0.54, 0.08]),
    ("kaiser_window", {"periodic": False, "dtype": "float64"},
     [5.2773441320097665e-05, 0.2156727447589671, 1.0, 0.2156727447589671,
      5.2773441320097665e-05])]


@pytest.mark.parametrize("name, kwargs, expected", WINDOWS)
def test_windows(dygraph, name, kwargs, expected):
    out = getattr(paddle, name)(5, **kwargs)
    assert out.dtype == kwargs.get("dtype", "float32")
    np.testing.assert_allclose(out.numpy(), expected, rtol=2e-6, atol=3e-8)
    assert getattr(paddle, name)(1).numpy().tolist() == [1]


def test_window_parameters(dygraph):
    np.testing.assert_allclose(paddle.hamming_window(4, alpha=0.5, beta=0.5).numpy(),
                               [0, 0.5, 1, 0.5], atol=1e-7)
    np.testing.assert_allclose(paddle.kaiser_window(4, beta=5.0).numpy(),
                               [0.036710888, 0.55285156, 1.0, 0.55285156], rtol=1e-6)
    assert paddle.hann_window(0).shape == [0]


def test_generator_state_and_default_device(dygraph):
    generator = paddle.manual_seed(10)
    assert generator.initial_seed() == 10
    np.testing.assert_allclose(paddle.rand([2]).numpy(), [0.27268523, 0.54888254], rtol=1e-7)
    state = paddle.get_rng_state()
    first = paddle.rand([2]).numpy()
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), first)
    paddle.set_default_device("cpu")
    assert paddle.get_default_device() == "cpu"


@pytest.mark.parametrize("profile, dtype", [("2.0", "float32"), ("3", "float64")])
def test_static_to_tensor_of_a_numpy_scalar(paddle_version, profile, dtype):
    with paddle_version(profile):
        assert paddle.to_tensor(np.float64(1.5)).dtype == dtype
        assert paddle.to_tensor(1.5).dtype == "float32"
        assert paddle.to_tensor(np.int32(2)).dtype == "int32"


def test_bfloat16_name():
    # no bfloat16 tensors here: the name is known to finfo (3.3.1's values and repr) and
    # refused by every conversion
    info = paddle.finfo(paddle.bfloat16)
    assert (info.bits, info.eps, info.max, info.resolution) == \
        (16, 0.0078125, 3.3895313892515355e38, 0.01)
    assert repr(info) == ("paddle.finfo(min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, "
                          "resolution=0.01, smallest_normal=1.17549e-38, tiny=1.17549e-38, "
                          "bits=16, dtype=bfloat16)")
    with pytest.raises(ValueError, match="paddle.iinfo can only be"):
        paddle.iinfo(paddle.bfloat16)
    with pytest.raises(TypeError, match="unsupported data type 'bfloat16'"):
        paddle.zeros([2], paddle.bfloat16)
