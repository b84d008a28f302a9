"""Paddle 3's indexing, scatter and shape functions (specs/paddle3_index.md): values
recorded on Paddle 3.3.1 (2026-11-28, s19index) and numpy's, gradients against finite
differences and 3.3.1's, static programs against eager runs, and 3.3.1's errors."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.framework.errors import EnforceNotMet

# the values are 3.3.1's (a gradient is a Tensor there); the names exist in every profile
pytestmark = pytest.mark.paddle("3")

X12 = np.arange(12.).reshape(3, 4)


def t(a, dtype=None, grad=False):
    v = paddle.to_tensor(np.asarray(a, dtype))
    v.stop_gradient = not grad
    return v


def grad(v):
    return np.asarray(v.grad)


def ints(a):
    return paddle.to_tensor(np.asarray(a, "int64"))


def test_take_along_axis_broadcasts_outside_axis_and_takes_negative_indices(dygraph):
    x = t(X12)
    # 3.3.1: indices [[1, 0]] broadcast to every row; without broadcasting, one row
    np.testing.assert_array_equal(paddle.take_along_axis(x, ints([[1, 0]]), 1).numpy(),
                                  [[1, 0], [5, 4], [9, 8]])
    np.testing.assert_array_equal(paddle.take_along_axis(x, ints([[1, 0]]), 1, False).numpy(),
                                  [[1, 0]])
    np.testing.assert_array_equal(x.take_along_axis(ints([[-1], [0], [2]]), 1).numpy(),
                                  [[3], [4], [10]])
    assert paddle.take_along_dim is paddle.take_along_axis
    with pytest.raises(ValueError, match="same number of dimensions"):
        paddle.take_along_axis(x, ints([1]), 1)
    with pytest.raises(IndexError, match="out of range"):
        paddle.take_along_axis(x, ints([[7]]), 1, False)
    with pytest.raises(RuntimeError, match="Size does not match at dimension 1"):
        paddle.take_along_axis(x, ints([[0] * 5]), 0, False)


# 3.3.1's put_along_axis of [[1, 5, 3], [2, 2, 4]] with [[5, 0.5], [2, 7]] at [[1, 1], [0, 0]]
# along axis 1, the loss sum(out * [[1, 2, 3], [4, 5, 6]]): (out, d arr, d values)
PUT_RECORDED = {
    ("assign", True): ([[1, .5, 3], [7, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[0, 2], [0, 4]]),
    ("add", True): ([[1, 10.5, 3], [11, 2, 4]], [[1, 2, 3], [4, 5, 6]], [[2, 2], [4, 4]]),
    ("add", False): ([[1, 5.5, 3], [9, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[2, 2], [4, 4]]),
    ("mul", True): ([[1, 12.5, 3], [28, 2, 4]], [[1, 5, 3], [56, 5, 6]], [[5, 50], [56, 16]]),
    ("mul", False): ([[1, 2.5, 3], [14, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[1, 10], [28, 8]]),
    ("mean", True): ([[1, 3.5, 3], [11 / 3, 2, 4]], [[1, 2 / 3, 3], [4 / 3, 5, 6]],
                     [[2 / 3, 2 / 3], [4 / 3, 4 / 3]]),
    ("mean", False): ([[1, 2.75, 3], [4.5, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[1, 1], [2, 2]]),
    ("amin", True): ([[1, .5, 3], [2, 2, 4]], [[1, 0, 3], [2, 5, 6]], [[0, 2], [2, 0]]),
    # left out, x's own value still takes its share of a tie (3.3.1)
    ("amin", False): ([[1, .5, 3], [2, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[0, 2], [2, 0]]),
    ("amax", True): ([[1, 5, 3], [7, 2, 4]], [[1, 1, 3], [0, 5, 6]], [[1, 0], [0, 4]]),
    ("amax", False): ([[1, 5, 3], [7, 2, 4]], [[1, 0, 3], [0, 5, 6]], [[1, 0], [0, 4]]),
}


@pytest.mark.parametrize("reduce,include_self", sorted(PUT_RECORDED))
def test_put_along_axis_values_and_gradients_are_3_3_1s(dygraph, reduce, include_self):
    arr = t([[1., 5., 3.], [2., 2., 4.]], "float64", grad=True)
    values = t([[5., .5], [2., 7.]], "float64", grad=True)
    out = paddle.put_along_axis(arr, ints([[1, 1], [0, 0]]), values, 1, reduce, include_self,
                                broadcast=False)
    (out * t([[1., 2., 3.], [4., 5., 6.]], "float64")).sum().backward()
    want_out, want_darr, want_dvalues = PUT_RECORDED[reduce, include_self]
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-12)
    np.testing.assert_allclose(grad(arr), want_darr, rtol=1e-12)
    np.testing.assert_allclose(grad(values), want_dvalues, rtol=1e-12)


def test_put_along_axis_scalars_ints_and_the_torch_forms(dygraph):
    x = t(X12)
    np.testing.assert_array_equal(
        paddle.put_along_axis(x, ints([[1], [0], [2]]), 99., 1).numpy(),
        [[0, 99, 2, 3], [99, 5, 6, 7], [8, 9, 99, 11]])
    # an integer mean truncates (3.3.1)
    np.testing.assert_array_equal(paddle.put_along_axis(
        ints([[1, 2], [3, 4]]), ints([[0], [1]]), ints([[7], [8]]), 1, "mean").numpy(),
        [[4, 2], [3, 6]])
    np.testing.assert_array_equal(
        paddle.scatter_add(x, 1, ints([[1, 1]]), t([[1., 2.]], "float64")).numpy()[0],
        [0, 4, 2, 3])
    np.testing.assert_array_equal(paddle.scatter_reduce(
        x, 1, ints([[1, 1]]), t([[1., 2.]], "float64"), "mean", include_self=False).numpy()[0],
        [0, 1.5, 2, 3])
    np.testing.assert_array_equal(paddle.scatter_reduce(
        x, 0, ints([[1, 1]]), t([[3., 2.]], "float64"), "prod").numpy()[1], [12, 10, 6, 7])
    y = x.clone()
    y.put_along_axis_(ints([[0]]), 0., 0)
    np.testing.assert_array_equal(y.numpy()[0], [0, 0, 0, 0])
    with pytest.raises(ValueError, match="reduce must be one of"):
        paddle.put_along_axis(x, ints([[1]]), 9., 1, reduce="max")


def test_take_index_add_index_put_and_the_masks(dygraph):
    x = t(X12)
    np.testing.assert_array_equal(paddle.take(x, ints([[0, -1], [5, 11]])).numpy(),
                                  [[0, 11], [5, 11]])
    np.testing.assert_array_equal(paddle.take(x, ints([13, -13]), mode="wrap").numpy(), [1, 11])
    np.testing.assert_array_equal(paddle.take(x, ints([13, -13]), mode="clip").numpy(), [11, 0])
    with pytest.raises(ValueError, match="'mode' in 'take'"):
        paddle.take(x, ints([0]), mode="drop")
    np.testing.assert_array_equal(
        paddle.index_add(x, ints([0, 0, 2]), 0, t(np.ones((3, 4))), alpha=2).numpy(),
        X12 + [[4], [0], [2]])
    np.testing.assert_array_equal(paddle.index_put(
        x, (ints([0, 0]), ints([1, 1])), t([5., 6.], "float64"), True).numpy()[0], [0, 12, 2, 3])
    np.testing.assert_array_equal(paddle.index_put(
        x, (paddle.to_tensor([True, False, True]),), t([5.], "float64")).numpy()[:, 0], [5, 4, 5])
    np.testing.assert_array_equal(
        paddle.masked_fill(x, paddle.to_tensor([True, False, False, True]), 2.5).numpy()[0],
        [2.5, 1, 2, 2.5])
    np.testing.assert_array_equal(paddle.masked_fill(ints([1, 2]), paddle.to_tensor(
        [True, False]), 2.7).numpy(), [2, 2])          # the value cast to x's dtype
    np.testing.assert_array_equal(paddle.masked_scatter(
        x, paddle.to_tensor([True, False, False, True]), t(np.arange(100, 112.))).numpy()[1],
        [102, 5, 6, 103])
    with pytest.raises(ValueError, match="mask true nums must be <= value size"):
        paddle.masked_scatter(x, paddle.to_tensor([True, False, False, True]), t([1., 2.]))
    np.testing.assert_array_equal(paddle.index_fill(x, ints([0, 2]), 1, -1.).numpy()[0],
                                  [-1, 1, -1, 3])
    y = x.clone()
    y.index_add_(ints([1]), 0, t(np.ones((1, 4))))
    np.testing.assert_array_equal(y.numpy()[1], [5, 6, 7, 8])


def test_scatters_of_a_region(dygraph):
    x = t(X12)
    np.testing.assert_array_equal(
        paddle.select_scatter(x, t([7., 8., 9.], "float64"), 1, -1).numpy()[:, 3], [7, 8, 9])
    np.testing.assert_array_equal(
        paddle.slice_scatter(x, paddle.zeros([3, 2], "float64"), [1], [0], [4], [2]).numpy()[0],
        [0, 1, 0, 3])
    out = paddle.diagonal_scatter(x, t([-1., -2., -3.], "float64"), 1)
    np.testing.assert_array_equal(np.diagonal(out.numpy(), 1), [-1, -2, -3])
    np.testing.assert_array_equal(out.numpy()[0, [0, 2, 3]], [0, 2, 3])
    with pytest.raises(RuntimeError, match="expected values to have a size equal"):
        paddle.select_scatter(x, t([1., 2.]), 1, 0)
    with pytest.raises(AssertionError, match="the y shape should be"):
        paddle.diagonal_scatter(x, t([1.], "float64"))


def test_gradients_of_composed_writes_match_finite_differences(dygraph):
    rng = np.random.RandomState(0)
    base, plane = rng.rand(2, 3, 4), rng.rand(2, 3)

    def diagonal_scatter_loss(a, b):
        out = paddle.diagonal_scatter(a, b, 0, 1, 2)
        return (out * out).sum()

    for f, args in ((diagonal_scatter_loss, (base, plane)),
                    (lambda a: (paddle.rot90(a, 1, [1, 2]) ** 2 * 3).sum(), (base,)),
                    (lambda a: (paddle.unfold(a, 2, 2, 1) ** 2).sum(), (base,)),
                    (lambda a: (paddle.repeat_interleave(a, ints([1, 0, 2]), 1) ** 2).sum(),
                     (base,))):
        tensors = [t(a, "float64", grad=True) for a in args]
        f(*tensors).backward()
        for i, a in enumerate(args):
            numeric = np.zeros_like(a)
            for k in np.ndindex(a.shape):
                shifted = [np.array(v) for v in args]
                shifted[i][k] += 1e-6
                up = f(*[t(v, "float64") for v in shifted]).numpy()
                shifted[i][k] -= 2e-6
                down = f(*[t(v, "float64") for v in shifted]).numpy()
                numeric[k] = (up - down) / 2e-6
            np.testing.assert_allclose(grad(tensors[i]), numeric, rtol=1e-5, atol=1e-6)


def test_splits_stacks_and_atleast_follow_numpy(dygraph):
    v = t(np.arange(7.), "float32")
    x = t(np.arange(24.).reshape(2, 3, 4), "float32")
    for got, want in ((paddle.tensor_split(v, 3), np.array_split(np.arange(7.), 3)),
                      (paddle.tensor_split(v, [-2, 1]), [np.arange(5.), [], np.arange(1., 7)]),
                      (paddle.hsplit(x, 3), np.hsplit(x.numpy(), 3)),
                      (paddle.dsplit(x, [1]), np.dsplit(x.numpy(), [1])),
                      (v.split_with_sizes([3, 4]), np.split(np.arange(7.), [3]))):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError, match="dimension must be greater than 1"):
        paddle.vsplit(v, 2)
    a, b, s = t([1., 2.], "float32"), t([3., 4.], "float32"), paddle.to_tensor(5.)
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        np.testing.assert_array_equal(getattr(paddle, name)([a, b]).numpy(),
                                      getattr(np, name)([a.numpy(), b.numpy()]))
    np.testing.assert_array_equal(paddle.hstack([s, a]).numpy(), [5, 1, 2])
    assert paddle.atleast_1d(s).shape == [1]
    assert [o.shape for o in paddle.atleast_2d(s, a)] == [[1, 1], [1, 2]]
    assert paddle.atleast_3d(a).shape == [1, 2, 1]
    np.testing.assert_array_equal(paddle.cat([a, b]).numpy(), paddle.concatenate([a, b]).numpy())


def test_axes_views_and_rotations_follow_numpy(dygraph):
    xn = np.arange(24.).reshape(2, 3, 4)
    x = t(xn)
    np.testing.assert_array_equal(paddle.moveaxis(x, [0, 2], [2, 0]).numpy(),
                                  np.moveaxis(xn, [0, 2], [2, 0]))
    np.testing.assert_array_equal(paddle.swapaxes(x, 0, 2).numpy(), np.swapaxes(xn, 0, 2))
    np.testing.assert_array_equal(x.permute(2, 0, 1).numpy(), xn.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.mT.numpy(), np.swapaxes(xn, -1, -2))
    assert paddle.unflatten(x, -1, [2, -1]).shape == [2, 3, 2, 2]
    assert paddle.nn.Unflatten(1, [3, 1])(x).shape == [2, 3, 1, 4]
    np.testing.assert_array_equal(paddle.narrow(x, -1, -2, 2).numpy(), xn[..., -2:])
    np.testing.assert_array_equal(paddle.ravel(x).numpy(), xn.ravel())
    assert x.view([4, 6]).shape == [4, 6] and x.view_as(paddle.ones([6, 4])).shape == [6, 4]
    np.testing.assert_array_equal(paddle.unfold(t(np.arange(7.)), 0, 3, 2).numpy(),
                                  [[0, 1, 2], [2, 3, 4], [4, 5, 6]])
    np.testing.assert_array_equal(paddle.as_strided(x, [3, 2], [4, 1], 1).numpy(),
                                  np.lib.stride_tricks.as_strided(
                                      xn.ravel()[1:], (3, 2), (32, 8)))
    for k in (-1, 1, 2, 3, 4):
        np.testing.assert_array_equal(paddle.rot90(x, k, [1, 2]).numpy(),
                                      np.rot90(xn, k, (1, 2)))
    with pytest.raises(ValueError, match="Each element of 'source' must be unique"):
        paddle.moveaxis(x, [0, 0], [1, 2])
    with pytest.raises(ValueError, match="exceeds dimension size"):
        paddle.narrow(x, 2, 3, 2)
    xf = t(np.arange(8).reshape(2, 4), "float32", grad=True)
    np.testing.assert_array_equal(xf.view("int32").numpy()[0],
                                  [0, 1065353216, 1073741824, 1077936128])
    assert xf.view("int8").shape == [2, 16] and xf.view("float64").shape == [2, 2]
    xf.view("float64").sum().backward()
    # 3.3.1: dOut's bytes (float64 ones) read as float32 pairs [0, 1.875]
    np.testing.assert_array_equal(grad(xf), [[0, 1.875, 0, 1.875]] * 2)
    with pytest.raises(EnforceNotMet, match="cannot hold whole float64"):
        paddle.view(paddle.ones([3]), "float64")


def test_in_place_forms_change_the_tensor(dygraph):
    x = paddle.ones([3, 3])
    assert x.tril_(-1) is x
    np.testing.assert_array_equal(x.numpy(), np.tril(np.ones((3, 3)), -1))
    y = paddle.ones([2, 3, 4])
    y.transpose_([2, 0, 1])
    assert y.shape == [4, 2, 3]
    y.flatten_(1)
    assert y.shape == [4, 6]
    a = t([1., 2.])
    paddle.where_(paddle.to_tensor([True, False]), a, t([3., 4.]))
    np.testing.assert_array_equal(a.numpy(), [1, 4])
    with pytest.raises(ValueError, match="boolean Tensor"):
        a.where_(a, a)
    with pytest.raises(ValueError, match="either both or neither of x and y"):
        paddle.where_(paddle.to_tensor([True, False]), 1, 2)


def test_matrices_built_from_pieces(dygraph):
    a = t([1., 2.], "float32")
    np.testing.assert_array_equal(paddle.diagonal(t(np.arange(24.).reshape(2, 3, 4)), 1, 1, 2)
                                  .numpy(), [[1, 6, 11], [13, 18, 23]])
    np.testing.assert_array_equal(paddle.diag_embed(a, 1).numpy(), np.diag([1., 2.], 1))
    np.testing.assert_array_equal(paddle.diagflat(paddle.ones([2, 2]), -1).numpy(),
                                  np.diagflat(np.ones(4), -1))
    np.testing.assert_array_equal(paddle.block_diag(
        [paddle.ones([1, 2]), t([[3.], [4.]], "float32"), paddle.to_tensor(7.)]).numpy(),
        [[1, 1, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 7]])
    np.testing.assert_array_equal(paddle.tril_indices(4, 3, -1).numpy(),
                                  np.stack(np.tril_indices(4, -1, 3)))
    got = paddle.triu_indices(2, 3, 0, "int32")
    assert got.dtype == paddle.int32
    np.testing.assert_array_equal(got.numpy(), np.stack(np.triu_indices(2, 0, 3)))
    np.testing.assert_array_equal(paddle.vander(ints([1, 2, 3]), 4, True).numpy(),
                                  np.vander([1, 2, 3], 4, True))
    assert paddle.vander(a, 0).shape == [2, 0]
    np.testing.assert_array_equal(paddle.combinations(t([1., 2., 3.]), 2, True).numpy(),
                                  [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]])
    assert paddle.combinations(t([1., 2., 3.]), 4).shape == [0, 4]
    np.testing.assert_array_equal(paddle.cartesian_prod([ints([1, 2]), ints([3, 4, 5])]).numpy(),
                                  [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]])
    outs = paddle.broadcast_tensors([a, paddle.ones([3, 1])])
    assert [o.shape for o in outs] == [[3, 2], [3, 2]]
    assert paddle.broadcast_shapes([2, 1], [3], [1, 1, 1]) == [1, 2, 3]
    with pytest.raises(TypeError, match="broadcast_tensors"):
        paddle.broadcast_tensors([a, ints([1, 2])])
    with pytest.raises(TypeError, match="row should be a non-negative int"):
        paddle.tril_indices(-1, 3)
    np.testing.assert_array_equal(paddle.repeat_interleave(
        t([[1., 2.], [3., 4.]]), ints([2, 1]), 1).numpy(), [[1, 1, 2], [3, 3, 4]])
    with pytest.raises(EnforceNotMet, match="RepeatsTensor has 2 counts"):
        paddle.repeat_interleave(t(X12), ints([1, 0]), 0)


def test_a_static_program_computes_what_eager_mode_does():
    """The composed functions and the new ops in a static program (executor) against the
    same calls run eagerly."""
    xn = np.random.RandomState(1).rand(3, 4)

    def compute(x):
        return [paddle.take_along_axis(x, ints([[0, 3]]), 1),
                paddle.put_along_axis(x, ints([[1], [2], [0]]), 5., 1, "add"),
                paddle.index_put(x, (ints([0, 2]),), paddle.full([4], 2., "float64")),
                paddle.masked_fill(x, x > 0.5, -1.),
                paddle.diagonal_scatter(x, paddle.zeros([3], "float64"), 1),
                paddle.rot90(x), paddle.moveaxis(x, 0, 1), paddle.tensor_split(x, 3, 1)[1],
                paddle.repeat_interleave(x, 2, 0), paddle.diagonal(x, -1),
                paddle.unfold(x, 1, 2, 2), paddle.combinations(paddle.flatten(x)[:3]),
                paddle.tril_indices(3, 4)]

    paddle.disable_static()
    try:
        eager = [v.numpy() for v in compute(t(xn))]
    finally:
        paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 4], "float64")
        fetched = paddle.static.Executor().run(main, feed={"x": xn}, fetch_list=compute(x))
    for e, s in zip(eager, fetched):
        np.testing.assert_allclose(s, e, rtol=1e-12)
