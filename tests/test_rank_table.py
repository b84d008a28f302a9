"""lod_rank_table and shrink_memory (Paddle 1.8's rank table and DynamicRNN memory
shrinking, specs/ops/sequence.md#rank-tables) against hand-worked rows, LoD and
gradients."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import layers


def _shrunk(x_lod):
    """x [6 rows] (with x_lod, or its rows as they are), a rank table of lengths [1, 2, 3]:
    the memories shrunk at steps 0, 1, 2 and d mean(step 2) / dx."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", shape=[4], dtype="float32")
        x.stop_gradient = False
        ranked = layers.data("ranked", shape=[1], dtype="float32", lod_level=1)
        table = layers.lod_rank_table(ranked)
        i = layers.zeros(shape=[1], dtype="int64")
        memories = []
        mem = x
        for _ in range(3):
            mem = layers.shrink_memory(mem, i, table)
            memories.append(mem)
            i = layers.increment(i, in_place=False)
        fluid.backward.append_backward(layers.mean(mem))
    place = fluid.CPUPlace()
    x_np = np.arange(24, dtype="float32").reshape(6, 4)
    feed = {"x": fluid.create_lod_tensor(x_np, [x_lod], place) if x_lod else x_np,
            "ranked": fluid.create_lod_tensor(np.zeros((6, 1), "float32"), [[1, 2, 3]],
                                              place)}
    out = fluid.Executor(place).run(main, feed=feed, return_numpy=False,
                                    fetch_list=[table] + memories + ["x@GRAD"])
    return x_np, out


def test_shrink_keeps_the_sequences_still_running():
    x_np, (table, m0, m1, m2, grad) = _shrunk([2, 3, 1])
    assert np.array(table).tolist() == [1, 2, 3]
    # step i keeps one sequence of x per rank-table length > i: 3, 2, 1 of them
    np.testing.assert_array_equal(np.array(m0), x_np)
    np.testing.assert_array_equal(np.array(m1), x_np[:5])
    np.testing.assert_array_equal(np.array(m2), x_np[:2])
    assert m1.recursive_sequence_lengths() == [[2, 3]]
    assert m2.recursive_sequence_lengths() == [[2]]
    want = np.zeros((6, 4), "float32")
    want[:2] = 1.0 / 8
    np.testing.assert_allclose(np.array(grad), want)


def test_shrink_without_lod_keeps_rows():
    x_np, (_, m0, m1, m2, _) = _shrunk(None)
    for mem, rows in ((m0, 3), (m1, 2), (m2, 1)):
        np.testing.assert_array_equal(np.array(mem), x_np[:rows])
        assert mem.recursive_sequence_lengths() == []


def test_rank_table_level_must_be_0():
    x = layers.data("x", shape=[1], dtype="float32", lod_level=2)
    with pytest.raises(Exception, match="level must be 0"):
        layers.lod_rank_table(x, level=1)
