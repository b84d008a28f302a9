"""The models `python -m refimpl bench` trains, each written three ways: as a Paddle 2.x
static-API program (run by refimpl or by real Paddle, whichever module is passed as
`paddle`), as paddle.nn Layers for dynamic mode, and as the same model in PyTorch.

Small workloads (the MLPs and LeNet) train with plain SGD; the model-size workloads
(ResNet-18 on CIFAR images, a Transformer encoder, an LSTM language model) with
SGD-momentum. Every model ends in logits [rows, classes] and the mean softmax cross entropy
against integer labels [rows, 1]. Nothing here imports refimpl: the framework is passed in.
"""
import numpy as np

__all__ = ["WORKLOADS", "Workload"]


class Workload:
    """One bench model. `inputs`: the feeds' (name, shape without batch, dtype, high) with
    `high` the exclusive bound of integer ids (None: uniform floats in [-1, 1))."""

    def __init__(self, name, batch, inputs, classes, paddle_layers, torch_layers,
                 optimizer="sgd", static_build=None, label_rows=1, steps=50, warmup=10):
        self.steps, self.warmup = steps, warmup    # the bench's defaults
        self.name, self.batch, self.inputs, self.classes = name, batch, inputs, classes
        self.paddle_layers, self.torch_layers = paddle_layers, torch_layers
        self.optimizer = optimizer
        self.static_build = static_build      # (paddle, x) -> logits, when not the Layers
        self.label_rows = label_rows          # labels per example (the LM: one per token)

    def data(self, seed=0):
        """{"x": ..., "y": labels [batch * label_rows, 1] int64}."""
        rng = np.random.RandomState(seed)
        feed = {}
        for name, shape, dtype, high in self.inputs:
            full = (self.batch,) + tuple(shape)
            feed[name] = rng.uniform(-1, 1, full).astype(dtype) if high is None else \
                rng.randint(0, high, full).astype(dtype)
        feed["y"] = rng.randint(0, self.classes,
                                (self.batch * self.label_rows, 1)).astype("int64")
        return feed

    def paddle_optimizer(self, paddle, parameters=None):
        if self.optimizer == "momentum":
            return paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                             parameters=parameters)
        return paddle.optimizer.SGD(learning_rate=0.01, parameters=parameters)

    def torch_optimizer(self, torch, parameters):
        if self.optimizer == "momentum":
            return torch.optim.SGD(parameters, lr=0.01, momentum=0.9)
        return torch.optim.SGD(parameters, lr=0.01)

    def build_static(self, paddle):
        """(main, startup, loss) built with paddle's static API (refimpl or real Paddle)."""
        static = paddle.static
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None] + list(self.inputs[0][1]), self.inputs[0][2])
            y = static.data("y", [None, 1], "int64")
            logits = self.static_build(paddle, x) if self.static_build else \
                self.paddle_layers(paddle)(x)
            # 2.x names that both refimpl and Paddle 3.x have (no fluid), for --compare paddle
            loss = paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(logits, y))
            self.paddle_optimizer(paddle).minimize(loss)
        return main, startup, loss


# -- the small workloads: MLPs and LeNet

def _mlp(widths, classes):
    def paddle_layers(paddle):
        nn, layers = paddle.nn, []
        for width, out in zip(widths, widths[1:]):
            layers += [nn.Linear(width, out), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(widths[-1], classes))

    def torch_layers(torch):
        nn, layers = torch.nn, []
        for width, out in zip(widths, widths[1:]):
            layers += [nn.Linear(width, out), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(widths[-1], classes))

    def static_build(paddle, x):
        for width in widths[1:]:
            x = paddle.static.nn.fc(x, width, activation="relu")
        return paddle.static.nn.fc(x, classes)
    return dict(paddle_layers=paddle_layers, torch_layers=torch_layers,
                static_build=static_build)


def _lenet_paddle(paddle):
    nn = paddle.nn
    return nn.Sequential(nn.Conv2D(1, 20, 5), nn.ReLU(), nn.MaxPool2D(2, 2),
                         nn.Conv2D(20, 50, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
                         nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))


def _lenet_torch(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                         nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))


def _lenet_static(paddle, x):
    static = paddle.static
    for filters in (20, 50):
        x = static.nn.conv2d(x, filters, 5, act="relu")
        x = paddle.nn.functional.max_pool2d(x, 2, 2)
    x = static.nn.fc(x, 500, activation="relu")
    return static.nn.fc(x, 10)


