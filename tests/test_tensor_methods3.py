"""Paddle 3's Tensor methods that are no tensor function (layers/tensor_conversion.py,
tensor_fill.py, tensor_storage.py): values recorded on Paddle 3.3.1, gradients by finite
differences, static programs against eager results."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.framework.errors import OpError

pytestmark = pytest.mark.paddle("3")

X = np.array([[1.5, -2.7], [3.2, 0.0]], np.float32)


@pytest.mark.parametrize("method, dtype, expected", [
    ("float", "float32", X), ("double", "float64", X.astype(np.float64)),
    ("int", "int32", [[1, -2], [3, 0]]), ("long", "int64", [[1, -2], [3, 0]]),
    ("short", "int16", [[1, -2], [3, 0]]), ("char", "int8", [[1, -2], [3, 0]]),
    ("byte", "uint8", [[1, 254], [3, 0]]), ("bool", "bool", [[True, True], [True, False]]),
    ("half", "float16", [[1.5, -2.69921875], [3.19921875, 0.0]]),
    ("cfloat", "complex64", X), ("cdouble", "complex128", X.astype(np.float64))])
def test_cast_methods(dygraph, method, dtype, expected):
    out = getattr(paddle.to_tensor(X), method)()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), np.asarray(expected).astype(dtype))


def test_methods_named_after_dtypes(dygraph):
    x = paddle.to_tensor(X)
    for dtype in ("float16", "float64", "int8", "int16", "int32", "int64", "uint8",
                  "complex64", "complex128"):
        out = getattr(x, dtype)()
        assert out.dtype == dtype and np.array_equal(out.numpy(), X.astype(dtype))


def test_cast_method_gradient_and_bfloat16(dygraph):
    x = paddle.to_tensor(X, stop_gradient=False)
    (x.double() * 3).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), np.full((2, 2), 3, np.float32))
    with pytest.raises(TypeError, match="no bfloat16"):
        x.bfloat16()


def test_type_as_new_and_dtype_queries(dygraph):
    x = paddle.to_tensor(X)
    assert x.type_as(paddle.to_tensor([1], "int32")).numpy().tolist() == [[1, -2], [3, 0]]
    np.testing.assert_array_equal(x.new_full([2, 3], 7).numpy(), np.full((2, 3), 7, np.float32))
    ints = paddle.to_tensor([1, 2]).new_full([2], 2.5)
    assert ints.dtype == "int64" and ints.numpy().tolist() == [2, 2]
    assert x.new_zeros(3).numpy().tolist() == [0, 0, 0]
    assert x.new_ones((1, 2), dtype="int64").dtype == "int64"
    assert x.new_empty([2]).shape == [2]
    assert not x.new_full([2], 1.0, requires_grad=True).stop_gradient
    assert x.is_floating_point() and not x.is_complex() and not x.is_integer()
    assert not paddle.is_integer(paddle.to_tensor([True]))     # 3.3.1: bool is no integer
    assert paddle.is_integer(paddle.to_tensor([1], "uint8"))
    assert paddle.is_complex(paddle.to_tensor([1j]))
    assert paddle.is_floating_point(x.half())
    with pytest.raises(TypeError, match="expected Tensor for 'x'"):
        paddle.is_floating_point(np.ones(2))
    assert x.is_same_shape(paddle.ones([2, 2], "int32"))
    assert not x.is_same_shape(paddle.ones([4]))


@pytest.mark.parametrize("shape, kwargs, filled", [
    ([3, 4], {}, [(0, 0), (1, 1), (2, 2)]),
    ([3, 4], {"offset": 1}, [(0, 1), (1, 2), (2, 3)]),
    ([3, 4], {"offset": -1}, [(1, 0), (2, 1)]),
    ([7, 3], {}, [(0, 0), (1, 1), (2, 2)]),
    ([7, 3], {"wrap": True}, [(0, 0), (1, 1), (2, 2), (4, 0), (5, 1), (6, 2)]),
    ([2, 3, 2], {}, [(0, 0, 0), (1, 1, 1)])])       # 3.3.1's, its dims unequal
def test_fill_diagonal_(dygraph, shape, kwargs, filled):
    x = paddle.zeros(shape)
    assert x.fill_diagonal_(5.0, **kwargs) is x
    expected = np.zeros(shape, np.float32)
    for position in filled:
        expected[position] = 5
    np.testing.assert_array_equal(x.numpy(), expected)


def test_fill_diagonal_refuses_1d(dygraph):
    with pytest.raises(ValueError, match="at least 2-D"):
        paddle.zeros([3]).fill_diagonal_(1.0)


def test_fill_diagonal_tensor_values(dygraph):
    y = paddle.to_tensor([1., 2, 3])
    assert paddle.zeros([3, 4]).fill_diagonal_tensor(y).numpy().tolist() == \
        [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0]]
    assert paddle.zeros([3, 4]).fill_diagonal_tensor(y, offset=1).numpy().tolist() == \
        [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]]
    out = paddle.zeros([2, 3, 2]).fill_diagonal_tensor(
        paddle.to_tensor([[1., 2], [3, 4], [5, 6]]), dim1=0, dim2=2)
    assert out.numpy().tolist() == [[[1, 0], [3, 0], [5, 0]], [[0, 2], [0, 4], [0, 6]]]
    x = paddle.zeros([2, 3, 3])
    assert x.fill_diagonal_tensor_(paddle.ones([2, 3]), dim1=1, dim2=2) is x
    np.testing.assert_array_equal(x.numpy(), np.stack([np.eye(3)] * 2))
    with pytest.raises(OpError, match=r"Y '.*' must have shape \[3\]"):
        paddle.zeros([3, 4]).fill_diagonal_tensor(paddle.ones([2]))


def test_fill_diagonal_tensor_gradients(dygraph):
    a = paddle.ones([3, 3])
    a.stop_gradient = False
    b = paddle.to_tensor([1., 2, 3], stop_gradient=False)
    weights = paddle.arange(9, dtype="float32").reshape([3, 3])
    (a.fill_diagonal_tensor(b) * weights).sum().backward()
    np.testing.assert_array_equal(np.asarray(a.grad), np.arange(9).reshape(3, 3) * (1 - np.eye(3)))
    assert b.grad is None           # 3.3.1's grad kernel gives y none


def test_fill_diagonal_static_equals_eager():
    x = static.data("x", [3, 3], "float32")
    y = static.data("y", [3], "float32")
    out = x.fill_diagonal_tensor(y, offset=0)
    with pytest.warns(UserWarning, match="in-place is dygraph-only"):
        filled = x.fill_diagonal_(9.0)
    exe = static.Executor()
    value = np.arange(9, dtype=np.float32).reshape(3, 3)
    got, got_filled = exe.run(feed={"x": value, "y": np.array([7, 8, 9], np.float32)},
                              fetch_list=[out, filled])
    expected = value.copy()
    np.fill_diagonal(expected, [7, 8, 9])
    np.testing.assert_array_equal(got, expected)
    np.fill_diagonal(expected, 9)
    np.testing.assert_array_equal(got_filled, expected)


def test_fill_zero_repeat(dygraph):
    x = paddle.to_tensor([1, 2])
    assert x.fill_(3.7) is x and x.numpy().tolist() == [3, 3]
    assert paddle.to_tensor([1., 2]).zero_().numpy().tolist() == [0, 0]
    with pytest.raises(TypeError, match="must be int or float"):
        x.fill_("a")
    assert paddle.to_tensor([1, 2]).repeat([2, 2]).numpy().tolist() == [[1, 2, 1, 2]] * 2
    assert paddle.to_tensor([1, 2]).repeat(2).numpy().tolist() == [1, 2, 1, 2]


def test_storage_properties(dygraph):
    x = paddle.to_tensor(X)
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad and not x.stop_gradient
    x.requires_grad = False
    assert x.stop_gradient
    assert x.data_ptr() == x._array().ctypes.data
    assert x.is_contiguous() and x.contiguous() is x
    assert x.strides == x.get_strides() == x.stride() == [2, 1] and x.stride(1) == 1
    assert paddle.zeros([2, 3, 4]).strides == [12, 4, 1]
    assert x.itemsize == x.element_size() == 4 and x.double().itemsize == 8
    assert x.device == "cpu" and not x.is_cuda
    assert x.pin_memory().numpy().tolist() == x.numpy().tolist()


def test_to(dygraph):
    x = paddle.to_tensor(X)
    assert x.to("float64").dtype == "float64"
    assert x.to("cpu") is x
    assert x.to(paddle.to_tensor([1], "int32")).numpy().tolist() == [[1, -2], [3, 0]]
    assert x.to("cpu", "int64").dtype == "int64"
    assert x.to(dtype="float16").dtype == "float16"
    with pytest.raises(ValueError, match="device value error"):
        x.to(3.5)


def test_copy_set_resize_detach_apply(dygraph):
    a = paddle.zeros([2, 2])
    assert a.copy_(paddle.to_tensor([1., 2, 3])) is a       # 3.3.1: a takes src's shape
    assert a.shape == [3] and a.numpy().tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match="dtype int32 must be this tensor's, float32"):
        a.copy_(paddle.to_tensor([1], "int32"))
    b = paddle.zeros([2, 2])
    assert b.set_(paddle.to_tensor([1., 2, 3])) is b and b.numpy().tolist() == [1, 2, 3]
    assert paddle.ones([2, 2]).set_().shape == [0]
    assert paddle.to_tensor([1., 2, 3]).resize_([2, 2]).numpy().tolist() == [[1, 2], [3, 0]]
    assert paddle.to_tensor([1., 2, 3]).resize_([2]).numpy().tolist() == [1, 2]
    y = paddle.ones([2])
    y.stop_gradient = False
    z = y * 2
    assert z.detach_() is z and z.stop_gradient
    assert paddle.to_tensor(X).apply(lambda t: t * 2).numpy().tolist() == (X * 2).tolist()
    with pytest.raises(RuntimeError, match="required gradient"):
        y.apply(lambda t: t)
    w = paddle.ones([2])
    assert w.apply_(lambda t: t * 3) is w and w.numpy().tolist() == [3, 3]
    assert paddle.tolist(paddle.to_tensor([[1, 2]])) == [[1, 2]]
    assert paddle.tolist(paddle.to_tensor(3)) == 3


def test_static_variable_methods():
    v = static.data("v", [2, 3], "float32")
    assert v.long().dtype == "int64" and v.is_floating_point() and not v.requires_grad
    out = v.type_as(static.data("w", [1], "float64")) * 2
    got, = static.Executor().run(feed={"v": np.ones((2, 3), np.float32),
                                       "w": np.ones(1)}, fetch_list=[out])
    assert got.dtype == np.float64 and (got == 2).all()
    with pytest.raises(TypeError, match="dygraph-only"):
        v.data_ptr()


def test_fill_of_a_tensor_needing_gradient_passes_none_and_retains(dygraph):
    x = paddle.to_tensor([1., 2, 3], stop_gradient=False)
    y = x * 2
    y.retain_grads()
    y.fill_(1)              # 3.3.1: y stays in the graph; x's gradient zero
    (y * paddle.to_tensor([1., 2, 3])).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(y.grad), [0, 0, 0])   # the retained value's
    assert not y.stop_gradient and y.numpy().tolist() == [1, 1, 1]


def test_storage_changes_reach_the_tensors_sharing_the_storage(dygraph):
    """copy_ / set_ / random_ change the storage itself: a detached tensor of it sees the
    new values (3.3.1: `y = x.detach(); x.copy_(ones)` makes y ones; random_ alike)."""
    x = paddle.zeros([2, 2])
    y = x.detach()
    x.copy_(paddle.ones([2, 2]))
    np.testing.assert_array_equal(y.numpy(), np.ones((2, 2)))
    x.random_(1, 5)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert set(np.unique(x.numpy())) <= {1, 2, 3, 4}
