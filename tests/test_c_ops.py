"""paddle._C_ops (Paddle 3's op functions, positional by ops.yaml) and paddle._legacy_C_ops
(core.ops' form: inputs, then attr name / value pairs): specs/c_ops.md. Values recorded on
Paddle 3.3.1 (/opt/paddle311) for the same calls."""
import inspect

import numpy as np
import pytest

import refimpl as paddle
from refimpl import _C_ops, _legacy_C_ops, fluid, pir_utils, versions
from refimpl.dygraph.op_functions import SIGNATURES

X = np.array([[0.5, -1.0, 2.0], [3.0, -0.25, 1.5]], "float32")
Y = np.array([[1.0, 2.0, -3.0], [0.5, 4.0, 1.0]], "float32")


@pytest.fixture
def xy():
    with fluid.dygraph.guard():
        yield paddle.to_tensor(X), paddle.to_tensor(Y)


def _close(tensor, expected, dtype="float32"):
    value = tensor.numpy()
    assert value.dtype == np.dtype(dtype)
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5)


def test_positional_attrs_follow_paddle_3_signatures(xy):
    x, y = xy
    # 3.3.1: _C_ops.matmul(x, y, False, True)
    _close(_C_ops.matmul(x, y, False, True), [[-7.5, -1.75], [-2.0, 2.0]])
    _close(_C_ops.matmul(x, y, transpose_y=True), [[-7.5, -1.75], [-2.0, 2.0]])
    _close(_C_ops.softmax(x, 0), [[0.07586, 0.32082, 0.62246], [0.92414, 0.67918, 0.37754]])
    _close(_C_ops.scale(x, 2.0, 0.5, False), [[2.0, -1.0, 5.0], [7.0, 0.5, 4.0]])
    _close(_C_ops.cumsum(x, 1, False, True, False), [[0.0, 0.5, -0.5], [0.0, 3.0, 2.75]])
    _close(_C_ops.gelu(x, True), [[0.34571, -0.15881, 1.9546], [2.99636, -0.10032, 1.39957]])
    _close(_C_ops.leaky_relu(x, 0.1), [[0.5, -0.1, 2.0], [3.0, -0.025, 1.5]])
    _close(_C_ops.remainder(x, y), [[0.5, 1.0, -1.0], [0.0, 3.75, 0.5]])
    _close(_C_ops.clip(x, -0.5, 1.0), [[0.5, -0.5, 1.0], [1.0, -0.25, 1.0]])
    _close(_C_ops.slice(x, [1], [1], [3], [1], []), [[-1.0, 2.0], [-0.25, 1.5]])
    _close(_C_ops.layer_norm(x, paddle.to_tensor([1.0, 2.0, 3.0]),
                             paddle.to_tensor([0.0, 0.5, 1.0]), 1e-5, 1),
           [[0.0, -1.94948, 4.67422], [1.19216, -2.00982, 1.18824]])
    img = paddle.to_tensor(np.arange(32, dtype="float32").reshape(1, 2, 4, 4) / 10)
    _close(_C_ops.pool2d(img, [2, 2], [2, 2], [0, 0], False, True, "NCHW", "avg", False,
                         False, "EXPLICIT"),
           [[[[0.25, 0.45], [1.05, 1.25]], [[1.85, 2.05], [2.65, 2.85]]]])


