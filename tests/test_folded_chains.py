"""fc's forward chain (mul -> elementwise_add of the bias [-> relu]) and its relu-and-bias
gradient (relu_grad -> elementwise_add_grad) run as one call each
(refimpl/executor/folded_chains.py; matmul.mul_bias_forward, mul_bias_relu_forward,
fused.relu_bias_backward): the kernels against the members' kernels run in turn (to the
bit) and against numpy, and the plan's chains, which must leave every value as the ops
give it."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import static
from refimpl._kernels import backend
from refimpl.executor import Plan
from refimpl.executor import folded_chains
from refimpl.executor.executor import _done_by_previous_op

compiled = pytest.mark.skipif(backend() == "numpy", reason="numpy references only")


def _forced_split(patch, blas):
    """Every product through BLAS split over the team, every loop split too."""
    patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
    patch.setattr(blas, "MIN_SPLIT_WORK", 0)
    patch.setattr(blas, "MIN_SPLIT_ITEMS", 0)


@compiled
@settings(max_examples=80, deadline=None)
@given(rows=st.integers(1, 30), k=st.integers(1, 30), n=st.integers(1, 30),
       x3d=st.booleans(), relu=st.booleans(), split=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 31 - 1))
def test_mul_bias_forward_is_the_three_kernels(rows, k, n, x3d, relu, split, dtype, seed):
    """The fc forward kernel gives the bits of mul, elementwise_add and relu's kernels run
    in turn (small products through numpy's matmul; `split`: BLAS, over the team), and
    numpy's x @ w + b [clipped at 0]; x 3-D with x_num_col_dims 2 too."""
    blas = pytest.importorskip("refimpl._kernels.blas")
    matmul = pytest.importorskip("refimpl._kernels.matmul")
    from refimpl._kernels import activation, elementwise
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (rows, 2, k) if x3d else (rows, k)).astype(dtype)
    w = rng.uniform(-1, 1, (k, n)).astype(dtype)
    b = rng.uniform(-1, 1, n).astype(dtype)
    xn = 2 if x3d else 1
    fused = matmul.mul_bias_relu_forward if relu else matmul.mul_bias_forward
    with pytest.MonkeyPatch.context() as patch:
        if split:
            _forced_split(patch, blas)
        got = fused(x, w, b, xn, 1, xn)
        want = elementwise.add_forward(matmul.mul_forward(x, w, xn, 1), b, xn)
        if relu:
            want = activation.relu_forward(want)
    np.testing.assert_array_equal(got, want)
    assert got.shape == x.shape[:xn] + (n,) and got.dtype == x.dtype
    product = x @ w + b
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, np.maximum(product, 0) if relu else product,
                               rtol=tol, atol=tol * k)


@compiled
def test_mul_bias_forward_runs_other_bias_shapes_as_the_ops():
    """A bias that is not [N] on the product's last axis (here [rows, N]) takes the
    members' kernels: the ops' broadcast."""
    matmul = pytest.importorskip("refimpl._kernels.matmul")
    x = np.arange(6, dtype="float32").reshape(3, 2)
    w = np.array([[1, -1], [2, 0.5]], "float32")
    b = np.array([[0, 1], [-20, 0], [2, 3]], "float32")
    np.testing.assert_array_equal(matmul.mul_bias_relu_forward(x, w, b, 1, 1, 0),
                                  [[2, 1.5], [0, 0], [16, 1.5]])


@compiled
@settings(max_examples=80, deadline=None)
@given(rows=st.integers(1, 40), n=st.integers(1, 40), x3d=st.booleans(),
       split=st.booleans(), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2 ** 31 - 1))
