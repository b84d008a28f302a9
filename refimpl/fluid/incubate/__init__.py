"""paddle.fluid.incubate (Paddle 1.8): data_generator, the writer of fluid.dataset's
MultiSlot text lines (Paddle 2.0 moved it to paddle.distributed.fleet.data_generator,
where refimpl keeps it). Its fleet part is refimpl's paddle.distributed.fleet."""
from ...distributed.fleet import data_generator

__all__ = ["data_generator"]
