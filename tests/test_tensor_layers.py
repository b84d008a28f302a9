"""Shape, indexing, creation and random layers: the programs they build compute what numpy
computes; gradients through them match finite differences; random ops honour seeds and
have the right distributions."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework.errors import OpError
from helpers import central_differences

RNG = np.random.RandomState(0)


def _run(fetch, feed=None, program=None):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(program or static.default_main_program(), feed=feed or {},
                   fetch_list=fetch)


def _assert_all(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        assert np.shape(g) == np.shape(w), "output %d: shape %s, want %s" % (
            i, np.shape(g), np.shape(w))
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg="output %d" % i)


def test_reshape_with_tensor_shapes_and_copied_dims():
    x = static.data("x", [None, 6], "float32")
    n = static.data("n", [1], "int32")
    target = static.data("target", [3], "int32")
    a = RNG.rand(4, 6).astype("float32")
    outs = [paddle.reshape(x, [0, 2, 3]), paddle.reshape(x, target),
            paddle.reshape(x, [n, -1]),
            fluid.layers.reshape(x, [-1, 12], actual_shape=target),
            fluid.layers.reshape(x, [2, 12], act="relu")]
    assert tuple(outs[0].shape) == (-1, 2, 3) and len(outs[2].shape) == 2
    got = _run(outs, {"x": a, "n": np.array([8], "int32"),
                      "target": np.array([2, 3, 4], "int32")})
    # actual_shape (the Shape input) wins over the attr, as in Paddle
    _assert_all(got, [a.reshape(4, 2, 3), a.reshape(2, 3, 4), a.reshape(8, 3),
                      a.reshape(2, 3, 4), np.maximum(a.reshape(2, 12), 0)])


def test_reshape_copies_dims_unknown_when_built_beside_an_inferred_one():
    x = static.data("x", [None, None, 2, 3], "float32")
    out = paddle.reshape(x, [0, 0, -1])
    assert tuple(out.shape) == (-1, -1, -1)
    a = RNG.rand(4, 5, 2, 3).astype("float32")
    _assert_all(_run([out], {"x": a}), [a.reshape(4, 5, 6)])


def test_view_layers_fluid_and_paddle_signatures():
    x = static.data("x", [2, 1, 3, 4], "float32")
    a = RNG.rand(2, 1, 3, 4).astype("float32")
    outs = [fluid.layers.transpose(x, perm=[3, 0, 2, 1]), fluid.layers.flatten(x, axis=2),
            paddle.flatten(x, start_axis=1, stop_axis=2), fluid.layers.squeeze(x, axes=[1]),
            paddle.squeeze(x), fluid.layers.unsqueeze(x, axes=[0, -1]),
            paddle.unsqueeze(x, 2)]
    assert [tuple(o.shape) for o in outs] == [(4, 2, 3, 1), (2, 12), (2, 3, 4), (2, 3, 4),
                                              (2, 3, 4), (1, 2, 1, 3, 4, 1), (2, 1, 1, 3, 4)]
    _assert_all(_run(outs, {"x": a}),
                [a.transpose(3, 0, 2, 1), a.reshape(2, 12), a.reshape(2, 3, 4),
                 a[:, 0], a[:, 0], a[None, ..., None], a[:, :, None]])


def test_join_and_split_layers():
    x = static.data("x", [3, 4], "float32")
    y = static.data("y", [3, 2], "float32")
    axis = static.data("axis", [1], "int32")
    a, b = RNG.rand(3, 4).astype("float32"), RNG.rand(3, 2).astype("float32")
    p0, p1 = fluid.layers.split(x, 2)                         # dim=-1 by default
    q = paddle.split(x, [1, -1, 2], axis=1)
    u = fluid.layers.unstack(x, axis=1)
    outs = [paddle.concat([x, y], axis=-1), fluid.layers.concat(input=[x, x]),
            paddle.concat([x, y], axis=axis), p0, p1, q[1], q[2],
            fluid.layers.stack([x, x], axis=-1), u[3],
            fluid.layers.slice(x, axes=[0, 1], starts=[-2, 1], ends=[100, 3]),
            paddle.slice(x, [1], [2], [4])]
    got = _run(outs, {"x": a, "y": b, "axis": np.array([1], "int32")})
    _assert_all(got, [np.hstack([a, b]), np.vstack([a, a]), np.hstack([a, b]), a[:, :2],
                      a[:, 2:], a[:, 1:2], a[:, 2:], np.stack([a, a], -1), a[:, 3],
                      a[1:, 1:3], a[:, 2:4]])
    assert len(u) == 4 and tuple(q[1].shape) == (3, 1)


def test_repeat_and_index_layers():
    x = static.data("x", [3, 2], "float32")
    idx = static.data("idx", [4], "int64")
    upd = static.data("upd", [2, 2], "float32")
    cond = static.data("cond", [3, 2], "bool")
    a, u = RNG.rand(3, 2).astype("float32"), RNG.rand(2, 2).astype("float32")
    i = np.array([2, 0, 2, 1], "int64")
    c = np.array([[True, False], [False, False], [True, True]])
    outs = [fluid.layers.expand(x, [2, 3]), paddle.expand(paddle.unsqueeze(x, 0), [4, 3, 2]),
            paddle.tile(x, [2, 1, 2]), fluid.layers.gather(x, idx),
            paddle.gather(paddle.transpose(x, [1, 0]), idx, axis=1),
            paddle.scatter(x, paddle.slice(idx, [0], [1], [3]), upd),
            paddle.where(cond, x, paddle.zeros_like(x)), fluid.layers.where(cond),
            paddle.where(cond)]
    got = _run(outs, {"x": a, "idx": i, "upd": u, "cond": c})
    scattered = a.copy()
    scattered[[0, 2]] = u
    _assert_all(got, [np.tile(a, (2, 3)), np.broadcast_to(a, (4, 3, 2)), np.tile(a, (2, 1, 2)),
                      a[i], a.T[:, i], scattered, np.where(c, a, 0), np.argwhere(c),
                      np.argwhere(c)])
    assert got[7].dtype == np.int64


def test_sort_search_and_shape_layers():
    x = static.data("x", [3, 4], "float32")
    a = RNG.permutation(12).reshape(3, 4).astype("float32")
    values, indices = fluid.layers.argsort(x, axis=0, descending=True)
    outs = [values, indices, paddle.argsort(x), fluid.layers.argmax(x),
            fluid.layers.argmin(x, axis=1), paddle.argmax(x), paddle.argmin(x, axis=1,
                                                                            keepdim=True),
            paddle.shape(x), paddle.numel(x), fluid.layers.shape(x)]
    got = _run(outs, {"x": a})
    _assert_all(got, [-np.sort(-a, axis=0), np.argsort(-a, axis=0), np.argsort(a),
                      a.argmax(0), a.argmin(1), [a.argmax()], a.argmin(1)[:, None],
                      [3, 4], np.reshape(12, versions.switch("scalar_shape")), [3, 4]])
    assert got[1].dtype == got[3].dtype == got[8].dtype == np.int64
    assert got[7].dtype == np.int32


@pytest.mark.paddle("3")      # 2.0's static paddle.assign takes a Variable or an ndarray only
def test_cast_and_assign():
    x = static.data("x", [2, 3], "float32")
    a = RNG.randn(2, 3).astype("float32")
    out = fluid.layers.create_tensor("float32")
    copied = fluid.layers.assign(x, output=out)
    const = paddle.assign(np.arange(6).reshape(2, 3).astype("int64"))
    floats = paddle.assign([[1.5, 2.5]])
    got = _run([paddle.cast(x, "int32"), fluid.layers.cast(x, "float64"), copied, const,
                floats], {"x": a})
    assert copied is out
    assert got[0].dtype == np.int32 and got[1].dtype == np.float64
    assert got[3].dtype == np.int64 and got[4].dtype == np.float32   # as Paddle: not float64
    _assert_all(got, [a.astype("int32"), a, a, np.arange(6).reshape(2, 3), [[1.5, 2.5]]])


def test_elementwise_of_shapeless_create_tensors_gets_its_shape_when_run():
    # as Paddle 1.8.5's test_square_error_cost: create_tensor declares no shape
    x, y = fluid.layers.create_tensor("float32", "x"), fluid.layers.create_tensor("float32", "y")
    loss = fluid.layers.square_error_cost(input=x, label=y)
    assert loss.shape is None
    a, b = RNG.rand(2, 3).astype("float32"), RNG.rand(2, 3).astype("float32")
    got, = _run([loss], {"x": a, "y": b})
    np.testing.assert_allclose(got, (a - b) ** 2, rtol=1e-6)


def test_constant_creation_layers():
    x = static.data("x", [None, 3], "float32")
    a = RNG.rand(5, 3).astype("float32")
    outs = [paddle.zeros([2, 3]), paddle.ones([2], "int64"), paddle.full([2, 2], 7, "int32"),
            paddle.full_like(x, 2.5), paddle.ones_like(x, "int32"), paddle.zeros_like(x),
            fluid.layers.zeros([3], "float64"), fluid.layers.ones([1, 2], "float32"),
            fluid.layers.ones_like(x), fluid.layers.zeros_like(x),
            fluid.layers.fill_constant([2], "int64", 2 ** 60),
            fluid.layers.fill_constant_batch_size_like(x, [-1, 4], "float32", 1.5),
            fluid.layers.fill_constant_batch_size_like(x, [2, -1], "int32", 3,
                                                       output_dim_idx=1)]
    got = _run(outs, {"x": a})
    _assert_all(got, [np.zeros((2, 3)), np.ones(2), np.full((2, 2), 7), np.full((5, 3), 2.5),
                      np.ones((5, 3)), np.zeros((5, 3)), np.zeros(3), np.ones((1, 2)),
                      np.ones((5, 3)), np.zeros((5, 3)), [2 ** 60] * 2, np.full((5, 4), 1.5),
                      np.full((2, 5), 3)])
    assert got[10].tolist() == [2 ** 60, 2 ** 60]                 # exact, not via float
    assert [g.dtype for g in got[:3]] == [np.float32, np.int64, np.int32]
    assert got[4].dtype == np.int32 and got[12].dtype == np.int32
    assert all(o.stop_gradient for o in outs)


def test_range_layers():
    n = static.data("n", [1], "float32")
    outs = [paddle.arange(5), paddle.arange(1, 2, 0.25), paddle.arange(0, n, 1.5, "float32"),
            fluid.layers.range(10, 0, -3, "int32"), paddle.linspace(0, 1, 5),
            fluid.layers.linspace(-2, 2, 3, "float64"), paddle.linspace(n, 0.0, 4)]
    got = _run(outs, {"n": np.array([6.0], "float32")})
    _assert_all(got, [np.arange(5), np.arange(1, 2, 0.25), np.arange(0, 6, 1.5),
                      np.arange(10, 0, -3), np.linspace(0, 1, 5), [-2, 0, 2],
                      np.linspace(6, 0, 4)])
    assert got[0].dtype == np.int64 and got[3].dtype == np.int32
    assert got[5].dtype == np.float64 and got[6].dtype == np.float32


def test_global_vars_parameters_and_increment():
    counter = fluid.layers.create_global_var([1], 3.0, "int64", persistable=True, name="step")
    w = static.create_parameter([2, 3], "float32", name="w",
                                default_initializer=fluid.initializer.Constant(0.5))
    fluid.layers.increment(counter, value=2.0)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    for expected in (5, 7):
        step, w_value = exe.run(fetch_list=[counter, w])
        assert step.tolist() == [expected] and step.dtype == np.int64
    np.testing.assert_array_equal(w_value, np.full((2, 3), 0.5, "float32"))
    assert counter.persistable and w.persistable and not w.stop_gradient


def test_gather_along_an_axis_given_at_run_time():
    """paddle.gather's Variable axis: the gather op's Axis input (Paddle 2.0); the gradient
    adds dOut back where each slice was read (index 1 twice)."""
    x = static.data("x", [2, 4, 3], "float64")
    x.stop_gradient = False
    idx = static.data("idx", [3], "int32")
    axis = static.data("axis", [1], "int32")
    w = static.data("w", [2, 3, 3], "float64")
    out = paddle.gather(x, idx, axis)
    assert out.shape == (-1, -1, -1)    # the axis, hence which dim changes, is known when run
    loss = paddle.sum(out * w)
    static.append_backward(loss)
    a, weights = RNG.randn(2, 4, 3), RNG.randn(2, 3, 3)
    i = np.array([1, 3, 1], "int32")
    got, grad = _run([out, "x@GRAD"], {"x": a, "idx": i, "axis": np.array([1], "int32"),
                                       "w": weights})
    np.testing.assert_array_equal(got, a[:, i])
    want = np.zeros_like(a)
    want[:, 1] = weights[:, 0] + weights[:, 2]
    want[:, 3] = weights[:, 1]
    np.testing.assert_allclose(grad, want, rtol=1e-12)


@pytest.mark.paddle("2.0")
def test_gather_argument_checks_of_paddle_20():
    """Paddle 2.0's fluid.layers.gather and paddle.gather check x's and index's dtypes and
    the axis' type in static mode (1.8.5's fluid.layers.gather checks nothing)."""
    x8 = static.data("x8", [8, 9], "int8")
    x = static.data("x", [8, 9], "float32")
    index = static.data("index", [8], "int32")
    index_f = static.data("index_f", [8], "float32")
    axis_f = static.data("axis_f", [1], "float32")
    for call in (lambda: fluid.layers.gather(x8, index), lambda: paddle.gather(x8, index),
                 lambda: fluid.layers.gather(x, index_f), lambda: paddle.gather(x, index_f),
                 lambda: paddle.gather(x, index, axis=1.5),
                 lambda: paddle.gather(x, index, axis=axis_f)):
        with pytest.raises(TypeError, match="gather"):
            call()
    assert paddle.gather(x, index, axis=1).shape == (8, 8)


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_gather_index_dtype_is_checked_when_built_or_when_run(paddle_version, version):
    """Paddle 1.8.5 builds a gather of a float64-declared index and checks the fed tensor's
    dtype when the kernel runs: fed int64 it gathers (its test_gather_op's API_TestGather),
    fed float64 it fails ("Index holds the wrong type"). Under 2.0 its layer's check, and
    under 3 refimpl's gather op, refuse that index when built."""
    with paddle_version(version):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = fluid.layers.data("x", shape=[-1, 2], dtype="float64")
            index = fluid.layers.data("index", shape=[-1, 1], dtype="float64")
            if version != "1.8":
                with pytest.raises(TypeError, match="(?i)index.*gather|gather.*index"):
                    fluid.layers.gather(x, index)
                return
            out = fluid.layers.gather(x, index)
        exe = static.Executor()
        a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        got, = exe.run(main, feed={"x": a, "index": np.array([1, 2])}, fetch_list=[out])
        np.testing.assert_array_equal(got, [[3.0, 4.0], [5.0, 6.0]])
        with pytest.raises(OpError, match="gather: Index holds float64"):
            exe.run(main, feed={"x": a, "index": np.array([1.0, 2.0])}, fetch_list=[out])


def test_gradients_through_shape_and_index_layers_match_finite_differences():
    x = static.data("x", [3, 4], "float64")
    x.stop_gradient = False
    idx = static.data("idx", [3], "int64")
    cond = static.data("cond", [4, 3], "bool")
    w = static.data("w", [4, 3], "float64")

    def build(x):
        t = paddle.transpose(paddle.reshape(x, [2, 6]), [1, 0])                # [6, 2]
        parts = paddle.split(t, 3, axis=0)                                      # 3 x [2, 2]
        joined = paddle.concat([parts[2], paddle.slice(t, [0], [1], [3])], 0)   # [4, 2]
        tiled = paddle.tile(paddle.unsqueeze(joined, 1), [1, 3, 1])             # [4, 3, 2]
        picked = paddle.gather(paddle.squeeze(paddle.stack([joined], 0), [0]), idx)  # [3, 2]
        row = paddle.slice(paddle.reshape(paddle.cast(picked, "float32"), [1, 6]), [1], [0], [3])
        mixed = paddle.where(cond, paddle.sum(tiled, axis=2),
                             paddle.cast(paddle.expand(row, [4, 3]), "float64"))
        return paddle.sum(mixed * w)

    loss = build(x)
    static.append_backward(loss)
    a = RNG.randn(3, 4)
    feed = {"idx": np.array([3, 0, 3], "int64"), "cond": RNG.rand(4, 3) > 0.5,
            "w": RNG.randn(4, 3)}

    def numpy_loss(a):
        t = a.reshape(2, 6).T
        joined = np.concatenate([t[4:6], t[1:3]], 0)
        picked = joined[feed["idx"]]    # the float32 round trip's slope is 1
        mixed = np.where(feed["cond"], np.tile(joined[:, None], (1, 3, 1)).sum(2),
                         np.broadcast_to(picked.reshape(1, 6)[:, :3], (4, 3)))
        return (mixed * feed["w"]).sum()

    got_loss, grad = _run([loss, "x@GRAD"], dict(feed, x=a))
    np.testing.assert_allclose(got_loss, numpy_loss(a), rtol=1e-5)
    np.testing.assert_allclose(grad, central_differences(numpy_loss, a), rtol=1e-6, atol=1e-8)


# -- random layers

def test_fixed_seed_gives_the_same_values_every_run():
    u = paddle.uniform([50], min=-2.0, max=3.0, seed=11)
    g = fluid.layers.gaussian_random([50], mean=1.0, std=2.0, seed=11)
    first = _run([u, g])
    second = _run([u, g])
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], _run([paddle.uniform([50], seed=12)])[0][:50])


