"""What a program's readers feed a run: fluid.layers.py_reader readers (and non-iterable
DataLoaders) whose `read` op is in the program take their next batch from their queue,
one batch per place (layers/readers.py). Executor.run (one place) and the multi-place
runner both read through here."""
from ..framework.errors import EOFException, FeedError

__all__ = ["with_reader_feeds"]


def _read(readers, n):
    """One dict (n == 1) or a list of one dict per place, each place reading its own
    batch from every reader, as Paddle's readers do. At the end of the data a shorter
    list (those places only) or, with drop_last, EOFException."""
    per_place = []
    for _ in range(n):
        try:
            feed = {}
            for r in readers:
                feed.update(r._next_feed())
        except EOFException:
            if not per_place or any(r.drop_last for r in readers):
                raise
            break
        per_place.append(feed)
    return per_place[0] if n == 1 else per_place


def with_reader_feeds(program, feed, n):
    """The run's own feed joined with what the program's readers (those whose `read` op
    is in it) read for n places: a dict, or a list of one dict per place; `feed` as it is
    when no reader reads. A feed= of one's own joins only a one-place dict: else a
    FeedError, before any reader gives up a batch."""
    readers = [r for r in getattr(program, "_feed_readers", ()) if r._read_op is not None]
    if not readers:
        return feed
    if feed and (n > 1 or not isinstance(feed, dict)):
        raise FeedError("the program's readers feed each of %d places; feed the other "
                        "variables through a reader too, not with feed= (got %s)"
                        % (n, type(feed).__name__))
    read = _read(readers, n)
    return dict(feed, **read) if feed else read