def test_reductions_dtypes_and_creation(xy):
    x, _ = xy
    _close(_C_ops.mean(x, [1], True), [[0.5], [1.41667]])
    _close(_C_ops.sum(x, [], None, False), X.sum())            # an empty axis: all
    _close(_C_ops.logsumexp(x, [0], False, False), [3.07889, 0.13687, 2.47408])
    ints = paddle.to_tensor(np.array([[2, 0], [1, 1]], "int64"))
    _close(_C_ops.sum(ints, 0, paddle.int64, False), [3, 1], "int64")   # one int axis
    _close(_C_ops.cast(x, paddle.int32), [[0, -1, 2], [3, 0, 1]], "int32")
    _close(_C_ops.full_like(x, 7.0, paddle.float32, paddle.CPUPlace()), np.full((2, 3), 7.0))
    _close(_C_ops.ones_like(x, paddle.int64, paddle.CPUPlace()), np.ones((2, 3)), "int64")
    _close(_C_ops.zeros_like(x, None, paddle.CPUPlace()), np.zeros((2, 3)))
    _close(_C_ops.full([2, 2], 1.5, paddle.float64, paddle.CPUPlace()),
           np.full((2, 2), 1.5), "float64")
    _close(_C_ops.ones([3], fluid.framework.convert_np_dtype_to_dtype_(np.int32),
                       paddle.CPUPlace()), [1, 1, 1], "int32")
    samples = _C_ops.uniform([400], paddle.float32, -2.0, 2.0, 7, paddle.CPUPlace()).numpy()
    assert samples.shape == (400,) and samples.min() >= -2.0 and samples.max() < 2.0
    assert samples.min() < -1.5 and samples.max() > 1.5
    truncated = _C_ops.truncated_gaussian_random([500], 0.0, 1.0, 3, -2.0, 2.0,
                                                 paddle.float32, paddle.CPUPlace()).numpy()
    assert np.abs(truncated).max() <= 2.0 and abs(truncated.mean()) < 0.15


def test_activations_norms_and_scatters(xy):
    x, y = xy
    # 3.3.1, the same calls
    _close(_C_ops.relu6(_C_ops.scale(x, 3.0, 0.0, True)), [[1.5, 0.0, 6.0], [6.0, 0.0, 4.5]])
    _close(_C_ops.selu(x, 1.0507, 1.6733), [[0.52535, -1.11135, 2.1014],
                                             [3.1521, -0.3889, 1.57605]])
    _close(_C_ops.softsign(x), [[0.33333, -0.5, 0.66667], [0.75, -0.2, 0.6]])
    _close(_C_ops.mish(x, 20), [[0.37525, -0.3034, 1.94396], [2.98654, -0.12993, 1.40338]])
    _close(_C_ops.swish(x), [[0.31123, -0.26894, 1.76159], [2.85772, -0.10946, 1.22636]])
    _close(_C_ops.p_norm(x, 2.0, -1, 1e-12, False, False), [2.29129, 3.36341])
    _close(_C_ops.pad(x, [1, 0, 0, 1], 9.0),
           [[9, 9, 9, 9], [0.5, -1, 2, 9], [3, -0.25, 1.5, 9]])
    _close(_C_ops.scatter(x, paddle.to_tensor(np.array([1], "int64")),
                          paddle.ones([1, 3]), True), [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]])
    _close(_C_ops.scatter_nd_add(x, paddle.to_tensor(np.array([[1, 1]], "int64")),
                                 paddle.to_tensor([10.0])), [[0.5, -1, 2], [3, 9.75, 1.5]])
    _close(_C_ops.bmm(_C_ops.unsqueeze(x, [0]), _C_ops.unsqueeze(_C_ops.transpose(y, [1, 0]),
                                                                  [0])),
           [[[-7.5, -1.75], [-2.0, 2.0]]])
    values, indices = _C_ops.argsort(x, -1, False, False)
    _close(values, [[-1.0, 0.5, 2.0], [-0.25, 1.5, 3.0]])
    _close(indices, [[1, 0, 2], [1, 2, 0]], "int64")
    assert _C_ops.numel(x).numpy().item() == 6


def test_multiple_and_list_outputs(xy):
    x, _ = xy
    first, second = _C_ops.split(x, [2, 1], 1)
    _close(first, [[0.5, -1.0], [3.0, -0.25]])
    _close(second, [[2.0], [1.5]])
    assert [t.shape for t in _C_ops.split_with_num(x, 2, 0)] == [[1, 3], [1, 3]]
    columns = _C_ops.unstack(x, 1, 3)
    assert isinstance(columns, list) and len(columns) == 3
    _close(columns[2], [2.0, 1.5])
    values, indices = _C_ops.topk(x, 2, -1, True, True)
    _close(values, [[2.0, 0.5], [3.0, 1.5]])
    _close(indices, [[2, 0], [0, 2]], "int64")
    softmax, loss = _C_ops.cross_entropy_with_softmax(
        x, paddle.to_tensor(np.array([[2], [1]], "int64")), False, True, True, -100, -1)
    _close(softmax, [[0.17529, 0.03911, 0.7856], [0.79245, 0.03073, 0.17682]])
    _close(loss, [[0.24131], [3.48262]])
    # intermediate outputs (XShape, dropout's mask) are not returned, as in 3.3.1
    assert _C_ops.reshape(x, [3, 2]).shape == [3, 2]
    _close(_C_ops.dropout(x, None, 0.5, True, "upscale_in_train", 0, False), X)


