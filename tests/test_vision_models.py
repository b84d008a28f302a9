"""paddle.vision.models: parameter layout equal to Paddle 3.3.1's (state_dict keys and
shapes, fingerprinted; parameter counts), static programs of the right output shape
that train, pretrained weights only from Paddle's cache path, and LeNet trained end to
end from a DataLoader with worker processes."""
import hashlib

import numpy as np
import pytest

import refimpl as paddle
from refimpl import io
from refimpl.vision import models
from refimpl.vision.models import _utils

# Recorded with Paddle 3.3.1 (dygraph): number of state_dict entries, sum of numel over
# parameters(), and the first 16 hex digits of the sha256 of the "key:[shape]" lines of
# state_dict() joined by "\n".
PADDLE = {
    "LeNet()": (10, 61610, "ccd4bc9962e46b8a"),
    "LeNet(num_classes=0)": (4, 2476, "f9699c8ed0946b03"),
    "resnet18()": (102, 11699112, "3f299f880bd1ec38"),
    "resnet34()": (182, 21814696, "6f72292748878d63"),
    "resnet50()": (267, 25610152, "843b5f2e4dbea3b9"),
    "resnet101()": (522, 44654504, "07798bd4f52af99b"),
    "resnet152()": (777, 60344232, "5cf875fa955e631b"),
    "resnet18(num_classes=10, with_pool=False)": (102, 11191242, "7f16982697c2b704"),
    "resnet50(num_classes=0)": (265, 23561152, "516d83ff0ff3ad4a"),
    "vgg11()": (22, 132863336, "48a88da30bb72fb7"),
    "vgg13()": (26, 133047848, "0ea4270096710aa6"),
    "vgg16()": (32, 138357544, "37ec8c3191215808"),
    "vgg19()": (38, 143667240, "46f8a49dc5fd9d9b"),
    "vgg11(batch_norm=True)": (54, 132874344, "ded1c8d9118a9875"),
    "vgg16(batch_norm=True, num_classes=10)": (84, 134318410, "2675449c4895995c"),
    "mobilenet_v1()": (137, 4253864, "9c08c89c163f6340"),
    "mobilenet_v1(scale=0.5, num_classes=10)": (137, 834666, "76c80717d40e36ce"),
    "mobilenet_v2()": (262, 3538984, "9b16b1c54aec0550"),
    "mobilenet_v2(scale=0.5, num_classes=10)": (262, 719034, "2ec3f72baca55646"),
    "mobilenet_v2(scale=1.4)": (262, 6156712, "391e320c65b11e56"),
}


@pytest.mark.parametrize("call", sorted(PADDLE))
def test_parameter_layout_matches_paddle(call):
    net = eval("models." + call)
    state = net.state_dict()
    lines = "\n".join("%s:%s" % (k, list(v.shape)) for k, v in state.items())
    numel = sum(int(np.prod(p.shape)) for p in net.parameters())
    assert (len(state), numel, hashlib.sha256(lines.encode()).hexdigest()[:16]) == PADDLE[call]


def test_lenet_keys_in_full():
    assert [(k, list(v.shape)) for k, v in models.LeNet().state_dict().items()] == [
        ("features.0.weight", [6, 1, 3, 3]), ("features.0.bias", [6]),
        ("features.3.weight", [16, 6, 5, 5]), ("features.3.bias", [16]),
        ("fc.0.weight", [400, 120]), ("fc.0.bias", [120]), ("fc.1.weight", [120, 84]),
        ("fc.1.bias", [84]), ("fc.2.weight", [84, 10]), ("fc.2.bias", [10])]


def _train_step(make, shape, lr=0.01):
    """One SGD step: (output shape, loss, first parameter before, its gradient, after)."""
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", shape, "float32")
        y = paddle.static.data("y", [shape[0], 1], "int64")
        net = make()
        out = net(x)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(out, y))
        paddle.optimizer.SGD(lr).minimize(loss)
    weight = net.parameters()[0].name
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.fluid.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        before = np.array(scope.find_var(weight).get_tensor())
        rng = np.random.RandomState(0)
        feed = {"x": rng.rand(*shape).astype("float32"),
                "y": rng.randint(0, 10, (shape[0], 1)).astype("int64")}
        value, grad = exe.run(main, feed=feed, fetch_list=[loss, weight + "@GRAD"])
        after = np.array(scope.find_var(weight).get_tensor())
    return list(out.shape), float(value), before, grad, after


