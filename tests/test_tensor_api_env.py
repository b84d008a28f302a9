"""Random sampling layers (distributions checked statistically with fixed seeds), the step
counter, and the environment functions of the paddle 2.0 namespace (to_tensor, no_grad,
grad, default dtype, device queries, DataParallel's error, summary of a Program)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.place import device_count


def _run(fetch, feed=None, exe=None):
    exe = exe or static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(static.default_main_program(), feed=feed or {}, fetch_list=fetch)


def test_multinomial_frequencies_follow_the_weights():
    weights = np.array([[1.0, 3.0, 0.0, 4.0], [0.0, 0.0, 5.0, 5.0]], "float32")
    x = static.data("w", [2, 4], "float32")
    draws = paddle.multinomial(x, 4000, replacement=True, seed=7)
    no_repeat = paddle.multinomial(x, 2, seed=3)
    got, picks = _run([draws, no_repeat], {"w": weights})
    assert got.shape == (2, 4000) and got.dtype == np.int64
    for row, w in zip(got, weights):
        freq = np.bincount(row, minlength=4) / 4000
        np.testing.assert_allclose(freq, w / w.sum(), atol=0.03)
    assert sorted(picks[1]) == [2, 3] and len(set(picks[0])) == 2 and 2 not in picks[0]
    # a fixed seed replays the same draw
    np.testing.assert_array_equal(_run([draws], {"w": weights})[0], got)


def test_bernoulli_randperm_sampling_id_random_crop():
    p = np.array([0.0, 0.2, 0.9, 1.0], "float32")
    x = static.data("p", [4], "float32")
    b = paddle.bernoulli(paddle.expand(x, [5000, 4]), seed=1)
    perm = paddle.randperm(10, "int32", seed=2)
    probs = static.data("probs", [3000, 3], "float32")
    ids = fluid.layers.sampling_id(probs, seed=5)
    img = static.data("img", [2, 5, 6], "float32")
    crop = fluid.layers.random_crop(img, [3, 4], seed=4)
    images = np.arange(60, dtype="float32").reshape(2, 5, 6)
    row = np.array([0.5, 0.25, 0.25], "float32")
    got_b, got_perm, got_ids, got_crop = _run(
        [b, perm, ids, crop], {"p": p, "probs": np.tile(row, (3000, 1)), "img": images})
    assert set(np.unique(got_b)) <= {0.0, 1.0}
    np.testing.assert_allclose(got_b.mean(0), p, atol=0.03)
    assert got_perm.dtype == np.int32 and sorted(got_perm) == list(range(10))
    np.testing.assert_allclose(np.bincount(got_ids, minlength=3) / 3000, row, atol=0.03)
    assert got_crop.shape == (2, 3, 4)
    for img_i, c in zip(images, got_crop):   # each crop is a contiguous window of its image
        r, q = divmod(int(c[0, 0]) % 30, 6)
        np.testing.assert_array_equal(c, img_i[r:r + 3, q:q + 4])


def test_random_crop_seed_input_seeds_the_draw_and_gives_the_next_seed():
    # Paddle 1.8's random_crop op reads an int64 Seed and writes SeedOut (test_random_crop_op)
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    images = np.arange(60, dtype="int32").reshape(5, 3, 4)
    runs = []
    for seed in (10, 10, 11):
        scope, place = core.Scope(), core.CPUPlace()
        scope.var("x").get_tensor().set(images, place)
        scope.var("seed").get_tensor().set(np.array([seed], "int64"), place)
        Operator("random_crop", X="x", Seed="seed", Out="out", SeedOut="seed_out",
                 shape=[2, 3]).run(scope, place)
        out = np.array(scope.find_var("out").get_tensor())
        seed_out = np.array(scope.find_var("seed_out").get_tensor())
        assert out.shape == (5, 2, 3) and seed_out.shape == (1,) and seed_out.dtype == np.int64
        for img, c in zip(images, out):       # a window of its own image
            r, q = divmod(int(c[0, 0]) % 12, 4)
            np.testing.assert_array_equal(c, img[r:r + 2, q:q + 3])
        runs.append((out, seed_out))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])      # the same Seed, the same crops
    assert runs[0][1] == runs[1][1] and runs[0][1] != runs[2][1]


def test_random_ops_reject_bad_probabilities():
    x = static.data("x", [3], "float32")
    b = paddle.bernoulli(x)
    with pytest.raises(Exception, match=r"\[0, 1\]"):
        _run([b], {"x": np.array([0.5, 1.5, 0.0], "float32")})


def test_autoincreased_step_counter_counts_runs():
    counter = fluid.layers.autoincreased_step_counter(begin=5, step=2)
    assert fluid.layers.autoincreased_step_counter() is counter
    exe = static.Executor()
    exe.run(static.default_startup_program())
    seen = [int(exe.run(static.default_main_program(), fetch_list=[counter])[0][0])
            for _ in range(3)]
    assert seen == [6, 8, 10]   # Paddle's rule: begin - 1 + step on the first run


def test_to_tensor_makes_constants():
    a = np.arange(6, dtype="float64").reshape(2, 3)
    outs = [paddle.to_tensor(a), paddle.to_tensor([1.5, 2.5]), paddle.to_tensor(3, "float32"),
            paddle.to_tensor([[1, 2]], stop_gradient=False)]
    assert [o.dtype.name for o in outs] == ["float64", "float32", "float32", "int64"]
    assert outs[0].stop_gradient and not outs[3].stop_gradient
    got = _run(outs)
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], [1.5, 2.5])
    np.testing.assert_array_equal(got[2], 3.0)
    np.testing.assert_array_equal(got[3], [[1, 2]])


@pytest.mark.parametrize("version, shape", [("2.0", [1]), ("3", [])])
def test_to_tensor_of_a_scalar_by_version(paddle_version, version, shape):
    # release/2.0's to_tensor makes a Python or numpy number np.array([data]): shape [1]
    # (its scripts read x.numpy()[0]); 3.3.1 makes it 0-D (measured); a 0-D array keeps
    # its shape in both (switch to_tensor_scalar_shape)
    with paddle_version(version):
        static_scalar = paddle.to_tensor(2.5)
        assert list(static_scalar.shape) == shape
        with fluid.dygraph.guard():
            for value, dtype in ((5.0, "float32"), (7, "int64"), (np.float64(1.5), "float64"),
                                 (True, "bool")):
                tensor = paddle.to_tensor(value)
                assert tensor.shape == shape and tensor.dtype.name == dtype
                np.testing.assert_array_equal(tensor.numpy(), np.full(shape, value))
            assert paddle.to_tensor(np.array(3.0)).shape == []
            assert paddle.to_tensor(3.0, dtype="float64").shape == shape
        np.testing.assert_array_equal(_run([static_scalar])[0], np.full(shape, 2.5, "float32"))


def test_no_grad_stops_gradients_and_grad_computes_them():
    x = static.data("x", [3], "float32")
    x.stop_gradient = False
    with paddle.no_grad():
        frozen = x * 3.0
    assert frozen.stop_gradient

    @paddle.no_grad()
    def doubled(v):
        return v * 2.0
    assert doubled(x).stop_gradient
    y = paddle.sum(x * x) + paddle.sum(frozen * x)
    (dx,) = paddle.grad([y], [x])
    a = np.array([1.0, -2.0, 0.5], "float32")
    # frozen counts as a constant: d/dx (x.x + (3a).x) = 2x + 3a
    np.testing.assert_allclose(_run([dx], {"x": a})[0], 2 * a + 3 * a, rtol=1e-6)
    z = static.data("z", [3], "float32")
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad([y], [z])
    assert paddle.grad([y], [x, z], allow_unused=True)[1] is None


def test_environment_queries_and_default_dtype():
    assert paddle.get_default_dtype() == "float32"
    paddle.set_default_dtype("float64")
    try:
        assert paddle.get_default_dtype() == "float64"
        assert paddle.to_tensor([1.0]).dtype.name == "float64"
    finally:
        paddle.set_default_dtype("float32")
    with pytest.raises(TypeError, match="only supports"):
        paddle.set_default_dtype("int32")
    assert paddle.is_compiled_with_xpu() is False
    with pytest.raises(RuntimeError, match="XPU"):
        paddle.XPUPlace(0)
    assert paddle.get_cudnn_version() is None
    states = paddle.get_cuda_rng_state()
    assert isinstance(states, list) and len(states) == device_count()
    paddle.set_cuda_rng_state(states)
    with pytest.raises(ValueError, match="states for"):
        paddle.set_cuda_rng_state(states + [None])


def test_dygraph_only_names_fail_clearly_and_summary_counts_parameters(capsys):
    with pytest.raises(RuntimeError, match="runs in dynamic mode; in static mode use "
                                           "static.CompiledProgram"):
        paddle.DataParallel(None)
    x = static.data("x", [None, 4], "float32")
    static.nn.fc(x, 3)
    info = paddle.summary(static.default_main_program())
    assert info == {"total_params": 4 * 3 + 3, "trainable_params": 15}
    assert "Total params: 15" in capsys.readouterr().out
    with pytest.raises(TypeError, match="net must be a paddle.nn.Layer"):
        paddle.summary(object(), (1, 4))


def test_random_shapes_known_when_the_program_runs():
    """gaussian_random / randint take a shape Variable (ShapeTensor) or a list holding
    Variables (ShapeTensorList), as Paddle 1.8's layers do (its test_gaussian_random_op,
    test_randint_op)."""
    with static.program_guard(static.Program(), static.Program()):
        rows = static.data("rows", [1], "int64")
        shape = static.data("shape", [2], "int32")
        normal = fluid.layers.gaussian_random([rows, 3], mean=1.0, std=0.5, seed=3)
        ints = paddle.randint(2, 5, shape)
        assert tuple(normal.shape) == (-1, 3)
        got_normal, got_ints = _run([normal, ints], {"rows": np.array([2000], "int64"),
                                                     "shape": np.array([4, 6], "int32")})
    assert got_normal.shape == (2000, 3) and abs(got_normal.mean() - 1.0) < 0.05
    assert got_ints.shape == (4, 6) and set(np.unique(got_ints)) <= {2, 3, 4}


def test_random_functions_draw_in_the_default_dtype():
    # Paddle 2.0 and 3.3.1 (measured): randn / rand / uniform / normal without a dtype
    # follow set_default_dtype; zeros keeps float32 (2.0)
    paddle.set_default_dtype("float64")
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            outs = [paddle.randn([2]), paddle.rand([2]), paddle.uniform([2]),
                    paddle.normal(shape=[2]), paddle.randn([2], "float32"), paddle.zeros([2])]
        got = paddle.static.Executor().run(main, fetch_list=outs)
        assert [g.dtype.name for g in got] == ["float64"] * 4 + ["float32"] * 2
        assert 0.0 <= got[1].min() and got[1].max() < 1.0
    finally:
        paddle.set_default_dtype("float32")


def test_grad_in_dynamic_mode_checks_its_arguments_as_fluid_dygraph_grad(dygraph):
    # Paddle 2.0's paddle.grad is fluid.dygraph.grad: bad arguments are AssertionErrors
    # (refimpl's are TypeErrors too), also when no argument is a Tensor
    x = paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False)
    y = x * 2.0
    for args, kwargs in [((None, None), {}), ((1, x), {}), (([y], [1]), {}),
                         (([y, y], [x], [x]), {}), (([y], [x]), {"no_grad_vars": 1})]:
        with pytest.raises(AssertionError):
            paddle.grad(*args, **kwargs)
    with pytest.raises(TypeError, match="outputs must be a Tensor or a non-empty list"):
        paddle.grad(None, None)
    (dx,) = paddle.grad([y], [x])
    np.testing.assert_array_equal(dx.numpy(), [2.0, 2.0, 2.0])


def test_set_printoptions_digits_summary_and_sci_mode(dygraph):
    t = paddle.to_tensor(np.arange(10, dtype="float32").reshape(2, 5) / 3)
    try:
        paddle.set_printoptions(3, 5, 2)        # 10 elements > 5: 2 items of each end
        assert str(t).endswith("[[0.   , 0.333, ..., 1.   , 1.333],\n"
                               "        [1.667, 2.   , ..., 2.667, 3.   ]])")
        paddle.tensor.to_string.set_printoptions(sci_mode=True, threshold=1000)
        assert "[[0.000e+00, 3.333e-01, 6.667e-01, 1.000e+00, 1.333e+00]," in str(t)
        with pytest.raises(TypeError, match="precision must be int, got float"):
            paddle.set_printoptions(precision=2.0)
    finally:
        paddle.set_printoptions(8, 1000, 3, False)
    assert "0.33333334, 0.66666669," in str(t)     # fixed digits, as Paddle 2.0 and 3.3.1


def test_tensor_repr_aligns_items_as_paddle(dygraph):
    """Paddle 2.0's to_string (3.3.1 prints the same, measured): integer-valued floats as
    `1.`, others with fixed digits, items left-aligned to the widest of the edge items, a
    space before the non-negative ones when one is negative, ints alike, no wrapping."""
    assert str(paddle.to_tensor([[-1.5111111, 1.0], [0, -0.5]])).endswith(
        "[[-1.51111114,  1.        ],\n        [ 0.        , -0.50000000]])")
    assert str(paddle.to_tensor(np.arange(24).reshape(2, 3, 4))).endswith(
        "[[[0 , 1 , 2 , 3 ],\n         [4 , 5 , 6 , 7 ],\n         [8 , 9 , 10, 11]],\n\n"
        "        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])")
    # the middle 1000 is no edge item: it sets no width (3.3.1 prints this)
    assert str(paddle.to_tensor([1, 2, 3, 4, 5, 6, 1000, 7, 8, 9, 10, 11])).endswith(
        "[1 , 2 , 3 , 4 , 5 , 6 , 1000, 7 , 8 , 9 , 10, 11])")
    assert str(paddle.to_tensor([True, False])).endswith("[True , False])")


def test_to_tensor_of_python_complex_follows_the_default_dtype(dygraph):
    """Paddle 2.0's to_tensor (3.3.1 measured alike): complex64 under a float32 default,
    complex128 under float64."""
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor([1 + 2j, 3]).dtype == paddle.complex64
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor(1 + 2j).dtype == paddle.complex128
    finally:
        paddle.set_default_dtype("float32")
    assert paddle.to_tensor(np.complex128(1 + 2j)).dtype == paddle.complex128


def test_to_static_var_copies_the_tensors_description(dygraph):
    """Paddle 2.0's VarBase._to_static_var: a Variable (or Parameter) of the same block,
    name, shape, dtype and type; a ParamBase's parameter attributes carry over."""
    t = paddle.to_tensor(np.ones((2, 3), "float32"))
    var = t._to_static_var()
    assert type(var) is fluid.framework.Variable and var.block is t.block
    assert (var.name, var.shape, var.dtype, var.type) == (t.name, (2, 3), t.dtype, t.type)
    assert isinstance(t._to_static_var(to_parameter=True), fluid.framework.Parameter)
    linear = paddle.nn.Linear(2, 3, weight_attr=paddle.ParamAttr(
        learning_rate=0.5, regularizer=paddle.regularizer.L1Decay(0.1)))
    param = linear.weight._to_static_var()
    assert isinstance(param, fluid.framework.Parameter) and param.persistable
    assert param.optimize_attr["learning_rate"] == 0.5
    assert isinstance(param.regularizer, paddle.regularizer.L1Decay)
    assert (param.trainable, param.is_distributed) == (True, False)


def test_to_tensor_of_a_core_tensor_keeps_its_dtype():
    # Paddle 3.3.1 (its test_var_base): a core.LoDTensor of float64 stays float64
    tensor = paddle.fluid.core.LoDTensor()
    value = np.random.randn(3, 4)
    tensor.set(value, paddle.CPUPlace())
    with paddle.fluid.dygraph.guard():
        x = paddle.to_tensor(tensor)
        assert x.dtype == paddle.float64
        np.testing.assert_array_equal(x.numpy(), value)
        assert paddle.to_tensor([1.5]).dtype == paddle.float32