def test_results_match_the_public_api(xy):
    x, y = xy
    img = paddle.to_tensor(np.linspace(-1, 1, 50).astype("float32").reshape(1, 2, 5, 5))
    w = paddle.to_tensor(np.linspace(-1, 1, 36).astype("float32").reshape(2, 2, 3, 3))
    _close(_C_ops.conv2d(img, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
           paddle.nn.functional.conv2d(img, w, padding=1).numpy())
    _close(_C_ops.concat([x, y], 1), paddle.concat([x, y], 1).numpy())
    _close(_C_ops.stack([x, y], 1), paddle.stack([x, y], 1).numpy())
    _close(_C_ops.where(_C_ops.greater_than(x, y), x, y), np.maximum(X, Y))
    _close(_C_ops.transpose(x, [1, 0]), X.T)
    _close(_C_ops.embedding(paddle.to_tensor(np.array([1, 0], "int64")), y, -1, False),
           Y[[1, 0]])


def test_op_functions_record_gradients():
    with fluid.dygraph.guard():
        z = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        _C_ops.multiply(z, z).sum().backward()
        np.testing.assert_array_equal(z.gradient(), [2.0, 4.0])
        w = paddle.to_tensor([1.0, 3.0], stop_gradient=False)
        _legacy_C_ops.elementwise_mul(w, w).sum().backward()
        np.testing.assert_array_equal(w.gradient(), [2.0, 6.0])


def test_legacy_functions_take_attribute_pairs(xy):
    x, y = xy
    _close(_legacy_C_ops.matmul_v2(x, y, "trans_x", False, "trans_y", True),
           [[-7.5, -1.75], [-2.0, 2.0]])
    _close(_legacy_C_ops.mul(x, paddle.to_tensor(Y.T)), X @ Y.T)
    out, xshape = _legacy_C_ops.reshape2(x, None, "shape", [3, 2])
    assert out.shape == [3, 2]


def test_errors_name_the_function_and_argument(xy):
    x, y = xy
    with pytest.raises(TypeError, match=r"_C_ops.matmul\(x, y, transpose_x=False, "
                       r"transpose_y=False\): missing a required argument: 'y'"):
        _C_ops.matmul(x)
    with pytest.raises(ValueError, match=r"matmul\(\): argument 'y' \(position 1\) must be "
                       r"Tensor, but got int"):
        _C_ops.matmul(x, 3)
    with pytest.raises(AttributeError, match="paddle._C_ops has no op 'no_such_op'"):
        _C_ops.no_such_op
    with pytest.raises(AttributeError, match=r"op type 'fill_constant' exists: call it as "
                       r"_legacy_C_ops.fill_constant"):
        _C_ops.fill_constant
    with pytest.raises(ValueError, match=r"cross_entropy_with_softmax\(\): use_softmax=False "
                       r"is not implemented in refimpl \(only True\)"):
        _C_ops.cross_entropy_with_softmax(x, paddle.to_tensor(np.array([[0], [1]])), False,
                                          False, True, -100, -1)
    with pytest.raises(AttributeError, match="paddle._legacy_C_ops has no op 'no_such_op'"):
        _legacy_C_ops.no_such_op
    with pytest.raises(TypeError, match=r"_legacy_C_ops.matmul_v2 takes its inputs "
                       r"\['X', 'Y'\], then attribute name / value pairs"):
        _legacy_C_ops.matmul_v2(x, y, "trans_x")


def test_static_variables_are_refused():
    paddle.enable_static()
    try:
        with pir_utils.OldIrGuard(), paddle.static.program_guard(paddle.static.Program()):
            v = paddle.static.data("v", [2, 3], "float32")
            with pytest.raises(TypeError, match=r"elementwise_add: input X is the static "
                               r"Variable 'v'; Paddle's op functions run in dynamic mode"):
                _C_ops.add(v, v)
    finally:
        paddle.disable_static()


@pytest.mark.paddle("3")
def test_op_functions_build_the_op_in_a_pir_program():
    # 3.3.1 with FLAGS_enable_pir_api on (its default): _C_ops on static values build ops
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [2, 3], "float32")
            y = paddle.static.data("y", [2, 3], "float32")
            out = _C_ops.huber_loss(x, y, 1.0)
        assert [op.type for op in main.global_block().ops] == ["huber_loss"]
        got, = paddle.static.Executor().run(main, feed={"x": X, "y": Y}, fetch_list=[out])
        np.testing.assert_allclose(got, [[0.125, 2.5, 4.5], [2.0, 3.75, 0.125]])
    finally:
        paddle.disable_static()


