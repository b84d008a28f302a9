"""paddle.reader (1.8): reader decorators, and paddle.batch.

A reader is a function returning an iterator of samples; a decorator takes readers and
returns a new one."""
from .decorator import (ComposeNotAligned, batch, buffered, cache, chain, compose, firstn,
                        map_readers, multiprocess_reader, shuffle, xmap_readers)

__all__ = ["batch", "map_readers", "buffered", "compose", "chain", "shuffle",
           "ComposeNotAligned", "firstn", "xmap_readers", "multiprocess_reader", "cache"]
