"""A weight's sgd update folded into mul_grad's GEMM (refimpl/executor/folded_updates.py,
matmul.mul_backward_sgd): the kernel against the two ops' references, and the plan's
pairing, which must leave every value as the two ops give it."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import static
from refimpl._kernels import backend
from refimpl.executor import Plan
from refimpl.executor.executor import _done_by_previous_op
from refimpl.ops.mul import Mul
from refimpl.ops.sgd import SGD

compiled = pytest.mark.skipif(backend() == "numpy", reason="numpy references only")


@compiled
@settings(max_examples=120, deadline=None)
@given(rows=st.integers(1, 40), k=st.integers(1, 40), n=st.integers(1, 40),
       shape=st.sampled_from(["2d", "x3d", "y3d"]), need_x=st.booleans(),
       path=st.sampled_from(["default", "split"]),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 31 - 1))
def test_mul_backward_sgd_matches_mul_grad_then_sgd(rows, k, n, shape, need_x, path, dtype,
                                                    seed):
    """Every shape mul flattens (X at x_num_col_dims 2, Y at y_num_col_dims 2), the weight
    updated in place; products this small take the two kernels (mul_backward, sgd);
    `split`: the folded GEMM (numpy's GEMM limit put to 0), split over the team (its
    threshold too)."""
    blas = pytest.importorskip("refimpl._kernels.blas")
    matmul = pytest.importorskip("refimpl._kernels.matmul")
    rng = np.random.RandomState(seed)
    x_shape, xn = ((rows, 2, k), 2) if shape == "x3d" else ((rows, 2 * k), 1)
    y_shape, yn = ((2, k, n), 2) if shape == "y3d" else ((x_shape[-1] if xn == 1 else k, n), 1)
    if shape == "y3d":
        x_shape = (rows, 2 * k)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    y = rng.uniform(-1, 1, y_shape).astype(dtype)
    dout = rng.uniform(-1, 1, x_shape[:xn] + (n,)).astype(dtype)
    lr = np.array([rng.uniform(0.001, 0.5)], "float32")
    want_dx, want_dy = Mul.backward(x, y, dout, xn, yn)
    want_y = SGD.forward(y.copy(), lr, want_dy)
    weight = y.copy()
    with pytest.MonkeyPatch.context() as patch:
        if path == "split":
            patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
            patch.setattr(blas, "MIN_SPLIT_WORK", 0)
        dx = matmul.mul_backward_sgd(x, weight, dout, lr, xn, yn, need_x=need_x)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(weight, want_y, rtol=tol, atol=tol)
    assert weight.dtype == y.dtype and weight.shape == y.shape
    if need_x:
        np.testing.assert_allclose(dx, want_dx, rtol=tol, atol=tol * k)
        assert dx.shape == x.shape and dx.dtype == x.dtype
    else:
        assert dx is None


def _folded_updates(plan):
    """Whether the plan runs an sgd op inside its gradient's op."""
    return any(run is _done_by_previous_op for op, run in zip(plan.ops, plan.runs)
               if op.type == "sgd")


def _trained(fetch_gradient, steps=3):
    """(weights after `steps` SGD steps of a two-layer fc net, whether the plan folded an
    update), fetching the first weight's gradient (which keeps it from folding) or not."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        h = static.nn.fc(x, 5, activation="relu", weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Uniform(-0.5, 0.5, seed=1)))
        out = static.nn.fc(h, 3, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Uniform(-0.5, 0.5, seed=2)))
        loss = paddle.mean(out * out)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    data = np.random.RandomState(0).uniform(-1, 1, (4, 6)).astype("float32")
    names = [p.name for p in main.all_parameters() if p.name.endswith(".w_0")]
    fetch = [loss.name] + ([names[0] + "@GRAD"] if fetch_gradient else [])
    for _ in range(steps):
        exe.run(main, feed={"x": data}, fetch_list=fetch, scope=scope)
    folded = _folded_updates(Plan(main, ["x"], fetch))
    weights = [np.array(scope.find_var(n).get_tensor()) for n in names]
    return weights, folded


def test_folded_updates_train_as_the_two_ops():
    """The compiled backend folds both weights' updates (the numpy one none); the weights
    after three steps are those of the unfolded plan, whose first weight's gradient is
    fetched (a fetched gradient outlives the update, so that pair stays two ops), up to
    the update's rounding (one fused multiply-add instead of a product and a difference)."""
    (w0, w1), folded = _trained(fetch_gradient=False)
    (v0, v1), _ = _trained(fetch_gradient=True)
    assert folded == (backend() == "cython")
    np.testing.assert_allclose(w0, v0, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w1, v1, rtol=1e-6, atol=1e-7)


def test_a_fetched_gradient_is_not_folded():
    """Fetching a weight's gradient keeps its mul_grad and sgd two ops (the gradient is
    the product, and the weight moves by lr times it once)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        h = static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(0.5)))
        loss = paddle.mean(h)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    data = np.arange(6, dtype="float32").reshape(2, 3)
    weight = [p.name for p in main.all_parameters() if p.name.endswith(".w_0")][0]
    grad, = exe.run(main, feed={"x": data}, fetch_list=[weight + "@GRAD"], scope=scope)
    # d mean(xW + b)/dW: the mean row of x for each of the 2 outputs, over 2 outputs
    want = np.repeat(data.mean(0, keepdims=True).T, 2, axis=1) / 2
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    np.testing.assert_allclose(np.array(scope.find_var(weight).get_tensor()),
                               0.5 - 0.1 * want, rtol=1e-6)
    assert not _folded_updates(Plan(main, ["x"], [weight + "@GRAD"]))
