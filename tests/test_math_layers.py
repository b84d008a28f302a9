"""Math and activation layer functions (paddle.*, fluid.layers.*, nn.functional.*) build
programs whose executed values match numpy formulas written independently here, and whose
gradients (refimpl.backward.gradients) match finite differences through the executor."""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.backward import gradients
from refimpl.framework.errors import OpError
import refimpl.nn.functional as F

L = fluid.layers
RNG = np.random.RandomState(7)
_erf = np.vectorize(math.erf)


def _run(fetch, feed):
    return static.Executor().run(feed=feed, fetch_list=fetch)


def _check(pairs, feed, rtol=1e-5, atol=1e-6):
    """pairs: [(Variable, expected array)]; run once and compare values, shapes, dtypes."""
    got = _run([v for v, _ in pairs], feed)
    for (var, want), g in zip(pairs, got):
        want = np.asarray(want)
        assert g.shape == want.shape, (var.name, g.shape, want.shape)
        assert g.dtype == want.dtype, (var.name, g.dtype, want.dtype)
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=var.name)


# -- elementwise binary -------------------------------------------------------------------

def test_paddle_binary_layers_broadcast_like_numpy():
    x = static.data("x", [2, 3, 4], "float32")
    y = static.data("y", [3, 1], "float32")
    a = RNG.uniform(-2, 2, (2, 3, 4)).astype("float32")
    b = RNG.uniform(0.5, 2, (3, 1)).astype("float32")
    _check([(paddle.add(x, y), a + b), (paddle.subtract(x, y), a - b),
            (paddle.multiply(x, y), a * b), (paddle.divide(x, y), a / b),
            (paddle.maximum(x, y), np.maximum(a, b)), (paddle.minimum(x, y), np.minimum(a, b)),
            (paddle.pow(paddle.abs(x), y), np.abs(a) ** b),
            (paddle.floor_divide(x, y), np.floor(a / b)),
            (paddle.remainder(x, y), a - np.floor(a / b) * b)],
           {"x": a, "y": b}, rtol=1e-5, atol=1e-5)


def test_fluid_elementwise_axis_aligns_y_then_applies_act():
    x = static.data("x", [2, 3, 4], "float32")
    y = static.data("y", [3], "float32")
    z = static.data("z", [4, 1], "float32")
    a = RNG.randn(2, 3, 4).astype("float32")
    b = RNG.randn(3).astype("float32")
    c = RNG.randn(4, 1).astype("float32")
    _check([(L.elementwise_add(x, y, axis=1, act="relu"), np.maximum(a + b[:, None], 0)),
            (L.elementwise_sub(x, y, axis=1), a - b[:, None]),
            (L.elementwise_mul(x, y, axis=1, act="tanh"), np.tanh(a * b[:, None])),
            (L.elementwise_max(x, y, axis=1), np.maximum(a, b[:, None])),
            # Y's trailing 1 that sticks out is dropped before aligning (Paddle's rule)
            (L.elementwise_min(x, z, axis=2), np.minimum(a, c[:, 0]))],
           {"x": a, "y": b, "z": c})


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_floor_divide_and_remainder_follow_python_signs():
    x = static.data("x", [4], "int64")
    y = static.data("y", [4], "int64")
    a = np.array([7, -7, 7, -7])
    b = np.array([2, 2, -2, -2])
    _check([(paddle.floor_divide(x, y), np.array([3, -4, -4, 3])),
            (paddle.remainder(x, y), np.array([1, 1, -1, -1]))], {"x": a, "y": b})


