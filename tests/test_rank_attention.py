"""fluid.contrib.layers.rank_attention and its op (specs/ops/fluid_contrib_ops.md): values
worked out by hand and by a loop over the documented semantics; the program Paddle 1.8.5
builds (measured: its CPU kernel raises Unimplemented, so no values come from it)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.registry import get_op_def

# One page view of two ranked instances (ranks 1 and 2) and one without a rank; X is 1 wide,
# MaxRank 2, so RankParam holds four 1x1 blocks: (own rank, other's rank) (1,1) (1,2) (2,1)
# (2,2) = 10 20 30 40. Each row of RankOffset: own rank, then (rank 1's row), (rank 2's).
X = np.array([[1.0], [2.0], [3.0]], np.float32)
OFFSET = np.array([[1, 1, 0, 2, 1], [2, 1, 0, 2, 1], [-1, -1, -1, -1, -1]], np.int32)
PARAM = np.array([[10.0], [20.0], [30.0], [40.0]], np.float32)
OUT = [[1 * 10 + 2 * 20], [1 * 30 + 2 * 40], [0]]        # instance 2 attends to nothing
PARAM_GRAD = [[1], [2], [1], [2]]                        # d sum(Out): X[row] for each pair


def _build(max_rank=2, width=1, rows=4, param=PARAM):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, width], "float32")
        offset = fluid.data("offset", [None, 2 * max_rank + 1], "int32")
        init = None if param is None else fluid.initializer.NumpyArrayInitializer(param)
        out = fluid.contrib.layers.rank_attention(
            x, offset, [rows, 1], fluid.ParamAttr(name="rank_w", initializer=init),
            max_rank=max_rank)
        grad, = fluid.gradients([fluid.layers.reduce_sum(out)],
                                [main.global_block().var("rank_w")])
    return main, startup, out, grad


def _run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


@pytest.mark.paddle("1.8")
def test_rank_attention_by_hand():
    main, startup, out, grad = _build()
    got, got_grad = _run(main, startup, {"x": X, "offset": OFFSET}, [out, grad])
    np.testing.assert_allclose(got, OUT)
    np.testing.assert_allclose(got_grad, PARAM_GRAD)


@pytest.mark.paddle("1.8")
def test_unused_pairs_read_nothing():
    # instance 0 attends only to rank 2 (its rank-1 pair is -1); instance 1's own rank is 0
    offset = np.array([[1, -1, -1, 2, 1], [0, 1, 0, 2, 1], [2, 1, 2, 2, 1]], np.int32)
    main, startup, out, grad = _build()
    got, got_grad = _run(main, startup, {"x": X, "offset": offset}, [out, grad])
    np.testing.assert_allclose(got, [[2 * 20], [0], [3 * 30 + 2 * 40]])
    np.testing.assert_allclose(got_grad, [[0], [2], [3], [2]])


def _loop_reference(x, offset, param, max_rank):
    """Out, InputHelp, InsRank one pair at a time, as the op's documentation states them."""
    rows, width = x.shape
    out = np.zeros((rows, param.shape[1]))
    help_ = np.zeros((rows, max_rank * width))
    for i in range(rows):
        own = offset[i, 0]
        for k in range(max_rank):
            other, row = offset[i, 2 * k + 1], offset[i, 2 * k + 2]
            if own >= 1 and other >= 1:
                block = ((own - 1) * max_rank + other - 1) * width
                help_[i, k * width:(k + 1) * width] = x[row]
                out[i] += x[row] @ param[block:block + width]
    return out, help_, offset[:, :1].astype(float)


def _random_offset(rng, page_views, max_rank):
    """RankOffset of page views of 1..max_rank + 1 instances, each ranked 1..n in a random
    order; ranks past max_rank are none (-1), as are the pairs they would fill."""
    rows = []
    for _ in range(page_views):
        ranks = rng.permutation(rng.integers(1, max_rank + 2)) + 1
        start = len(rows)
        for rank in ranks:
            row = [rank if rank <= max_rank else -1] + [-1] * (2 * max_rank)
            if rank <= max_rank:
                for j, other in enumerate(ranks):
                    if other <= max_rank:
                        row[2 * other - 1:2 * other + 1] = [other, start + j]
            rows.append(row)
    return np.array(rows, np.int32)


