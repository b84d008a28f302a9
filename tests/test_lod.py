"""LoD end to end (specs/lod.md): values carry their LoD through feeds, ops (each by its
rule), fetches and data-parallel splits. Expected LoDs and values were measured with
Paddle 1.8.5 on the same programs and feeds."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.errors import FeedError
from refimpl.framework.lod import LoDArray, lod_of, sequence_slice, with_lod
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope

PLACE = fluid.CPUPlace()


def _run(build, feed):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        fetch = build()
    exe, scope = fluid.Executor(PLACE), Scope()
    exe.run(startup, scope=scope)
    return fetch, exe.run(main, feed=feed, fetch_list=fetch, scope=scope, return_numpy=False)


def test_ops_keep_pool_and_rebuild_the_lod_as_paddle():
    def build():
        x = fluid.data("x", [-1, 2], "float32", lod_level=2)
        ids = fluid.data("ids", [-1, 1], "int64", lod_level=1)
        y = fluid.data("y", [-1, 1], "float32", lod_level=1)
        pool = fluid.layers.sequence_pool(x, "sum")
        return [pool, fluid.layers.sequence_pool(pool, "max"),
                fluid.layers.embedding(ids, size=[10, 3]),
                fluid.layers.lod_append(fluid.layers.lod_reset(y, target_lod=[0, 2, 6]),
                                        [0, 1, 3, 6]),
                fluid.layers.lod_reset(x, y),
                fluid.layers.elementwise_add(y, y), fluid.layers.reduce_sum(y)]
    feed = {"x": fluid.create_lod_tensor(np.arange(12, dtype="float32").reshape(6, 2),
                                         [[2, 1], [1, 2, 3]], PLACE),
            "ids": fluid.create_lod_tensor(np.array([[1], [2], [3]], "int64"), [[2, 1]], PLACE),
            "y": fluid.create_lod_tensor(np.zeros((6, 1), "float32"), [[4, 2]], PLACE)}
    outs, got = _run(build, feed)
    # Paddle 1.8.5: build-time lod_level and run-time LoD of each output
    assert [o.lod_level for o in outs] == [1, 0, 1, 2, 1, 1, 0]
    assert [t.recursive_sequence_lengths() for t in got] == [
        [[2, 1]], [], [[2, 1]], [[2, 4], [1, 2, 3]], [[4, 2]], [[4, 2]], []]
    np.testing.assert_array_equal(np.array(got[0]), [[0, 1], [6, 8], [24, 27]])
    np.testing.assert_array_equal(np.array(got[1]), [[6, 8], [24, 27]])


def test_feeds_a_lod_tensor_a_pair_or_a_plain_array():
    rows = np.arange(5, dtype="float32").reshape(5, 1)

    def build():
        return [fluid.layers.scale(fluid.data("x", [-1, 1], "float32", lod_level=1), 2.0)]
    for feed in (fluid.create_lod_tensor(rows, [[2, 3]], PLACE), (rows, [[2, 3]])):
        _, (out,) = _run(build, {"x": feed})
        assert out.lod() == [[0, 2, 5]]
        np.testing.assert_array_equal(np.array(out), rows * 2)
    _, (out,) = _run(build, {"x": rows})     # lod_level says what is expected, not required
    assert out.lod() == []
    with pytest.raises(FeedError, match="feed 'x': its LoD \\[\\[0, 2, 4\\]\\]"):
        _run(build, {"x": (rows, [[2, 2]])})
    with pytest.raises(FeedError, match="non-negative ints"):
        _run(build, {"x": (rows, [[2, -3]])})
    main = Program()
    with program_guard(main, Program()):
        out = build()[0]
    with pytest.raises(RuntimeError, match="hold LoD information"):
        fluid.Executor(PLACE).run(main, feed={"x": (rows, [[2, 3]])}, fetch_list=[out],
                                  scope=Scope())


def test_lod_tensor_api():
    t = fluid.LoDTensor()
    t.set_recursive_sequence_lengths([[1, 2]])      # before the data: kept
    t.set(np.ones((3, 1), "float32"), PLACE)
    assert t.lod() == [[0, 1, 3]] and t.has_valid_recursive_sequence_lengths()
    t.set_lod([[0, 2], [0, 1, 3]])
    assert t.recursive_sequence_lengths() == [[2], [1, 2]]
    t.set(np.ones((4, 1), "float32"), PLACE)        # set keeps the LoD, as Paddle
    assert t.recursive_sequence_lengths() == [[2], [1, 2]]
    assert not t.has_valid_recursive_sequence_lengths()
    copy = t._copy()
    assert copy.lod() == t.lod() and isinstance(np.array(copy), np.ndarray)
    assert type(np.array(t)) is np.ndarray          # the rows, without the LoD


def test_lod_array_values_and_sequence_slice():
    a = with_lod(np.arange(6).reshape(6, 1), ((2, 1), (1, 2, 3)))
    assert isinstance(a, LoDArray) and lod_of(a) == ((2, 1), (1, 2, 3))
    assert lod_of(a + 1) == () and lod_of(a[1:]) == ()      # derived arrays carry none
    rows, lod = sequence_slice(np.asarray(a), lod_of(a), 1, 2)
    assert lod == ((1,), (3,)) and rows[:, 0].tolist() == [3, 4, 5]
    rows, lod = sequence_slice(np.asarray(a), lod_of(a), 0, 1)
    assert lod == ((2,), (1, 2)) and rows[:, 0].tolist() == [0, 1, 2]


def test_data_parallel_splits_a_lod_batch_by_whole_sequences():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        words = fluid.data("w", [-1, 1], "int64", lod_level=1)
        emb = fluid.layers.embedding(words, size=[20, 2], param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(0.5)))
        pooled = fluid.layers.sequence_pool(emb, "sum")
        loss = fluid.layers.mean(pooled)
        fluid.optimizer.SGD(0.0).minimize(loss)
    exe, scope = fluid.Executor(PLACE), Scope()
    exe.run(startup, scope=scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=fluid.cpu_places(2))
    feed = {"w": fluid.create_lod_tensor(np.arange(6).reshape(6, 1), [[3, 1, 2]], PLACE)}
    got, = exe.run(compiled, feed=feed, fetch_list=[pooled], scope=scope)
    # seed 001: the later place takes the extra sequence: [s0] | [s1, s2]
    np.testing.assert_array_equal(got[:, 0], [1.5, 0.5, 1.0])
    per_place, = exe.run(compiled, feed=feed, fetch_list=[emb], scope=scope,
                         return_numpy=False, return_merged=False)
    assert [t.recursive_sequence_lengths() for t in per_place] == [[[3]], [[1, 2]]]
    merged, = exe.run(compiled, feed=feed, fetch_list=[emb], scope=scope,
                      return_numpy=False)           # one LoDTensor, the sequences joined
    assert merged.recursive_sequence_lengths() == [[3, 1, 2]]
    with pytest.raises(FeedError, match="'w' has 1 sequences, fewer than the 2 devices"):
        exe.run(compiled, feed={"w": (np.zeros((4, 1), "int64"), [[4]])},
                fetch_list=[pooled], scope=scope)


def test_concat_joins_sequences_along_axis_0_and_one_hot_keeps_the_lod():
    def build():
        x = fluid.data("x", [-1, 3], "float32", lod_level=1)
        y = fluid.data("y", [-1, 3], "float32", lod_level=1)
        ids = fluid.data("ids", [-1, 1], "int64", lod_level=1)
        depth = fluid.layers.fill_constant([1], "int32", 3)
        return [fluid.layers.concat([x, y], axis=0), fluid.layers.concat([x, x], axis=1),
                fluid.layers.one_hot(ids, depth), fluid.one_hot(ids, depth)]
    feed = {"x": fluid.create_lod_tensor(np.ones((5, 3), "float32"), [[2, 3]], PLACE),
            "y": fluid.create_lod_tensor(np.ones((4, 3), "float32"), [[1, 3]], PLACE),
            "ids": fluid.create_lod_tensor(np.array([[1], [2], [0]], "int64"), [[1, 2]], PLACE)}
    _, got = _run(build, feed)
    # Paddle 1.8.5 on the same program and feed
    # (and fluid.one_hot, op one_hot_v2, keeps it too: Paddle 1.8's test_one_hot_v2_op)
    assert [t.recursive_sequence_lengths() for t in got] == [[[2, 3, 1, 3]], [[2, 3]], [[1, 2]],
                                                             [[1, 2]]]
    assert np.array(got[0]).shape == (9, 3) and np.array(got[1]).shape == (5, 6)
    np.testing.assert_array_equal(np.array(got[2]), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(np.array(got[3]), [[[0, 1, 0]], [[0, 0, 1]], [[1, 0, 0]]])


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_fluid_one_hot_checks_its_arguments():
    with program_guard(Program(), Program()):
        ints = fluid.data("i", [4, 1], "int32")
        with pytest.raises(TypeError, match="dtype in"):
            fluid.layers.one_hot(fluid.data("f", [4, 1], "float32"), 3)
        with pytest.raises(TypeError, match="depth must be an int or a Variable"):
            fluid.layers.one_hot(ints, 4.1)
        with pytest.raises(TypeError, match="depth must be an int or a Variable"):
            fluid.layers.one_hot(ints, np.array([4]))


def test_lod_reset_with_append_adds_one_level_at_build_time():
    """Paddle 1.8's OpTest builds lod_reset with append=True directly: Out's lod_level is
    X's + 1, as its run-time LoD (test_lod_reset_op's TestLodAppendOpByAttr)."""
    def build():
        x = fluid.data("x", [-1, 2], "float32", lod_level=1)
        out = fluid.default_main_program().global_block().create_var(name="out",
                                                                      dtype="float32")
        fluid.default_main_program().global_block().append_op(
            type="lod_reset", inputs={"X": x}, outputs={"Out": out},
            attrs={"target_lod": [0, 1, 2, 3], "append": True})
        return [out]
    feed = {"x": fluid.create_lod_tensor(np.zeros((3, 2), "float32"), [[2, 1]], PLACE)}
    outs, got = _run(build, feed)
    assert outs[0].lod_level == 2
    assert got[0].recursive_sequence_lengths() == [[2, 1], [1, 1, 1]]


def test_view_ops_keep_the_lod_only_where_they_keep_the_rows():
    """reshape2 / squeeze2 / unsqueeze2 / flatten2 pass X's LoD on when Out keeps X's first
    dim, transpose2 never (Paddle 1.8.5 on the same program and feed). The models repo's
    PaddleRec/ctr/dnn squeezes its [N, 1, D] embeddings to [N, D] for sequence_pool."""
    def build():
        x = fluid.data("x", [-1, 2, 3], "float32", lod_level=1)
        y = fluid.data("y", [1, -1, 3], "float32", lod_level=1)
        L = fluid.layers
        return [L.reshape(x, [-1, 6]), L.reshape(x, [-1, 3]),
                L.squeeze(L.reshape(x, [-1, 1, 6]), axes=[1]), L.squeeze(y, axes=[0]),
                L.unsqueeze(x, axes=[0]), L.unsqueeze(x, axes=[1]),
                L.flatten(x, axis=1), L.flatten(x, axis=0), L.flatten(x, axis=2),
                L.transpose(x, [0, 2, 1]), L.transpose(x, [1, 0, 2]),
                L.sequence_pool(L.squeeze(L.reshape(x, [-1, 1, 6]), axes=[1]), "average")]
    feed = {"x": fluid.create_lod_tensor(np.arange(30, dtype="float32").reshape(5, 2, 3),
                                         [[2, 3]], PLACE),
            "y": fluid.create_lod_tensor(np.arange(15, dtype="float32").reshape(1, 5, 3),
                                         [[1]], PLACE)}
    _, got = _run(build, feed)
    assert [t.recursive_sequence_lengths() for t in got] == [
        [[2, 3]], [], [[2, 3]], [], [], [[2, 3]], [[2, 3]], [], [], [], [], []]
    assert [np.array(t).shape for t in got[:11]] == [
        (5, 6), (10, 3), (5, 6), (5, 3), (1, 5, 2, 3), (5, 1, 2, 3), (5, 6), (1, 30),
        (10, 3), (5, 3, 2), (2, 5, 3)]
    rows = np.arange(30, dtype="float32").reshape(5, 6)
    np.testing.assert_array_equal(np.array(got[-1]), [rows[:2].mean(0), rows[2:].mean(0)])


def test_one_place_compiled_program_takes_a_lod_feed_whole():
    """CPU_NUM=1 (ParallelExecutor on one place): the LoD feed is neither split nor cut to
    its sequence count (it was: 5 rows in 2 sequences reached the ops as 2 rows)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        words = fluid.data("w", [-1, 1], "int64", lod_level=1)
        emb = fluid.embedding(words, size=[20, 2], is_sparse=True, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.NumpyArrayInitializer(
                np.arange(40, dtype="float32").reshape(20, 2))))
        pooled = fluid.layers.sequence_pool(fluid.layers.squeeze(emb, axes=[1]), "average")
    exe, scope = fluid.Executor(PLACE), Scope()
    exe.run(startup, scope=scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(1))
    feed = {"w": fluid.create_lod_tensor(np.array([[1], [2], [3], [4], [5]]), [[2, 3]], PLACE)}
    got, = exe.run(compiled, feed=feed, fetch_list=[pooled], scope=scope)
    # ids 1, 2 -> rows [2, 3], [4, 5]; ids 3, 4, 5 -> [6, 7], [8, 9], [10, 11]
    np.testing.assert_array_equal(got, [[3.0, 4.0], [8.0, 9.0]])


