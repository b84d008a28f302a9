"""LeNet for 1 x 28 x 28 images (Paddle's layout: 3x3 then 5x5 convolutions)."""
from ... import nn
from ...layers.tensor import flatten

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """features: conv 1->6 (3x3, pad 1), ReLU, max pool 2, conv 6->16 (5x5), ReLU, max pool
    2; fc: Linear 400->120->84->num_classes (no activations between them, as Paddle's).
    num_classes <= 0: the features only."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x