def test_every_signature_binds_and_names_a_registered_op():
    for name in SIGNATURES:
        function = getattr(_C_ops, name)
        assert function.__name__ == name
        assert list(inspect.signature(function).parameters)[0] in (
            "x", "input", "label", "condition", "shape", "weight", "sorted_sequence",
            "param")
    assert "matmul" in dir(_C_ops)


def test_losses_metrics_convs_and_pools_match_paddle_3(xy):
    # the signatures added for Paddle 3's OpTest files; values recorded on 3.3.1
    x, y = xy
    p = paddle.to_tensor(np.array([[0.2, 0.7, 0.9], [0.4, 0.5, 0.1]], "float32"))
    label = paddle.to_tensor(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "float32"))
    _close(_C_ops.bce_loss(p, label), [[0.22314, 0.35667, 0.10536], [0.91629, 0.69315, 0.10536]])
    _close(_C_ops.huber_loss(x, y, 1.0), [[0.125, 2.5, 4.5], [2.0, 3.75, 0.125]])  # no residual
    _close(_C_ops.sigmoid_cross_entropy_with_logits(x, label, None, True, -100),
           [[0.16235, 0.21888, 0.02115], [0.0081, 0.09599, 0.28357]])
    # a pos_weight: (1 - y) x + w log(1 + exp(-x)), its gradient (1 - y) - w sigmoid(-x)
    logits = paddle.to_tensor(np.array([[0.5, -1.0, 2.0], [3.0, -0.25, 1.5]]))
    logits.stop_gradient = False
    loss = _C_ops.sigmoid_cross_entropy_with_logits(
        logits, paddle.to_tensor(np.array([[0.2, 1.0, 0.0], [0.7, 0.3, 1.0]])),
        paddle.to_tensor(np.array([[0.5, 2.0, 3.0], [1.5, 0.1, 0.9]])), False, -100)
    _close(loss, [[0.637038, 2.626523, 2.380784], [0.972881, -0.092406, 0.181272]],
           "float64")
    loss.sum().backward()
    np.testing.assert_allclose(logits.gradient(), [[0.61123, -1.462117, 0.642391],
                                                   [0.228861, 0.643782, -0.164183]],
                               rtol=1e-5, atol=1e-6)
    _close(_C_ops.squared_l2_norm(x), [16.5625])
    accuracy, correct, total = _C_ops.accuracy(
        paddle.to_tensor(np.array([[0.9, 0.5], [0.8, 0.1], [0.7, 0.6]], "float32")),
        paddle.to_tensor(np.array([[2, 0], [1, 3], [0, 2]], "int64")),
        paddle.to_tensor(np.array([[0], [2], [2]], "int64")))
    _close(accuracy, 2 / 3)
    _close(correct, 2, "int32")
    _close(total, 3, "int32")
    img = paddle.to_tensor(np.arange(32, dtype="float32").reshape(1, 2, 4, 4) / 10 - 1.0)
    expected = img.numpy().copy()
    expected[0, 0][expected[0, 0] < 0] *= 0.1
    _close(_C_ops.prelu(img, paddle.to_tensor(np.array([0.1, 0.5], "float32")), "NCHW",
                        "channel"), expected)
    with pytest.raises(ValueError, match="should be 'NCHW' or 'NHWC'. Received "
                                         "Attr.data_format.: HWC"):     # 3.3.1's words
        paddle.nn.functional.temporal_shift(img, 2, 0.2, data_format="HWC")
    shifted = _C_ops.temporal_shift(
        paddle.to_tensor(np.arange(16, dtype="float32").reshape(4, 4, 1, 1)), 2, 0.25, "NCHW")
    _close(shifted.reshape([4, 4]), [[0, 5, 2, 3], [0, 0, 6, 7], [0, 13, 10, 11],
                                     [8, 0, 14, 15]])
    # depthwise_conv2d / conv3d: groups before dilations
    _close(_C_ops.depthwise_conv2d(img, paddle.ones([2, 1, 2, 2]), [2, 2], [0, 0], "EXPLICIT",
                                   2, [1, 1], "NCHW"),
           [[[[-3.0, -2.2], [0.2, 1.0]], [[3.4, 4.2], [6.6, 7.4]]]])
    # Paddle's kernels take any layout it names, channels first unless it ends in C
    # (3.3.1: NCDHW and AnyLayout give NCHW's values)
    for layout in ("NCDHW", "AnyLayout"):
        _close(_C_ops.depthwise_conv2d(img + 1.0, paddle.ones([2, 1, 2, 2]), [2, 2], [0, 0],
                                       "EXPLICIT", 2, [1, 1], layout),
               [[[[1.0, 1.8], [4.2, 5.0]], [[7.4, 8.2], [10.6, 11.4]]]])
    with pytest.raises(ValueError, match="data_format must be one of"):
        _C_ops.depthwise_conv2d(img, paddle.ones([2, 1, 2, 2]), [2, 2], [0, 0], "EXPLICIT", 2,
                                [1, 1], "NCW")
    vol = paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 2, 2, 2, 2) / 10)
    _close(_C_ops.conv3d(vol, paddle.ones([1, 2, 2, 2, 2]), [1, 1, 1], [0, 0, 0], "EXPLICIT",
                         1, [1, 1, 1], "NCDHW"), [[[[[12.0]]]]])
    _close(_C_ops.conv2d_transpose(paddle.to_tensor([[[[1.0, 2.0]]]]),
                                   paddle.to_tensor([[[[1.0, -1.0]]]]), [1, 2], [0, 0], [], [],
                                   "EXPLICIT", 1, [1, 1], "NCHW"), [[[[1.0, -1.0, 2.0, -2.0]]]])
    _close(_C_ops.conv3d_transpose(paddle.to_tensor([[[[[1.0, 2.0]]]]]),
                                   paddle.to_tensor([[[[[1.0, -1.0]]]]]), [1, 1, 1], [0, 0, 0],
                                   [], [], "EXPLICIT", 1, [1, 1, 1], "NCDHW"),
           [[[[[1.0, 1.0, -2.0]]]]])
    _close(_C_ops.pool3d(vol, [2, 2, 2], [1, 1, 1], [0, 0, 0], False, True, "NCDHW", "max",
                         False, False, "EXPLICIT"), [[[[[0.7]]], [[[1.5]]]]])