def test_relu_bias_backward_is_the_two_kernels(rows, n, x3d, split, dtype, seed):
    """relu_grad's and elementwise_add_grad's kernels in one pass: their bits (the bias
    sums over the same parts of the rows; `split`: more than one part), and numpy's
    dout * (out > 0) and its column sums; X is read for its shape only (a stand-in)."""
    blas = pytest.importorskip("refimpl._kernels.blas")
    fused = pytest.importorskip("refimpl._kernels.fused")
    from refimpl._kernels import activation, elementwise
    rng = np.random.RandomState(seed)
    shape = (rows, 3, n) if x3d else (rows, n)
    out = np.maximum(rng.uniform(-1, 1, shape), 0).astype(dtype)
    dout = rng.uniform(-1, 1, shape).astype(dtype)
    b = rng.uniform(-1, 1, n).astype(dtype)
    x = np.broadcast_to(np.zeros((), dtype), shape)
    axis = len(shape) - 1
    with pytest.MonkeyPatch.context() as patch:
        if split:
            _forced_split(patch, blas)
        dx, db = fused.relu_bias_backward(out, dout, x, b, axis)
        want_dx, want_db = elementwise.add_backward(x, b, activation.relu_backward(out, dout),
                                                    axis)
    np.testing.assert_array_equal(dx, want_dx)
    np.testing.assert_array_equal(db, want_db)
    assert db.shape == (n,) and db.dtype == b.dtype and dx.dtype == out.dtype
    masked = dout * (out > 0)
    np.testing.assert_array_equal(dx, masked)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(db, masked.reshape(-1, n).sum(0), rtol=tol, atol=tol * rows)


def _net(fetch_middle=False):
    """(main, startup, loss, the names to fetch, the first layer's weight and bias) of a
    3-layer fc net (relu, relu, none) trained by SGD; `fetch_middle`: the names are the
    first layer's product and pre-relu sum."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 7], "float32")
        h = x
        for width, act, seed in ((6, "relu", 1), (5, "relu", 2), (3, None, 3)):
            h = static.nn.fc(h, width, activation=act, weight_attr=paddle.ParamAttr(
                initializer=paddle.nn.initializer.Uniform(-0.7, 0.7, seed=seed)),
                bias_attr=paddle.ParamAttr(
                initializer=paddle.nn.initializer.Uniform(-0.3, 0.3, seed=seed + 10)))
        loss = paddle.mean(h * h)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    first = [op for op in main.global_block().ops if op.type == "mul"][0]
    add = [op for op in main.global_block().ops if op.type == "elementwise_add"][0]
    middle = [first.output("Out")[0], add.output("Out")[0]] if fetch_middle else []
    return main, startup, loss, middle, (first.input("Y")[0], add.input("Y")[0])


def _chained_ops(plan):
    """The types of the ops a plan runs inside another op's call."""
    return sorted(op.type for op, run in zip(plan.ops, plan.runs)
                  if run is _done_by_previous_op)


def _train(patch_chains=None, steps=3):
    main, startup, loss, _, _ = _net()
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    data = np.random.RandomState(0).uniform(-1, 1, (4, 7)).astype("float32")
    losses = [float(exe.run(main, feed={"x": data}, fetch_list=[loss], scope=scope)[0])
              for _ in range(steps)]
    params = [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()]
    return losses, params, _chained_ops(Plan(main, ["x"], [loss.name]))


def test_folded_chains_train_as_the_ops(monkeypatch):
    """The compiled backend runs each layer's forward as one call (mul + add + relu, and
    mul + add for the last) and the two relu layers' relu-and-bias gradients as one; the
    losses and parameters after three steps are the bits of the plan without chains."""
    losses, params, chained = _train()
    if backend() == "cython":
        assert chained.count("elementwise_add") == 3 and chained.count("relu") == 2
        assert chained.count("elementwise_add_grad") == 2
    else:
        assert "relu" not in chained and "elementwise_add" not in chained
    monkeypatch.setattr(folded_chains, "select_folded_chain", lambda *args: None)
    plain_losses, plain_params, plain_chained = _train()
    assert not {"relu", "elementwise_add", "elementwise_add_grad"} & set(plain_chained)
    assert losses == plain_losses
    assert len(params) == len(plain_params) == 6
    for value, plain_value in zip(params, plain_params):
        np.testing.assert_array_equal(value, plain_value)