FAST = [("LeNet()", [4, 1, 28, 28]),
        ("resnet18(num_classes=10)", [2, 3, 32, 32]),
        ("mobilenet_v1(scale=0.25, num_classes=10)", [2, 3, 32, 32]),
        ("mobilenet_v2(scale=0.25, num_classes=10)", [2, 3, 32, 32])]
SLOW = [("resnet50(num_classes=10)", [2, 3, 32, 32]),
        ("vgg11(batch_norm=True, num_classes=10)", [2, 3, 32, 32])]


@pytest.mark.parametrize("call, shape", FAST + [pytest.param(*c, marks=pytest.mark.slow)
                                                for c in SLOW])
def test_builds_a_static_program_that_trains(call, shape):
    out_shape, loss, before, grad, after = _train_step(lambda: eval("models." + call), shape)
    assert out_shape == [shape[0], 10]
    assert np.isfinite(loss) and np.abs(grad).max() > 0
    np.testing.assert_allclose(after, before - 0.01 * grad, rtol=1e-5, atol=1e-7)


def test_feature_extractors_without_pool_or_classifier():
    x = paddle.static.data("x", [2, 3, 64, 64], "float32")
    assert list(models.resnet18(num_classes=0, with_pool=False)(x).shape) == [2, 512, 2, 2]
    assert list(models.resnet50(num_classes=0)(x).shape) == [2, 2048, 1, 1]
    assert list(models.mobilenet_v2(num_classes=0, with_pool=False)(x).shape) == \
        [2, 1280, 2, 2]
    assert list(models.vgg11(num_classes=0, with_pool=False)(x).shape) == [2, 512, 2, 2]
    assert list(models.LeNet(num_classes=0)(
        paddle.static.data("i", [2, 1, 28, 28], "float32")).shape) == [2, 16, 5, 5]


def test_pretrained_weights_come_only_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"resnet18\(pretrained=True\): the weights "
                                                r"file .*resnet18.pdparams is absent"):
        models.resnet18(pretrained=True)
    with pytest.raises(ValueError, match="publishes no pretrained weights for vgg11"):
        models.vgg11(pretrained=True)
    # a weights file at the cache path becomes the parameters' initial values
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        reference = models.LeNet()
        values = {k: np.full(v.shape, i, "float32")
                  for i, (k, v) in enumerate(reference.state_dict().items())}
    paddle.save(values, str(tmp_path / "lenet.pdparams"))
    startup = paddle.static.Program()
    with paddle.static.program_guard(paddle.static.Program(), startup):
        net = _utils.load_pretrained(models.LeNet(), "lenet", "lenet.pdparams")
    scope = paddle.fluid.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        for key, var in net.state_dict().items():
            np.testing.assert_array_equal(np.array(scope.find_var(var.name).get_tensor()),
                                          values[key])


class Glyphs(io.Dataset):
    """MNIST-shaped samples: class c is a bright 6x6 square at one of 10 places, plus noise."""

    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.labels = rng.randint(0, 10, n)
        self.images = rng.rand(n, 1, 28, 28).astype("float32") * 0.3
        for image, label in zip(self.images, self.labels):
            row, col = divmod(int(label), 5)
            image[0, 4 + 12 * row:10 + 12 * row, 2 + 5 * col:8 + 5 * col] += 1.0

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], np.array([self.labels[i]], "int64")


def test_lenet_trains_from_a_dataloader_with_two_workers():
    paddle.seed(2)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", [None, 1, 28, 28], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        logits = models.LeNet()(image)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
        test_program = main.clone(for_test=True)
        paddle.optimizer.Adam(0.002).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    np.random.seed(0)
    train = io.DataLoader(Glyphs(320, seed=1), feed_list=[image, label], batch_size=32,
                          shuffle=True, num_workers=2, return_list=False)
    for _ in range(3):
        for feed in train:
            exe.run(main, feed=feed, fetch_list=[loss])
    accuracy = paddle.metric.Accuracy()
    test = io.DataLoader(Glyphs(200, seed=2), feed_list=[image, label], batch_size=50,
                         num_workers=2, return_list=False)
    for feed in test:
        scores, = exe.run(test_program, feed=feed, fetch_list=[logits])
        accuracy.update(accuracy.compute(scores, feed[0]["label"]))
    assert accuracy.accumulate() > 0.9