@pytest.mark.paddle("3")
def test_pool_rearrangement_and_norm_ops_as_3_3_1s_layers_call_them(dygraph):
    """The argument orders 3.3.1's nn.functional passes them in (s19layers)."""
    x = paddle.to_tensor(np.random.RandomState(3).rand(1, 2, 4, 6))
    F = paddle.nn.functional
    np.testing.assert_array_equal(_C_ops.pixel_unshuffle(x, 2, "NCHW").numpy(),
                                  F.pixel_unshuffle(x, 2).numpy())
    np.testing.assert_array_equal(_C_ops.channel_shuffle(x, 2, "NCHW").numpy(),
                                  F.channel_shuffle(x, 2).numpy())
    cols = F.unfold(x, [2, 3])
    np.testing.assert_array_equal(_C_ops.fold(cols, [4, 6], [2, 3], [1, 1], [0, 0, 0, 0],
                                              [1, 1]).numpy(), F.fold(cols, [4, 6], [2, 3]).numpy())
    np.testing.assert_array_equal(
        _C_ops.lp_pool2d(x, [2, 2], [2, 2], [0, 0], False, True, "NCHW", "lp", False, False,
                         "EXPLICIT", 3.0).numpy(), F.lp_pool2d(x, 3, 2).numpy())
    out, mask = _C_ops.fractional_max_pool2d(x, [2, 3], [0, 0], 0.5, True)
    want = F.fractional_max_pool2d(x, [2, 3], random_u=0.5, return_mask=True)
    np.testing.assert_array_equal(mask.numpy(), want[1].numpy())
    np.testing.assert_array_equal(_C_ops.unpool(out, mask, [2, 2], [2, 2], [0, 0], [4, 6],
                                                "NCHW").numpy(),
                                  F.max_unpool2d(out, mask, 2, output_size=[4, 6]).numpy())
    np.testing.assert_array_equal(_C_ops.group_norm(x, None, None, 1e-5, 2, "NCHW").numpy(),
                                  F.group_norm(x, 2).numpy())


