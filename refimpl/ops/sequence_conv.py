"""sequence_conv: a 1-D convolution along each sequence. Row k of a sequence sees the rows
k + contextStart ... k + contextStart + contextLength - 1 of the same sequence (zeros past
either end; paddingTrainable=False), concatenated into one [contextLength * D] vector
times Filter [contextLength * D, num_filters]."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, register, share_lod

ATTRS = {"contextLength": 3, "contextStart": 0, "contextStride": 1,
         "paddingTrainable": False}


def _context_rows(length, rows, context_length, context_start):
    """[total, contextLength] packed row read at each window slot, -1 for padding."""
    index = np.full((rows, context_length), -1, np.int64)
    for s, e in segments(lengths_of(length, rows, "sequence_conv")):
        for j in range(context_length):
            src = np.arange(s, e) + context_start + j
            inside = (src >= s) & (src < e)
            index[s:e, j] = np.where(inside, src, -1)
    return index


def _columns(x, index):
    """im2col along the sequences: [total, contextLength * D]."""
    padded = np.concatenate([x, np.zeros((1, x.shape[1]), x.dtype)])
    return padded[index].reshape(len(x), -1)  # index -1 reads the zero row


@register
class SequenceConv(OpDef):
    type = "sequence_conv"
    inputs = ("X", "Filter", "XLength")
    outputs = ("Out",)
    attrs = ATTRS
    no_grad = ("XLength",)
    grad_inputs = ("X", "Filter", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, filt = ctx.input_var("X"), ctx.input_var("Filter")
        ctx.expect(not ctx.attr("paddingTrainable"), "paddingTrainable=True is not supported")
        ctx.expect(ctx.attr("contextStride") == 1, "contextStride must be 1, got %r"
                   % ctx.attr("contextStride"))
        ctx.expect(len(x.shape) == 2, "input X %r: expected [total, D], got %s"
                   % (x.name, list(x.shape)))
        rows = ctx.attr("contextLength") * x.shape[1]
        ctx.expect(len(filt.shape) == 2 and (x.shape[1] < 0 or filt.shape[0] == rows),
                   "input Filter %r: expected [contextLength * D = %d, num_filters], got %s"
                   % (filt.name, rows, list(filt.shape)))
        ctx.set_output("Out", (x.shape[0], filt.shape[1]), x.dtype)

    @staticmethod
    def forward(x, filt, length, contextLength=3, contextStart=0, **_):
        return _columns(x, _context_rows(length, len(x), contextLength, contextStart)) @ filt

    @staticmethod
    def backward(x, filt, length, dout, contextLength=3, contextStart=0, **_):
        index = _context_rows(length, len(x), contextLength, contextStart)
        dcols = (dout @ filt.T).reshape(len(x), contextLength, -1)
        dx = np.zeros((len(x) + 1, x.shape[1]), x.dtype)
        np.add.at(dx, index, dcols)
        return dx[:-1], _columns(x, index).T @ dout

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
