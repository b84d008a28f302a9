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


def test_rank_table_of_level_1_matches_paddle_18():
    """Paddle 1.8.5 (test_lod_rank_table): LoD [[1, 2], [5, 1, 1], ...] ranked at level 1
    gives items [(0, 5), (1, 1), (2, 1)]; level 3 of a 3-level LoD fails when run."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", shape=[2], dtype="float32")
        table = layers.lod_rank_table(x, level=1)
        table.persistable = True    # (kept in the scope after the run)
    assert table.type == "LOD_RANK_TABLE"
    lod = [[1, 2], [5, 1, 1], [3, 1, 5, 1, 3, 3, 1]]
    feed = {"x": fluid.create_lod_tensor(np.zeros((17, 2), "float32"), lod,
                                         fluid.CPUPlace())}
    scope = fluid.core.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(main, feed=feed, fetch_list=[table], scope=scope, return_numpy=False)
    ranked = scope.find_var(table.name).get_lod_rank_table()
    assert ranked.items() == [(0, 5), (1, 1), (2, 1)]
    assert ranked.level() == 1 and ranked.coarse_lod() == [[0, 1, 3]]
    deeper = fluid.Program()
    with fluid.program_guard(deeper, fluid.Program()):
        layers.lod_rank_table(layers.data("x", shape=[2], dtype="float32"), level=3)
    with pytest.raises(Exception, match="level 3 is not one of X's 3 LoD levels"):
        exe.run(deeper, feed=feed)


def test_rank_table_arguments_are_checked():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(TypeError, match="must be a static Variable"):
            layers.lod_rank_table([np.zeros((2, 4), "float32")])
        x = layers.data("x", shape=[4], dtype="float32", lod_level=1)
        assert layers.lod_rank_table([x]).type == "LOD_RANK_TABLE"
        lengths = layers.data("lengths", shape=[4], dtype="int32")
        with pytest.raises(TypeError, match="rank_table must be a rank table"):
            layers.reorder_lod_tensor_by_rank(x, lengths)
