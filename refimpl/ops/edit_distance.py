"""edit_distance: Levenshtein distance between each hypothesis and reference sequence.

The sequences are the LoD rows of Hyps and Refs ([N, 1], what the lengths are filled
from), or Paddle's padded form: Hyps [batch, max_len] and Refs [batch, max_ref_len] with
HypsLength and RefsLength giving each row's length."""
import numpy as np

from ._sequence import check_lengths_var, lengths_of, segments
from .registry import OpDef, Sample, register


@register
class EditDistance(OpDef):
    type = "edit_distance"
    inputs = ("Hyps", "Refs", "HypsLength", "RefsLength")
    outputs = ("Out", "SequenceNum")
    attrs = {"normalized": False}
    lod_lengths = {"HypsLength": "Hyps", "RefsLength": "Refs"}

    def infer_shape(self, ctx):
        for slot in ("Hyps", "Refs", "HypsLength", "RefsLength"):
            check_lengths_var(ctx, slot)
        ctx.set_output("Out", (-1, 1), "float32")
        ctx.set_output("SequenceNum", (1,), "int64")

    @staticmethod
    def forward(hyps, refs, hyps_length, refs_length, normalized=False):
        hyps, refs = np.asarray(hyps), np.asarray(refs)
        if any(a.ndim == 2 and a.shape[1] != 1 for a in (hyps, refs)):    # padded
            hyp_spans = _padded_spans(hyps, hyps_length, "HypsLength")
            ref_spans = _padded_spans(refs, refs_length, "RefsLength")
        else:
            hyp_spans = segments(lengths_of(hyps_length, hyps.size, "edit_distance",
                                            "HypsLength"))
            ref_spans = segments(lengths_of(refs_length, refs.size, "edit_distance",
                                            "RefsLength"))
        hyps, refs = hyps.reshape(-1), refs.reshape(-1)
        if len(hyp_spans) != len(ref_spans):
            raise ValueError("edit_distance: %d hypotheses but %d references"
                             % (len(hyp_spans), len(ref_spans)))
        out = np.zeros((len(hyp_spans), 1), np.float32)
        for i, ((hs, he), (rs, re)) in enumerate(zip(hyp_spans, ref_spans)):
            distance = levenshtein(hyps[hs:he], refs[rs:re])
            out[i] = distance / max(re - rs, 1) if normalized else distance
        return out, np.array([len(hyp_spans)], np.int64)

    def samples(self, rng):
        yield Sample({"Hyps": rng.randint(0, 3, (6, 1)).astype(np.int64),
                      "Refs": rng.randint(0, 3, (5, 1)).astype(np.int64),
                      "HypsLength": np.array([3, 1, 2], np.int64),
                      # Paddle rejects an empty reference ("Reference string i is empty")
                      "RefsLength": np.array([2, 2, 1], np.int64)}, {"normalized": True})


def _padded_spans(padded, length, slot):
    """(start, end) in the flattened [batch, max_len] array of each row's first `length`."""
    lens = lengths_of(length, None, "edit_distance", slot)
    width = padded.shape[1] if padded.ndim == 2 else 1
    if len(lens) != len(padded) or (lens > width).any():
        raise ValueError("edit_distance: %s %s must give one length of at most %d per row "
                         "of the padded input (%d rows)" % (slot, lens.tolist(), width,
                                                             len(padded)))
    return [(b * width, b * width + int(n)) for b, n in enumerate(lens)]


def levenshtein(a, b):
    """Insertions, deletions and substitutions turning a into b (one DP row at a time)."""
    row = np.arange(len(b) + 1)
    for i, token in enumerate(a, 1):
        prev, row = row, np.empty_like(row)
        row[0] = i
        for j in range(1, len(b) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (token != b[j - 1]))
    return int(row[-1])
