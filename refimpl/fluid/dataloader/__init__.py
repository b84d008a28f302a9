"""paddle.fluid.dataloader (Paddle 2.0's package behind paddle.io): the worker loop under
Paddle's name (dataloader_iter). The DataLoader itself is refimpl/io."""
from . import dataloader_iter  # noqa: F401
