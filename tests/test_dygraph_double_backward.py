"""paddle.grad(create_graph=True): the gradient of a gradient, for elementwise ops, matmul,
activations, reductions, losses, convolutions and normalizations, against central finite
differences of the first-order eager gradient, on every sample of each op. Also a gradient penalty and
higher orders on hand-derived functions, and the error for an op whose backward cannot be
recorded."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.dygraph.double_backward import DoubleBackwardError
from refimpl.dygraph.tensor import Tensor
from refimpl.dygraph.tracer import run_op
from refimpl.ops.registry import get_op_def, is_duplicable, slot_name
from refimpl.testing import call_forward, float_slots
from helpers import central_differences

# refimpl records every op's backward: these tests run under profile 3, where any op's
# gradient is differentiable again; under 2.0 only Paddle 2.0's double-grad ops are (switch
# double_grad_ops, test_double_grad_of_paddle_2_0_ops_only below)
pytestmark = [pytest.mark.usefixtures("dygraph"), pytest.mark.paddle("3")]

OPS = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
       "elementwise_pow", "elementwise_max", "elementwise_min", "scale", "matmul_v2",
       "matmul", "mul", "bmm", "dot",
       "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos",
       "softsign", "swish", "relu", "leaky_relu", "elu", "softplus", "gelu", "pow", "abs",
       "logsigmoid", "softmax", "log_softmax",
       "reduce_sum", "reduce_mean", "reduce_max", "reduce_prod", "mean", "sum",
       "sigmoid_cross_entropy_with_logits", "log_loss", "bce_loss", "kldiv_loss",
       "rank_loss", "reshape2", "transpose2", "squeeze2", "unsqueeze2",
       "conv2d", "depthwise_conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose",
       "instance_norm", "layer_norm", "group_norm", "batch_norm", "pad", "pad2d", "pad3d"]
# their backwards read an output they do not differentiate (Softmax, Residual, Diff,
# MatchX, Activated) without the inputs to recompute it from, or write into an array in
# place (cross_entropy's hard labels)
REFUSED = ["softmax_with_cross_entropy", "huber_loss", "smooth_l1_loss", "cross_entropy2",
           "margin_rank_loss", "cross_entropy"]


def _tensors(op_def, inputs, grad_slots):
    out = {}
    for s in op_def.inputs:
        name = slot_name(s)
        v = inputs.get(name)
        if v is None:
            continue
        make = (lambda a: Tensor(np.array(a), stop_gradient=name not in grad_slots))
        out[name] = [make(a) for a in v] if is_duplicable(s) else make(v)
    return out


def _first_grads(op_def, sample, inputs, cot, ws, create_graph):
    """sum_i <d<out, cot>/d x_i, w_i> for the sample's float inputs `inputs` (arrays), and
    the input Tensors, through paddle.grad."""
    slots = float_slots(op_def, sample.inputs)
    values = dict(sample.inputs, **inputs)
    ts = _tensors(op_def, values, slots)
    ref = call_forward(op_def, values, sample.attrs)
    outs = {slot_name(s): ([Tensor._placeholder() for _ in r] if is_duplicable(s) \
            else Tensor._placeholder())
            for s, r in zip(op_def.outputs, ref) if r is not None}
    run_op(op_def.type, ts, outs, sample.attrs)
    roots, seeds = [], []
    for slot, c in cot.items():
        if not outs[slot].stop_gradient:
            roots.append(outs[slot])
            seeds.append(Tensor(c))
    xs = [ts[s] for s in slots]
    grads = paddle.grad(roots, xs, seeds, create_graph=create_graph, allow_unused=True)
    total = None
    for g, w in zip(grads, ws):
        if g is None:
            continue
        term = paddle.sum(g * Tensor(w))
        total = term if total is None else total + term
    return total, xs


def _cotangents(op_def, sample, rng):
    outs = call_forward(op_def, sample.inputs, sample.attrs)
    grad_in = [slot_name(s) for s in op_def.grad_input_slots()]
    return {slot: rng.uniform(-1, 1, np.shape(o)) for slot, o in zip(op_def.output_slots, outs)
            if o is not None and np.issubdtype(np.asarray(o).dtype, np.floating)
            and slot + "@GRAD" in grad_in}


@pytest.mark.parametrize("op_type", OPS)
def test_second_order_gradient_matches_finite_differences(op_type):
    op_def = get_op_def(op_type)
    rng = np.random.RandomState(0)
    for sample in op_def.samples(np.random.RandomState(1)):
        if not sample.grad:
            continue
        slots = float_slots(op_def, sample.inputs)
        if any(is_duplicable(s) for s in op_def.inputs if slot_name(s) in slots):
            continue
        cot = _cotangents(op_def, sample, rng)
        ws = [rng.uniform(-1, 1, np.shape(sample.inputs[s])) for s in slots]
        total, xs = _first_grads(op_def, sample, {}, cot, ws, create_graph=True)
        if total is None or total.stop_gradient:
            continue                          # the gradient does not depend on the inputs
        analytic = paddle.grad(total, xs, allow_unused=True)
        for slot, got in zip(slots, analytic):
            base = np.array(sample.inputs[slot], np.float64)
            numeric = np.zeros_like(base)
            eps = 1e-6
            for i in range(base.size):
                values = []
                for sign in (1, -1):
                    moved = base.copy()
                    moved.reshape(-1)[i] += sign * eps
                    s, _ = _first_grads(op_def, sample, {slot: moved}, cot, ws, False)
                    values.append(float(s.numpy()) if s is not None else 0.0)
                numeric.reshape(-1)[i] = (values[0] - values[1]) / (2 * eps)
            got = np.zeros_like(base) if got is None else got.numpy()
            np.testing.assert_allclose(got, numeric, rtol=1e-4, atol=1e-5,
                                       err_msg="%s d2/d%s2 %r" % (op_type, slot, sample))


def test_gradient_penalty_and_third_order():
    x = paddle.to_tensor(np.array([0.3, -0.7, 1.2]), stop_gradient=False)
    y = paddle.sum(x * x * x)                          # y' = 3x^2, y'' = 6x, y''' = 6
    g, = paddle.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    penalty = paddle.sum(g * g)                        # d/dx sum 9x^4 = 36 x^3
    p, = paddle.grad(penalty, x, create_graph=True)
    np.testing.assert_allclose(p.numpy(), 36 * x.numpy() ** 3)
    h, = paddle.grad(paddle.sum(p), x)                 # 108 x^2
    np.testing.assert_allclose(h.numpy(), 108 * x.numpy() ** 2)


def _conv_penalty(x0, w0, transpose, create_graph):
    """(sum(gx^3) + sum(gw^3) for (gx, gw) = d sum(y^2) / d(x, w), y = conv(x, w); x; w):
    the gradients reach both results of the grad op, whose Output@GRAD (2y) depends on x
    and w."""
    conv = paddle.nn.functional.conv2d_transpose if transpose else paddle.nn.functional.conv2d
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = paddle.to_tensor(w0, stop_gradient=False)
    y = conv(x, w, padding=1, stride=2, groups=2)
    gx, gw = paddle.grad(paddle.sum(y * y), [x, w], create_graph=create_graph)
    return paddle.sum(gx * gx * gx) + paddle.sum(gw * gw * gw), x, w


_CONV_X = np.random.RandomState(3).uniform(-1, 1, (1, 4, 4, 4))
_CONV_W = np.random.RandomState(4).uniform(-1, 1, (4, 2, 3, 3))


@pytest.mark.parametrize("transpose", [False, True], ids=["conv2d", "conv2d_transpose"])
def test_conv_second_order_through_both_gradients(transpose):
    """Convolutions are bilinear: the gradient of their grad op is the op and its grad op
    again (registry.bilinear_grad_of_grad). Against central differences of the
    first-order gradients."""
    penalty, x, w = _conv_penalty(_CONV_X, _CONV_W, transpose, create_graph=True)
    got_x, got_w = paddle.grad(penalty, [x, w])
    want_x = central_differences(lambda v: float(_conv_penalty(
        v, _CONV_W, transpose, False)[0].numpy()), _CONV_X)
    want_w = central_differences(lambda v: float(_conv_penalty(
        _CONV_X, v, transpose, False)[0].numpy()), _CONV_W)
    np.testing.assert_allclose(got_x.numpy(), want_x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_w.numpy(), want_w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("transpose", [False, True], ids=["conv2d", "conv2d_transpose"])
def test_conv_third_order_matches_finite_differences(transpose):
    """The second-order gradient is recorded as ops again, so it differentiates too: d/dw
    of |d penalty / dx|^2 against central differences of the second-order gradient."""
    def third(w_value, create_graph):
        penalty, x, w = _conv_penalty(_CONV_X, w_value, transpose, True)
        gx, = paddle.grad(penalty, x, create_graph=create_graph)
        return paddle.sum(gx * gx), w
    total, w = third(_CONV_W, True)
    got, = paddle.grad(total, w)
    want = central_differences(lambda v: float(third(v, False)[0].numpy()), _CONV_W)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_gradient_penalty_trains_through_backward():
    """WGAN-GP style: the penalty's gradient reaches the weights through the recorded
    gradient computation."""
    w = paddle.to_tensor(np.array([[0.5], [-1.5]]), stop_gradient=False)
    x = paddle.to_tensor(np.array([[1.0, 2.0], [0.5, -1.0]]), stop_gradient=False)
    out = paddle.tanh(paddle.matmul(x, w))
    gx, = paddle.grad(paddle.sum(out), x, create_graph=True)
    loss = paddle.sum(gx * gx)
    loss.backward()
    # by hand: gx = (1 - tanh^2(xw)) w^T, loss = sum_n s_n^2 |w|^2, s = 1 - t^2
    xv, wv = x.numpy(), w.numpy()
    t = np.tanh(xv @ wv)[:, 0]
    s = 1 - t * t
    ds = -2 * t * s
    dw = 2 * (s * s).sum() * wv[:, 0] + (wv[:, 0] ** 2).sum() * (2 * s * ds) @ xv
    np.testing.assert_allclose(w.gradient()[:, 0], dw, rtol=1e-10)


@pytest.mark.parametrize("op_type", REFUSED)
def test_backwards_reading_undifferentiated_outputs_are_refused(op_type):
    op_def = get_op_def(op_type)
    sample = next(iter(op_def.samples(np.random.RandomState(1))))
    rng = np.random.RandomState(0)
    cot = _cotangents(op_def, sample, rng)
    ws = [rng.uniform(-1, 1, np.shape(sample.inputs[s]))
          for s in float_slots(op_def, sample.inputs)]
    with pytest.raises(DoubleBackwardError, match="through op %s: its backward" % op_type):
        _first_grads(op_def, sample, {}, cot, ws, create_graph=True)


def test_a_backward_that_cannot_be_recorded_is_a_clear_error():
    x = paddle.to_tensor(np.array([[1.0, 2.0, 3.0]]), stop_gradient=False)
    idx = paddle.to_tensor(np.array([2, 0]))
    out = paddle.gather(x, idx, axis=1)                # backward writes with np.add.at
    with pytest.raises(DoubleBackwardError, match="through op gather: its backward uses"):
        paddle.grad(paddle.sum(out * out), x, create_graph=True)


@pytest.mark.paddle("2.0")
def test_double_grad_of_paddle_2_0_ops_only():
    # release/2.0: relu, elementwise ops and reduce_mean have double grads, so
    # d/dx mean((relu(x) + 1)^2) is differentiable (2 relu'(x) (relu(x) + 1) / n, whose
    # gradient through the mean of its square is hand-derived below); group_norm and
    # sigmoid have none: paddle.grad(create_graph=True) through them is 2.0's RuntimeError
    # (its test_imperative_double_grad's TestRaiseNoDoubleGradOp)
    x = paddle.to_tensor(np.array([-1.0, 0.5, 2.0]), stop_gradient=False)
    y = paddle.fluid.layers.relu(x) + 1.0
    (dx,) = paddle.grad([paddle.fluid.layers.reduce_mean(y * y)], [x], create_graph=True)
    np.testing.assert_allclose(dx.numpy(), [0.0, 1.0, 2.0])    # 2 (relu + 1) / 3 where x > 0
    paddle.fluid.layers.reduce_sum(dx * dx).backward()
    # d/dx sum(dx^2) = 2 dx * d(dx)/dx = 2 dx * 2 / 3 where x > 0
    np.testing.assert_allclose(x.grad, [0.0, 4.0 / 3.0, 8.0 / 3.0])
    for layer in (lambda v: paddle.fluid.layers.group_norm(v, groups=1),
                  paddle.fluid.layers.sigmoid):
        v = paddle.to_tensor(np.ones([2, 3, 2, 2], "float32"), stop_gradient=False)
        with pytest.raises(RuntimeError, match="doesn't have any grad op"):
            paddle.grad([layer(v)], [v], create_graph=True)


@pytest.mark.paddle("2.0")
def test_linear_is_twice_differentiable_under_2_0():
    """Paddle 2.0's F.linear (and nn.Linear) multiplies with matmul (v1), which has a double
    grad there (matmul_v2 has none): StyleGAN v2's R1 penalty differentiates
    paddle.grad(create_graph=True) through its EqualLinear layers. y = x W, loss
    sum((dy/dx)^2) with dy/dx = row sums of W broadcast: d loss / dW[i, j] = 2 N s_i,
    s = W.sum(1), N the batch."""
    w_np = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], "float32")
    x = paddle.to_tensor(np.ones((4, 3), "float32"), stop_gradient=False)
    w = paddle.to_tensor(w_np, stop_gradient=False)
    y = paddle.nn.functional.linear(x, w)
    (dx,) = paddle.grad([y.sum()], [x], create_graph=True)
    np.testing.assert_allclose(dx.numpy(), np.tile(w_np.sum(1), (4, 1)))
    (dx * dx).sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad), np.tile(2 * 4 * w_np.sum(1)[:, None], (1, 2)))
    layer = paddle.nn.Linear(3, 2)
    (dx,) = paddle.grad([layer(x).sum()], [x], create_graph=True)
    (dx * dx).sum().backward()
    assert np.isfinite(np.asarray(layer.weight.grad)).all()