def _param_grad_lr():
    return (paddle.to_tensor(np.array([[0.5, -1.0], [2.0, 0.25]], "float32")),
            paddle.to_tensor(np.array([[0.1, 0.2], [-0.3, 0.4]], "float32")),
            paddle.to_tensor(np.array([0.1], "float32")))


def _state(*rows):
    return paddle.to_tensor(np.array(rows, "float32"))


def test_optimizer_ops_update_their_inputs_in_place(xy):
    # 3.3.1 returns the very input tensors, updated, and None for the master weight;
    # values recorded on 3.3.1 with the same arguments
    p, g, lr = _param_grad_lr()
    result = _C_ops.sgd_(p, lr, g, None, False)
    assert result[0] is p and result[1] is None
    _close(p, [[0.49, -1.02], [2.03, 0.21]])
    p, g, lr = _param_grad_lr()
    m = _state([0.1, 0.1], [0.2, 0.3])
    result = _C_ops.adagrad_(p, g, m, lr, None, 1e-6, False)
    assert result[0] is p and result[1] is m and result[2] is None
    _close(p, [[0.469849, -1.053452], [2.055708, 0.191023]])
    _close(m, [[0.11, 0.14], [0.29, 0.46]])
    p, g, lr = _param_grad_lr()
    m, u, b1p = _state([0.1, 0.1], [0.2, 0.3]), _state([0.5, 0.6], [0.7, 0.8]), _state(0.9)
    result = _C_ops.adamax_(p, g, lr, m, u, b1p, None, 0.9, 0.999, 1e-8, False)
    assert [r is t for r, t in zip(result, (p, m, u))] == [True] * 3 and result[3] is None
    _close(p, [[0.2998, -1.183517], [1.7855, -0.137888]])
    _close(u, [[0.4995, 0.5994], [0.6993, 0.7992]])
    _close(b1p, [0.9])                          # read only: the optimizer advances it
    p, g, lr = _param_grad_lr()
    v = _state([0.1, 0.1], [0.2, 0.3])
    result = _C_ops.momentum_(p, g, v, lr, None, 0.9, True, "l2_decay", 0.01, False, 1.0)
    assert result[0] is p and result[1] is v and result[2] is None
    _close(p, [[0.47195, -1.0442], [2.037, 0.149225]])
    _close(v, [[0.195, 0.28], [-0.1, 0.6725]])
    p, g, lr = _param_grad_lr()
    ms, mom, mg = _state([0.1, 0.1], [0.2, 0.3]), _state([0.0, 0.1], [0.2, 0.0]), \
        _state([0.05, 0.0], [0.1, 0.2])
    result = _C_ops.rmsprop_(p, ms, g, mom, lr, mg, None, 1e-6, 0.9, 0.5, True, False)
    assert [r is t for r, t in zip(result, (p, mom, ms, mg))] == [True] * 4
    _close(p, [[0.466285, -1.115372], [1.969673, 0.167939]])
    _close(mom, [[0.033715, 0.115372], [0.030327, 0.082061]])
    _close(ms, [[0.091, 0.094], [0.189, 0.286]])
    _close(mg, [[0.055, 0.02], [0.06, 0.22]])
    p, g, lr = _param_grad_lr()
    asg, asu = _state([0.1, 0.1], [0.2, 0.3]), _state([0.5, 0.6], [0.7, 0.8])
    result = _C_ops.adadelta_(p, g, asg, asu, lr, None, 0.9, 1e-6, False)
    assert [r is t for r, t in zip(result, (p, asg, asu))] == [True] * 3 and result[3] is None
    _close(p, [[0.47656, -1.050529], [2.057735, 0.183101]])      # lr scales the update
    _close(asg, [[0.091, 0.094], [0.189, 0.286]])
    _close(asu, [[0.455494, 0.565532], [0.663333, 0.764755]])


