"""Paddle 3's random fills and _like draws (layers/random_fill.py): after paddle.seed(10)
the values 3.3.1 gives (recorded on 3.3.1: the draws are its uniform / gaussian / engine
draws bit for bit, the arithmetic after them within an ulp), and the distributions of
large draws (means and bounds)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static

pytestmark = pytest.mark.paddle("3")


def _filled(method, *args, dtype="float32", shape=(4,), **kwargs):
    paddle.seed(10)
    x = paddle.zeros(list(shape), dtype)
    assert getattr(x, method)(*args, **kwargs) is x
    return x.numpy()


# after paddle.seed(10) on 3.3.1
RECORDED = [
    ("uniform_", (), {}, [0.27268523, 0.54888254, 0.86554646, 0.3776485]),
    ("uniform_", (-1, 1), {}, [-0.45462954, 0.09776509, 0.73109293, -0.244703]),
    ("normal_", (), {}, [0.36792588, -1.7109376, -0.32376242, 0.9672967]),
    ("normal_", (2., 3.), {}, [3.1037776, -3.132813, 1.0287127, 4.9018903]),
    ("exponential_", (2.0,), {}, [0.15919796, 0.39801377, 1.0032684, 0.2371251]),
    ("cauchy_", (), {}, [-0.4404969, -0.7804079, 0.6181617, 9.699002]),
    ("geometric_", (0.3,), {}, [3.643197, 1.6818416, 0.40483418, 2.7301927]),
    ("log_normal_", (), {}, [5.6737585, 0.08875503, 1.4225843, 18.813852]),
    ("bernoulli_", (), {}, [1, 0, 0, 1]),
]


@pytest.mark.parametrize("method, args, kwargs, expected", RECORDED)
def test_fills_draw_paddle_values(dygraph, method, args, kwargs, expected):
    np.testing.assert_allclose(_filled(method, *args, **kwargs), expected, rtol=1e-6)


def test_exponential_float64_and_the_functions(dygraph):
    np.testing.assert_allclose(_filled("exponential_", 2.0, dtype="float64"),
                               [0.1591979652, 0.3980137711, 1.003268389, 0.2371251246],
                               rtol=1e-9)
    paddle.seed(10)
    np.testing.assert_allclose(paddle.log_normal(shape=[4]).numpy(),
                               [5.6737585, 0.08875503, 1.4225843, 18.813852], rtol=1e-6)
    paddle.seed(10)
    x = paddle.zeros([4])
    paddle.uniform_(x)
    np.testing.assert_array_equal(x.numpy(), _filled("uniform_"))


@pytest.mark.parametrize("dtype, args, expected", [
    ("int64", (0, 10), [3, 4, 1, 4, 6, 6]),
    ("float32", (), [1448545, 7225866, 10144677, 6632420, 4548320, 3484812]),
    ("int64", (), [5030154736546224737, 901723807263113739, 6743142517603748774,
                   None, None, None]),
    ("int64", (0, 2 ** 40), [90145430113, 27672855050, 432174451621, None, None, None]),
    ("int64", (-5, 5), [-2, -1, -4, None, None, None]),
    ("int64", (7,), [1, 5, 2, None, None, None])])
def test_random_(dygraph, dtype, args, expected):
    got = _filled("random_", *args, dtype=dtype, shape=(6,))
    known = [i for i, v in enumerate(expected) if v is not None]
    assert got[known].tolist() == [expected[i] for i in known]


def test_random_errors(dygraph):
    with pytest.raises(ValueError, match="'from' to be less than 'to'"):
        paddle.zeros([3]).random_(5, 2)
    with pytest.raises(TypeError, match="must be float16, float32 or float64, got int32"):
        paddle.ones([2], "int32").uniform_()
    leaf = paddle.zeros([2])
    leaf.stop_gradient = False
    with pytest.raises(ValueError, match="Leaf Tensor"):
        leaf.normal_()


def test_likes(dygraph):
    paddle.seed(10)
    np.testing.assert_allclose(paddle.rand_like(paddle.zeros([4])).numpy(),
                               [0.27268523, 0.54888254, 0.86554646, 0.3776485], rtol=1e-7)
    paddle.seed(10)
    np.testing.assert_allclose(paddle.randn_like(paddle.zeros([4], "float64")).numpy(),
                               [0.3679258877, -1.710937634, -0.3237623119, 0.9672965658],
                               rtol=1e-9)
    paddle.seed(10)
    drawn = paddle.randint_like(paddle.zeros([4]), 0, 10)
    assert drawn.dtype == "float32" and drawn.numpy().tolist() == [2, 5, 8, 3]
    assert paddle.rand_like(paddle.zeros([2], "float64"), dtype="float32").dtype == "float32"
    assert not paddle.randn_like(paddle.zeros([2]), requires_grad=True).stop_gradient
    assert paddle.randint_like(paddle.zeros([3], "int32"), 5).dtype == "int32"
    with pytest.raises(ValueError, match="low must less then high"):
        paddle.randint_like(paddle.zeros([3]), 5, 2)


@pytest.mark.parametrize("method, args, mean, low, high", [
    ("uniform_", (2.0, 5.0), 3.5, 2.0, 5.0),
    ("exponential_", (4.0,), 0.25, 0.0, np.inf),
    ("bernoulli_", (0.3,), 0.3, 0.0, 1.0),
    ("log_normal_", (0.0, 0.5), np.exp(0.125), 0.0, np.inf)])
def test_distributions(dygraph, method, args, mean, low, high):
    values = _filled(method, *args, shape=(20000,))
    assert abs(values.mean() - mean) < 0.02 * max(mean, 1)
    assert values.min() >= low and values.max() <= high


def test_normal_and_geometric_moments(dygraph):
    values = _filled("normal_", 1.0, 2.0, shape=(20000,))
    assert abs(values.mean() - 1.0) < 0.05 and abs(values.std() - 2.0) < 0.05
    # 3.3.1's geometric_ is log(u) / log1p(-p), not rounded: mean -1 / log1p(-p)
    values = _filled("geometric_", 0.5, shape=(20000,))
    assert abs(values.mean() - 1 / np.log(2)) < 0.03 and values.min() >= 0


def test_static_fill_builds_the_draw():
    x = static.data("x", [-1, 3], "float32")
    with pytest.warns(UserWarning, match="dygraph-only"):
        out = x.uniform_(2.0, 3.0)
    got, = static.Executor().run(feed={"x": np.zeros((5, 3), np.float32)}, fetch_list=[out])
    assert got.shape == (5, 3) and (got >= 2).all() and (got < 3).all()