def test_variable_operators_build_paddle_ops():
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [3, 2], "float32")
    a = RNG.rand(2, 3).astype("float32")
    b = RNG.rand(3, 2).astype("float32")
    outs = [(x @ y, a @ b), (x < 0.5, a < 0.5), (x >= 0.25, a >= 0.25), (0.5 > x, a < 0.5),
            (x // 0.25, np.floor(a / np.float32(0.25))), (x ** 2, a ** 2), (-x, -a),
            (2.0 - x, 2 - a)]
    _check(outs, {"x": a, "y": b})
    ops = {op.type: op for op in static.default_main_program().global_block().ops}
    # 0.5 > x is x.__lt__(0.5), as in Python
    assert {"matmul_v2", "less_than", "greater_equal", "elementwise_floordiv",
            "scale"} <= set(ops) and "greater_than" not in ops
    assert "axis" not in ops["matmul_v2"].attrs
    assert outs[1][0].dtype.name == "bool"


# -- unary math and activations -----------------------------------------------------------

def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _f32(v):
    """An op's FLOAT attribute as Paddle holds it: 32 bits (specs/ops/README.md)."""
    return float(np.float32(v))


UNARY = [  # (layer, numpy formula, input range; attrs float32 as Paddle's FLOAT attrs)
    (paddle.exp, np.exp, (-2, 2)), (paddle.log, np.log, (0.2, 3)),
    (paddle.sqrt, np.sqrt, (0.2, 3)), (paddle.rsqrt, lambda a: a ** -0.5, (0.2, 3)),
    (paddle.square, lambda a: a * a, (-2, 2)), (paddle.abs, np.abs, (-2, 2)),
    (paddle.sign, np.sign, (-2, 2)), (paddle.sin, np.sin, (-3, 3)),
    (paddle.cos, np.cos, (-3, 3)), (paddle.tan, np.tan, (-1, 1)),
    (paddle.asin, np.arcsin, (-0.9, 0.9)), (paddle.acos, np.arccos, (-0.9, 0.9)),
    (paddle.atan, np.arctan, (-3, 3)), (paddle.sinh, np.sinh, (-2, 2)),
    (paddle.cosh, np.cosh, (-2, 2)), (paddle.floor, np.floor, (-3, 3)),
    (paddle.ceil, np.ceil, (-3, 3)), (paddle.reciprocal, lambda a: 1 / a, (0.2, 3)),
    (paddle.erf, _erf, (-2, 2)), (paddle.log2, np.log2, (0.2, 3)),
    (paddle.log10, np.log10, (0.2, 3)), (paddle.log1p, np.log1p, (-0.5, 3)),
    (paddle.tanh, np.tanh, (-3, 3)), (F.sigmoid, _sigmoid, (-5, 5)),
    (F.relu, lambda a: np.maximum(a, 0), (-2, 2)),
    (F.relu6, lambda a: np.clip(a, 0, 6), (-2, 8)),
    (F.softsign, lambda a: a / (1 + np.abs(a)), (-3, 3)),
    (F.swish, lambda a: a * _sigmoid(a), (-3, 3)),
    (F.gelu, lambda a: 0.5 * a * (1 + _erf(a / np.sqrt(2))), (-3, 3)),
    (lambda v: F.gelu(v, approximate=True),
     lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3))), (-3, 3)),
    (F.leaky_relu, lambda a: np.where(a > 0, a, 0.01 * a), (-2, 2)),
    (L.leaky_relu, lambda a: np.where(a > 0, a, 0.02 * a), (-2, 2)),
    (lambda v: F.elu(v, 0.5), lambda a: np.where(a > 0, a, 0.5 * (np.exp(a) - 1)), (-2, 2)),
    (F.selu, lambda a: _f32(1.0507009873554805) * np.where(a > 0, a, _f32(1.6732632423543772)
                                                           * (np.exp(a) - 1)), (-2, 2)),
    (lambda v: F.softplus(v, beta=2), lambda a: np.log(1 + np.exp(2 * a)) / 2, (-3, 3)),
    (F.hardsigmoid, lambda a: np.clip(_f32(0.1666667) * a + 0.5, 0, 1), (-5, 5)),
    (L.hard_sigmoid, lambda a: np.clip(_f32(0.2) * a + 0.5, 0, 1), (-5, 5)),
    (F.hardswish, lambda a: a * np.clip(a + 3, 0, 6) / 6, (-5, 5)),
    (lambda v: F.hardtanh(v, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5), (-2, 2)),
    (F.hardshrink, lambda a: np.where(np.abs(a) > 0.5, a, 0), (-2, 2)),
    (lambda v: F.softshrink(v, 0.3),
     lambda a: np.sign(a) * np.maximum(np.abs(a) - _f32(0.3), 0), (-2, 2)),
    (F.tanhshrink, lambda a: a - np.tanh(a), (-2, 2)),
    (F.thresholded_relu, lambda a: np.where(a > 1, a, 0), (-3, 3)),
    (F.log_sigmoid, lambda a: np.log(_sigmoid(a)), (-5, 5)),
    (paddle.stanh, lambda a: _f32(1.7159) * np.tanh(_f32(0.67) * a), (-3, 3)),
    (lambda v: L.brelu(v, 0.5, 1.5), lambda a: np.clip(a, 0.5, 1.5), (-1, 3)),
    (lambda v: L.soft_relu(v, 1.0), lambda a: np.log(1 + np.exp(np.clip(a, -1, 1))), (-3, 3)),
    (lambda v: L.relu6(v, threshold=2.0), lambda a: np.clip(a, 0, 2), (-1, 3)),
    (lambda v: L.swish(v, beta=2.0), lambda a: a * _sigmoid(2 * a), (-3, 3)),
    (lambda v: L.hard_swish(v, threshold=4.0, scale=5.0, offset=2.0),
     lambda a: a * np.clip(a + 2, 0, 4) / 5, (-4, 4)),
    (lambda v: L.pow(v, 1.5), lambda a: a ** 1.5, (0.2, 3)),
    (lambda v: paddle.scale(v, 2.0, 1.0, bias_after_scale=False), lambda a: (a + 1) * 2,
     (-2, 2)),
    (lambda v: L.scale(v, 3.0, 0.5, act="relu"), lambda a: np.maximum(3 * a + 0.5, 0), (-2, 2)),
    (lambda v: paddle.clip(v, max=0.5), lambda a: np.minimum(a, 0.5), (-2, 2)),
]