@pytest.mark.paddle("3")    # 3.3.1's values (1.8's Adam epsilon differs)
def test_adam_family_updates_moments_and_powers_in_place(xy):
    def run(name, *attrs):
        p, g, lr = _param_grad_lr()
        m1, m2 = _state([0.1, 0.1], [0.2, 0.3]), _state([0.5, 0.6], [0.7, 0.8])
        b1p, b2p = _state(0.9), _state(0.999)
        if name == "lamb_":
            result = _C_ops.lamb_(p, g, lr, m1, m2, b1p, b2p, None, None, *attrs)
        else:        # 3.3.1's moment2_max (None) after moment2
            result = getattr(_C_ops, name)(p, g, lr, m1, m2, None, b1p, b2p, None, None,
                                           *attrs)
            assert result[3] is None
            result = result[:3] + result[4:]
        assert [r is t for r, t in zip(result, (p, m1, m2, b1p, b2p))] == [True] * 5
        assert result[5] is None
        _close(m1, [[0.1, 0.11], [0.15, 0.31]])
        _close(m2, [[0.49951, 0.59944], [0.69939, 0.79936]])
        _close(b1p, [0.81])
        _close(b2p, [0.998001])
        return p
    _close(run("lamb_", 0.01, 0.9, 0.999, 1e-6, False, False),
           [[0.422975, -1.054084], [1.881204, 0.076349]])
    _close(run("adam_", 0.9, 0.999, 1e-8, False, 1000, False, False, False),
           [[0.495526, -1.004493], [1.994328, 0.239036]])
    _close(run("adamw_", 0.9, 0.999, 1e-8, 1.0, 0.01, True, False, 1000, False, False, False),
           [[0.495026, -1.003493], [1.992328, 0.238786]])
    # without weight decay 3.3.1's lamb_ adapts only with always_adapt
    with versions.use("3"):
        _close(run("lamb_", 0.0, 0.9, 0.999, 1e-6, False, False),
               [[0.495526, -1.004493], [1.994328, 0.239036]])
        _close(run("lamb_", 0.0, 0.9, 0.999, 1e-6, True, False),
               [[0.425689, -1.074618], [1.905799, 0.067898]])
    p, g, lr = _param_grad_lr()
    with pytest.raises(ValueError, match="amsgrad=True is not implemented"):
        _C_ops.adam_(p, g, lr, p, p, None, lr, lr, None, None, 0.9, 0.999, 1e-8, False, 1000,
                     False, False, True)


