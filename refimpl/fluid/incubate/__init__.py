"""paddle.fluid.incubate (Paddle 1.8): data_generator, the writer of fluid.dataset's
MultiSlot text lines. Its fleet part is refimpl's paddle.distributed.fleet."""
from . import data_generator

__all__ = ["data_generator"]