@pytest.mark.parametrize("layer,formula,domain", UNARY,
                         ids=[str(i) for i in range(len(UNARY))])
def test_unary_layers_match_numpy(layer, formula, domain):
    x = static.data("x", [3, 7], "float64")
    a = RNG.uniform(*domain, (3, 7))
    _check([(layer(x), formula(a))], {"x": a}, rtol=1e-9, atol=1e-9)


def test_softshrink_refuses_a_negative_threshold():
    # Paddle 2.0's and 3.3.1's F.softshrink (2.0's test_activation_op TestSoftshrinkAPI)
    x = static.data("x_soft", [2], "float32")
    with pytest.raises(ValueError, match="no less than zero, got -1.0"):
        F.softshrink(x, -1.0)
    assert F.softshrink(x, 0.0).shape == (2,)


def test_round_halves_away_from_zero_and_keeps_float32():
    x = static.data("x", [6], "float32")
    a = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.4], "float32")
    _check([(paddle.round(x), np.array([1, 2, 3, -1, -3, 0], "float32"))], {"x": a})


def test_softmax_family_over_an_axis_and_in_a_requested_dtype():
    x = static.data("x", [2, 3, 4], "float32")
    a = RNG.randn(2, 3, 4).astype("float32")
    e = np.exp(a - a.max(1, keepdims=True))
    soft = e / e.sum(1, keepdims=True)
    _check([(F.softmax(x, axis=1), soft), (L.softmax(x, axis=1), soft),
            (F.log_softmax(x, axis=1), np.log(soft)),
            (F.softmax(x, dtype="float64"),
             np.exp(a.astype("float64")) / np.exp(a.astype("float64")).sum(-1, keepdims=True))],
           {"x": a}, rtol=1e-5, atol=1e-6)