def test_the_op_matches_a_loop_over_pairs():
    rng = np.random.default_rng(3)
    max_rank, width = 3, 4
    offset = _random_offset(rng, 20, max_rank)
    x = rng.uniform(-1, 1, (len(offset), width))
    param = rng.uniform(-1, 1, (max_rank * max_rank * width, 5))
    assert (offset[:, 0] == -1).any() and (offset[:, 1:] == -1).any()   # unused pairs met
    got = get_op_def("rank_attention").forward(x, offset, param, MaxRank=max_rank)
    for value, expected in zip(got, _loop_reference(x, offset, param, max_rank)):
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("version, helpers", [("1.8", False), ("2.0", True), ("3", True)])
def test_the_built_op_by_version(paddle_version, version, helpers):
    # measured: 1.8.5 binds Out only (MaxRank), its unbound InsRank variable made after Out;
    # 3.3.1 binds InputHelp [-1, MaxRank C] and InsRank [-1, 1] too (MaxSize)
    with paddle_version(version):
        main, _, out, grad = _build(max_rank=3, width=2, rows=18, param=None)
    op = next(op for op in main.global_block().ops if op.type == "rank_attention")
    outputs = {slot: names for slot, names in op.outputs.items() if names}
    assert list(out.shape) == [-1, 1] and out.name == "rank_attention_0.tmp_0"
    if helpers:
        assert outputs == {"Out": [out.name], "InputHelp": ["rank_attention_0.tmp_1"],
                           "InsRank": ["rank_attention_0.tmp_2"]}
        assert list(main.global_block().var("rank_attention_0.tmp_1").shape) == [-1, 6]
        assert list(main.global_block().var("rank_attention_0.tmp_2").shape) == [-1, 1]
    else:
        assert outputs == {"Out": [out.name]}
        assert main.global_block().var("rank_attention_0.tmp_1").stop_gradient
    grad_op = next(op for op in main.global_block().ops if op.type == "rank_attention_grad")
    # no gradient to X, as in Paddle
    assert {slot for slot, names in grad_op.outputs.items() if names} == {"RankParam@GRAD"}


def test_errors_name_what_is_wrong():
    op = get_op_def("rank_attention")
    with pytest.raises(ValueError, match="instance row 5; X has 3 rows"):
        op.forward(X, np.array([[1, 1, 5, -1, -1]] * 3, np.int32), PARAM, MaxRank=2)
    with pytest.raises(ValueError, match="rank 3, past MaxRank 2"):
        op.forward(X, np.array([[3, 1, 0, -1, -1]] * 3, np.int32), PARAM, MaxRank=2)
    with pytest.raises(ValueError, match=r"RankOffset must be \[X's rows, 2 \* MaxRank \+ 1\]"):
        op.forward(X, OFFSET[:, :3], PARAM, MaxRank=2)
    with pytest.raises(ValueError, match="rank_param_shape"):
        _build(max_rank=2, width=1, rows=5)


@pytest.mark.paddle("1.8")
def test_a_layer_before_it_gets_no_gradient_and_keeps_its_weights():
    # Paddle's grad op writes no X@GRAD: SGD moves RankParam by -lr * PARAM_GRAD and leaves
    # the fc feeding X as it was
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 1], "float32")
        hidden = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(
            name="fc_w", initializer=fluid.initializer.Constant(1.0)), bias_attr=False)
        offset = fluid.data("offset", [None, 5], "int32")
        out = fluid.contrib.layers.rank_attention(
            hidden, offset, [4, 1], fluid.ParamAttr(
                name="rank_w", initializer=fluid.initializer.NumpyArrayInitializer(PARAM)),
            max_rank=2)
        fluid.optimizer.SGD(0.5).minimize(fluid.layers.reduce_sum(out))
    assert not main.global_block().has_var("fc_w@GRAD")
    fc_w, rank_w = _run(main, startup, {"x": X, "offset": OFFSET}, ["fc_w", "rank_w"])
    np.testing.assert_allclose(fc_w, [[1.0]])
    np.testing.assert_allclose(rank_w, PARAM - 0.5 * np.array(PARAM_GRAD))