def test_paddle_seed_resets_the_global_generator():
    outs = [paddle.rand([20]), paddle.randn([20]), paddle.randint(0, 100, [20])]
    paddle.seed(5)
    first = _run(outs)
    later = _run(outs)
    paddle.seed(5)
    again = _run(outs)
    for a, b, c in zip(first, later, again):
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, b)    # seed 0: the stream moves on between runs


def test_random_distributions():
    n = 40000
    paddle.seed(123)
    outs = [paddle.uniform([n], min=-1.0, max=3.0), paddle.normal(2.0, 0.5, [n]),
            paddle.randn([n], "float64"), paddle.randint(-3, 4, [n]),
            fluid.layers.uniform_random([n], "float64", min=0.5, max=0.75, seed=3)]
    u, g, z, r, u2 = _run(outs)
    assert u.dtype == np.float32 and z.dtype == np.float64 and r.dtype == np.int64
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.03
    assert abs(u.std() - 4 / np.sqrt(12)) < 0.03
    assert abs(g.mean() - 2.0) < 0.02 and abs(g.std() - 0.5) < 0.02
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
    assert set(np.unique(r)) == set(range(-3, 4))
    assert u2.min() >= 0.5 and u2.max() < 0.75


def test_normal_with_tensor_mean_and_std():
    # Paddle 2.0: a Tensor mean / std gives the shape and dtype; draw * std + mean
    paddle.seed(7)
    mean = static.data("mean", [-1, 4], "float64")
    std = static.data("std", [8], "float32")       # cast to float64, reshaped to [2, 4]
    both, mean_only, std_only = (paddle.normal(mean, std), paddle.normal(mean, 0.0),
                                 paddle.normal(-3.0, std))
    exe = static.Executor()
    m = np.arange(8, dtype="float64").reshape(2, 4)
    s = np.linspace(0.5, 1.0, 8).astype("float32")
    draws = [exe.run(feed={"mean": m, "std": s}, fetch_list=[both, mean_only, std_only])
             for _ in range(3000)]
    b, mo, so = (np.stack(d) for d in zip(*draws))
    assert b.dtype == np.float64 and b.shape == (3000, 2, 4) and so.shape == (3000, 8)
    np.testing.assert_array_equal(mo, np.broadcast_to(m, mo.shape))   # std 0: the mean
    np.testing.assert_allclose(b.mean(0), m, atol=0.08)
    np.testing.assert_allclose(b.std(0).ravel(), s, rtol=0.08)
    np.testing.assert_allclose(so.mean(0), -3.0, atol=0.08)
    with pytest.raises(TypeError, match="mean must be float32 or float64, got int32"):
        paddle.normal(static.data("im", [3], "int32"))
    with pytest.raises(TypeError, match="std must be a number or a Tensor, got list"):
        paddle.normal(std=[1.0, 2.0])
    with pytest.raises(TypeError, match="the items of shape must be ints, got 1.0"):
        paddle.normal(shape=[1.0])


