"""sequence_conv: a 1-D convolution along each sequence. Row k of a sequence sees the rows
k + contextStart ... k + contextStart + contextLength - 1 of the same sequence, concatenated
into one [contextLength * D] vector times Filter [contextLength * D, num_filters]. A window
slot before or past the sequence reads zeros, or with paddingTrainable the rows of
PaddingData [up + down, D] (up = max(0, -contextStart), down = max(0, contextStart +
contextLength - 1)): row up + r for relative position r < 0, row up + (r - length) for
r >= length (Paddle 1.8's trainable padding)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, offsets, ragged_lengths
from .registry import OpDef, Sample, register, share_lod

ATTRS = {"contextLength": 3, "contextStart": 0, "contextStride": 1,
         "paddingTrainable": False}


def _pad_rows(context_length, context_start):
    """(up, down): PaddingData's rows before and past the sequences."""
    return max(0, -context_start), max(0, context_start + context_length - 1)


def _context_rows(length, rows, context_length, context_start, trainable):
    """[total, contextLength] row read at each window slot: packed rows 0..total-1, then
    PaddingData's rows (trainable), -1 for a zero row. All rows and slots at once."""
    lens = lengths_of(length, rows, "sequence_conv")
    up = _pad_rows(context_length, context_start)[0]
    start = np.repeat(offsets(lens)[:-1], lens)[:, None]            # each row's sequence
    size = np.repeat(lens, lens)[:, None]
    rel = (np.arange(rows)[:, None] - start) + context_start + np.arange(context_length)
    inside = (rel >= 0) & (rel < size)
    pad = rows + up + np.where(rel < 0, rel, rel - size)
    return np.where(inside, start + rel, pad if trainable else -1).astype(np.int64)


def _columns(x, padding, index):
    """im2col along the sequences: [total, contextLength * D]."""
    parts = [x] + ([padding] if padding is not None else []) + \
        [np.zeros((1, x.shape[1]), x.dtype)]
    return np.concatenate(parts)[index].reshape(len(x), -1)  # index -1 reads the zero row


@register
class SequenceConv(OpDef):
    type = "sequence_conv"
    inputs = ("X", "PaddingData?", "Filter", "XLength")
    outputs = ("Out",)
    attrs = ATTRS
    no_grad = ("XLength",)
    grad_inputs = ("X", "PaddingData?", "Filter", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, filt = ctx.input_var("X"), ctx.input_var("Filter")
        ctx.expect(ctx.attr("contextStride") == 1, "contextStride must be 1, got %r"
                   % ctx.attr("contextStride"))
        ctx.expect(len(x.shape) == 2, "input X %r: expected [total, D], got %s"
                   % (x.name, list(x.shape)))
        if ctx.attr("paddingTrainable"):
            pad = ctx.input_var("PaddingData")
            ctx.expect(pad is not None, "paddingTrainable=True needs the PaddingData input")
            rows = sum(_pad_rows(ctx.attr("contextLength"), ctx.attr("contextStart")))
            ctx.expect(list(pad.shape) == [rows, x.shape[1]] or -1 in tuple(pad.shape) + tuple(x.shape),
                       "input PaddingData %r: expected [up + down pad = %d, D = %d], got %s"
                       % (pad.name, rows, x.shape[1], list(pad.shape)))
        rows = ctx.attr("contextLength") * x.shape[1]
        ctx.expect(len(filt.shape) == 2 and (x.shape[1] < 0 or filt.shape[0] == rows),
                   "input Filter %r: expected [contextLength * D = %d, num_filters], got %s"
                   % (filt.name, rows, list(filt.shape)))
        ctx.set_output("Out", (x.shape[0], filt.shape[1]), x.dtype)

    @staticmethod
    def forward(x, padding, filt, length, contextLength=3, contextStart=0,
                paddingTrainable=False, **_):
        padding = padding if paddingTrainable else None
        index = _context_rows(length, len(x), contextLength, contextStart, paddingTrainable)
        return _columns(x, padding, index) @ filt

    @staticmethod
    def backward(x, padding, filt, length, dout, contextLength=3, contextStart=0,
                 paddingTrainable=False, **_):
        used = padding if paddingTrainable else None
        index = _context_rows(length, len(x), contextLength, contextStart, paddingTrainable)
        dcols = (dout @ filt.T).reshape(len(x), contextLength, -1)
        n_pad = 0 if used is None else len(used)
        drows = np.zeros((len(x) + n_pad + 1, x.shape[1]), x.dtype)
        np.add.at(drows, index, dcols)
        dpadding = None if padding is None else \
            drows[len(x):len(x) + n_pad] if used is not None else np.zeros_like(padding)
        return drows[:len(x)], dpadding, _columns(x, used, index).T @ dout

    def samples(self, rng):
        lens = ragged_lengths(rng)
        total = int(lens.sum())
        # contextLength has no default in Paddle
        yield Sample({"X": rand(rng, total, 2), "Filter": rand(rng, 6, 3), "XLength": lens},
                     {"contextLength": 3, "contextStart": -1})
        yield Sample({"X": rand(rng, 6, 2), "Filter": rand(rng, 8, 2),
                      "XLength": np.array([3, 1, 0, 2], np.int64)},
                     {"contextLength": 4, "contextStart": 0})
        # Paddle 3.3.1's sequence_conv kernel reads float32 whatever the dtype (no
        # finite-difference gradient check in float32)
        yield Sample({"X": rand(rng, 5, 2).astype(np.float32),
                      "Filter": rand(rng, 6, 2).astype(np.float32),
                      "XLength": np.array([2, 3], np.int64)}, {"contextLength": 3, "contextStart": -1},
                     grad=False, name="float32")
        # trainable padding: 2 rows before, 1 past; the 1-row sequence reads both
        yield Sample({"X": rand(rng, 6, 2), "PaddingData": rand(rng, 3, 2),
                      "Filter": rand(rng, 8, 2), "XLength": np.array([3, 1, 0, 2], np.int64)},
                     {"contextLength": 4, "contextStart": -2, "paddingTrainable": True},
                     name="trainable_padding")