def test_fluid_log_softmax_takes_axis_none_as_the_last():
    # Paddle 1.8's fluid.layers.log_softmax(input, axis=None, dtype=None), in dygraph too
    a = RNG.randn(2, 3, 4).astype("float32")
    shifted = a.astype("float64") - a.max(-1, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(a)
        got = fluid.layers.log_softmax(x, None, np.float64).numpy()
        np.testing.assert_allclose(fluid.layers.log_softmax(x).numpy(), want, rtol=1e-5)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_float32_stays_float32_and_large_inputs_do_not_overflow():
    x = static.data("x", [4], "float32")
    a = np.array([-1000, -30, 30, 1000], "float32")
    with np.errstate(over="raise"):
        _check([(F.sigmoid(x), np.array([0, _sigmoid(-30.0), _sigmoid(30.0), 1], "float32")),
                (F.softplus(x), np.array([0, np.log1p(np.exp(-30.0)), 30, 1000], "float32")),
                (F.log_sigmoid(x), np.array([-1000, -30, -np.log1p(np.exp(-30.0)), 0],
                                            "float32"))],
               {"x": a}, rtol=1e-6, atol=1e-30)


# -- reductions ---------------------------------------------------------------------------

@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_paddle_reductions_axis_keepdim_and_full():
    x = static.data("x", [2, 3, 4], "float32")
    a = RNG.uniform(0.5, 1.5, (2, 3, 4)).astype("float32")
    _check([(paddle.sum(x), a.sum()), (paddle.sum(x, axis=1), a.sum(1)),
            (paddle.sum(x, axis=[0, -1], keepdim=True), a.sum((0, 2), keepdims=True)),
            (paddle.mean(x), a.mean()), (paddle.mean(x, axis=-1), a.mean(-1)),
            (paddle.max(x, axis=0), a.max(0)), (paddle.min(x, axis=[1, 2]), a.min((1, 2))),
            (paddle.prod(x, axis=2, keepdim=True), a.prod(2, keepdims=True)),
            (paddle.prod(x, dtype="float64"), a.astype("float64").prod()),
            (paddle.logsumexp(x, axis=1), np.log(np.exp(a).sum(1)))],
           {"x": a})


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_fluid_reductions_and_bool_reductions():
    x = static.data("x", [3, 4], "float32")
    a = RNG.randn(3, 4).astype("float32")
    positive = paddle.greater_than(x, paddle.zeros([1], "float32"))
    _check([(L.reduce_sum(x), a.sum()), (L.reduce_mean(x, dim=0), a.mean(0)),
            (L.reduce_max(x, dim=[1], keep_dim=True), a.max(1, keepdims=True)),
            (L.reduce_min(x, dim=-1), a.min(-1)), (L.reduce_prod(x, dim=1), a.prod(1)),
            (paddle.all(positive, axis=1), (a > 0).all(1)), (paddle.any(positive), (a > 0).any()),
            (L.reduce_any(positive, dim=0), (a > 0).any(0)),
            (paddle.sum(positive, axis=0), (a > 0).sum(0).astype("int64"))],
           {"x": a})


# -- matrix products ----------------------------------------------------------------------

@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_matmul_transposes_batches_and_vectors():
    x = static.data("x", [2, 3, 4], "float64")
    w = static.data("w", [5, 4], "float64")
    v = static.data("v", [4], "float64")
    a, b, c = RNG.randn(2, 3, 4), RNG.randn(5, 4), RNG.randn(4)
    _check([(paddle.matmul(x, w, transpose_y=True), a @ b.T),
            (paddle.matmul(x, x, transpose_x=True), np.swapaxes(a, 1, 2) @ a),
            (paddle.matmul(x, v), a @ c), (paddle.matmul(v, v), c @ c),
            (L.matmul(x, w, transpose_y=True, alpha=0.5), 0.5 * (a @ b.T)),
            (paddle.mm(w, v), b @ c), (paddle.bmm(x, paddle.transpose(x, [0, 2, 1])),
                                       a @ np.swapaxes(a, 1, 2)),
            (paddle.dot(v, v), c @ c), (paddle.dot(w, w), (b * b).sum(1)),
            (L.mul(x, paddle.transpose(w, [1, 0]), x_num_col_dims=2), a @ b.T)],
           {"x": a, "w": b, "v": c}, rtol=1e-10, atol=1e-12)


def test_matmul_head_number_multiplies_column_blocks():
    """Paddle 1.8's multi-head matmul (its test_matmul_op_with_head): X's column blocks
    times Y's row blocks side by side (X width = Y height), or times Y's column blocks
    (X width = heads x Y height)."""
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    x = RNG.randn(3, 4)
    rows_cut, columns_cut = RNG.randn(4, 2), RNG.randn(2, 6)
    cases = ((rows_cut, np.hstack([x[:, :2] @ rows_cut[:2], x[:, 2:] @ rows_cut[2:]])),
             (columns_cut, np.hstack([x[:, :2] @ columns_cut[:, :3],
                                      x[:, 2:] @ columns_cut[:, 3:]])))
    for y, expected in cases:
        scope = core.Scope()
        for name, value in (("x", x), ("y", y)):
            scope.var(name).get_tensor().set(value, core.CPUPlace())
        scope.var("out").get_tensor()
        Operator("matmul", X="x", Y="y", Out="out", head_number=2).run(scope, core.CPUPlace())
        np.testing.assert_allclose(np.array(scope.find_var("out").get_tensor()), expected,
                                   rtol=1e-12)

# -- comparisons and logic ----------------------------------------------------------------

@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_compare_and_logical_layers_give_bool():
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [3], "float32")
    a = np.round(RNG.randn(2, 3)).astype("float32")
    b = np.round(RNG.randn(3)).astype("float32")
    lt, eq = paddle.less_than(x, y), paddle.equal(x, y)
    pairs = [(lt, a < b), (paddle.less_equal(x, y), a <= b), (paddle.greater_than(x, y), a > b),
             (paddle.greater_equal(x, y), a >= b), (eq, a == b), (paddle.not_equal(x, y), a != b),
             (paddle.logical_and(lt, eq), (a < b) & (a == b)),
             (paddle.logical_or(lt, eq), (a < b) | (a == b)),
             (paddle.logical_xor(lt, eq), (a < b) ^ (a == b)),
             (paddle.logical_not(lt), ~(a < b)),
             (paddle.equal_all(x, x), np.array(True)), (paddle.equal_all(x, y), np.array(False))]
    _check(pairs, {"x": a, "y": b})
    assert all(v.stop_gradient for v, _ in pairs)


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_nan_inf_tests_elementwise_and_reduced():
    z = static.data("z", [5], "float32")
    c = np.array([1.0, np.nan, np.inf, -np.inf, -2.0], "float32")
    _check([(paddle.isnan(z), [False, True, False, False, False]),
            (paddle.isinf(z), [False, False, True, True, False]),
            (paddle.isfinite(z), [True, False, False, False, True]),
            (L.has_nan(z), np.array(True)), (L.has_inf(z), np.array(True)),
            (L.isfinite(z), np.array(False))], {"z": c})