@pytest.mark.paddle("2.0")     # 3.3.1 cuts at the a / b attrs: switch truncated_normal_bounds
def test_truncated_gaussian_stays_within_two_std():
    block = static.default_main_program().global_block()
    out = block.create_var(name="tg", shape=[50000], dtype="float32")
    block.append_op(type="truncated_gaussian_random", outputs={"Out": [out]},
                    attrs={"shape": [50000], "mean": 1.0, "std": 3.0, "seed": 7})
    v, = _run([out])
    assert np.abs(v - 1.0).max() <= 6.0 + 1e-5
    # a standard normal cut at +-2 has std 0.8796; here scaled by 3
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 3 * 0.8796) < 0.05
    np.testing.assert_array_equal(v, _run([out])[0])


# -- errors

def test_shape_errors_name_the_variable_and_the_shapes():
    x = static.data("x", [2, 3], "float32")
    with pytest.raises(OpError, match=r"cannot reshape X 'x' of shape \[2, 3\]"):
        paddle.reshape(x, [4, 2])
    y = static.data("y", [3, 3], "float32")
    with pytest.raises(OpError, match=r"'y' has shape \[3, 3\], expected dim 0 = 2"):
        paddle.concat([x, y], axis=1)
    with pytest.raises(ValueError, match="not divisible"):
        paddle.split(x, 2, axis=1)
    with pytest.raises(OpError, match="not a permutation"):
        paddle.transpose(x, [0, 0])


