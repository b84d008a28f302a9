"""lod_tensor_to_array / array_to_lod_tensor / max_sequence_len and the scope's tensor
arrays (specs/ops/sequence.md#rank-tables): steps against Paddle 1.8.5's recorded values
(its test_lod_tensor_array_ops), the round trip, and gradients against finite
differences."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import layers

PLACE = fluid.CPUPlace()
# Paddle 1.8.5: rows 0..19 with LoD [[2, 3], [3, 6, 2, 6, 3]], ranked at level 0
STEPS_18 = [([9, 10, 0, 1, 2], [[2, 3]]),
            ([11, 12, 13, 14, 15, 16, 3, 4, 5, 6, 7, 8], [[6, 6]]),
            ([17, 18, 19], [[3]])]


def _round_trip(x_np, lod, level, grad=False):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", shape=list(x_np.shape[1:]), dtype=x_np.dtype.name)
        x.stop_gradient = not grad
        table = layers.lod_rank_table(x, level=level)
        max_len = layers.max_sequence_len(table)
        array = layers.lod_tensor_to_array(x, table)
        array.persistable = True
        back = layers.array_to_lod_tensor(array, table)
        fetch = [max_len, back]
        if grad:
            weight = layers.assign(np.arange(x_np.size, dtype=x_np.dtype).reshape(x_np.shape))
            loss = layers.reduce_sum(layers.elementwise_mul(back, weight))
            fluid.backward.append_backward(loss)
            fetch.append("x@GRAD")
    scope = fluid.core.Scope()
    out = fluid.Executor(PLACE).run(
        main, feed={"x": fluid.create_lod_tensor(x_np, lod, PLACE)}, fetch_list=fetch,
        scope=scope, return_numpy=False)
    return out, scope.find_var(array.name).get_lod_tensor_array()


def test_steps_match_paddle_18_and_come_back():
    x = np.arange(20, dtype=np.int32).reshape(20, 1)
    lod = [[2, 3], [3, 6, 2, 6, 3]]
    (max_len, back), array = _round_trip(x, lod, 0)
    assert np.array(max_len).tolist() == [3]
    assert len(array) == len(STEPS_18)
    for step, (rows, step_lod) in zip(array, STEPS_18):
        assert np.array(step).ravel().tolist() == rows
        assert step.recursive_sequence_lengths() == step_lod
    np.testing.assert_array_equal(np.array(back), x)
    assert back.recursive_sequence_lengths() == lod


def test_a_table_of_level_1_keeps_the_coarse_level():
    x = np.arange(50, dtype=np.int32).reshape(50, 1)
    lod = [[2, 3, 1], [2, 3, 1, 4, 2, 1], [3, 4, 4, 6, 4, 1, 1, 4, 4, 8, 6, 1, 4]]
    (max_len, back), array = _round_trip(x, lod, 1)
    assert np.array(max_len).tolist() == [4]      # Paddle 1.8.5's value
    # step 0: the first entry of each level-1 sequence, longest (4) first, ties in order
    assert np.array(array[0]).ravel().tolist()[:5] == [22, 7, 8, 9, 10]
    np.testing.assert_array_equal(np.array(back), x)
    assert back.recursive_sequence_lengths() == lod


def test_gradient_is_the_rows_own():
    x = np.random.RandomState(0).rand(10, 2).astype(np.float32)
    (_, _, grad), _ = _round_trip(x, [[3, 6, 0, 1]], 0, grad=True)
    # d sum(back * w) / dx = w: the round trip is the identity on rows
    np.testing.assert_allclose(np.array(grad), np.arange(20).reshape(10, 2))


def test_step_gradients_match_finite_differences():
    from refimpl.ops.array_to_lod_tensor import ArrayToLoDTensor
    from refimpl.ops.lod_rank_table import LoDRankTable
    from refimpl.ops.lod_tensor_to_array import LoDTensorToArray
    from refimpl.framework.lod import with_lod
    rng = np.random.RandomState(1)
    x = with_lod(rng.rand(9, 2), ((2, 1), (2, 1, 2), (1, 3, 2, 1, 2)))
    table = LoDRankTable.forward(x, 1)
    steps = LoDTensorToArray.forward(x, table)
    weights = [rng.rand(*s.shape) for s in steps]

    def loss(values):
        moved = LoDTensorToArray.forward(with_lod(values, x.lod), table)
        return sum(float((m * w).sum()) for m, w in zip(moved, weights))
    grad = LoDTensorToArray.backward(x, table, weights)
    eps, numeric = 1e-6, np.zeros_like(np.asarray(x))
    for idx in np.ndindex(*x.shape):
        up, down = np.array(x), np.array(x)
        up[idx] += eps
        down[idx] -= eps
        numeric[idx] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    back_grad = ArrayToLoDTensor.backward(steps, table, np.asarray(x))
    # array_to_lod_tensor's gradient undoes its own forward: each step gets its rows
    for g, s in zip(back_grad, steps):
        np.testing.assert_array_equal(g, np.asarray(s))


def test_arguments_are_checked_as_in_paddle_18():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", shape=[10])
        table = layers.lod_rank_table(x)
        with pytest.raises(TypeError):
            layers.lod_tensor_to_array(np.zeros(10, np.float32), table)
        with pytest.raises(TypeError):
            layers.lod_tensor_to_array(x, np.zeros(2, np.int64))
        array = layers.lod_tensor_to_array(x, table)
        assert array.type == "LOD_TENSOR_ARRAY"
        with pytest.raises(TypeError, match="must be a rank table"):
            layers.array_to_lod_tensor(array, x)


def test_scope_array_reads_and_writes_lod_tensors():
    scope = fluid.core.Scope()
    array = scope.var("steps").get_lod_tensor_array()
    t = fluid.core.LoDTensor()
    t.set_lod([[0, 1, 3]])        # a LoD set before the data stays (Paddle 1.8.5)
    t.set(np.arange(3, dtype=np.int64), PLACE)
    array.append(t)
    assert len(array) == 1 and array[0].lod() == [[0, 1, 3]]
    stored = scope.find_var("steps").get_lod_tensor_array()
    np.testing.assert_array_equal(np.array(stored[0]), [0, 1, 2])


def test_unwritten_array_is_empty_and_reverse_reverses_elements():
    """An array read before any write holds nothing (length 0), as in Paddle, whose
    executor creates every variable first; reverse(axis=[0]) of an array reverses its
    elements, and its gradient array comes back in the elements' order."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = [fluid.data("x%d" % k, [1, 2], "float32") for k in range(2)]
        for x in xs:
            x.stop_gradient = False
        array = layers.create_array("float32")
        lengths = []
        for x in xs:
            index = layers.array_length(array)
            lengths.append(index)
            layers.array_write(x, index, array)
        out, _ = layers.tensor_array_to_tensor(layers.reverse(array, axis=[0]), axis=0)
        weights = layers.assign(np.array([[1., 2.], [3., 4.]], "float32"))
        fluid.backward.append_backward(layers.reduce_sum(out * weights))
    exe = fluid.Executor(fluid.CPUPlace())
    feed = {"x0": np.array([[1., 2.]], "float32"), "x1": np.array([[5., 6.]], "float32")}
    got = exe.run(main, feed=feed, fetch_list=lengths + [out, "x0@GRAD", "x1@GRAD"])
    assert [int(g[0]) for g in got[:2]] == [0, 1]
    np.testing.assert_array_equal(got[2], [[5., 6.], [1., 2.]])
    np.testing.assert_array_equal(got[3], [[3., 4.]])      # x0 went last
    np.testing.assert_array_equal(got[4], [[1., 2.]])
    again = exe.run(main, feed=feed, fetch_list=lengths)     # each run starts empty
    assert [int(g[0]) for g in again] == [0, 1]