def test_a_fetched_intermediate_is_not_folded():
    """Fetching a layer's product and its pre-relu sum keeps that layer's ops apart (the
    values are x @ W and x @ W + b); the other layers still fold."""
    main, startup, loss, middle, first_layer = _net(fetch_middle=True)
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    data = np.random.RandomState(1).uniform(-1, 1, (3, 7)).astype("float32")
    w, b = [np.array(scope.find_var(n).get_tensor()) for n in first_layer]
    product, summed = exe.run(main, feed={"x": data}, fetch_list=middle, scope=scope)
    np.testing.assert_allclose(product, data @ w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(summed, data @ w + b, rtol=1e-6, atol=1e-6)
    chained = _chained_ops(Plan(main, ["x"], middle))
    assert chained.count("elementwise_add") == (2 if backend() == "cython" else 0)


def _linear_net_losses(fold, steps=3):
    """(losses, parameters, chained op types) of three SGD steps of nn.Linear layers on a
    3-D input (matmul_v2 -> elementwise_add [-> relu], a transposed product between them
    that stays unfolded), `fold`: with the plan's chains."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        paddle.seed(5)
        x = static.data("x", [None, 3, 7], "float32")
        h = paddle.nn.functional.relu(paddle.nn.Linear(7, 6)(x))
        h = paddle.matmul(h, h, transpose_y=True)       # [?, 3, 3]: no Linear
        h = paddle.nn.Linear(3, 4)(h)
        loss = paddle.mean(h * h)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    data = np.random.RandomState(2).uniform(-1, 1, (5, 3, 7)).astype("float32")
    w1, b1, w2, b2 = [np.array(scope.find_var(p.name).get_tensor())
                      for p in main.all_parameters()]
    h = np.maximum(data @ w1 + b1, 0)
    first_loss = np.mean(np.square(h @ h.transpose(0, 2, 1) @ w2 + b2))
    with pytest.MonkeyPatch.context() as patch:
        if not fold:
            patch.setattr(folded_chains, "select_folded_chain", lambda *args: None)
        losses = [float(exe.run(main, feed={"x": data}, fetch_list=[loss], scope=scope)[0])
                  for _ in range(steps)]
        chained = _chained_ops(Plan(main, ["x"], [loss.name]))
    params = [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()]
    np.testing.assert_allclose(losses[0], first_loss, rtol=1e-5)
    return losses, params, chained


def test_linear_chains_fold_and_train_as_the_ops():
    """The compiled backend runs each nn.Linear's matmul_v2 + bias add [+ relu] as the fc
    kernel at x_num_col_dims 2 (the transposed matmul_v2 stays an op of its own); the
    losses and parameters after three steps are the bits of the unfolded plan, and the
    first loss is numpy's."""
    losses, params, chained = _linear_net_losses(fold=True)
    if backend() == "cython":
        assert chained.count("elementwise_add") == 2 and chained.count("relu") == 1
    else:
        assert "elementwise_add" not in chained
    plain_losses, plain_params, plain_chained = _linear_net_losses(fold=False)
    assert "elementwise_add" not in plain_chained
    assert losses == plain_losses and len(params) == len(plain_params) == 4
    for value, plain_value in zip(params, plain_params):
        np.testing.assert_array_equal(value, plain_value)
    assert losses[1] < losses[0]


def test_a_linear_fed_one_sample_as_a_vector_runs_as_paddle_3():
    # Paddle 3's test_momentum_op feeds uci_housing samples of shape [13] to x [-1, 13]:
    # 3.3.1 (FLAGS_enable_pir_api=0, measured) runs the Linear's matmul_v2 on the vector,
    # pred [1]; three Momentum steps from w = 0.1, b = 0.2 leave cost 0.000484, pred 1.022
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [-1, 13], "float32")
            y = static.data("y", [-1, 1], "float32")
            pred = paddle.nn.Linear(
                13, 1, weight_attr=paddle.ParamAttr(
                    initializer=paddle.nn.initializer.Constant(0.1)),
                bias_attr=paddle.ParamAttr(
                    initializer=paddle.nn.initializer.Constant(0.2)))(x)
            cost = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
            paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(cost)
        exe = static.Executor(paddle.CPUPlace())
        exe.run(startup)
        for _ in range(3):
            got_cost, got_pred = exe.run(main, feed={
                "x": np.arange(13, dtype="float32") / 10, "y": np.ones(1, "float32")},
                fetch_list=[cost, pred])
    finally:
        paddle.disable_static()
    assert got_pred.shape == (1,)
    np.testing.assert_allclose(got_pred, [1.022], rtol=1e-5)
    np.testing.assert_allclose(got_cost, 0.000484, rtol=1e-3)
