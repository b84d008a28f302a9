"""The nce op (refimpl/ops/nce.py), fluid.layers.nce and fluid.dygraph.NCE: hand-derived
costs, the samplers' probabilities, the alias table, and the parameters Paddle 1.8.5
creates (names measured on 1.8.5)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.nce import NCE as NCEOp, alias_table


def _ones_run(**nce_args):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [3, 2], "float32")
        label = fluid.data("l", [3, 1], "int64")
        zeros = fluid.ParamAttr(initializer=fluid.initializer.Constant(0.0))
        cost = fluid.layers.nce(x, label, 4, num_neg_samples=2, param_attr=zeros, seed=3,
                                **nce_args)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        out, = exe.run(main, feed={"x": np.ones((3, 2), "float32"),
                                   "l": np.array([[0], [1], [3]], "int64")},
                       fetch_list=[cost])
    return main, out


def test_zero_weights_give_log_2_with_the_uniform_sampler():
    # every o = sigmoid(0) = 1/2 and b = S / K = 1/2: each of the 1 + 2 terms is log 2,
    # and the layer divides the sum by S + 1 (Paddle 1.8.5 measured: 0.6931472 per row)
    main, out = _ones_run()
    np.testing.assert_allclose(out.ravel(), [np.log(2)] * 3, rtol=1e-6)
    assert sorted(p.name for p in main.all_parameters()) == ["nce_0.b_0", "nce_0.w_0"]


def test_custom_dist_keeps_its_tables_as_parameters_like_paddle():
    main, out = _ones_run(sampler="custom_dist", custom_dist=[0.1, 0.2, 0.3, 0.4])
    assert sorted(p.name for p in main.all_parameters()) == [
        "nce_0.b_0", "nce_0.w_0", "nce_0.w_1", "nce_0.w_2", "nce_0.w_3"]
    assert out.shape == (3, 1) and np.isfinite(out).all()


def _cost_by_hand(o, labels, num_true, b_of):
    cost = np.zeros(len(o))
    for n in range(len(o)):
        for j, c in enumerate(labels[n]):
            b = b_of(c)
            cost[n] += -np.log(o[n, j] / (o[n, j] + b)) if j < num_true else \
                -np.log(b / (o[n, j] + b))
    return cost


@pytest.mark.parametrize("sampler", [0, 1])
def test_cost_is_the_nce_formula_over_the_drawn_classes(sampler):
    rng = np.random.RandomState(0)
    x, w, bias = rng.randn(4, 3), rng.randn(10, 3), rng.randn(10, 1)
    label = np.array([[1, 2], [9, 0], [4, 4], [7, 3]], np.int64)
    cost, o, labels = NCEOp.forward(x, label, w, bias, None, None, None, None,
                                    num_total_classes=10, num_neg_samples=3,
                                    sampler=sampler, seed=11)
    assert labels.shape == (4, 5) and (labels[:, :2] == label).all()
    want_o = 1 / (1 + np.exp(-(np.einsum("nd,nsd->ns", x, w[labels]) + bias[labels, 0])))
    np.testing.assert_allclose(o, want_o, rtol=1e-12)
    # b = S * P(c) is single precision, as in Paddle's kernels
    if sampler == 0:
        def b_of(c):
            return float(np.float32(3 * np.float32(1 / 10)))
    else:
        def b_of(c):
            # P(c) in double over log 10 held as a float (Paddle's sampler's log_range_)
            log_range = float(np.float32(np.log(10)))
            return float(np.float32(3 * np.float32(np.log((c + 2) / (c + 1)) / log_range)))
    np.testing.assert_allclose(cost.ravel(), _cost_by_hand(o, labels, 2, b_of), rtol=1e-12)


def test_cost_and_weight_gradient_are_paddle_1_8_5s_to_rounding():
    """Paddle 1.8.5 (float64, custom_neg_classes [2, 3], K 6, S 2): its b = S / K is a
    float, 0.3333333432674408; with the exact 1/3 the Weight gradient would be ~1e-8 off."""
    x = np.array([[0.5, -0.25]])
    w = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6], [-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]])
    attrs = dict(num_total_classes=6, num_neg_samples=2, custom_neg_classes=[2, 3])
    label = np.array([[1]], np.int64)
    cost, o, labels = NCEOp.forward(x, label, w, None, None, None, None, None, **attrs)
    np.testing.assert_allclose(cost.ravel(), [2.1521932127295864], rtol=1e-14)
    grads = NCEOp.backward(x, label, w, None, None, None, o, labels, np.ones((1, 1)), **attrs)
    paddle185_dw = [[0.0, 0.0], [-0.08148496170847956, 0.04074248085423978],
                    [0.14527111702309461, -0.07263555851154731],
                    [0.16590988920901517, -0.08295494460450759], [0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(grads[1], paddle185_dw, rtol=1e-13, atol=1e-16)


def test_alias_table_gives_each_class_its_probability():
    probs = np.array([0.05, 0.15, 0.5, 0.3])
    alias, keep = alias_table(probs)
    # each slot's own share plus what other slots hand it equals its probability * K
    share = keep.astype(np.float64).copy()
    for i, a in enumerate(alias):
        if a >= 0:
            share[a] += 1 - keep[i]
    np.testing.assert_allclose(share / 4, probs, atol=1e-6)


def test_dygraph_nce_has_no_bias_unless_asked_and_matches_static():
    x = np.random.RandomState(1).randn(3, 2).astype("float32")
    label = np.array([[0], [1], [3]], "int64")
    with fluid.dygraph.guard():
        layer = fluid.dygraph.NCE(4, 2, num_neg_samples=2, seed=5,
                                  param_attr=fluid.ParamAttr(
                                      initializer=fluid.initializer.Constant(0.0)))
        assert [p.name for p in layer.parameters()] == ["nce_0.w_0"]
        got = layer(fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(label)).numpy()
        with_bias = fluid.dygraph.NCE(4, 2, bias_attr=True)
        assert with_bias.bias.shape == [4, 1]
    np.testing.assert_allclose(got.ravel(), [np.log(2)] * 3, rtol=1e-6)


def test_wrong_dtypes_are_type_errors_as_in_paddle():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [-1, 4], "float32")
        with pytest.raises(TypeError):
            fluid.layers.nce(x, fluid.data("l32", [-1, 1], "int32"), 5)
        with pytest.raises(TypeError):
            fluid.layers.nce(np.zeros((2, 4), "float32"), fluid.data("l", [-1, 1], "int64"), 5)
        with pytest.raises(ValueError, match="custom_dist"):
            fluid.layers.nce(x, fluid.data("l2", [-1, 1], "int64"), 5, sampler="custom_dist")
