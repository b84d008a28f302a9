"""Shared helpers for the sequence ops (specs/ops/sequence.md).

A sequence batch is packed rows X [total, ...] (every sequence's rows one after another,
as Paddle lays out a LoDTensor) plus an integer lengths vector [batch] whose sum is total;
the ops take it in a `<Slot>Length` input."""
import numpy as np

INTS = ("int32", "int64")


def lengths_of(length, rows, op, slot="XLength"):
    """The lengths as a flat int64 vector, checked against the number of packed rows."""
    lens = np.asarray(length).reshape(-1).astype(np.int64)
    if (lens < 0).any():
        raise ValueError("%s: %s must be non-negative, got %s" % (op, slot, lens.tolist()))
    if rows is not None and lens.sum() != rows:
        raise ValueError("%s: %s %s add up to %d, but the input has %d rows"
                         % (op, slot, lens.tolist(), int(lens.sum()), rows))
    return lens


def offsets(lens):
    return np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)


def segments(lens):
    """(start, end) of each sequence's rows."""
    off = offsets(lens)
    return list(zip(off[:-1].tolist(), off[1:].tolist()))


def row_index(lens, pick):
    """Packed row indices gathered sequence by sequence: pick(i, start, end) gives the
    rows (absolute) taken for sequence i."""
    parts = [np.asarray(pick(i, s, e), dtype=np.int64) for i, (s, e) in enumerate(segments(lens))]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def scatter_rows(dout, index, rows):
    """The gradient of x[index]: dout summed back into `rows` rows."""
    dx = np.zeros((rows,) + dout.shape[1:], dout.dtype)
    np.add.at(dx, index, dout)
    return dx


def check_lengths_var(ctx, slot):
    """A lengths input must be integer; its element count is the batch size."""
    if ctx.has_input(slot):
        ctx.check_dtype(slot, INTS)


def ragged_lengths(rng, batch=3, low=0, high=3):
    """Sample lengths like [3, 1, 2] (at least one non-empty)."""
    lens = rng.randint(low, high + 1, size=batch)
    lens[0] = max(lens[0], 1)
    return lens.astype(np.int64)
