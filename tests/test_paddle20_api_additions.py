"""Paddle 2.0's op and API additions that its own unittests (test_tile_op, test_top_k_v2_op,
the interp v2 files, test_segment_ops, test_matmul_v2_op, ...) use, and 2.0's argument
checks, against hand-derived and numpy values. Switches: elementwise_api_dtypes,
random_float_dtypes, static_setitem, shape_of_shape_op (specs/versions.md)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.nn import functional as F
from refimpl.ops.registry import get_op_def


def _run(build, feed=None):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        fetch = build()
    exe = static.Executor()
    exe.run(startup)
    return exe.run(main, feed=feed or {}, fetch_list=fetch)


X23 = np.arange(6, dtype="float32").reshape(2, 3)


# -- run-time int inputs
def test_tile_takes_its_times_from_a_tensor_or_a_list_holding_one():
    def build():
        x = fluid.data("x", [2, 3], "float32")
        times = fluid.layers.fill_constant([2], "int32", 2)
        two = fluid.layers.fill_constant([1], "int64", 2)
        return [paddle.tile(x, times), paddle.tile(x, [two, 1]), paddle.tile(x, [3])]
    by_tensor, by_list, by_ints = _run(build, {"x": X23})
    np.testing.assert_array_equal(by_tensor, np.tile(X23, (2, 2)))
    np.testing.assert_array_equal(by_list, np.tile(X23, (2, 1)))
    np.testing.assert_array_equal(by_ints, np.tile(X23, 3))


def test_tile_checks_x():
    with pytest.raises(TypeError, match="tile"):
        paddle.tile(fluid.data("u", [4], "uint8"), [2])
    flag = fluid.data("b", [4], "bool")
    flag.stop_gradient = False
    with pytest.raises(ValueError, match="stop_gradient"):
        paddle.tile(flag, [2])


def test_top_k_v2_reads_k_from_a_tensor():
    x = np.array([[3., 1., 4., 1.5], [9., 2., 6., 5.]], "float32")

    def build():
        k = fluid.layers.fill_constant([1], "int32", 3)
        values, indices = paddle.topk(fluid.data("x", [2, 4], "float32"), k=k)
        return [values, indices]
    values, indices = _run(build, {"x": x})
    np.testing.assert_array_equal(values, [[4., 3., 1.5], [9., 6., 5.]])
    np.testing.assert_array_equal(indices, [[2, 0, 3], [0, 2, 3]])


# -- resizing
def test_interp_v2_size_and_scale_at_run_time():
    x = np.arange(4, dtype="float32").reshape(1, 1, 1, 4)

    def build():
        img = fluid.data("x", [1, 1, 1, 4], "float32")
        size = fluid.layers.fill_constant([2], "int32", 1)
        scale = fluid.layers.fill_constant([1], "float32", 2.0)
        return [F.interpolate(img, size=size, mode="nearest"),
                F.interpolate(img, scale_factor=scale, mode="nearest")]
    shrunk, doubled = _run(build, {"x": x})
    # nearest without align_corners: src = floor(i * in / out); with scale 2 (both axes):
    # floor(i / 2)
    np.testing.assert_array_equal(shrunk, [[[[0.]]]])
    np.testing.assert_array_equal(doubled, [[[[0., 0., 1., 1., 2., 2., 3., 3.]] * 2]])


def test_interp_v2_scale_wins_over_out_sizes_and_takes_uint8():
    op = get_op_def("nearest_interp_v2")
    x = np.arange(4, dtype="uint8").reshape(1, 1, 2, 2)
    out = op.forward(x, None, None, None, out_d=0, out_h=5, out_w=5, scale=[2.0, 2.0],
                     interp_method="nearest", align_corners=False, align_mode=1,
                     data_layout="NCHW")
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out[0, 0], [[0, 0, 1, 1], [0, 0, 1, 1],
                                              [2, 2, 3, 3], [2, 2, 3, 3]])


def test_resize_linear_is_linear_interp():
    x = np.arange(4, dtype="float32").reshape(1, 1, 4)
    out, = _run(lambda: [fluid.layers.resize_linear(fluid.data("x", [1, 1, 4], "float32"),
                                                    out_shape=[7], align_corners=True)],
                {"x": x})
    # align_corners: src = i (4 - 1) / (7 - 1)
    np.testing.assert_allclose(out[0, 0], [0., .5, 1., 1.5, 2., 2.5, 3.])
    with pytest.raises(ValueError, match="data_format"):
        fluid.layers.resize_linear(fluid.data("y", [1, 3, 8], "float32"), out_shape=[4],
                                   data_format="NHWC")


# -- segment_pool
SEGMENT_X = np.array([[1., -2.], [3., 4.], [5., 0.], [-1., 7.], [2., 2.]])
SEGMENT_IDS = np.array([0, 0, 2, 2, 2], "int64")     # segment 1 has no row


@pytest.mark.parametrize("pooltype, expected", [
    ("SUM", [[4., 2.], [0., 0.], [6., 9.]]),
    ("MEAN", [[2., 1.], [0., 0.], [2., 3.]]),
    ("MAX", [[3., 4.], [0., 0.], [5., 7.]]),
    ("MIN", [[1., -2.], [0., 0.], [-1., 0.]]),
])
def test_segment_pool_values(pooltype, expected):
    out, counts = get_op_def("segment_pool").forward(SEGMENT_X, SEGMENT_IDS, pooltype)
    np.testing.assert_allclose(out, expected)
    np.testing.assert_array_equal(counts, [[2.], [0.], [3.]])


def test_segment_pool_gradients():
    op = get_op_def("segment_pool")
    dout = np.array([[1., 10.], [100., 100.], [2., 20.]])
    grads = {}
    for pooltype in ("SUM", "MEAN", "MAX"):
        out, _ = op.forward(SEGMENT_X, SEGMENT_IDS, pooltype)
        grads[pooltype] = op.backward(SEGMENT_X, SEGMENT_IDS, out, dout, pooltype)
    np.testing.assert_allclose(grads["SUM"], dout[SEGMENT_IDS])
    np.testing.assert_allclose(grads["MEAN"], [[.5, 5.], [.5, 5.], [2 / 3, 20 / 3],
                                               [2 / 3, 20 / 3], [2 / 3, 20 / 3]])
    # each segment's maximum gets its gradient
    np.testing.assert_allclose(grads["MAX"], [[0., 0.], [1., 10.], [2., 0.], [0., 20.],
                                              [0., 0.]])


def test_segment_pool_refuses_unsorted_ids():
    with pytest.raises(ValueError, match="sorted"):
        get_op_def("segment_pool").forward(SEGMENT_X, np.array([1, 0, 2, 2, 2]), "SUM")


# -- matmul_v2 promotion
def test_matmul_v2_of_a_real_and_a_complex_operand():
    op = get_op_def("matmul_v2")
    x = np.array([[1., 2.], [3., 4.]])
    y = np.array([[1 + 1j, 0], [2j, 1]])
    np.testing.assert_allclose(op.forward(x, y), x @ y)
    dout = np.ones((2, 2)) + 1j * np.ones((2, 2))
    dx, dy = op.backward(x, y, dout)
    assert dx.dtype == np.float64 and np.iscomplexobj(dy)
    np.testing.assert_allclose(dx, (dout @ np.conj(y).T).real)
    np.testing.assert_allclose(dy, np.conj(x).T @ dout)
    out = paddle.matmul(fluid.data("a", [2, 2], "float64"), fluid.data("b", [2, 2],
                                                                     "complex128"))
    assert out.dtype.name == "complex128"


# -- 2.0's argument checks
def test_inverse_checks_dtype_and_rank():
    for dtype in ("int32", "float16"):
        with pytest.raises(TypeError, match="inverse"):
            paddle.inverse(fluid.data("m_" + dtype, [4, 4], dtype))
    with pytest.raises(ValueError, match="2 dims"):
        paddle.inverse(fluid.data("v", [4], "float32"))
    # a Variable as the name: Paddle joins the name into its outputs' names
    with pytest.raises(TypeError, match="name must be a str"):
        paddle.inverse(fluid.data("m", [4, 4], "float32"), fluid.data("o", [4, 4], "float32"))


def test_label_smooth_epsilon_in_unit_interval():
    with pytest.raises(ValueError, match="epsilon"):
        F.label_smooth(fluid.data("l", [2, 3], "float32"), epsilon=2)


def test_max_min_prod_check_axis_and_dtypes():
    x = fluid.data("x", [2, 3], "float32")
    with pytest.raises(TypeError, match="axis"):
        paddle.max(x, fluid.data("a", [2], "int64"))
    with pytest.raises(TypeError, match="axis"):
        paddle.prod(x, 1.5)
    with pytest.raises(TypeError, match="prod"):
        paddle.prod(fluid.data("b", [2], "bool"))
    with pytest.raises(TypeError, match="prod"):
        paddle.prod(x, dtype="bool")
    with pytest.raises(TypeError, match="min"):
        paddle.min(fluid.data("c", [2], "bool"))
    out, = _run(lambda: [paddle.prod(fluid.data("y", [2, 3], "float32"), axis=1)],
                {"y": X23 + 1})
    np.testing.assert_allclose(out, [6., 120.])


def test_median_axis_and_float_result():
    x = np.arange(8).reshape(2, 4)
    with pytest.raises(ValueError, match="axis"):
        paddle.median(paddle.to_tensor(x), 1.0)
    with pytest.raises(ValueError, match="axis"):
        paddle.median(paddle.to_tensor(x), 2)
    rows, whole = _run(lambda: [paddle.median(fluid.data("x", [2, 4], "int64"), axis=1),
                                paddle.median(fluid.data("z", [2, 4], "int64"))], {"x": x, "z": x})
    assert rows.dtype == np.float32 and whole.shape == versions.switch("scalar_shape")
    np.testing.assert_array_equal(rows, [1.5, 5.5])
    np.testing.assert_array_equal(whole, 3.5)


@pytest.mark.parametrize("version, refused", [("2.0", True), ("3", False)])
def test_elementwise_api_dtypes(paddle_version, version, refused):
    with paddle_version(version):
        x = fluid.data("x", [3], "int8")
        if refused:
            with pytest.raises(TypeError, match="elementwise_mul"):
                paddle.multiply(x, x)
        else:
            assert paddle.multiply(x, x).dtype.name == "int8"
        paddle.disable_static()
        try:
            eager = paddle.to_tensor(np.array([1, 2, 3], "int8"))
            if refused:
                with pytest.raises(RuntimeError, match="kernel"):
                    paddle.multiply(eager, eager)
                with pytest.raises(ValueError, match="Tensor"):
                    paddle.multiply(np.ones(3, "float32"), paddle.to_tensor(np.ones(3, "float32")))
            else:
                assert paddle.multiply(eager, eager).numpy().tolist() == [1, 4, 9]
        finally:
            paddle.enable_static()


@pytest.mark.parametrize("version, drawn", [("2.0", None), ("3", "float16")])
def test_random_float_dtypes(paddle_version, version, drawn):
    with paddle_version(version):
        paddle.disable_static()
        paddle.set_default_dtype("float16")
        try:
            if drawn is None:
                with pytest.raises(TypeError, match=r"uniform/rand only supports \[float32, float64\], but the default dtype is float16"):
                    paddle.rand([2, 3])
            else:
                assert paddle.rand([2, 3]).numpy().dtype == np.float16
        finally:
            paddle.set_default_dtype("float32")
            paddle.enable_static()
        if drawn is None:
            with pytest.raises(TypeError, match=r"received int32 \(the given dtype\)"):
                paddle.rand([2], dtype="int32")


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_static_setitem(paddle_version, version):
    with paddle_version(version):
        def build():
            x = paddle.ones([4, 2], dtype="float32")
            x[0:4:2] = 5.0
            return [x]
        if version == "2.0":
            with pytest.raises(ValueError, match="only support step is 1"):
                _run(build)
            with pytest.raises(TypeError, match="Only support to assign"):
                x = paddle.ones([4], dtype="float32")
                x[0] = [1]
            with pytest.raises(TypeError, match="float16"):
                y = paddle.ones([4], dtype="float16")
                y[0] = 1
        else:
            out, = _run(build)
            np.testing.assert_array_equal(out, [[5, 5], [1, 1], [5, 5], [1, 1]])


def test_set_value_broadcast_mismatch_message():
    with pytest.raises(ValueError, match="Broadcast dimension mismatch"):
        get_op_def("set_value").forward(np.ones((2, 3)), np.ones(5), axes=[0], starts=[0],
                                        ends=[1], steps=[1], decrease_axes=[0])


def test_one_hot_depth_from_a_tensor_and_int_ids_only():
    ids = np.array([[1], [0], [2]], "int64")

    def build():
        depth = fluid.layers.assign(np.array([3], "int32"))
        return [F.one_hot(fluid.data("ids", [3, 1], "int64"), depth)]
    out, = _run(build, {"ids": ids})
    np.testing.assert_array_equal(out[:, 0], np.eye(3)[[1, 0, 2]])
    with pytest.raises(TypeError, match="one_hot"):
        F.one_hot(fluid.data("f", [4], "float32"), 4)


def test_block_create_parameter_takes_shape_and_dtype_positionally():
    main = static.Program()
    with static.program_guard(main):
        w = main.global_block().create_parameter((3, 2), "float32", attr=fluid.ParamAttr())
    assert w.shape == (3, 2) and w.dtype.name == "float32" and w.persistable


@pytest.mark.parametrize("version, shape", [("1.8", (-1, -1)), ("2.0", (-1, 2))])
def test_uniform_random_shape_of_a_shape_op(paddle_version, version, shape):
    with paddle_version(version):
        data = fluid.data("x", [-1, 2], "float32")
        out = fluid.layers.uniform_random(fluid.layers.shape(data))
        assert out.shape == shape


def test_lamb_keeps_paddles_attribute_names():
    opt = paddle.optimizer.Lamb(lamb_weight_decay=0.02,
                                exclude_from_weight_decay_fn=lambda p: True)
    assert opt._lamb_weight_decay == 0.02 and opt._exclude_from_weight_decay_fn(None)