# -- ResNet-18 for 32x32 CIFAR images: a 3x3 stem, no max pool, 4 stages of 2 basic blocks

def _resnet18(nn, conv, batch_norm, flatten_pool):
    class Block(nn.Module if hasattr(nn, "Module") else nn.Layer):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, cout, 3, stride, 1), batch_norm(cout)
            self.conv2, self.bn2 = conv(cout, cout, 3, 1, 1), batch_norm(cout)
            self.relu = nn.ReLU()
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(conv(cin, cout, 1, stride, 0), batch_norm(cout))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + (x if self.shortcut is None else self.shortcut(x)))

    layers = [conv(3, 64, 3, 1, 1), batch_norm(64), nn.ReLU()]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    return nn.Sequential(*layers, *flatten_pool, nn.Linear(512, 10))


def _resnet_paddle(paddle):
    nn = paddle.nn
    return _resnet18(nn, lambda i, o, k, s, p: nn.Conv2D(i, o, k, s, p, bias_attr=False),
                     nn.BatchNorm2D, [nn.AdaptiveAvgPool2D(1), nn.Flatten()])


def _resnet_torch(torch):
    nn = torch.nn
    return _resnet18(nn, lambda i, o, k, s, p: nn.Conv2d(i, o, k, s, p, bias=False),
                     nn.BatchNorm2d, [nn.AdaptiveAvgPool2d(1), nn.Flatten()])


# -- Transformer encoder over [batch, 64, 256] features, mean-pooled into 10 classes

TRANSFORMER = dict(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0)


def _transformer_paddle(paddle):
    nn = paddle.nn

    class Encoder(nn.Layer):
        def __init__(self):
            super().__init__()
            self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(**TRANSFORMER), 2)
            self.head = nn.Linear(256, 10)

        def forward(self, x):
            return self.head(paddle.mean(self.encoder(x), axis=1))
    return Encoder()


def _transformer_torch(torch):
    nn = torch.nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(
                batch_first=True, **TRANSFORMER), 2, enable_nested_tensor=False)
            self.head = nn.Linear(256, 10)

        def forward(self, x):
            return self.head(self.encoder(x).mean(1))
    return Encoder()


# -- LSTM language model: ids [batch, 35] -> embedding 128 -> 2-layer LSTM 256 -> 10k logits
#    per token

VOCAB, EMBED, HIDDEN, SEQ, LM_BATCH = 10000, 128, 256, 35, 20


def _lstm_paddle(paddle):
    nn = paddle.nn

    class LanguageModel(nn.Layer):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.lstm = nn.LSTM(EMBED, HIDDEN, num_layers=2)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, ids):
            out, _ = self.lstm(self.embedding(ids))
            # rows spelt out (not -1): the bench counts FLOPs from the program's shapes
            return self.head(paddle.reshape(out, [LM_BATCH * SEQ, HIDDEN]))
    return LanguageModel()


def _lstm_torch(torch):
    nn = torch.nn

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.lstm = nn.LSTM(EMBED, HIDDEN, num_layers=2, batch_first=True)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, ids):
            out, _ = self.lstm(self.embedding(ids))
            return self.head(out.reshape(-1, HIDDEN))
    return LanguageModel()


WORKLOADS = {w.name: w for w in [
    Workload("mlp_small", 16, [("x", (13,), "float32", None)], 2,
             **_mlp([13, 16, 16], 2)),
    Workload("mlp_mnist", 128, [("x", (784,), "float32", None)], 10,
             **_mlp([784, 512, 512], 10)),
    Workload("mlp_deep", 64, [("x", (256,), "float32", None)], 10,
             **_mlp([256] * 17, 10)),
    Workload("lenet", 64, [("x", (1, 28, 28), "float32", None)], 10,
             _lenet_paddle, _lenet_torch, static_build=_lenet_static),
    Workload("resnet18", 32, [("x", (3, 32, 32), "float32", None)], 10,
             _resnet_paddle, _resnet_torch, optimizer="momentum", steps=12, warmup=2),
    Workload("transformer", 16, [("x", (64, 256), "float32", None)], 10,
             _transformer_paddle, _transformer_torch, optimizer="momentum", steps=20,
             warmup=3),
    Workload("lstm_lm", LM_BATCH, [("x", (SEQ,), "int64", VOCAB)], VOCAB,
             _lstm_paddle, _lstm_torch, optimizer="momentum", label_rows=SEQ, steps=20,
             warmup=3),
]}