def test_interp_pool_with_index_rnn_and_yolo_box_match_paddle_3(xy):
    img = paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4) / 10)
    _close(_C_ops.bilinear_interp(img, None, None, None, "NCHW", -1, 2, 3, [], "bilinear",
                                  False, 0),
           [[[[0.216667, 0.35, 0.483333], [1.016667, 1.15, 1.283333]]]])
    _close(_C_ops.nearest_interp(img, None, None, None, "NCHW", -1, 2, 2, [], "nearest", False,
                                 1), [[[[0.0, 0.2], [0.8, 1.0]]]])
    _close(_C_ops.bicubic_interp(img, None, None, None, "NCHW", -1, 2, 2, [], "bicubic", True,
                                 1), [[[[0.0, 0.3], [1.2, 1.5]]]])
    _close(_C_ops.linear_interp(paddle.to_tensor(np.arange(6, dtype="float32").reshape(1, 1, 6)
                                                 / 10), None, None, None, "NCHW", -1, -1, 4,
                                [], "linear", True, 1), [[[0.0, 0.166667, 0.333333, 0.5]]])
    _close(_C_ops.trilinear_interp(paddle.to_tensor(np.arange(8, dtype="float32")
                                                    .reshape(1, 1, 2, 2, 2)), None, None, None,
                                   "NCHW", 2, 1, 2, [], "trilinear", True, 1),
           [[[[[0.0, 1.0]], [[4.0, 5.0]]]]])
    out, mask = _C_ops.max_pool2d_with_index(
        paddle.to_tensor(np.array([[[[1, 5, 2], [7, 0, 3], [4, 8, 6]]]], "float32")), [2, 2],
        [1, 1], [0, 0], False, False, False)
    _close(out, [[[[7.0, 5.0], [8.0, 8.0]]]])
    _close(mask, [[[[3, 1], [7, 7]]]], "int32")
    out, mask = _C_ops.max_pool3d_with_index(     # the early-2024 form: no ceil_mode
        paddle.to_tensor(np.arange(8, dtype="float32").reshape(1, 1, 2, 2, 2)), [2, 2, 2],
        [1, 1, 1], [0, 0, 0], False, False)
    _close(out, [[[[[7.0]]]]])
    _close(mask, [[[[[7]]]]], "int32")
    weights = [_state([0.1, 0.2], [0.3, -0.4]), _state([0.5, 0.0], [0.0, 0.5]),
               _state(0.1, -0.1), _state(0.0, 0.2)]
    out, _, state = _C_ops.rnn(_state([[0.5, -0.5]], [[1.0, 0.25]]), [_state([[0.1, -0.2]])],
                               weights, None, paddle.Tensor(), 0.0, False, 2, 2, 1,
                               "RNN_TANH", 0, True)
    _close(out, [[[0.099668, 0.336376]], [[0.291161, 0.436734]]])
    assert len(state) == 1
    _close(state[0], [[[0.291161, 0.436734]]])
    x = paddle.to_tensor(np.linspace(-1, 1, 56, dtype="float32").reshape(1, 14, 2, 2))
    boxes, scores = _C_ops.yolo_box(x, paddle.to_tensor(np.array([[64, 64]], "int32")),
                                    [10, 13, 16, 30], 2, 0.01, 32, True, 1.0, False, 0.5)
    assert boxes.shape == [1, 8, 4] and scores.shape == [1, 8, 2]
    _close(boxes[0, :2], [[6.1457, 5.852, 11.0666, 13.2507], [38.2852, 5.9604, 43.3884, 13.6332]])
    _close(scores[0, :2], [[0.17158, 0.18586], [0.17898, 0.19363]])
    # iou_aware: one IoU channel per anchor first, conf = obj^0.6 * iou^0.4
    x = paddle.to_tensor(np.linspace(-1, 1, 64, dtype="float32").reshape(1, 16, 2, 2))
    boxes, scores = _C_ops.yolo_box(x, paddle.to_tensor(np.array([[64, 64]], "int32")),
                                    [10, 13, 16, 30], 2, 0.01, 32, True, 1.0, True, 0.4)
    _close(boxes[0, :2], [[7.2372, 6.688, 13.3508, 15.7119], [39.3615, 6.7747, 45.6723, 16.0896]])
    _close(scores[0, :2], [[0.17083, 0.1823], [0.17717, 0.18888]])
    _close(_C_ops.spectral_norm(_state([1.0, 2.0], [3.0, 4.0], [0.5, -1.0]),
                                _state(0.6, 0.8, 0.0), _state(1.0, 0.0), 0, 2, 1e-12),
           [[0.182102, 0.364205], [0.546307, 0.728409], [0.091051, -0.182102]])
