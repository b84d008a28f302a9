"""The version profiles (refimpl.versions): each switch against the values real Paddle gave.
1.8: measured with Paddle 1.8.5; 3: with Paddle 3.3.1; 2.0: Paddle 2.0.0's source (no 2.0
build here). specs/versions.md lists the switches."""
import os
import subprocess
import sys

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework.errors import DygraphOnlyError


def _run(build, feed=None, return_numpy=True):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        fetch = build()
    scope = static.Scope() if hasattr(static, "Scope") else fluid.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    return (exe.run(main, feed=feed or {}, fetch_list=fetch, scope=scope,
                    return_numpy=return_numpy), main, startup)


def test_profile_is_read_from_the_environment_and_validated():
    code = "import refimpl.versions as v; print(v.current())"
    env = dict(os.environ, REFIMPL_PADDLE="1.8")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == "1.8"
    env["REFIMPL_PADDLE"] = "1.7"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode != 0 and "REFIMPL_PADDLE" in bad.stderr and "1.8, 2.0, 3" in bad.stderr
    assert versions.DEFAULT == "2.0"


def test_paddle_version_is_the_profile_release_even_when_chosen_after_import(tmp_path):
    """paddle.__version__ and paddle.version.full_version are Paddle's release strings
    (scripts gate features on them), following `run --paddle` chosen after refimpl's import."""
    script = tmp_path / "show_version.py"
    script.write_text("import paddle\nprint(paddle.__version__, paddle.version.full_version,"
                      " paddle.version.major)\n")
    for flag, release in (("1.8", "1.8.5 1.8.5 1"), ("2.0", "2.0.0 2.0.0 2"),
                          ("3", "3.3.1 3.3.1 3")):
        out = subprocess.run([sys.executable, "-m", "refimpl", "run", "--paddle", flag,
                              str(script)], capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == release, out.stderr


def test_use_switches_and_restores(paddle_version):
    before = versions.current()
    with paddle_version("3"):
        assert versions.current() == "3" and versions.switch("scalar_shape") == ()
    assert versions.current() == before
    with pytest.raises(ValueError, match="one of 1.8, 2.0, 3"):
        with paddle_version("4"):
            pass
    with pytest.raises(KeyError, match="no version switch"):
        versions.switch("no_such_behaviour")


@pytest.mark.parametrize("version, shape", [("1.8", (1,)), ("2.0", (1,)), ("3", ())])
def test_one_number_results(paddle_version, version, shape):
    # Paddle 1.8.5: mean, reduce_sum, reduce_max, accuracy, is_empty, kldiv_loss's mean all
    # [1]; 3.3.1: all 0-D
    with paddle_version(version):
        def build():
            x = fluid.data("x", [2, 3], "float32")
            p = fluid.data("p", [4, 3], "float32")
            label = fluid.data("l", [4, 1], "int64")
            return [fluid.layers.mean(x), fluid.layers.reduce_sum(x),
                    fluid.layers.reduce_max(x), fluid.layers.accuracy(p, label),
                    fluid.layers.is_empty(x),
                    fluid.layers.kldiv_loss(x, fluid.layers.ones_like(x), "mean")]
        out, _, _ = _run(build, {"x": np.arange(6, dtype="float32").reshape(2, 3),
                                 "p": np.eye(4, 3, dtype="float32"),
                                 "l": np.array([[0], [1], [2], [0]], "int64")})
        assert [o.shape for o in out] == [shape] * 6
        # kldiv_loss: mean of 1 * (log 1 - x)
        np.testing.assert_allclose([float(o.reshape(-1)[0]) for o in out],
                                   [2.5, 15, 5, 1.0, 0, -2.5])
        # the everyday 1.8 idiom, and float() of the [1] loss as numpy 1.x allowed
        assert out[0].reshape(-1)[0] == 2.5 and float(out[0]) == 2.5 and "%.1f" % out[0] == "2.5"


@pytest.mark.paddle("2.0")     # a [1] fetch converting to a number: size1_arrays_are_scalars
def test_fetched_arrays_keep_numpy_behaviour():
    out, _, _ = _run(lambda: [fluid.layers.mean(fluid.data("x", [2], "float32"))],
                     {"x": np.array([1, 2], "float32")})
    loss = out[0]
    assert isinstance(loss, np.ndarray) and repr(loss) == "array([1.5], dtype=float32)"
    assert float(loss * 2) == 3.0 and loss[0] == 1.5


def test_one_element_parts_of_fetched_arrays_convert_as_in_numpy_1(dygraph, paddle_version):
    # PaddleVideo 2.0's MultiCropMetric: int(clip_ids[ind]) of a [N, 1] clip-id batch
    with paddle_version("2.0"):
        ids = paddle.to_tensor(np.array([[3], [5]], "int64")).numpy()
        assert int(ids[1]) == 5 and float(ids[0]) == 3.0 and "%d" % ids[1] == "5"
        with pytest.raises(TypeError, match=r"only size-1 arrays .* shape \[2, 1\]"):
            int(ids)
        assert type(np.asarray(ids)) is np.ndarray and ids.tolist() == [[3], [5]]
    with paddle_version("3"):       # numpy 2's rule under the 3 profile
        ids = paddle.to_tensor(np.array([[3], [5]], "int64")).numpy()
        assert type(ids) is np.ndarray
        if np.lib.NumpyVersion(np.__version__) >= "2.4.0":
            with pytest.raises(TypeError):
                int(ids[1])


@pytest.mark.paddle("2.0")     # the [1] fetch's subclass: size1_arrays_are_scalars
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_fetched_arrays_pickle_as_plain_arrays(protocol):
    """PaddleGAN pickles `tensor.numpy()` of its state dicts itself: the file must hold plain
    ndarrays (Paddle's numpy() gives them), which paddle.load's restricted unpickler reads."""
    import io
    import pickle
    out, _, _ = _run(lambda: [fluid.layers.mean(fluid.data("x", [2], "float32"))],
                     {"x": np.array([1, 2], "float32")})
    assert type(out[0]) is not np.ndarray     # (the one-element fetch is the shim's subclass)
    data = pickle.dumps({"w": out[0]}, protocol=protocol)
    assert b"refimpl" not in data
    back = pickle.loads(data)["w"]
    assert type(back) is np.ndarray and back.tolist() == [1.5]
    assert paddle.load(io.BytesIO(pickle.dumps({"w": out[0]}, protocol=2)))["w"].tolist() \
        == [1.5]


@pytest.mark.parametrize("version, shape", [("1.8", (3, 1)), ("2.0", (3, 1)), ("3", (3,))])
def test_dot_of_matrices(paddle_version, version, shape):
    """Paddle 2.0.0's dot_op.cc keeps the last dim as 1; Paddle 3.3.1 gives [3]."""
    with paddle_version(version):
        def build():
            x = fluid.data("x", [3, 4], "float32")
            return [paddle.dot(x, x)]
        x = np.arange(12, dtype="float32").reshape(3, 4)
        out, _, _ = _run(build, {"x": x})
        np.testing.assert_allclose(out[0], (x * x).sum(1).reshape(shape))


@pytest.mark.parametrize("version, w", [("1.8", -3.15228862746153e-05),
                                        ("3", -0.0009090908570215106)])


def test_adam_epsilon(paddle_version, version, w):
    """One Adam step, lr 0.01, w = 0, gradient 1e-9 (values from Paddle 1.8.5 / 3.3.1)."""
    with paddle_version(version):
        def build():
            p = fluid.layers.create_parameter([1], "float32",
                                              default_initializer=fluid.initializer.Constant(0.0))
            fluid.optimizer.Adam(0.01).minimize(fluid.layers.reduce_sum(p * 1e-9))
            return [p]
        out, _, _ = _run(build)
        np.testing.assert_allclose(out[0], [w], rtol=1e-5)


@pytest.mark.parametrize("version, w", [("1.8", -9.999686199080315e-07),
                                        ("3", -9.990009857574478e-06)])


def test_lamb_bias_correction(paddle_version, version, w):
    with paddle_version(version):
        def build():
            p = fluid.layers.create_parameter([1], "float32",
                                              default_initializer=fluid.initializer.Constant(0.0))
            fluid.optimizer.Lamb(0.01, lamb_weight_decay=0.0).minimize(
                fluid.layers.reduce_sum(p * 1e-9))
            return [p]
        out, _, _ = _run(build)
        np.testing.assert_allclose(out[0], [w], rtol=1e-5)


@pytest.mark.parametrize("version, want", [
    ("2.0", [0.4994090795516968, -0.2504363059997559]),     # the op without a learning rate
    ("3", [0.4999409019947052, -0.2500436305999756])])      # 3.3.1 (measured): lr 0.1 scales
def test_adadelta_learning_rate(paddle_version, version, want):
    with paddle_version(version):
        paddle.disable_static()
        w = paddle.create_parameter([2], "float32", default_initializer=paddle.nn.initializer
                                    .Assign(np.array([0.5, -0.25])))
        opt = paddle.optimizer.Adadelta(learning_rate=0.1, rho=0.9, parameters=[w])
        for xt in ([0.3, -0.7], [-0.2, 0.9]):
            (w * paddle.to_tensor(np.array(xt, "float32"))).sum().backward()
            opt.step()
            opt.clear_grad()
        np.testing.assert_allclose(w.numpy(), want, rtol=1e-5)


@pytest.mark.parametrize("version, adapts", [("1.8", True), ("2.0", True), ("3", False)])
def test_lamb_trust_ratio_without_weight_decay(paddle_version, version, adapts):
    # 3.3.1 (measured with _C_ops.lamb_, tests/test_c_ops.py) scales by ||p|| / ||update||
    # only with a weight decay or always_adapt; 1.8.5 and 2.0's lamb_op.h always
    from refimpl.ops.registry import get_op_def
    forward = get_op_def("lamb").forward

    def step(always_adapt):
        param = np.array([3.0, 4.0], "float32")
        forward(param, np.array([1.0, 1.0], "float32"), np.array([0.1], "float32"),
                np.zeros(2, "float32"), np.zeros(2, "float32"), np.array([0.9], "float32"),
                np.array([0.999], "float32"), weight_decay=0.0, always_adapt=always_adapt)
        return param
    with paddle_version(version):
        # the update is ~[1, 1]: the ratio 5 / sqrt(2) multiplies the step of 0.1
        np.testing.assert_allclose(step(False), [3 - 0.35355, 4 - 0.35355] if adapts else
                                   [2.9, 3.9], rtol=1e-4)
        np.testing.assert_allclose(step(True), [3 - 0.35355, 4 - 0.35355], rtol=1e-4)


@pytest.mark.parametrize("version, mod, floordiv", [
    ("1.8", [1, -1, 1, -1], [2, -2, -2, 2]),          # Paddle 1.8.5
    ("2.0", [1, 2, -2, -1], [2, -2, -2, 2]),          # 2.0.0's kernels
    ("3", [1, 2, -2, -1], [2, -3, -3, 2])])           # Paddle 3.3.1


def test_integer_division_signs(paddle_version, version, mod, floordiv):
    with paddle_version(version):
        def build():
            a, b = fluid.data("a", [4], "int64"), fluid.data("b", [4], "int64")
            return [fluid.layers.elementwise_mod(a, b), fluid.layers.elementwise_floordiv(a, b),
                    fluid.layers.elementwise_div(a, b), paddle.divide(a, b)]
        out, _, _ = _run(build, {"a": np.array([7, -7, 7, -7]), "b": np.array([3, 3, -3, -3])})
        assert out[0].tolist() == mod and out[1].tolist() == floordiv
        # the op divides integers toward zero in every version (1.8.5 and 3.3.1 measured)
        assert out[2].dtype == np.int64 and out[2].tolist() == [2, -2, -2, 2]
        if version == "3":      # Paddle 3.3.1's paddle.divide: true division in float32
            assert out[3].dtype == np.float32
            np.testing.assert_allclose(out[3], [7 / 3, -7 / 3, -7 / 3, 7 / 3], rtol=1e-6)
        else:
            assert out[3].tolist() == [2, -2, -2, 2]


def test_operator_operand_cast(paddle_version):
    """Paddle 1.8.5: `a / b` and `b * a` on a float32 and an int64 Variable cast the other
    operand to the dtype of the one whose operator runs ([0.5, 0.5, 0.6] float32 and
    [2, 8, 15] int64 measured); Paddle 3.3.1 raises a TypeError, refimpl's op refuses."""
    feed = {"a": np.array([1.0, 2.0, 3.0], "float32"), "b": np.array([2, 4, 5], "int64")}
    with paddle_version("1.8"):
        def build():
            a, b = fluid.data("a", [3], "float32"), fluid.data("b", [3], "int64")
            return [a / b, b * a]
        (div, mul), _, _ = _run(build, feed)
        assert div.dtype == np.float32 and mul.dtype == np.int64
        np.testing.assert_allclose(div, [0.5, 0.5, 0.6], rtol=1e-6)
        assert mul.tolist() == [2, 8, 15]
    with paddle_version("3"):
        a, b = fluid.data("a3", [3], "float32"), fluid.data("b3", [3], "int64")
        with pytest.raises(Exception, match="same dtype"):
            a / b


@pytest.mark.parametrize("version", ["1.8", "3"])
def test_matmul_transposed_vector(paddle_version, version):
    """matmul (v1) with a transposed 1-D X: Paddle 1.8.5 reads it as a column [3, 1] (its
    test_matmul_op's reference); Paddle 3.3.1 ignores the transpose (and refuses [3] x
    [1, 4])."""
    with paddle_version(version):
        def build():
            x, y = fluid.data("x", [3], "float32"), fluid.data("y", [1, 4], "float32")
            return [fluid.layers.matmul(x, y, transpose_x=True)]
        if version == "3":
            with pytest.raises(ValueError, match="inner dims 3 and 1 differ"):
                _run(build)
            return
        x, y = np.arange(3, dtype="float32"), np.arange(4, dtype="float32").reshape(1, 4)
        out, _, _ = _run(build, {"x": x, "y": y})
        np.testing.assert_allclose(out[0], x.reshape(3, 1) @ y)


@pytest.mark.parametrize("version, edge", [("1.8", 0.5), ("2.0", 1.0), ("3", 1.0)])
def test_avg_pool_ceil_mode_divisor(paddle_version, version, edge):
    """5x5 ones, k 2, s 2, ceil_mode, exclusive=False: Paddle 1.8.5 divides the clipped
    edge windows by 4 (the kernel), 3.3.1 by the cells inside the input. pool3d alike
    (5x5x5 ones, 1.8.5 measured: its last plane 0.5, 0.25 on the edges, 0.125 the corner)."""
    with paddle_version(version):
        def build():
            x = fluid.data("x", [1, 1, 5, 5], "float32")
            x3 = fluid.data("x3", [1, 1, 5, 5, 5], "float32")
            return [fluid.layers.pool2d(x, 2, "avg", 2, 0, ceil_mode=True, exclusive=False),
                    fluid.layers.pool3d(x3, 2, "avg", 2, 0, ceil_mode=True,
                                        exclusive=False)]
        out, _, _ = _run(build, {"x": np.ones((1, 1, 5, 5), "float32"),
                                 "x3": np.ones((1, 1, 5, 5, 5), "float32")})
        want = np.ones((3, 3))
        want[2, :2] = want[:2, 2] = edge
        want[2, 2] = edge * edge
        np.testing.assert_allclose(out[0][0, 0], want)
        np.testing.assert_allclose(out[1][0, 0], [want, want, want * edge])


def test_fluid_pool2d_layer_case_folding(paddle_version):
    """Paddle 2.0's fluid.dygraph.Pool2D folds 'MAX' / 'nhwc' (its test_pool2d_op); 1.8.5
    refuses 'MAX' (measured). An unknown data_format is a ValueError at construction."""
    x = np.arange(16, dtype="float32").reshape(1, 4, 4, 1)
    with paddle_version("2.0"), fluid.dygraph.guard():
        pool = fluid.dygraph.Pool2D(2, "MAX", 2, data_format="nhwc")
        assert pool(fluid.dygraph.to_variable(x)).numpy().ravel().tolist() == [5, 7, 13, 15]
    with pytest.raises(ValueError, match="data_format must be 'NCHW' or 'NHWC', got 'NWHC'"):
        fluid.dygraph.Pool2D(2, "max", data_format="NWHC")
    with paddle_version("1.8"):
        with pytest.raises(ValueError, match="pool_type must be 'max' or 'avg', got 'MAX'"):
            fluid.dygraph.Pool2D(2, "MAX")


@pytest.mark.parametrize("version, order", [
    ("1.8", ["fc_1.b_0", "fc_1.w_0", "fc_0.b_0", "fc_0.w_0"]),     # Paddle 1.8.5
    ("3", ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"])])      # creation order


def test_startup_initializer_order(paddle_version, version, order):
    with paddle_version(version):
        def build():
            x = fluid.data("x", [2, 3], "float32")
            return [fluid.layers.fc(fluid.layers.fc(x, 4), 2)]
        _, _, startup = _run(build, {"x": np.ones((2, 3), "float32")})
        assert [op.output_arg_names[0] for op in startup.global_block().ops] == order


@pytest.mark.parametrize("version, public", [("1.8", False), ("2.0", True)])
def test_public_flags(paddle_version, version, public):
    with paddle_version(version):
        assert fluid.core.globals().is_public("FLAGS_use_mkldnn") is public
        if public:
            assert fluid.get_flags("FLAGS_use_mkldnn") == {"FLAGS_use_mkldnn": False}
        else:
            with pytest.raises(ValueError, match="not a public flag of Paddle 1.8"):
                fluid.get_flags("FLAGS_use_mkldnn")


def test_paddle_20_public_flags_are_its_registered_ones(paddle_version):
    # release/2.0's global_value_getter_setter.cc: free_idle_chunk private (its
    # test_get_set_flags), the profiler flags public
    with paddle_version("2.0"):
        with pytest.raises(ValueError, match="not a public flag of Paddle 2.0"):
            fluid.set_flags({"FLAGS_free_idle_chunk": True})
        assert fluid.get_flags("FLAGS_pe_profile_fname") == {"FLAGS_pe_profile_fname": ""}


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_sort_sum_gradient_flag_is_public_from_paddle_20(paddle_version, version):
    # 1.8.5: ValueError "cannot get its value through this function"; 2.0.0 registers it
    # public (its test_imperative_auto_prune / _deepcf / _hook_for_layer set it); 3.3.1:
    # False, then True after set_flags (measured)
    with paddle_version(version):
        if version == "1.8":
            with pytest.raises(ValueError, match="not a public flag"):
                fluid.set_flags({"FLAGS_sort_sum_gradient": True})
            return
        assert fluid.get_flags("FLAGS_sort_sum_gradient") == {"FLAGS_sort_sum_gradient": False}
        try:
            fluid.set_flags({"FLAGS_sort_sum_gradient": True})
            assert fluid.get_flags(["FLAGS_sort_sum_gradient"])["FLAGS_sort_sum_gradient"]
        finally:
            fluid.set_flags({"FLAGS_sort_sum_gradient": False})


def test_fluid_rnn_cell_parameter_names():
    """Paddle 1.8.5 and 2.0 name a fluid GRUCell's parameters after its BasicGRUUnit."""
    x = fluid.data("x", [None, 4], "float32")
    h = fluid.data("h", [None, 3], "float32")
    fluid.layers.GRUCell(3)(x, h)
    fluid.layers.LSTMCell(3)(x, [h, h])
    names = [p.name for p in fluid.default_main_program().all_parameters()]
    assert names == ["GRUCell/BasicGRUUnit_0.w_0", "GRUCell/BasicGRUUnit_0.w_1",
                     "GRUCell/BasicGRUUnit_0.b_0", "GRUCell/BasicGRUUnit_0.b_1",
                     "LSTMCell/BasicLSTMUnit_0.w_0", "LSTMCell/BasicLSTMUnit_0.b_0"]


def test_op_attributes_named_as_in_1_8():
    """flip's `dims`, roll's `dims`, trace's `dim1` / `dim2` (Paddle 1.8's op attributes)."""
    x = fluid.data("x", [2, 3], "float32")
    block = fluid.default_main_program().global_block()
    out = block.create_var(name="out", dtype="float32")
    op = block.append_op("flip", {"X": [x]}, {"Out": [out]}, {"dims": [1]})
    assert op.attr("axis") == [1] and not op.has_attr("dims")
    (value,) = fluid.Executor().run(feed={"x": np.arange(6, dtype="float32").reshape(2, 3)},
                                    fetch_list=[out])
    np.testing.assert_array_equal(value, [[2, 1, 0], [5, 4, 3]])


def test_runner_takes_the_profile(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import paddle, refimpl.versions as v\nprint(v.current())\n")
    run = [sys.executable, "-m", "refimpl", "run"]
    out = subprocess.run(run + ["--paddle", "1.8", str(script)], capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == "1.8"
    out = subprocess.run(run + ["--paddle=3", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "3"
    bad = subprocess.run(run + ["--paddle", "9", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "must be one of" in bad.stderr


@pytest.mark.parametrize("version, out_shape, index_shape", [
    ("1.8", (0,), (0,)),            # Paddle 1.8.5: dims [0], LoD [[0, 0]]
    ("2.0", (0,), (0,)),            # 2.0's fetch op: an empty tensor fetched as dims [0]
                                    # (fetch_empty_flat; its kernels make [0, 6], [0, 1])
    ("3", (0, 6), (0, 1))])


def test_empty_detection_rows(paddle_version, version, out_shape, index_shape):
    with paddle_version(version):
        def build():
            b, s = fluid.data("b", [1, 2, 4], "float32"), fluid.data("s", [1, 2, 2], "float32")
            return list(fluid.layers.multiclass_nms(b, s, 0.9, -1, -1, return_index=True))
        boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], "float32")
        out, _, _ = _run(build, {"b": boxes, "s": np.full((1, 2, 2), 0.5, "float32")},
                         return_numpy=False)
        assert np.array(out[0]).shape == out_shape and np.array(out[1]).shape == index_shape
        assert out[0].recursive_sequence_lengths() == [[0]]
        # matrix_nms likewise (Paddle 1.8.5: Out and Index dims [0])
        out, _, _ = _run(lambda: list(fluid.layers.matrix_nms(
            fluid.data("b", [1, 2, 4], "float32"), fluid.data("s", [1, 2, 2], "float32"),
            0.9, 0.0, -1, -1, return_index=True)),
            {"b": boxes, "s": np.full((1, 2, 2), 0.5, "float32")}, return_numpy=False)
        assert np.array(out[0]).shape == out_shape and np.array(out[1]).shape == index_shape


@pytest.mark.parametrize("version, counts, rows, prob_rows", [
    ("1.8", [0, 0], (0,), (0,)), ("3", [1, 1], (2, 4), (2, 1))])


def test_proposals_of_empty_image(paddle_version, version, counts, rows, prob_rows):
    """min_size beyond every box: Paddle 1.8.5 keeps no proposal (RpnRois dims [0], LoD
    [[0, 0]]); 3.3.1 gives each image one all-zero box with score 0."""
    from refimpl.ops.registry import get_op_def
    sample = next(iter(get_op_def("generate_proposals").samples(np.random.RandomState(0))))
    with paddle_version(version):
        outs = get_op_def("generate_proposals").forward(
            *(sample.inputs[k] for k in ("Scores", "BboxDeltas", "ImInfo", "Anchors",
                                         "Variances")), **dict(sample.attrs, min_size=100.0))
    rois, probs, rois_num, rois_lod = outs
    assert rois.shape == rows and probs.shape == prob_rows
    assert not rois.any() and not probs.any()
    assert rois_num.tolist() == counts and rois_lod.tolist() == np.cumsum(counts).tolist()
    assert rois_num.dtype == np.int32 and rois_lod.dtype == np.int64   # 1.8.5's RpnRoisLod


@pytest.mark.parametrize("version, truth", [("1.8", True), ("2.0", True), ("3", False)])
def test_static_comparison_truth(paddle_version, version, truth):
    """Paddle 1.8.5: bool(a == b) is True and `a in [b]` is True for two different data
    variables (a Variable has no __bool__; 2.0's Variable has none either, and its
    test_py_func_op asserts `loss == loss_out`); refimpl's 3 profile keeps identity (3.3.1's
    PIR Values refuse bool()). refimpl's own code gets the identity test in every profile."""
    with paddle_version(version):
        a = static.data("a", [2], "float32")
        b = static.data("b", [2], "float32")
        assert bool(a == b) is truth and (a in [b]) is truth
        assert bool(a == a) and bool(a != a) is truth
        inside = {"__name__": "refimpl.probe", "a": a, "b": b}
        exec("found = (a in [b], [b, a].index(a), bool(a != a))", inside)
        assert inside["found"] == (False, 1, False)
        made = a == b                             # the equal op's output either way
        assert str(made.dtype).endswith("bool")
        assert static.default_main_program().global_block().ops[-1].type == "equal"


def test_dygraph_only_error(paddle_version):
    """Paddle 1.8.5's and 2.0's static Variable.detach() etc. raise a plain AssertionError
    with their text (their test_detach compares both); refimpl's 3 raises DygraphOnlyError."""
    with paddle_version("1.8"):
        x = static.data("x", [3, 4], "float32")
        with pytest.raises(AssertionError) as raised:
            x.detach()
        assert type(raised.value) is AssertionError
        assert str(raised.value) == (
            "'detach' should be called by imperative Varible in imperative mode, please use "
            "fluid.dygraph.guard() as context to run it in imperative mode")
    with paddle_version("2.0"):
        with pytest.raises(AssertionError) as raised:
            static.data("y", [3, 4], "float32").numpy()
        assert type(raised.value) is AssertionError
        assert str(raised.value) == (
            "'numpy' should be called by imperative Varible in imperative mode, please run it "
            "in dygraph mode. You can turn off paddle.enable_static() if you are in static "
            "mode, or turn off ProgramTranslator if you are using @paddle.jit.to_static")
    with paddle_version("3"):
        with pytest.raises(DygraphOnlyError, match="Variable.numpy\\(\\) is only available"):
            static.data("z", [3, 4], "float32").numpy()


@pytest.mark.parametrize("version, equal", [
    # Paddle 1.8.5: |x - y| < 1e-8, the difference taken in the inputs' dtype
    ("1.8", [True, False, True, True, False, False]),
    ("3", [False, False, False, False, True, False])])


def test_float_equal(paddle_version, version, equal):
    x = np.array([1.0, 1.0, 1.0, 1.0, np.inf, np.nan])
    y = np.array([1.0 + 5e-9, 1.0 + 2e-8, 1.0 - 9.9e-9, 1.0 + 1e-8, np.inf, np.nan])
    with paddle_version(version), fluid.dygraph.guard():
        a, b = paddle.to_tensor(x), paddle.to_tensor(y)
        assert fluid.layers.equal(a, b).numpy().tolist() == equal
        assert fluid.layers.not_equal(a, b).numpy().tolist() == [not e for e in equal]
        # a float32 noam rate one ulp from the Python float: equal in 1.8.5 (its
        # test_NoamDecay relies on it), not in 3.3.1
        rate = paddle.to_tensor(np.array([1018021711], "uint32").view("float32"))
        assert bool(0.021213203435596423 == rate) is (version == "1.8")
        assert bool(paddle.to_tensor(np.array([3])) == 3)


def test_seeded_uniform_stream_of_paddle_1_8(paddle_version):
    """Paddle 1.8.5's values (its CPU kernel: std::minstd_rand, libstdc++'s
    uniform_real_distribution), for uniform_random's float32 and float64 and
    uniform_random_batch_size_like; a negative seed is an unsigned int there."""
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    with paddle_version("1.8"):
        scope = core.Scope()
        out = scope.var("X").get_tensor()
        Operator("uniform_random", Out="X", shape=[8], min=-5.0, max=10.0, seed=10).run(
            scope, core.CPUPlace())
        assert np.array(out).tolist() == np.array(
            [-4.9966283, 7.7548676, -4.797109, 8.741692, 5.1933556, 8.453466, -2.7536266,
             9.701259], np.float32).tolist()
        Operator("uniform_random", Out="X", shape=[4], min=0.0, max=1.0, seed=10,
                 dtype=core.VarDesc.VarType.FP64).run(scope, core.CPUPlace())
        np.testing.assert_allclose(np.array(out), [0.85032449, 0.91611277, 0.89689772,
                                                   0.98008388], rtol=0, atol=5e-9)

        def build():
            x = fluid.data("x", [None, 3], "float32")
            return [fluid.layers.uniform_random_batch_size_like(x, [-1, 2], min=-5.0,
                                                                max=10.0, seed=10),
                    fluid.layers.uniform_random([3], min=-0.3, max=0.7, seed=-5)]
        (like, negative), _, _ = _run(build, {"x": np.zeros((2, 3), "float32")})
        assert like.tolist() == np.array([[-4.9966283, 7.7548676], [-4.797109, 8.741692]],
                                         np.float32).tolist()
        assert negative.tolist() == np.array([0.6999326, 0.44490266, -0.10405783],
                                             np.float32).tolist()
    with paddle_version("2.0"):        # std::mt19937_64 there (3.3.1's values, measured)
        Operator("uniform_random", Out="X", shape=[2], min=0.0, max=1.0, seed=10).run(
            scope, core.CPUPlace())
        assert np.array(out).tolist() == [0.6012831330299377, 0.9137043356895447]


def test_zero_dim_parameters(paddle_version):
    # 1.8.5 (and 2.0.0's Parameter): create_parameter(shape=[]) is a ValueError, in a
    # block and on a dygraph Layer; 3.3.1 (OldIrGuard) makes a parameter of shape ()
    for version in ("1.8", "2.0"):
        with paddle_version(version):
            block = static.Program().global_block()
            with pytest.raises(ValueError, match="at least one dimension, got \\[\\]"):
                block.create_parameter(name="w", shape=[], dtype="float32")
            assert tuple(block.create_parameter(name="v", shape=[0], dtype="float32")
                         .shape) == (0,)
            with fluid.dygraph.guard(), pytest.raises(ValueError, match="0-D parameters"):
                fluid.dygraph.Layer().create_parameter(shape=[], dtype="float32")
    with paddle_version("3"):
        block = static.Program().global_block()
        assert tuple(block.create_parameter(name="w", shape=[], dtype="float32").shape) == ()
        with fluid.dygraph.guard():
            scalar = fluid.dygraph.Layer().create_parameter(shape=[], dtype="float32")
            assert scalar.shape == [] and scalar.is_distributed is False


def test_program_guard_mode(paddle_version):
    """Paddle 1.8.5 and 2.0: program_guard leaves fluid.dygraph.guard's mode alone (their
    test_layers build each layer under both with the same code): the layer runs eagerly.
    refimpl's 3 profile builds a program inside program_guard whatever the mode."""
    for version, eager in (("1.8", True), ("2.0", True), ("3", False)):
        with paddle_version(version), fluid.dygraph.guard():
            main = fluid.Program()
            with fluid.program_guard(main, fluid.Program()):
                assert fluid.dygraph.base.enabled() is eager
                if eager:
                    x = fluid.dygraph.to_variable(np.array([[-1.0, 2.0]], "float32"))
                    np.testing.assert_array_equal(fluid.layers.relu(x).numpy(), [[0, 2]])
                    assert not main.global_block().ops
            assert fluid.dygraph.base.enabled()


def test_data_inside_a_program_guard_in_dynamic_mode(paddle_version):
    """fluid.data inside a program_guard: refused in a dynamic mode the script asked for
    (Paddle 2.0's static_only AssertionError; under 1.8 it switches to static mode), while
    in the dynamic mode a 2.0 script starts in it makes the rest of the script static
    (refimpl's rule for scripts that build programs without enable_static()), the
    program_guard leaving the mode as it is."""
    from refimpl.framework import mode
    with paddle_version("2.0"), fluid.dygraph.guard():
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            with pytest.raises(AssertionError, match="only supported in static graph mode"):
                fluid.data(name="x", shape=[2], dtype="float32")
    with paddle_version("1.8"), fluid.dygraph.guard():      # switch data_static_only
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            fluid.data(name="x", shape=[2], dtype="float32")
            assert not mode.in_dynamic_mode()
    with paddle_version("2.0"):
        mode.start_as_profile()
        try:
            main = fluid.Program()
            with fluid.program_guard(main, fluid.Program()):
                assert mode.in_dynamic_mode()
                x = fluid.data(name="x", shape=[2], dtype="float32")
                assert not mode.in_dynamic_mode()
                fluid.layers.relu(x)
            assert not mode.in_dynamic_mode()
            assert [op.type for op in main.global_block().ops] == ["relu"]
        finally:
            mode.enable_static()


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_batch_norm_momentum_variable(paddle_version, version):
    """Paddle 1.8.5's fluid.layers.batch_norm ignores a Variable momentum (it names the
    op's slot MomemtumTensor, which the op does not have, and the op keeps its default
    0.9); 2.0's layer (source at 2967624b) misspells the slot the same way. Measured on
    1.8.5 with X = arange(24) as [2, 3, 2, 2] and momentum fed 0.5 or 0: the running mean
    after one step is 0.1 * the batch mean [7.5, 11.5, 15.5], after two 0.9 * that + 0.1 *
    it again."""
    with paddle_version(version):
        x = fluid.layers.data(name="x", shape=[3, 2, 2], dtype="float32")
        m = fluid.layers.data(name="m", shape=[1], dtype="float32", append_batch_size=False)
        if version == "3":
            with pytest.raises(TypeError, match="momentum 'm' is a Variable"):
                fluid.layers.batch_norm(x, momentum=m)
            return
        fluid.layers.batch_norm(x, momentum=m, moving_mean_name="mm")
        op = fluid.default_main_program().global_block().ops[-1]
        assert op.attr("momentum") == pytest.approx(0.9) and "MomentumTensor" not in \
            op.input_names
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        xv = np.arange(24, dtype="float32").reshape(2, 3, 2, 2)
        got = [exe.run(feed={"x": xv, "m": np.array([v], "float32")}, fetch_list=["mm"])[0]
               for v in (0.5, 0.0)]
        np.testing.assert_allclose(got, [[0.75, 1.15, 1.55], [1.425, 2.185, 2.945]],
                                   rtol=1e-6)


@pytest.mark.parametrize("version, int_clip", [
    ("1.8", None), ("2.0", None),          # float / double kernels only (1.8.5, 2.0.0)
    ("3", [2, 5, 8])])                     # Paddle 3.3.1: int32 / int64 taken, measured


def test_clip_dtypes(paddle_version, version, int_clip):
    """clip of an int32 X: a TypeError naming clip under 1.8 / 2.0 (static and eager), the
    clipped integers under 3; int16 is refused everywhere (3.3.1 refuses it too)."""
    with paddle_version(version):
        def build():
            return [paddle.clip(fluid.data("x", [3], "int32"), min=2, max=8)]
        if int_clip is None:
            with pytest.raises(TypeError, match="clip"):
                _run(build, {"x": np.array([1, 5, 9], "int32")})
        else:
            out, _, _ = _run(build, {"x": np.array([1, 5, 9], "int32")})
            assert out[0].dtype == np.int32 and out[0].tolist() == int_clip
        with pytest.raises(TypeError, match="clip"):
            _run(lambda: [paddle.clip(fluid.data("y", [3], "int16"), min=2, max=8)],
                 {"y": np.array([1, 5, 9], "int16")})
        with fluid.dygraph.guard():
            x = paddle.to_tensor(np.array([1, 5, 9], "int64"))
            if int_clip is None:
                with pytest.raises(TypeError, match="clip"):
                    paddle.clip(x, min=2, max=8)
            else:
                assert paddle.clip(x, min=2, max=8).numpy().tolist() == int_clip


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_fluid_layer_checks_by_version(paddle_version, version):
    """fluid.layers' data_feeder checks: 1.8.5's lists under 1.8, release/2.0's (1.8.5's
    with 2.0's changes) under 2.0, none under 3; static mode only in both (Paddle's
    check_type / check_dtype return at once in dygraph mode)."""
    with paddle_version(version):
        def isfinite_of_float16():
            with static.program_guard(static.Program(), static.Program()):
                fluid.layers.isfinite(fluid.data("x", [3], "float16"))
        def reshape_of_bool():
            with static.program_guard(static.Program(), static.Program()):
                out = fluid.layers.reshape(fluid.data("b", [2, 3], "bool"), [3, 2])
            return out.shape
        if version == "3":
            isfinite_of_float16()
        else:
            with pytest.raises(TypeError, match="isfinite"):
                isfinite_of_float16()
        if version == "1.8":        # 1.8.5's reshape takes no bool, 2.0's does
            with pytest.raises(TypeError, match="reshape"):
                reshape_of_bool()
        else:
            assert tuple(reshape_of_bool()) == (3, 2)
        with fluid.dygraph.guard():     # no check in dygraph mode: cos_sim's float64 taken
            x = paddle.to_tensor(np.array([[3., 4.]], "float64"))
            got = fluid.layers.cos_sim(x, x)
            np.testing.assert_allclose(got.numpy(), [[1.]])


def test_fluid_linspace_checks_of_paddle_20(paddle_version):
    """2.0's fluid.layers.linspace: int / float bounds, an int num, a dtype among int32,
    int64, float32, float64, and a ValueError for a float64 start with a float32 dtype."""
    with paddle_version("2.0"), static.program_guard(static.Program(), static.Program()):
        for args, kwargs in [(([0], 10, 1), {}), ((0, 10, 1.5), {}),
                             ((0, 10, 1), {"dtype": "int8"})]:
            with pytest.raises(TypeError, match="linspace"):
                fluid.layers.linspace(*args, **kwargs)
        with pytest.raises(ValueError, match="overflow"):
            fluid.layers.linspace(fluid.data("s", [1], "float64"), 10, 1, dtype="float32")
        out = fluid.layers.linspace(0, 10, 5, dtype="float64")
        exe = static.Executor()
        got = exe.run(out.block.program,
                      fetch_list=[out])[0]
        assert got.tolist() == [0., 2.5, 5., 7.5, 10.]


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_logical_op_dtypes(paddle_version, version):
    """logical_and of float32 operands: refused (TypeError in static mode, from the op in
    dygraph mode) under 1.8 / 2.0, whose kernels take bool only (1.8.5 measured:
    EnforceNotMet in dygraph); nonzero is True under 3 (3.3.1: [0, 1, 2] and [1, 1, 0] give
    [False, True, False], measured)."""
    x = np.array([0., 1., 2.], "float32")
    y = np.array([1., 1., 0.], "float32")
    with paddle_version(version):
        def build():
            return [paddle.logical_and(fluid.data("x", [3], "float32"),
                                       fluid.data("y", [3], "float32"))]
        if version == "3":
            out, _, _ = _run(build, {"x": x, "y": y})
            assert out[0].tolist() == [False, True, False]
        else:
            with pytest.raises(TypeError, match="logical_and"):
                _run(build, {"x": x, "y": y})
            with fluid.dygraph.guard(), pytest.raises(TypeError, match="logical_and"):
                paddle.logical_and(paddle.to_tensor(x), paddle.to_tensor(y))
        with pytest.raises(TypeError, match="out"):    # out= must be a Variable
            _run(lambda: [paddle.logical_not(fluid.data("b", [3], "bool"), out=1)])


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_logsumexp_of_integers(paddle_version, version):
    """logsumexp of int32: refused under 1.8 / 2.0 (float / double kernels only), computed
    in float32 under 3 (3.3.1: [1, 2] gives 2.31326175 float32, measured)."""
    with paddle_version(version):
        build = lambda: [paddle.logsumexp(fluid.data("x", [2], "int32"))]
        feed = {"x": np.array([1, 2], "int32")}
        if version == "3":
            out, _, _ = _run(build, feed)
            assert out[0].dtype == np.float32
            np.testing.assert_allclose(out[0], np.log(np.exp(1.) + np.exp(2.)), rtol=1e-6)
        else:
            with pytest.raises(TypeError, match="logsumexp"):
                _run(build, feed)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_static_sum_dtype_checks(paddle_version, version):
    """Static paddle.sum with a dtype: 2.0 refuses one that overflows x's (ValueError) or
    is no float32 / float64 / int32 / int64 (TypeError); 3.3.1 takes them (measured:
    float64 -> float32, int64 -> int32 give those dtypes; refimpl's reduce_sum has no bool
    kernel)."""
    with paddle_version(version):
        cases = [("float64", "float32", ValueError), ("int64", "int32", ValueError),
                 ("int32", "bool", TypeError)]
        for x_dtype, dtype, error in cases:
            with static.program_guard(static.Program(), static.Program()):
                x = fluid.data("x", [10], x_dtype)
                if version == "3":
                    if error is ValueError:
                        assert paddle.sum(x, dtype=dtype).dtype.name == dtype
                else:
                    with pytest.raises(error, match="sum"):
                        paddle.sum(x, dtype=dtype)
        out, _, _ = _run(lambda: [paddle.sum(fluid.data("y", [3], "int32"), dtype="int64")],
                         {"y": np.array([1, 2, 3], "int32")})
        assert out[0].dtype == np.int64 and int(out[0].reshape(-1)[0]) == 6


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_stack_of_one_variable(paddle_version, version):
    """stack(x) of one Variable: stacks [x] under 1.8 ([2, 3] -> [1, 2, 3]); a TypeError
    from 2.0 (3.3.1 measured: TypeError in static mode, an error in dygraph mode)."""
    with paddle_version(version), static.program_guard(static.Program(), static.Program()):
        x = fluid.data("x", [2, 3], "float32")
        if version == "1.8":
            assert tuple(fluid.layers.stack(x).shape) == (1, 2, 3)
        else:
            with pytest.raises(TypeError, match="list\\[Tensor\\]"):
                paddle.stack(x)
            assert tuple(paddle.stack([x, x], axis=1).shape) == (2, 2, 3)


def test_every_switch_read_has_a_row_in_specs_versions_md():
    # specs/versions.md's table holds one row per switch, and refimpl reads no switch
    # that is not one (a misspelt name in a rarely run branch, e.g. the random streams'
    # seeded_uniform_stream / randint_downscaling / custom_sampler_engine_bits readers)
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "specs", "versions.md")) as f:
        rows = re.findall(r"^\| `([a-z0-9_]+)` \|", f.read(), re.M)
    assert sorted(rows) == sorted(versions.SWITCHES) and len(rows) == len(set(rows))
    read = set()
    for folder, _, files in os.walk(os.path.join(root, "refimpl")):
        for name in files:
            if name.endswith((".py", ".pyx")):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    read.update(re.findall(r"\bswitch\(\s*[\"']([a-z0-9_]+)[\"']\)", f.read()))
    assert read - set(versions.SWITCHES) == set()
    for name in ("seeded_uniform_stream", "dropout_stream", "randint_downscaling",
                 "custom_sampler_engine_bits", "seed_attr_bits", "truncated_normal_bounds",
                 "seed_sets_program_seeds", "uniform_default_min"):
        assert name in read
@pytest.mark.parametrize("version, cpu, pinned", [("1.8", "CPUPlace", "CUDAPinnedPlace"),
                                                  ("2.0", "CPUPlace", "CUDAPinnedPlace"),
                                                  ("3", "Place(cpu)", "Place(gpu_pinned)")])
def test_place_repr(paddle_version, version, cpu, pinned):
    # 1.8.5's str(CPUPlace()), 2.0's Tensor repr; 3.3.1: 'Place(cpu)' for both (measured)
    with paddle_version(version), fluid.dygraph.guard():
        assert (str(paddle.CPUPlace()), repr(paddle.CUDAPinnedPlace())) == (cpu, pinned)
        assert "place=%s, stop_gradient" % cpu in repr(paddle.to_tensor([1.0]))


@pytest.mark.parametrize("version, shape", [("2.0", [1]), ("3", [])])
def test_an_int_for_every_axis_gives_a_one_number_result(paddle_version, version, shape):
    # 3.3.1 (measured): w[1, 1, 1] and w[1, 0, ::-1][2] are 0-D, eager and static;
    # 2.0: [1] (scalar_shape)
    value = np.arange(24.0).reshape(2, 3, 4)
    with paddle_version(version):
        with fluid.dygraph.guard():
            w = paddle.to_tensor(value, stop_gradient=False)
            picked = w[1, 1, 1]
            assert picked.shape == shape and picked.numpy().tolist() == value[1, 1, 1:2].reshape(
                shape).tolist()
            assert w[1, 0, ::-1][2].shape == shape and w[1, 1, 1, None].shape == [1]
            (picked * 2).backward()
            grad = np.zeros_like(value)
            grad[1, 1, 1] = 2
            np.testing.assert_array_equal(w.gradient(), grad)
        with static.program_guard(static.Program()):
            v = static.data("v", [4, 5, 6], "float32")
            assert list(v[1, 1, 1].shape) == shape and list(v[1, 1, ::-1][0].shape) == shape


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_mean_dtypes_by_version(paddle_version, version):
    # 2.0's test_mean_op: a static int32 x is a TypeError; 3.3.1 builds it (and runs it)
    with paddle_version(version), static.program_guard(static.Program()):
        x = static.data("x", [2, 3], "int32")
        if version == "2.0":
            with pytest.raises(TypeError, match="mean/reduce_mean"):
                paddle.mean(x)
        else:
            op = paddle.mean(x).block.ops[-1]
            assert (op.type, op.attr("dim"), op.attr("reduce_all")) == ("reduce_mean", [], True)
