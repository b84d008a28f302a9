"""Every paddle.nn Layer class of the API index run eagerly equals the same layer built as
a static program: same parameters (copied from the static run), same outputs, and the same
gradients of sum(outputs) for the inputs and every parameter (the static gradients come
from backward.gradients, the eager ones from Tensor.backward)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import fluid, static, versions
from refimpl.backward import gradients
from refimpl.framework import mode
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope


def normal(*shape):
    return lambda rng: rng.randn(*shape)


def uniform(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def ints(lo, hi, *shape):
    return lambda rng: rng.randint(lo, hi, shape).astype("int64")


def probs(*shape):
    return uniform(0.1, 0.9, *shape)


# (name, make layer, [input generators])
CASES = [
    ("Linear", lambda: nn.Linear(4, 3), [normal(2, 5, 4)]),
    ("Bilinear", lambda: nn.Bilinear(3, 4, 2), [normal(5, 3), normal(5, 4)]),
    ("Embedding", lambda: nn.Embedding(10, 3, padding_idx=0), [ints(0, 10, 2, 4)]),
    ("Flatten", lambda: nn.Flatten(), [normal(2, 3, 4)]),
    ("Dropout_eval", lambda: _eval_dropout(), [normal(3, 4)]),
    ("Conv1D", lambda: nn.Conv1D(2, 3, 3, padding=1), [normal(2, 2, 7)]),
    ("Conv2D", lambda: nn.Conv2D(2, 3, 3, stride=2, padding=1), [normal(2, 2, 7, 7)]),
    ("Conv3D", lambda: nn.Conv3D(2, 2, 2), [normal(1, 2, 4, 4, 4)]),
    ("Conv1DTranspose", lambda: nn.Conv1DTranspose(2, 3, 3), [normal(2, 2, 5)]),
    ("Conv2DTranspose", lambda: nn.Conv2DTranspose(2, 3, 3, stride=2), [normal(1, 2, 4, 4)]),
    ("Conv3DTranspose", lambda: nn.Conv3DTranspose(2, 2, 2), [normal(1, 2, 3, 3, 3)]),
    ("MaxPool1D", lambda: nn.MaxPool1D(2), [normal(2, 3, 8)]),
    ("MaxPool2D", lambda: nn.MaxPool2D(2, 2), [normal(2, 3, 6, 6)]),
    ("MaxPool3D", lambda: nn.MaxPool3D(2), [normal(1, 2, 4, 4, 4)]),
    ("AvgPool1D", lambda: nn.AvgPool1D(2), [normal(2, 3, 8)]),
    ("AvgPool2D", lambda: nn.AvgPool2D(3, 2, 1), [normal(2, 3, 6, 6)]),
    ("AvgPool3D", lambda: nn.AvgPool3D(2), [normal(1, 2, 4, 4, 4)]),
    ("AdaptiveAvgPool1D", lambda: nn.AdaptiveAvgPool1D(3), [normal(2, 3, 8)]),
    ("AdaptiveAvgPool2D", lambda: nn.AdaptiveAvgPool2D(3), [normal(2, 3, 7, 7)]),
    ("AdaptiveAvgPool3D", lambda: nn.AdaptiveAvgPool3D(2), [normal(1, 2, 4, 4, 4)]),
    ("AdaptiveMaxPool1D", lambda: nn.AdaptiveMaxPool1D(4), [normal(2, 3, 8)]),
    ("AdaptiveMaxPool2D", lambda: nn.AdaptiveMaxPool2D(2), [normal(2, 3, 6, 6)]),
    ("AdaptiveMaxPool3D", lambda: nn.AdaptiveMaxPool3D(2), [normal(1, 2, 4, 4, 4)]),
    ("BatchNorm", lambda: nn.BatchNorm(3), [normal(4, 3, 2, 2)]),
    ("BatchNorm1D", lambda: nn.BatchNorm1D(3), [normal(4, 3)]),
    ("BatchNorm2D", lambda: nn.BatchNorm2D(3), [normal(4, 3, 2, 2)]),
    ("BatchNorm3D", lambda: nn.BatchNorm3D(2), [normal(2, 2, 2, 2, 2)]),
    ("SyncBatchNorm", lambda: nn.SyncBatchNorm(3), [normal(4, 3, 2, 2)]),
    ("LayerNorm", lambda: nn.LayerNorm([4]), [normal(3, 4)]),
    ("GroupNorm", lambda: nn.GroupNorm(2, 4), [normal(2, 4, 3, 3)]),
    ("InstanceNorm1D", lambda: nn.InstanceNorm1D(3), [normal(2, 3, 5)]),
    ("InstanceNorm2D", lambda: nn.InstanceNorm2D(3), [normal(2, 3, 4, 4)]),
    ("InstanceNorm3D", lambda: nn.InstanceNorm3D(2), [normal(2, 2, 3, 3, 3)]),
    ("LocalResponseNorm", lambda: nn.LocalResponseNorm(3), [normal(2, 4, 3, 3)]),
    ("SpectralNorm", lambda: nn.SpectralNorm([4, 3], power_iters=3), [normal(4, 3)]),
    ("PReLU", lambda: nn.PReLU(3, 0.2), [normal(2, 3, 4)]),
    ("Maxout", lambda: nn.Maxout(2), [normal(2, 4, 3, 3)]),
    ("Pad1D", lambda: nn.Pad1D([1, 2], mode="reflect"), [normal(2, 3, 5)]),
    ("Pad2D", lambda: nn.Pad2D(1, mode="replicate"), [normal(1, 2, 3, 3)]),
    ("Pad3D", lambda: nn.Pad3D(1, value=0.5), [normal(1, 1, 2, 2, 2)]),
    ("PixelShuffle", lambda: nn.PixelShuffle(2), [normal(1, 8, 2, 3)]),
    ("Upsample", lambda: nn.Upsample(scale_factor=2, mode="bilinear"), [normal(1, 2, 3, 3)]),
    ("UpsamplingNearest2D", lambda: nn.UpsamplingNearest2D(scale_factor=2),
     [normal(1, 2, 3, 3)]),
    ("UpsamplingBilinear2D", lambda: nn.UpsamplingBilinear2D(size=[5, 4]),
     [normal(1, 2, 3, 3)]),
    ("CosineSimilarity", lambda: nn.CosineSimilarity(axis=1), [normal(3, 4), normal(3, 4)]),
    ("PairwiseDistance", lambda: nn.PairwiseDistance(), [normal(3, 4), normal(3, 4)]),
    ("CrossEntropyLoss", lambda: nn.CrossEntropyLoss(), [normal(4, 5), ints(0, 5, 4, 1)]),
    ("MSELoss", lambda: nn.MSELoss(), [normal(4, 3), normal(4, 3)]),
    ("L1Loss", lambda: nn.L1Loss(), [normal(4, 3), normal(4, 3)]),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss(), [normal(4, 3), normal(4, 3)]),
    ("BCELoss", lambda: nn.BCELoss(), [probs(4, 3), probs(4, 3)]),
    ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(), [normal(4, 3), probs(4, 3)]),
    ("KLDivLoss", lambda: nn.KLDivLoss(), [normal(4, 3), probs(4, 3)]),
    ("NLLLoss", lambda: nn.NLLLoss(), [normal(4, 5), ints(0, 5, 4)]),
    ("MarginRankingLoss", lambda: nn.MarginRankingLoss(0.1),
     [normal(4, 1), normal(4, 1), uniform(-1, 1, 4, 1)]),
    ("HSigmoidLoss", lambda: nn.HSigmoidLoss(3, 5), [normal(4, 3), ints(0, 5, 4, 1)]),
    ("SimpleRNNCell", lambda: nn.SimpleRNNCell(3, 4), [normal(2, 3), normal(2, 4)]),
    ("LSTMCell", lambda: nn.LSTMCell(3, 4), [normal(2, 3)]),
    ("GRUCell", lambda: nn.GRUCell(3, 4), [normal(2, 3), normal(2, 4)]),
    ("SimpleRNN", lambda: nn.SimpleRNN(3, 4, num_layers=2), [normal(2, 5, 3)]),
    ("LSTM", lambda: nn.LSTM(3, 4, direction="bidirectional"), [normal(2, 5, 3)]),
    ("GRU", lambda: nn.GRU(3, 4, time_major=True), [normal(5, 2, 3)]),
    ("LSTM_lengths", lambda: _WithLengths(nn.LSTM(3, 4)),
     [normal(3, 5, 3), lambda rng: np.array([5, 2, 3], "int64")]),
    ("RNN", lambda: nn.RNN(nn.GRUCell(3, 4), is_reverse=True), [normal(2, 4, 3)]),
    ("BiRNN", lambda: nn.BiRNN(nn.LSTMCell(3, 4), nn.LSTMCell(3, 4)), [normal(2, 4, 3)]),
    ("MultiHeadAttention", lambda: nn.MultiHeadAttention(8, 2), [normal(2, 3, 8)]),
    ("TransformerEncoderLayer", lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
     [normal(2, 3, 8)]),
    ("TransformerDecoderLayer", lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
     [normal(2, 3, 8), normal(2, 4, 8)]),
    ("TransformerEncoder", lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2), [normal(2, 3, 8)]),
    ("TransformerDecoder", lambda: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2),
     [normal(2, 3, 8), normal(2, 4, 8)]),
    ("Transformer", lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0),
     [normal(2, 3, 8), normal(2, 4, 8)]),
    ("Sequential", lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)),
     [normal(5, 3)]),
    ("LayerList", lambda: _Stack(nn.LayerList([nn.Linear(3, 3) for _ in range(2)])),
     [normal(2, 3)]),
    ("ParameterList", lambda: _ParamSum(), [normal(2, 3)]),
]

ACTIVATIONS = ["ELU", "GELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
               "LeakyReLU", "LogSigmoid", "LogSoftmax", "ReLU", "ReLU6", "SELU", "Sigmoid",
               "Softmax", "Softplus", "Softshrink", "Softsign", "Swish", "Tanh",
               "Tanhshrink", "ThresholdedReLU"]
CASES += [(name, (lambda n=name: getattr(nn, n)()), [uniform(0.1, 2.0, 3, 4)
                                                     if name == "ThresholdedReLU"
                                                     else normal(3, 4)])
          for name in ACTIVATIONS]


class _Stack(nn.Layer):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class _WithLengths(nn.Layer):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, lengths):
        return self.rnn(x, sequence_length=lengths)


class _ParamSum(nn.Layer):
    def __init__(self):
        super().__init__()
        self.params = nn.ParameterList([self.create_parameter([3]) for _ in range(2)])

    def forward(self, x):
        return x * self.params[0] + self.params[1]


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [v for o in out for v in _flat(o)]
    return [out]


def _float(vs):
    return [v for v in vs if v.dtype.name.startswith("float")]


def _dtype(a):
    return "float32" if a.dtype.kind == "f" else str(a.dtype)


def _static(make, arrays):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        paddle.seed(0)
        layer = make()
        xs = [static.data("x%d" % i, list(a.shape), _dtype(a)) for i, a in enumerate(arrays)]
        for x in xs:
            x.stop_gradient = False
        outs = _float(_flat(layer(*xs)))
        loss = paddle.add_n([paddle.sum(o) if len(o.shape) else o for o in outs])
        params = [p for _, p in layer.named_parameters()]
        wrt = [x for x in xs if x.dtype.name == "float32"] + params
        grads = gradients([loss], wrt)
    exe = static.Executor()
    scope = Scope()
    exe.run(startup, scope=scope)
    state = {k: np.array(scope.find_var(v.name).get_tensor())
             for k, v in layer.state_dict().items()}
    fetched = exe.run(main, feed={x.name: a.astype(x.dtype.name) for x, a in zip(xs, arrays)},
                      fetch_list=outs + [g for g in grads if g is not None], scope=scope)
    return state, fetched[:len(outs)], fetched[len(outs):], [g is not None for g in grads]


def _eager(make, arrays, state):
    mode.disable_static()
    paddle.seed(0)
    layer = make()
    layer.set_state_dict(state)
    xs = [paddle.to_tensor(a.astype(_dtype(a)), stop_gradient=a.dtype.kind != "f")
          for a in arrays]
    outs = _float(_flat(layer(*xs)))
    loss = paddle.add_n([paddle.sum(o) if len(o.shape) else o for o in outs])
    loss.backward()
    params = [p for _, p in layer.named_parameters()]
    wrt = [x for x in xs if x.dtype.name == "float32"] + params
    return [o.numpy() for o in outs], [t.gradient() for t in wrt]


@pytest.mark.parametrize("name,make,gens", CASES, ids=[c[0] for c in CASES])
def test_layer_runs_eagerly_like_its_static_program(name, make, gens):
    rng = np.random.RandomState(3)
    arrays = [g(rng) for g in gens]
    state, outs, grads, present = _static(make, arrays)
    e_outs, e_grads = _eager(make, arrays, state)
    assert len(e_outs) == len(outs)
    for got, want in zip(e_outs, outs):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    want_grads = iter(grads)
    for got, has in zip(e_grads, present):
        if has:
            np.testing.assert_allclose(got, next(want_grads), rtol=1e-5, atol=1e-6)


def _eval_dropout():
    layer = nn.Dropout(0.5)
    layer.eval()
    return layer


def test_beam_search_decoding_runs_eagerly_and_stops_when_all_finished(monkeypatch):
    import test_decode_spectral as decode
    from test_decode_spectral import BEAM, END, START, TableCell, _numpy_beam_search
    table = decode.TABLE.copy()
    table[:, END] += 4.0            # every beam ends within a few steps
    monkeypatch.setattr(decode, "TABLE", table)
    mode.disable_static()
    h0 = np.random.RandomState(3).randn(2, table.shape[0]).astype("float32")
    decoder = nn.BeamSearchDecoder(TableCell(paddle.to_tensor(table)), START, END, BEAM)
    ids, states, lengths = nn.dynamic_decode(decoder, inits=paddle.to_tensor(h0),
                                             max_step_num=20, return_length=True)
    steps = ids.shape[1]
    assert steps < 21                       # stopped early: every beam had finished
    want_ids, want_scores, want_lengths = _numpy_beam_search(h0, steps)
    np.testing.assert_array_equal(ids.numpy(), want_ids)
    np.testing.assert_allclose(states.log_probs.numpy(), want_scores, rtol=1e-5)
    np.testing.assert_array_equal(lengths.numpy(), want_lengths)


@pytest.mark.skipif(versions.switch("param_trainable") == "attribute",
                    reason="Paddle 1.8.5's trainable is a plain attribute (measured; "
                           "switch param_trainable)")
def test_parameter_trainable_is_not_stop_gradient():
    # Paddle 2.0's ParamBase (test_imperative_layer_trainable): setting trainable sets
    # stop_gradient, so a frozen layer's output stops gradients too
    mode.disable_static()
    linear = nn.Linear(3, 2)
    x = paddle.to_tensor(np.ones((1, 3), "float32"))
    assert linear.weight.trainable and not linear(x).stop_gradient
    linear.weight.trainable = False
    linear.bias.trainable = False
    assert linear.weight.stop_gradient and linear(x).stop_gradient
    linear.bias.stop_gradient = False
    assert linear.bias.trainable and not linear(x).stop_gradient
    with pytest.raises(ValueError, match="trainable must be a bool, got '1'"):
        linear.weight.trainable = "1"


@pytest.mark.paddle("1.8")
def test_parameter_trainable_is_an_attribute_under_1_8():
    mode.disable_static()
    linear = nn.Linear(3, 2)
    linear.weight.trainable = False              # 1.8.5: stop_gradient is left alone
    assert linear.weight.trainable is False and linear.weight.stop_gradient is False


def test_ctc_loss_and_channel_dropouts_run_eagerly():
    mode.disable_static()
    rng = np.random.RandomState(0)
    logits = paddle.to_tensor(rng.randn(5, 2, 4).astype("float32"), stop_gradient=False)
    labels = paddle.to_tensor(np.array([[1, 2], [3, 0]], "int32"))
    lengths = paddle.to_tensor(np.array([5, 4], "int64")), paddle.to_tensor(
        np.array([2, 1], "int64"))
    loss = nn.CTCLoss(blank=0)(logits, labels, *lengths)
    loss.backward()
    assert float(loss) > 0 and np.abs(logits.gradient()).sum() > 0
    x = paddle.to_tensor(np.ones((4, 6, 3, 3), "float32"))
    paddle.seed(1)
    out = nn.Dropout2D(0.5)(x).numpy()
    per_channel = out.reshape(4, 6, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()     # whole channels
    drop = nn.AlphaDropout(0.5)
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())


def test_control_flow_and_tensor_arrays_are_python_eagerly():
    from refimpl import fluid
    mode.disable_static()
    x = paddle.to_tensor(np.array([2.0]), stop_gradient=False)
    n = paddle.to_tensor(np.array([3]))
    i, y = static.nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * x],
                                [paddle.to_tensor(np.array([0])), paddle.ones([1], "float64")])
    assert int(i) == 3 and float(y) == 8.0
    y.backward()
    np.testing.assert_allclose(x.gradient(), [12.0])                # d x^3 = 3 x^2
    assert float(static.nn.cond(x > 1.0, lambda: x * 2.0, lambda: x)) == 4.0
    arr = fluid.layers.create_array("float32")
    k = paddle.to_tensor(np.array([0]))
    fluid.layers.array_write(paddle.ones([2], "float32"), k, arr)
    fluid.layers.array_write(paddle.zeros([2], "float32"), k + 1, arr)
    assert isinstance(arr, list) and int(fluid.layers.array_length(arr)) == 2
    np.testing.assert_array_equal(fluid.layers.array_read(arr, k).numpy(), [1, 1])
    joined, sizes = fluid.layers.tensor_array_to_tensor(arr, axis=0)
    np.testing.assert_array_equal(joined.numpy(), [1, 1, 0, 0])
    np.testing.assert_array_equal(sizes.numpy(), [2, 2])


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_set_state_dict_of_another_shape_by_version(paddle_version, version):
    # 1.8.5: AssertionError "Variable Shape not match"; 2.0.0 (its
    # test_imperative_save_load_v2) and 3.3.1 (measured): a warning "Skip loading for
    # weight. ..." and the other values set
    with paddle_version(version), fluid.dygraph.guard():
        layer = paddle.nn.Linear(2, 3)
        weight = layer.weight.numpy()
        state = {"weight": np.ones([2, 3, 1], "float32"), "bias": np.full([3], 7.0, "float32")}
        if version == "1.8":
            with pytest.raises(AssertionError, match="has shape \\[2, 3, 1\\], expected"):
                layer.set_state_dict(state)
            np.testing.assert_array_equal(layer.bias.numpy(), [0, 0, 0])   # nothing set
            return
        with pytest.warns(UserWarning, match="Skip loading for weight"):
            layer.set_state_dict(state)
        np.testing.assert_array_equal(layer.weight.numpy(), weight)
        np.testing.assert_array_equal(layer.bias.numpy(), [7, 7, 7])


def test_set_state_dict_takes_its_dict_as_stat_dict_too():
    # Paddle 1.8 named the argument stat_dict; 2.0 (its test_imperative_save_load) and
    # 3.3.1 (measured) still take it, with a DeprecationWarning
    with fluid.dygraph.guard():
        layer = paddle.nn.Linear(2, 1)
        state = {"weight": np.array([[2.0], [3.0]], "float32"),
                 "bias": np.array([5.0], "float32")}
        with pytest.warns(DeprecationWarning, match="`stat_dict` has deprecated"):
            layer.set_state_dict(stat_dict=state)
        np.testing.assert_array_equal(layer.weight.numpy(), [[2.0], [3.0]])
        wrapped = paddle.DataParallel(layer)
        with pytest.warns(DeprecationWarning):
            wrapped.set_dict(stat_dict={"weight": np.zeros([2, 1], "float32"),
                                        "bias": np.ones([1], "float32")})
        np.testing.assert_array_equal(layer(paddle.ones([1, 2])).numpy(), [[1.0]])