def test_allclose_op_takes_its_tolerances_from_rtol_and_atol_inputs():
    # Paddle 2.0's allclose op: one-element float64 inputs Rtol / Atol override the string
    # attrs (its test_allclose_op builds the op with them)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        block = main.global_block()
        x = static.data("x", [3], "float64")
        y = static.data("y", [3], "float64")
        outs = []
        for rtol, atol in ((1e-5, 1e-8), (1e-5, 0.1), (0.5, 1e-8)):
            out = block.create_var(name="out_%d" % len(outs), dtype="bool")
            block.append_op(type="allclose", outputs={"Out": [out]},
                            inputs={"Input": [x], "Other": [y],
                                    "Rtol": [fluid.layers.fill_constant([1], "float64", rtol)],
                                    "Atol": [fluid.layers.fill_constant([1], "float64", atol)]})
            outs.append(out)
    # |x - y| = 0.05 where |y| = 0.2: within atol 0.1, or rtol 0.5 (0.1)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": np.array([1.0, 2.0, 0.25]), "y": np.array([1.0, 2.0, 0.2])},
        fetch_list=outs)
    assert [bool(g) for g in got] == [False, True, True]


def test_allclose_takes_tensor_tolerances(paddle_version):
    # 3.3.1's PIR allclose takes them as Values; refimpl feeds the op's Rtol / Atol
    with paddle_version("3"):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x = static.data("x", [3], "float64")
            y = static.data("y", [3], "float64")
            outs = [paddle.allclose(x, y, fluid.layers.fill_constant([1], "float64", rtol),
                                    fluid.layers.fill_constant([1], "float64", atol))
                    for rtol, atol in ((1e-5, 1e-8), (1e-5, 0.1), (0.5, 1e-8))]
        got = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": np.array([1.0, 2.0, 0.25]), "y": np.array([1.0, 2.0, 0.2])},
            fetch_list=outs)
    assert [bool(g) for g in got] == [False, True, True]
