"""ctc_align: per sequence, merge repeated tokens (merge_repeated) then drop `blank`.

The sequences are Input's LoD rows ([N, 1], what InputLength is filled from), or Paddle's
padded form: Input [batch, max_len] with InputLength [batch, 1], giving Output [batch,
max_len] filled up with padding_value and OutputLength [batch, 1]."""
import numpy as np

from ._sequence import check_lengths_var, lengths_of, segments
from .registry import OpDef, Sample, lengths_lod, register


def _aligned(seq, blank, merge_repeated):
    keep = seq != blank
    if merge_repeated and len(seq):
        keep &= np.concatenate([[True], seq[1:] != seq[:-1]])
    return seq[keep]


@register
class CTCAlign(OpDef):
    type = "ctc_align"
    inputs = ("Input", "InputLength")
    outputs = ("Output", "OutputLength")
    attrs = {"blank": 0, "merge_repeated": True, "padding_value": 0}
    lod_lengths = {"InputLength": "Input"}
    lod_outputs = {"Output": lengths_lod("OutputLength")}

    def infer_shape(self, ctx):
        check_lengths_var(ctx, "Input")
        check_lengths_var(ctx, "InputLength")
        x = ctx.input_var("Input")
        ctx.set_output("Output", (-1,) + tuple(x.shape[1:]), x.dtype)
        ctx.set_output("OutputLength", (-1,), "int64")

    @staticmethod
    def forward(tokens, length, blank=0, merge_repeated=True, padding_value=0):
        tokens = np.asarray(tokens)
        if tokens.ndim == 2 and tokens.shape[1] != 1:     # padded [batch, max_len]
            lens = lengths_of(length, None, "ctc_align", "InputLength")
            out = np.full(tokens.shape, padding_value, tokens.dtype)
            out_lens = np.zeros((len(tokens), 1), np.int64)
            for b, n in enumerate(lens):
                kept = _aligned(tokens[b, :n], blank, merge_repeated)
                out[b, :len(kept)] = kept
                out_lens[b] = len(kept)
            return out, out_lens
        flat = tokens.reshape(-1)
        kept = [_aligned(flat[s:e], blank, merge_repeated) for s, e in
                segments(lengths_of(length, len(flat), "ctc_align", "InputLength"))]
        out = np.concatenate(kept) if kept else flat[:0]
        return (out.reshape((-1,) + tokens.shape[1:]).astype(flat.dtype),
                np.array([len(k) for k in kept], np.int64))

    def samples(self, rng):
        yield Sample({"Input": np.array([[0], [1], [1], [0], [1], [2], [2], [0], [3]],
                                        np.int32),
                      "InputLength": np.array([5, 0, 4], np.int64)})
        yield Sample({"Input": rng.randint(0, 3, (6, 1)).astype(np.int64),
                      "InputLength": np.array([3, 1, 2], np.int64)},
                     {"merge_repeated": False, "blank": 2})