def test_fluid_compare_writes_into_cond():
    x = static.data("x", [4], "float32")
    y = static.data("y", [4], "float32")
    cond = static.default_main_program().global_block().create_var(
        name="cond", shape=[4], dtype="bool")
    out = L.less_than(x, y, cond=cond)
    assert out is cond
    a, b = np.arange(4, dtype="float32"), np.full(4, 1.5, "float32")
    _check([(cond, a < b)], {"x": a, "y": b})


# -- gradients through the layers ---------------------------------------------------------

# (name, build(x, y) -> out, x range, (y shape, y range) or None); x is [3, 4]
GRADS = [
    ("add_broadcast", lambda x, y: paddle.add(x, y), (-1, 1), ((4,), (-1, 1))),
    ("sub_axis", lambda x, y: L.elementwise_sub(x, y, axis=0), (-1, 1), ((3,), (-1, 1))),
    ("mul", lambda x, y: paddle.multiply(x, y), (-1, 1), ((3, 4), (-1, 1))),
    ("div", lambda x, y: paddle.divide(x, y), (-1, 1), ((3, 1), (0.5, 2))),
    ("max", lambda x, y: paddle.maximum(x, y), (-1, 0), ((3, 4), (0.2, 1))),
    ("pow", lambda x, y: paddle.pow(x, y), (0.5, 2), ((4,), (-1, 1))),
    ("matmul", lambda x, y: paddle.matmul(x, y, transpose_y=True), (-1, 1), ((2, 4), (-1, 1))),
    ("fluid_matmul_alpha", lambda x, y: L.matmul(x, y, transpose_y=True, alpha=3.0),
     (-1, 1), ((5, 4), (-1, 1))),
    ("matvec", lambda x, y: paddle.matmul(x, y), (-1, 1), ((4,), (-1, 1))),
    ("sum_axis", lambda x, y: paddle.sum(x * x, axis=1), (-1, 1), None),
    ("mean_keepdim", lambda x, y: paddle.mean(x, axis=0, keepdim=True) * x, (-1, 1), None),
    ("prod", lambda x, y: paddle.prod(x, axis=1), (0.5, 1.5), None),
    ("max_reduce", lambda x, y: paddle.max(x, axis=0), (-1, 1), None),
    ("logsumexp", lambda x, y: paddle.logsumexp(x, axis=1), (-2, 2), None),
    ("softmax", lambda x, y: F.softmax(x) * x, (-2, 2), None),
    ("log_softmax", lambda x, y: F.log_softmax(x, axis=0), (-2, 2), None),
    ("gelu", lambda x, y: F.gelu(x), (-2, 2), None),
    ("sigmoid_tanh", lambda x, y: F.sigmoid(paddle.tanh(x)), (-2, 2), None),
    ("elu_selu", lambda x, y: F.selu(F.elu(x)), (-2, 2), None),
    ("softplus_swish", lambda x, y: F.softplus(F.swish(x), beta=2), (-2, 2), None),
    ("clip", lambda x, y: paddle.clip(x, -0.5, 0.5) * x, (-1, 1), None),
    ("sqrt_log_exp", lambda x, y: paddle.sqrt(paddle.exp(paddle.log(x))), (0.5, 2), None),
    ("erf_atan", lambda x, y: paddle.erf(paddle.atan(x)), (-2, 2), None),
    ("scale_pow", lambda x, y: paddle.pow(paddle.scale(x, 2.0, 3.0), 1.5), (-1, 1), None),
    ("operators", lambda x, y: (x * 2.0 - 1.0) ** 2 / 3.0, (-1, 1), None),
]


