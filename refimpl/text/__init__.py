"""paddle.text: the text datasets as paddle.io.Dataset classes (specs/text_datasets.md)."""
from . import datasets
from .datasets import *  # noqa: F401,F403  (paddle.text.Imdb, ... as in Paddle)

__all__ = ["datasets"] + datasets.__all__
