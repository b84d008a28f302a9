"""crf_decoding: the Viterbi path of each sequence under linear_chain_crf's Transition
([T + 2, T]: start row, end row, then tag-to-tag weights), scored on the raw Emission
rows as Paddle does. Emission [total, T] with a LoD (or Paddle's padded [batch, max_len,
T] with Length). ViterbiPath [total, 1] int64 (padded: [batch, max_len]) carries the
Emission's LoD; with Label it is 1 where the path agrees with the label, else 0. Ties go
to the smaller tag (Paddle keeps the first maximum)."""
import numpy as np

from ._common import rand
from .linear_chain_crf import _packed, _unpack
from .registry import OpDef, Sample, register, share_lod


def viterbi(x, trans):
    """The best tag path of one sequence's emission rows x [n, T]."""
    start, end, pair = trans[0], trans[1], trans[2:]
    score = start + x[0]
    track = np.zeros(x.shape, np.int64)
    for k in range(1, len(x)):
        candidates = score[:, None] + pair           # [from, to]
        track[k] = candidates.argmax(axis=0)         # argmax keeps the first maximum
        score = candidates.max(axis=0) + x[k]
    path = np.zeros(len(x), np.int64)
    path[-1] = int((score + end).argmax())
    for k in range(len(x) - 1, 0, -1):
        path[k - 1] = track[k][path[k]]
    return path


@register
class CRFDecoding(OpDef):
    type = "crf_decoding"
    inputs = ("Emission", "Transition", "Label?", "Length")
    outputs = ("ViterbiPath",)
    lod_lengths = {"Length": "Emission"}
    lod_outputs = {"ViterbiPath": share_lod("Emission")}
    lod_alike = {"Label": "Emission"}

    def infer_shape(self, ctx):
        emission, transition = ctx.input_var("Emission"), ctx.input_var("Transition")
        tags = emission.shape[-1]
        ctx.expect(tuple(transition.shape) == (tags + 2, tags), "Transition %r must be "
                   "[%d + 2, %d] for %d tags, got %s" % (transition.name, tags, tags, tags,
                                                        list(transition.shape)))
        shape = tuple(emission.shape[:-1]) + ((1,) if len(emission.shape) == 2 else ())
        ctx.set_output("ViterbiPath", shape, "int64")

    @staticmethod
    def forward(emission, transition, label, length):
        rows, labels, spans, keep = _packed(
            emission, np.zeros(emission.shape[:-1], np.int64) if label is None else label,
            length)
        path = np.zeros(len(rows), np.int64)
        for s, e in spans:
            if e > s:
                path[s:e] = viterbi(rows[s:e], transition)
        if label is not None:
            path = (path == labels).astype(np.int64)
        if keep is not None:
            return _unpack(path, keep, emission.shape[:-1])
        return path.reshape(-1, 1)

    def samples(self, rng):
        yield Sample({"Emission": rand(rng, 6, 3), "Transition": rand(rng, 5, 3),
                      "Length": np.array([2, 3, 1], np.int64)})
        yield Sample({"Emission": rand(rng, 5, 4), "Transition": rand(rng, 6, 4),
                      "Label": rng.randint(0, 4, (5, 1)).astype(np.int64),
                      "Length": np.array([4, 1], np.int64)}, name="label")