def _fd_grad(loss, feed, name, eps=1e-6):
    """Central finite differences of the scalar `loss` w.r.t. feed[name], via the executor."""
    base = feed[name]
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        vals = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[i] += step
            vals.append(_run([loss], dict(feed, **{name: moved}))[0])
        grad[i] = (vals[0] - vals[1]) / (2 * eps)
    return grad


@pytest.mark.parametrize("name,build,x_range,y_spec", GRADS, ids=[g[0] for g in GRADS])
def test_layer_gradients_match_finite_differences(name, build, x_range, y_spec):
    x = static.data("x", [3, 4], "float64")
    y = static.data("y", list(y_spec[0]), "float64") if y_spec else None
    out = build(x, y)
    # loss = sum(out * w) with random w, so each output element's gradient path counts
    w = static.data("w", list(out.shape), "float64")
    loss = paddle.sum(paddle.multiply(out, w))
    inputs = [x] + ([y] if y is not None else [])
    grads = gradients(loss, inputs)
    feed = {"x": RNG.uniform(*x_range, (3, 4)), "w": RNG.uniform(0.5, 1.5, out.shape)}
    if y is not None:
        feed["y"] = RNG.uniform(*y_spec[1], y_spec[0])
    got = _run(grads, feed)
    for var, g in zip(inputs, got):
        assert g.shape == feed[var.name].shape
        np.testing.assert_allclose(g, _fd_grad(loss, feed, var.name), rtol=1e-5, atol=1e-7,
                                   err_msg="%s d/d%s" % (name, var.name))


def test_no_gradient_flows_through_rounding_and_comparisons():
    x = static.data("x", [3], "float64")
    x.stop_gradient = False
    out = paddle.floor(x) * x + paddle.cast(paddle.less_than(x, x * 0.5), "float64")
    (dx,) = _run(gradients(paddle.sum(out), [x]), {"x": np.array([0.5, 1.5, -2.5])})
    np.testing.assert_allclose(dx, [0.0, 1.0, -3.0])  # d(floor(x) * x) = floor(x)


# -- names and errors ---------------------------------------------------------------------

