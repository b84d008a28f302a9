"""paddle.fluid.generator (Paddle 2.0): the Generator class of refimpl/framework/random.py."""
from ..framework.random import Generator

__all__ = ["Generator"]
