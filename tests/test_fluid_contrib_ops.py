"""fluid.contrib's op builders (Paddle 1.8): fused_elemwise_activation, partial_concat,
partial_sum, shuffle_batch, multiclass_nms2, checked against values recorded on Paddle
1.8.5 (specs/fluid_contrib.md)."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")

X = np.array([[0.5, -1.0, 2.0], [0.1, -0.3, 0.7]], np.float32)
Y = np.array([-0.2, 0.4, 1.5], np.float32)

# functor_list -> Paddle 1.8.5's Out, d/dX and d/dY of sum(Out * Out), scale 0.5
FUSED_185 = {
    ("elementwise_mul", "tanh"): (
        [-0.09868764877, -0.3799489737, 1.810296535, -0.0197375305, -0.1139846966,
         0.6336037517],
        [0.03895700723, -0.2887224555, 3.277173519, 0.007791401818, -0.08661673963,
         1.147010684],
        [-0.09863679856, 0.70871591568, 1.468825340]),
    ("tanh", "elementwise_add"): (
        [0.2913125753, -0.5370495319, 0.9981780052, -0.0996679664, 0.0996679068, 0.9757430553],
        [0.5331818461, -0.764304996, 0.007268036716, -0.1973557919, 0.1973556727,
         0.09352589399],
        [0.3358260393, -0.5669493079, 0.1007939279]),
    ("elementwise_mul", "sigmoid"): (
        [0.2250830084, -0.5986876488, 1.635148883, 0.04501660169, -0.1796063036, 0.5723021031],
        [0.2026494443, -0.7168537974, 2.673711777, 0.04052988812, -0.2150561512, 0.9357991219],
        [0.05794025213, 0.3135737181, 1.095006347]),
    ("scale", "elementwise_add"): (
        [0.15, -0.3, 1.75, -0.05, 0.05, 1.1], [0.15, -0.3, 1.75, -0.05, 0.05, 1.1],
        [0.1, -0.25, 2.85]),
}


def _run(main, startup, feed, fetch, **kwargs):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch, **kwargs)


@pytest.mark.parametrize("functors", sorted(FUSED_185))
def test_fused_elemwise_activation_as_paddle_185(functors):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data("a", [2, 3], "float32")
        b = fluid.data("b", [3], "float32")
        a.stop_gradient = b.stop_gradient = False
        functor_arg = ",".join(functors) if functors[0] == "scale" else list(functors)
        out = fluid.contrib.fused_elemwise_activation(a, b, functor_arg, scale=0.5)
        grads = fluid.backward.gradients([fluid.layers.reduce_sum(out * out)], [a, b])
    results = _run(main, startup, {"a": X, "b": Y}, [out] + grads)
    for got, want in zip(results, FUSED_185[functors]):
        np.testing.assert_allclose(got.ravel(), want, rtol=2e-6, atol=1e-6)


def test_fused_elemwise_activation_refuses_what_paddle_185_does_not_implement():
    with fluid.program_guard(fluid.Program()):
        a = fluid.data("a", [2, 3], "float32")
        with pytest.raises(Exception, match="functor_list .*sigmoid.*not one of the pairs"):
            fluid.contrib.fused_elemwise_activation(a, a, ["sigmoid", "elementwise_add"])
        with pytest.raises(ValueError, match="list of two"):
            fluid.contrib.fused_elemwise_activation(a, a, ["relu"])


def test_partial_concat_and_sum_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data("a", [2, 3], "float32")
        b = fluid.data("b", [2, 3], "float32")
        joined = fluid.contrib.partial_concat([a, b], start_index=-2, length=1)
        summed = fluid.contrib.partial_sum([a, b], start_index=1, length=-1)
        with pytest.raises(TypeError, match="start_index must be an int"):
            fluid.contrib.partial_sum([a, b], start_index=1.0)
        with pytest.raises(Exception, match=r"select columns \[2, 4\)"):
            fluid.contrib.partial_concat([a, b], start_index=2, length=2)
    joined, summed = _run(main, startup, {"a": X, "b": X * 10}, [joined, summed])
    np.testing.assert_allclose(joined, [[-1.0, -10.0], [-0.3, -3.0]], rtol=1e-6)  # 1.8.5
    np.testing.assert_allclose(summed, [[-11.0, 22.0], [-3.3, 7.7]], rtol=1e-6)


def test_shuffle_batch_permutes_rows_anew_each_run_and_routes_gradients_back():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [8, 2], "float32")
        x.stop_gradient = False
        out = fluid.contrib.shuffle_batch(x, seed=3)
        weights = fluid.layers.assign(np.arange(16, dtype=np.float32).reshape(8, 2))
        dx, = fluid.backward.gradients([fluid.layers.reduce_sum(out * weights)], [x])
    index_name = main.global_block().ops[0].output("ShuffleIdx")[0]
    seed_name = main.global_block().ops[0].input("Seed")[0]
    assert main.global_block().var(seed_name).persistable
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    rows = np.arange(16, dtype=np.float32).reshape(8, 2)
    orders = []
    for _ in range(3):
        shuffled, index, grad = exe.run(main, feed={"x": rows}, fetch_list=[out, index_name, dx])
        assert sorted(index.tolist()) == list(range(8))
        np.testing.assert_array_equal(shuffled, rows[index])
        expected = np.empty_like(rows)
        expected[index] = np.arange(16, dtype=np.float32).reshape(8, 2)
        np.testing.assert_array_equal(grad, expected)
        orders.append(index.tolist())
    assert orders[0] != orders[1] or orders[1] != orders[2]   # SeedOut feeds the next run


def test_multiclass_nms2_from_contrib_returns_the_index():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        boxes = fluid.data("boxes", [1, 2, 4], "float32")
        scores = fluid.data("scores", [1, 2, 2], "float32")
        out, index = fluid.contrib.multiclass_nms2(boxes, scores, 0.1, 10, 10,
                                                   return_index=True)
        alone = fluid.contrib.multiclass_nms2(boxes, scores, 0.1, 10, 10)
    assert main.global_block().ops[0].type == "multiclass_nms2"
    feed = {"boxes": np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], np.float32),
            "scores": np.array([[[0.0, 0.0], [0.9, 0.2]]], np.float32)}
    out, index, alone = _run(main, startup, feed, [out, index, alone], return_numpy=False)
    assert out.lod() == index.lod() == [[0, 2]]                  # as 1.8.5
    out, index, alone = np.array(out), np.array(index), np.array(alone)
    np.testing.assert_allclose(out, [[1, 0.9, 0, 0, 1, 1], [1, 0.2, 2, 2, 3, 3]], rtol=1e-6)
    assert index.ravel().tolist() == [0, 1]
    np.testing.assert_array_equal(alone, out)
