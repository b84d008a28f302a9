"""What a program's readers feed a run: fluid.layers.py_reader readers (and non-iterable
DataLoaders) whose `read` op is in the program take their next batch from their queue,
one batch per place (layers/readers.py). Executor.run (one place) and the multi-place
runner both read through here."""
from ..framework.errors import EOFException, FeedError

__all__ = ["with_reader_feeds"]


def _reader_feeds(program, n):
    """The feed of one run of `program` on n places from its readers (those whose `read`
    op is in it): one dict (n == 1) or a list of one dict per place, each place reading its
    own batch, as Paddle's readers do; None when it has no reader. At the end of the data
    a shorter list (those places only) or, with drop_last, EOFException."""
    readers = [r for r in getattr(program, "_feed_readers", ()) if r._read_op is not None]
    if not readers:
        return None
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
    """The run's own feed joined with what the program's readers read for n places (a
    dict, or a list of one dict per place); `feed` as it is when no reader reads; a
    FeedError when both feed several places."""
    read = _reader_feeds(program, n)
    if read is None:
        return feed
    if not feed:
        return read
    if isinstance(read, dict) and isinstance(feed, dict):
        return dict(feed, **read)
    raise FeedError("the program's readers feed each of %d places; feed the other "
                    "variables through a reader too, not with feed= (got %s)"
                    % (len(read) if isinstance(read, list) else 1, type(feed).__name__))
