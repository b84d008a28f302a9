"""The Paddle 2.0 dygraph tutorial (LeNet image classification with nn.Layer,
paddle.optimizer.Adam, loss.backward(), optim.step(), optim.clear_grad()), as written for
Paddle, on synthetic 28x28 digits (a bright stroke whose position is the class) instead of
the MNIST download:

    python -m refimpl run examples/dygraph_lenet.py

Prints the loss and accuracy as it trains, the test accuracy, then OK.
"""
import numpy as np
import paddle
import paddle.nn.functional as F


class LeNet(paddle.nn.Layer):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1,
                                      padding=2)
        self.max_pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = paddle.nn.Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.max_pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.linear1 = paddle.nn.Linear(in_features=16 * 5 * 5, out_features=120)
        self.linear2 = paddle.nn.Linear(in_features=120, out_features=84)
        self.linear3 = paddle.nn.Linear(in_features=84, out_features=10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.max_pool1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = self.max_pool2(x)
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = self.linear1(x)
        x = F.relu(x)
        x = self.linear2(x)
        x = F.relu(x)
        x = self.linear3(x)
        return x


def synthetic_digits(n, seed):
    """(images [n, 1, 28, 28] float32 in [-1, 1], labels [n, 1] int64)."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, n)
    images = rng.uniform(-1, -0.6, (n, 1, 28, 28)).astype("float32")
    for img, label in zip(images, labels):
        row, col = 3 + 5 * (label // 5) + rng.randint(0, 3), 2 + 5 * (label % 5)
        img[0, row:row + 8, col:col + 3] = 1.0
    return images, labels.reshape(-1, 1).astype("int64")


def batches(images, labels, batch_size, rng):
    order = rng.permutation(len(images))
    for start in range(0, len(images), batch_size):
        idx = order[start:start + batch_size]
        yield paddle.to_tensor(images[idx]), paddle.to_tensor(labels[idx])


def train(model, images, labels):
    model.train()
    epochs = 3
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    rng = np.random.RandomState(0)
    for epoch in range(epochs):
        for batch_id, (x_data, y_data) in enumerate(batches(images, labels, 64, rng)):
            predicts = model(x_data)
            loss = F.cross_entropy(predicts, y_data)
            acc = paddle.metric.accuracy(predicts, y_data)
            loss.backward()
            if batch_id % 5 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}, acc is: {}".format(
                    epoch, batch_id, loss.numpy(), acc.numpy()))
            optim.step()
            optim.clear_grad()


def test(model, images, labels):
    model.eval()
    with paddle.no_grad():
        predicts = model(paddle.to_tensor(images))
        return float(paddle.metric.accuracy(predicts, paddle.to_tensor(labels)))


paddle.seed(2020)
train_images, train_labels = synthetic_digits(640, seed=1)
test_images, test_labels = synthetic_digits(200, seed=2)
model = LeNet()
train(model, train_images, train_labels)
accuracy = test(model, test_images, test_labels)
print("test accuracy: %.3f" % accuracy)
assert accuracy > 0.9, accuracy
print("OK")
