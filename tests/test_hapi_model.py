"""paddle.Model in both modes: LeNet trained by fit() on MNIST files generated here (read by
paddle.vision.datasets.MNIST) reaches 90 % accuracy, also with worker processes; evaluate
and predict agree with a loop written out by hand; the batch methods against numpy;
training and inference saves round-trip; errors."""
import gzip
import os
import struct

import numpy as np
import pytest

import refimpl as paddle
from refimpl import io, versions
from refimpl.framework import model_formats
from refimpl.static import InputSpec
from refimpl.vision import datasets, transforms
from refimpl.vision.models import LeNet


def _write_idx(path, array, magic):
    header = struct.pack(">%dI" % (1 + array.ndim), magic, *array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def glyph_mnist(directory, n, seed, prefix):
    """MNIST idx files of n 28x28 images: class c is a bright 6x6 square at one of ten
    places, on noise."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, n)
    images = (rng.rand(n, 28, 28) * 70).astype(np.uint8)
    for image, label in zip(images, labels):
        row, col = divmod(int(label), 5)
        image[4 + 12 * row:10 + 12 * row, 2 + 5 * col:8 + 5 * col] = 250
    os.makedirs(directory, exist_ok=True)
    paths = [os.path.join(directory, "%s-%s-idx%d-ubyte.gz" % (prefix, kind, dims))
             for kind, dims in (("images", 3), ("labels", 1))]
    _write_idx(paths[0], images, 2051)
    _write_idx(paths[1], labels, 2049)
    return paths


@pytest.fixture(scope="module")
def mnist_files(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("mnist"))
    return {"train": glyph_mnist(root, 400, 1, "train"), "test": glyph_mnist(root, 200, 2, "t10k")}


def mnist(files, mode):
    image_path, label_path = files[mode]
    return datasets.MNIST(image_path, label_path, mode=mode, backend="cv2",
                          transform=transforms.ToTensor())


def _specs():
    return ([InputSpec([None, 1, 28, 28], "float32", "image")],
            [InputSpec([None, 1], "int64", "label")])


def _lenet_model(lr=0.003):
    paddle.seed(2)
    net = LeNet()
    inputs, labels = _specs()
    model = paddle.Model(net, inputs, labels)
    model.prepare(paddle.optimizer.Adam(lr, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


@pytest.mark.parametrize("dynamic, num_workers", [(True, 0), (True, 2), (False, 2)])
def test_lenet_fit_on_mnist_files_reaches_90_percent(mnist_files, dynamic, num_workers,
                                                     capsys):
    if dynamic:
        paddle.disable_static()
    model = _lenet_model()
    model.fit(mnist(mnist_files, "train"), epochs=3, batch_size=32, verbose=0,
              num_workers=num_workers)
    result = model.evaluate(mnist(mnist_files, "test"), batch_size=50, verbose=0,
                            num_workers=num_workers)
    assert set(result) == {"loss", "acc"} and len(result["loss"]) == 1
    assert result["acc"] > 0.9
    assert capsys.readouterr().out == ""          # verbose=0 prints nothing


def _manual(model, dataset, batch_size):
    """Scores of every test sample, each batch's mean cross entropy, and the accuracy, by
    running the network on the batches by hand (dynamic) or the parameters' values through
    an eager LeNet (static)."""
    if paddle.in_dynamic_mode():
        net = model.network
    else:
        scope = paddle.static.global_scope()
        paddle.disable_static()
        net = LeNet()
        net.set_state_dict({k: np.array(scope.find_var(v.name).get_tensor())
                            for k, v in model.network.state_dict().items()})
    net.eval()
    images = np.stack([dataset[i][0] for i in range(len(dataset))])
    labels = np.stack([dataset[i][1] for i in range(len(dataset))])
    with paddle.no_grad():
        scores = np.concatenate([net(paddle.to_tensor(images[i:i + batch_size])).numpy()
                                 for i in range(0, len(images), batch_size)])
    shifted = scores - scores.max(1, keepdims=True)
    nll = -(shifted - np.log(np.exp(shifted).sum(1, keepdims=True)))[
        np.arange(len(labels)), labels[:, 0]]
    losses = [nll[i:i + batch_size].mean() for i in range(0, len(nll), batch_size)]
    accuracy = np.mean(scores.argmax(1) == labels[:, 0])
    return scores, losses, accuracy


@pytest.mark.parametrize("dynamic", [True, False])
def test_evaluate_and_predict_agree_with_a_manual_loop(mnist_files, dynamic):
    if dynamic:
        paddle.disable_static()
    model = _lenet_model()
    model.fit(mnist(mnist_files, "train"), epochs=1, batch_size=40, verbose=0)
    test = mnist(mnist_files, "test")
    result = model.evaluate(test, batch_size=64, verbose=0)
    batches = model.predict(test, batch_size=64, verbose=0)
    stacked = model.predict(test, batch_size=64, verbose=0, stack_outputs=True)
    scores, losses, accuracy = _manual(model, test, 64)
    # the logged loss is the last batch's (as Paddle), the metric accumulates
    np.testing.assert_allclose(result["loss"][0], losses[-1], rtol=1e-4, atol=1e-6)
    assert result["acc"] == pytest.approx(accuracy)
    assert len(batches) == 1 and [b.shape for b in batches[0]] == [(64, 10)] * 3 + [(8, 10)]
    np.testing.assert_allclose(np.concatenate(batches[0]), scores, rtol=1e-4, atol=1e-5)
    assert len(stacked) == 1 and stacked[0].shape == (200, 10)
    np.testing.assert_allclose(stacked[0], scores, rtol=1e-4, atol=1e-5)


def _linear_model(dynamic, metrics=None):
    """y = x @ w + b with w = [[1], [2]], b = [0.5]; SGD(0.1), MSE."""
    if dynamic:
        paddle.disable_static()
    attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(np.array([[1.], [2.]])))
    bias = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5))
    net = paddle.nn.Linear(2, 1, weight_attr=attr, bias_attr=bias)
    model = paddle.Model(net, [InputSpec([None, 2], "float32", "x")],
                         [InputSpec([None, 1], "float32", "y")])
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.MSELoss(),
                  metrics)
    return model


def _values(model):
    if paddle.in_dynamic_mode():
        return [p.numpy() for p in model.parameters()]
    scope = paddle.static.global_scope()
    return [np.array(scope.find_var(p.name).get_tensor()) for p in model.parameters()]


@pytest.mark.parametrize("dynamic", [True, False])
def test_batch_methods_against_numpy(dynamic):
    model = _linear_model(dynamic)
    x = np.array([[1., 0.], [0., 1.], [1., 1.]], "float32")
    y = np.array([[1.], [2.], [4.]], "float32")
    w, b = np.array([[1.], [2.]]), np.array([0.5])
    residual = x @ w + b - y
    loss, = model.train_batch([x], [y])
    np.testing.assert_allclose(loss, np.mean(residual ** 2), rtol=1e-6)
    # SGD on the mean squared error by hand
    w2 = w - 0.1 * 2 * x.T @ residual / 3
    b2 = b - 0.1 * 2 * residual.sum(0) / 3
    np.testing.assert_allclose(_values(model)[0], w2, rtol=1e-6)
    np.testing.assert_allclose(_values(model)[1], b2, rtol=1e-6)
    out, = model.predict_batch([x])
    np.testing.assert_allclose(out, x @ w2 + b2, rtol=1e-6)
    loss, = model.eval_batch([x], [y])
    np.testing.assert_allclose(loss, np.mean((x @ w2 + b2 - y) ** 2), rtol=1e-6)
    np.testing.assert_allclose(_values(model)[0], w2, rtol=1e-6)       # eval does not train


@pytest.mark.parametrize("dynamic", [True, False])
def test_train_batch_returns_the_metrics_update(dynamic):
    class Sign(paddle.metric.Metric):
        """Fraction of positive predictions (compute passes the prediction through)."""

        def __init__(self):
            self.reset()

        def reset(self):
            self.hits, self.count = 0, 0

        def update(self, pred, label):
            self.hits += int((np.asarray(pred) > 0).sum())
            self.count += len(pred)
            return self.hits / self.count

        def accumulate(self):
            return self.hits / self.count

        def name(self):
            return "positive"

    model = _linear_model(dynamic, Sign())
    x = np.array([[1., 0.], [-3., -1.]], "float32")
    losses, metrics = model.train_batch([x], [np.zeros((2, 1), "float32")])
    assert metrics == [0.5] and len(losses) == 1


def _fit_briefly(model, files):
    model.fit(mnist(files, "train"), batch_size=100, verbose=0, shuffle=False)


def _trained_lenet(dynamic, files):
    if dynamic:
        paddle.disable_static()
    model = _lenet_model()
    _fit_briefly(model, files)
    return model


@pytest.mark.parametrize("dynamic", [True, False])
def test_training_save_and_load_round_trip(mnist_files, tmp_path, dynamic):
    model = _trained_lenet(dynamic, mnist_files)
    path = str(tmp_path / "ckpt" / "lenet")
    model.save(path)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["lenet.pdmanifest", "lenet.pdopt",
                                                     "lenet.pdparams"]
    saved = paddle.load(path + ".pdparams", return_numpy=True)
    assert sorted(saved) == sorted(model.network.state_dict())
    other = _lenet_model()          # another LeNet: other names, other initial values
    assert [p.name for p in other.parameters()] != [p.name for p in model.parameters()]
    other.load(path + ".pdparams")
    for a, b in zip(_values(model), _values(other)):
        np.testing.assert_array_equal(a, b)
    # the optimizer state came too: one more epoch gives the same parameters
    _fit_briefly(model, mnist_files)
    _fit_briefly(other, mnist_files)
    for a, b in zip(_values(model), _values(other)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dynamic", [True, False])
def test_inference_save_loads_with_load_inference_model(mnist_files, tmp_path, dynamic):
    model = _trained_lenet(dynamic, mnist_files)
    images = np.stack([mnist(mnist_files, "test")[i][0] for i in range(16)])
    expected, = model.predict_batch([images])
    path = str(tmp_path / "infer" / "lenet")
    model.save(path, training=False)
    # the program as a PIR json under 3 (switch inference_program_format)
    program = "lenet.pdmodel" if versions.switch("inference_program_format") == \
        "program_desc" else "lenet.json"
    assert sorted(os.listdir(tmp_path / "infer")) == sorted(
        ["lenet.pdiparams", "lenet.pdmanifest", program])
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(path, exe)
        got, = exe.run(program, feed={feeds[0]: images}, fetch_list=fetches)
    assert feeds == ["image"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_dynamic_inference_save_without_inputs_uses_the_batches_shapes(tmp_path, dygraph):
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 2), paddle.nn.ReLU())
    model = paddle.Model(net)
    model.prepare()
    with pytest.raises(ValueError, match="give input_size"):
        model.summary()
    # nothing tells the shapes yet (Paddle 2.0: RuntimeError); no file is written
    with pytest.raises(RuntimeError, match="needs the inputs' shapes"):
        model.save(str(tmp_path / "seq"), training=False)
    assert os.listdir(tmp_path) == []
    x = np.random.RandomState(0).rand(4, 3).astype("float32")
    expected, = model.predict_batch(x)
    # the prefix names a directory as well (2.0's test_model saves to mkdtemp()'s path):
    # load_inference_model still reads PREFIX.pdmodel beside it
    os.makedirs(str(tmp_path / "seq"))
    with pytest.warns(UserWarning, match=r"shapes of the batches seen: \[\[4, 3\]\]"):
        model.save(str(tmp_path / "seq"), training=False)
    paddle.enable_static()
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "seq"), exe)
    assert feeds == ["input"]     # Sequential.forward's argument
    np.testing.assert_allclose(exe.run(program, feed={"input": x}, fetch_list=fetches)[0],
                               expected, rtol=1e-6)


def test_load_checks_everything_before_setting_anything(tmp_path, dygraph):
    model = _linear_model(True)
    model.save(str(tmp_path / "lin"))
    wide = paddle.nn.Linear(3, 1)
    other = paddle.Model(wide)
    other.prepare(paddle.optimizer.SGD(0.1, parameters=wide.parameters()), paddle.nn.MSELoss())
    before = [p.numpy() for p in wide.parameters()]
    with pytest.raises(ValueError, match=r"weight has shape \[2, 1\] in .*lin.pdparams, but the "
                                         r"model's is \[3, 1\]"):
        other.load(str(tmp_path / "lin"))
    for p, value in zip(wide.parameters(), before):
        np.testing.assert_array_equal(p.numpy(), value)       # the bias was not set either
    with pytest.warns(UserWarning, match="skip loading weight"):
        other.load(str(tmp_path / "lin.pdparams"), skip_mismatch=True)
    np.testing.assert_array_equal(wide.bias.numpy(), [0.5])


def test_fit_with_dataloaders_and_two_batch_sizes(mnist_files, dygraph, capsys):
    model = _lenet_model()
    train = io.DataLoader(mnist(mnist_files, "train"), batch_size=100, shuffle=False)
    model.fit(train, mnist(mnist_files, "test"), batch_size=[7, 40], epochs=1, log_freq=2,
              verbose=2)
    out = capsys.readouterr().out.splitlines()
    if versions.current() == "3":      # Paddle 3's fit begins with its note on the loss
        assert out.pop(0).startswith("The loss value printed in the log is the current step")
    # the DataLoader's batch size (100) for training, 40 for the evaluation dataset
    assert [line.split(" - ")[0] for line in out] == [
        "Epoch 1/1", "step 2/4", "step 4/4", "Eval begin...", "step 2/5", "step 4/5",
        "step 5/5", "Eval samples: 200"]


def test_configuration_errors(dygraph):
    net = LeNet()
    with pytest.raises(TypeError, match="network must be a paddle.nn.Layer"):
        paddle.Model(lambda x: x)
    with pytest.raises(ValueError, match=r"inputs\[0\] .* needs a name"):
        paddle.Model(net, [InputSpec([None, 1, 28, 28])])
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a paddle.static.InputSpec"):
        paddle.Model(net, [[None, 1, 28, 28]])
    model = paddle.Model(net)
    with pytest.raises(RuntimeError, match="call model.prepare"):
        model.predict_batch(np.zeros((1, 1, 28, 28), "float32"))
    with pytest.raises(TypeError, match="loss must be a paddle.nn.Layer or a callable"):
        model.prepare(loss="ce")
    with pytest.raises(TypeError, match="metrics must be paddle.metric.Metric"):
        model.prepare(metrics=["acc"])
    with pytest.raises(ValueError, match="an optimizer needs a loss"):
        model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()))
    with pytest.raises(ValueError, match="make it with parameters=model.parameters"):
        model.prepare(paddle.optimizer.SGD(0.1), paddle.nn.CrossEntropyLoss())
    # dynamic mode on the CPU: Paddle's auto_cast and GradScaler warn that they make no
    # effect (3.3.1's test_model trains with 'O1' so); static mode refuses it
    with pytest.warns(UserWarning, match="amp_guard can only be enabled on CUDAPlace"):
        model.prepare(amp_configs="O1")
    paddle.enable_static()
    try:
        with pytest.raises(NotImplementedError, match="automatic mixed precision"):
            paddle.Model(LeNet(), [InputSpec([None, 1, 28, 28], "float32", "x")]).prepare(
                amp_configs="O1")
    finally:
        paddle.disable_static()
    with pytest.raises(ValueError, match="amp level must be"):
        model.prepare(amp_configs={"level": "O3"})
    model.prepare(amp_configs="O0")
    with pytest.raises(RuntimeError, match="training needs an optimizer and a loss"):
        model.fit(io.TensorDataset([np.zeros((2, 1, 28, 28), "float32")]))
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    data = io.TensorDataset([np.zeros((2, 1, 28, 28), "float32"), np.zeros((2, 1), "int64")])
    for kwargs, message in [({"epochs": 0}, "epochs must be a positive int"),
                            ({"batch_size": [1, 2, 3]}, "batch_size as a list"),
                            ({"verbose": 4}, "verbose must be 0"),
                            ({"log_freq": 0}, "log_freq must be a positive int")]:
        with pytest.raises(ValueError, match=message):
            model.fit(data, **kwargs)
    with pytest.raises(TypeError, match="must be a paddle.io.Dataset, a DataLoader"):
        model.fit(5)
    with pytest.raises(TypeError, match="callbacks must be paddle.callbacks.Callback"):
        model.fit(data, callbacks=[print])
    with pytest.raises(ValueError, match="path must be 'dirname/file_prefix'"):
        model.save("dir/")


def test_static_mode_errors():
    net = LeNet()
    with pytest.raises(TypeError, match="in static mode `inputs` must be given"):
        paddle.Model(net)
    inputs, labels = _specs()
    model = paddle.Model(net, inputs, labels)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    with pytest.raises(NotImplementedError, match="update=False"):
        model.train_batch([np.zeros((2, 1, 28, 28), "float32")], [np.zeros((2, 1), "int64")],
                          update=False)
    with pytest.raises(ValueError, match=r"fed \['image', 'label'\], but the batch has 1"):
        model.eval_batch([np.zeros((2, 1, 28, 28), "float32")])
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        elsewhere = LeNet()
    with pytest.raises(ValueError, match="not in the default main program"):
        paddle.Model(elsewhere, inputs, labels)


def test_static_prepare_keeps_values_set_before(mnist_files):
    model = _lenet_model()
    scope = paddle.static.global_scope()
    weight = model.parameters()[0]
    value = np.full(weight.shape, 0.25, "float32")
    scope.var(weight.name).get_tensor().set(value)
    model.prepare(paddle.optimizer.SGD(0.0, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss())
    np.testing.assert_array_equal(np.array(scope.find_var(weight.name).get_tensor()), value)
    bias = model.parameters()[1]
    assert np.array(scope.find_var(bias.name).get_tensor()).shape == (6,)


def test_saved_parameters_are_paddles_pickle_with_the_name_table(tmp_path, dygraph):
    model = _linear_model(True)
    model.save(str(tmp_path / "lin"))
    with open(tmp_path / "lin.pdparams", "rb") as f:
        state = model_formats.object_from_bytes(f.read(), keep_name_table=True)
    assert state[model_formats.NAME_TABLE_KEY] == {"weight": model.network.weight.name,
                                                   "bias": model.network.bias.name}
    np.testing.assert_array_equal(state["weight"], [[1.], [2.]])


def test_num_iters_and_gradient_accumulation(dygraph):
    rng = np.random.RandomState(3)
    x, y = rng.rand(8, 2).astype("float32"), rng.rand(8, 1).astype("float32")
    data = io.TensorDataset([x, y])
    steps = []

    class Steps(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            steps.append(step)

    # num_iters counts training steps over epochs (4 per epoch); evaluations do not count
    model = _linear_model(True)
    model.fit(data, data, batch_size=2, epochs=5, num_iters=6, verbose=0, callbacks=[Steps()])
    assert steps == [0, 1, 2, 3, 0, 1]
    assert model.evaluate(data, batch_size=2, verbose=0, num_iters=1)["loss"][0] == \
        pytest.approx(float(np.mean((model.predict_batch(x[:2])[0] - y[:2]) ** 2)), rel=1e-5)
    # two batches of 2 accumulated = one SGD step with the summed gradients: the same as
    # one batch of 4 at twice the learning rate
    accumulated = _linear_model(True)
    accumulated.fit(io.TensorDataset([x[:4], y[:4]]), batch_size=2, verbose=0, shuffle=False,
                    accumulate_grad_batches=2)
    single = _linear_model(True)
    single._optimizer.set_lr(0.2)
    single.train_batch([x[:4]], [y[:4]])
    for a, b in zip(_values(accumulated), _values(single)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


class _PerSampleSquares(paddle.nn.Layer):
    """A loss of one value per sample (as PaddleNLP 2.0's LinearChainCrfLoss)."""

    def forward(self, pred, label):
        return ((pred - label) ** 2).sum(axis=1)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_a_loss_of_several_values_trains_on_their_sum_and_logs_the_first(
        dygraph, paddle_version, capsys, version):
    x = np.array([[1., 2.], [3., 4.]], "float32")

    class Pairs(io.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return x[i], np.zeros(2, "float32")

    with paddle_version(version):
        net = paddle.nn.Linear(2, 2)
        net.weight.set_value(np.eye(2, dtype="float32"))
        net.bias.set_value(np.zeros(2, "float32"))
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                      _PerSampleSquares())
        if version == "3":       # Paddle 3.3.1's fit: float(l) of a [2] loss raises
            with pytest.raises(ValueError, match="a loss must be one value"):
                model.fit(Pairs(), batch_size=2, epochs=1, verbose=2)
            return
        model.fit(Pairs(), batch_size=2, epochs=1, verbose=2, log_freq=1, shuffle=False)
    # the per-sample losses 1+4 and 9+16; Paddle 2.0 logs the first, trains on the sum:
    # dW = 2 x^T x (pred = x with W = I), W - 0.1 dW (Paddle 3.3.1's train_batch agrees)
    assert "loss: 5.0000" in capsys.readouterr().out
    np.testing.assert_allclose(net.weight.numpy(), np.eye(2) - 0.2 * x.T @ x, rtol=1e-6)


def test_prepare_distributed_context_in_one_process_is_none():
    # Paddle 2.0's hapi helper: nothing to join for a job of one process
    from refimpl.hapi.model import prepare_distributed_context
    assert prepare_distributed_context() is None
    assert prepare_distributed_context(paddle.CPUPlace()) is None
