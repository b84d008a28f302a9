"""paddle.vision.datasets: the standard image datasets read from local files
(specs/vision_datasets.md)."""
from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ["DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "Cifar10", "Cifar100",
           "Flowers", "VOC2012"]
