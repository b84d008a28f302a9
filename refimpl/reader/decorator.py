"""Reader decorators (paddle.reader.decorator) and paddle.batch.

Readers run in the calling thread: buffered, xmap_readers and multiprocess_reader keep
their results and order (xmap_readers with order=False may reorder in Paddle; here it
keeps the order) but do not prefetch in other threads or processes.
"""
import itertools
import random

__all__ = ["batch", "map_readers", "buffered", "compose", "chain", "shuffle",
           "ComposeNotAligned", "firstn", "xmap_readers", "multiprocess_reader", "cache"]


def _check_reader(reader, fn):
    if not callable(reader):
        raise TypeError("%s: a reader is a callable returning an iterator, got %s"
                        % (fn, type(reader).__name__))


def batch(reader, batch_size, drop_last=False):
    """A reader of lists of `batch_size` samples (the last one shorter unless drop_last)."""
    _check_reader(reader, "batch")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise ValueError("batch_size should be a positive integeral value, but got "
                         "batch_size={}".format(batch_size))

    def batch_reader():
        yield from batched(reader(), batch_size, drop_last)
    return batch_reader


def batched(items, batch_size, drop_last):
    """`items` in lists of batch_size (the last one shorter unless drop_last)."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


def cache(reader):
    """Reads `reader` once, then replays the samples from memory."""
    _check_reader(reader, "cache")
    samples = list(reader())
    return lambda: iter(samples)


def map_readers(func, *readers):
    """func(sample of reader 1, sample of reader 2, ...) for samples read in lockstep."""
    def reader():
        return map(func, *[r() for r in readers])
    return reader


def shuffle(reader, buf_size):
    """Samples shuffled within windows of buf_size (Python's random)."""
    _check_reader(reader, "shuffle")

    def shuffled():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        random.shuffle(buf)
        yield from buf
    return shuffled


def chain(*readers):
    """The samples of each reader in turn."""
    def reader():
        return itertools.chain(*[r() for r in readers])
    return reader


class ComposeNotAligned(ValueError):
    pass


def compose(*readers, **kwargs):
    """Tuples joining one sample of each reader (a sample that is a tuple is spread out);
    check_alignment (default True) raises ComposeNotAligned when one reader ends first."""
    check_alignment = kwargs.pop("check_alignment", True)

    def as_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def reader():
        iterators = [r() for r in readers]
        if not check_alignment:
            for outputs in zip(*iterators):
                yield sum(map(as_tuple, outputs), ())
            return
        for outputs in itertools.zip_longest(*iterators):
            if any(o is None for o in outputs):
                raise ComposeNotAligned("outputs of readers are not aligned.")
            yield sum(map(as_tuple, outputs), ())
    return reader


def buffered(reader, size):
    """The same samples (Paddle reads ahead into a queue of `size` in a thread)."""
    _check_reader(reader, "buffered")
    return lambda: iter(reader())


def firstn(reader, n):
    """The first n samples."""
    _check_reader(reader, "firstn")
    return lambda: itertools.islice(reader(), n)


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """mapper over the samples (Paddle maps in process_num threads)."""
    _check_reader(reader, "xmap_readers")
    return lambda: map(mapper, reader())


def multiprocess_reader(readers, use_pipe=True, queue_size=1000):
    """The samples of all readers (Paddle reads each in its own process, interleaved)."""
    return chain(*readers)