def test_outputs_are_named_after_the_public_api_as_in_paddle():
    x = static.data("x", [2, 3], "float32")
    named = [(paddle.sum(x), "sum_0.tmp_0", "reduce_sum"),
             (paddle.max(x), "max_0.tmp_0", "reduce_max"),
             (L.reduce_sum(x), "reduce_sum_0.tmp_0", "reduce_sum"),
             (F.hardtanh(x), "hardtanh_0.tmp_0", "brelu"),
             (F.hardsigmoid(x), "hardsigmoid_0.tmp_0", "hard_sigmoid"),
             (paddle.matmul(x, x, transpose_y=True), "matmul_v2_0.tmp_0", "matmul_v2"),
             (paddle.add(x, x), "elementwise_add_0.tmp_0", "elementwise_add")]
    ops = static.default_main_program().global_block().ops
    for (var, want_name, want_type), op in zip(named, ops):
        assert var.name == want_name
        assert op.type == want_type and op.output("Out") == [want_name]


def test_bad_shapes_are_rejected_naming_the_variables():
    x = static.data("x", [2, 3, 4], "float32")
    y = static.data("y", [5], "float32")
    with pytest.raises(OpError, match=r"elementwise_add.*axis=3 does not fit.*'y'.*'x'"):
        L.elementwise_add(x, y, axis=3)
    with pytest.raises(OpError, match=r"elementwise_add.*'x'.*'y'.*axis=1.*3 vs 5 at dim 1"):
        L.elementwise_add(x, y, axis=1)
    with pytest.raises(OpError, match=r"less_than.*'x'.*'y'.*4 vs 5 at dim 2"):
        paddle.less_than(x, y)
    with pytest.raises(OpError, match=r"matmul_v2.*'x'.*'y'.*inner dims 4 and 5"):
        paddle.matmul(x, y)
    with pytest.raises(OpError, match=r"reduce_sum.*dim 3 is out of range.*'x'"):
        paddle.sum(x, axis=3)
    z = static.data("z", [2, 3, 4], "float64")
    with pytest.raises(OpError, match=r"same dtype.*float32.*float64"):
        paddle.multiply(x, z)


@pytest.mark.parametrize("step", [paddle.sign, paddle.floor, paddle.ceil, paddle.round])
def test_step_functions_pass_a_zero_gradient(step):
    # Paddle registers zero gradients for them: an eager input's gradient is zeros, not None
    a = np.array([-1.7, -0.2, 0.4, 2.5])
    with fluid.dygraph.guard():
        x = paddle.to_tensor(a, stop_gradient=False)
        paddle.sum(step(x)).backward()
        assert x.gradient() is not None
        np.testing.assert_array_equal(x.gradient(), np.zeros(4))


def test_bmm_checks_shapes_before_building_as_paddle_20():
    # Paddle 2.0's test_bmm_op (run in static mode, as its CI runs it) passes ndarrays of
    # wrong shapes and expects ValueError; right shapes multiply per batch
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    for wrong in ([2, 2, 4], [2, 2, 2, 2], [3, 4, 2]):
        with pytest.raises(ValueError, match="bmm: "):
            paddle.bmm(x, np.zeros(wrong, "float32"))
    y = np.arange(16, dtype="float32").reshape(2, 4, 2)
    out, = _run([paddle.bmm(static.data("bx", [None, 3, 4]), static.data("by", [None, 4, 2]))],
                {"bx": x, "by": y})
    np.testing.assert_allclose(out, x @ y)


def test_functional_selu_refuses_scale_and_alpha_out_of_range():
    """F.selu: scale > 1.0 and alpha >= 0, else ValueError (2.0 and 3.3.1, measured);
    fluid.layers.selu (1.8) takes any, e.g. scale 1.0 alpha 2: selu(-1) = 2 (e^-1 - 1)."""
    with static.program_guard(static.Program(), static.Program()):
        x = fluid.data("x", [2], "float32")
        for args in [(-1.0,), (1.0,), (1.6, -1.0)]:
            with pytest.raises(ValueError, match="selu: (scale|alpha)"):
                F.selu(x, *args)
        out = fluid.layers.selu(x, scale=1.0, alpha=2.0)
        exe = static.Executor()
        got = exe.run(x.block.program, feed={"x": np.array([1., -1.], "float32")},
                      fetch_list=[out])[0]
    np.testing.assert_allclose(got, [1., 2. * (math.exp(-1.) - 1.)], rtol=1e-6)
