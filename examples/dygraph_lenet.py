"""The Paddle 2.0 dygraph tutorial (LeNet image classification with nn.Layer,
paddle.io.DataLoader, paddle.optimizer.Adam, loss.backward(), optim.step(),
optim.clear_grad()), as written for Paddle, on a synthetic dataset of 28x28 "digits" (a
bright stroke whose position is the class) instead of the MNIST download:

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


class SyntheticDigits(paddle.io.Dataset):
    """(image [1, 28, 28] float32 in [-1, 1], label [1] int64) samples."""

    def __init__(self, n, seed):
        super(SyntheticDigits, self).__init__()
        rng = np.random.RandomState(seed)
        self.labels = rng.randint(0, 10, (n, 1)).astype("int64")
        self.images = rng.uniform(-1, -0.6, (n, 1, 28, 28)).astype("float32")
        for img, label in zip(self.images, self.labels[:, 0]):
            row, col = 3 + 5 * (label // 5) + rng.randint(0, 3), 2 + 5 * (label % 5)
            img[0, row:row + 8, col:col + 3] = 1.0

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]

    def __len__(self):
        return len(self.labels)


def train(model):
    model.train()
    epochs = 3
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    for epoch in range(epochs):
        for batch_id, data in enumerate(train_loader()):
            x_data = data[0]
            y_data = data[1]
            predicts = model(x_data)
            loss = F.cross_entropy(predicts, y_data)
            acc = paddle.metric.accuracy(predicts, y_data)
            loss.backward()
            if batch_id % 5 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}, acc is: {}".format(
                    epoch, batch_id, loss.numpy(), acc.numpy()))
            optim.step()
            optim.clear_grad()


def test(model):
    model.eval()
    correct = total = 0
    with paddle.no_grad():
        for x_data, y_data in test_loader():
            acc = paddle.metric.accuracy(model(x_data), y_data)
            correct += float(acc) * len(y_data)
            total += len(y_data)
    return correct / total


paddle.seed(2020)
train_loader = paddle.io.DataLoader(SyntheticDigits(640, seed=1), batch_size=64, shuffle=True)
test_loader = paddle.io.DataLoader(SyntheticDigits(200, seed=2), batch_size=100)
model = LeNet()
train(model)
accuracy = test(model)
print("test accuracy: %.3f" % accuracy)
assert accuracy > 0.9, accuracy
print("OK")