def test_set_recursive_sequence_lengths_checks_the_levels_among_themselves():
    """Paddle's binding (2.0's fluid/tests/test_lod_tensor): an empty level, or a level not
    adding up to the next level's count, is refused before any data is set."""
    t = fluid.LoDTensor()
    t.set_recursive_sequence_lengths([])
    for bad in ([[], [1], [3]], [[0], [2], [3]], [[1, 1], [3]]):
        with pytest.raises(ValueError, match="not a valid LoD"):
            t.set_recursive_sequence_lengths(bad)
    t.set_recursive_sequence_lengths([[2], [1, 2]])
    assert t.recursive_sequence_lengths() == [[2], [1, 2]]


def test_create_lod_tensor_of_mismatched_lists_is_an_assertion_error():
    from refimpl.fluid.lod_tensor import create_lod_tensor
    with pytest.raises(AssertionError, match="lengths \\[\\[3, 2\\]\\]"):
        create_lod_tensor([[1, 2, 3], [3, 4]], [[2, 2]], fluid.CPUPlace())


def test_dlpack_round_trip_shares_the_values():
    t = fluid.create_lod_tensor(np.array([[1], [2], [3], [4]]), [[1, 3]], fluid.CPUPlace())
    back = fluid.core.from_dlpack(t._to_dlpack())
    assert isinstance(back, fluid.core.Tensor)
    np.testing.assert_array_equal(np.array(back), [[1], [2], [3], [4]])
