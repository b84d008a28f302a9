"""chunk_eval: chunk precision, recall and F1 of tagged sequences (Paddle 1.8's chunk
scheme rules). Inference and Label [total, 1] int64 carry the sequences in their LoD (or
Paddle's padded [batch, max_len] or [batch, max_len, 1] with SeqLength). A tag id is type * tags_per_type + tag
(IOB: B=0 I=1; IOE: I=0 E=1; IOBES: B=0 I=1 E=2 S=3; plain: one tag); the type
num_chunk_types is "outside". A chunk is (begin, end, type); an inferred chunk is correct
when the label has the same one; excluded_chunk_types are not counted. Precision /
Recall / F1-Score are float32 [1] (0 when undefined), the three counts int64 [1]."""
import numpy as np

from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, register

# scheme: (tags per type, begin, inside, end, single); -1 = the scheme has no such tag
SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
           "plain": (1, -1, -1, -1, -1)}


def _chunk_ends(prev_tag, prev_type, tag, type_, other, scheme):
    _, begin, inside, end, single = scheme
    if prev_type == other:
        return False
    if type_ == other or type_ != prev_type:
        return True
    if prev_tag in (begin, inside):
        return tag in (begin, single)
    return prev_tag in (end, single)


def _chunk_begins(prev_tag, prev_type, tag, type_, other, scheme):
    _, begin, inside, end, single = scheme
    if prev_type == other:
        return type_ != other
    if type_ == other:
        return False
    if type_ != prev_type or tag in (begin, single):
        return True
    if tag in (inside, end):
        return prev_tag in (end, single)
    return False


def chunks(tags, num_chunk_types, scheme):
    """[(begin, end, type)] of one sequence's tag ids."""
    per_type = scheme[0]
    other = num_chunk_types
    found, start, in_chunk = [], 0, False
    tag, type_ = -1, other
    for i, t in enumerate(tags):
        if t > num_chunk_types * per_type:
            raise ValueError("chunk_eval: tag id %d exceeds num_chunk_types * tags per type "
                             "= %d" % (t, num_chunk_types * per_type))
        prev_tag, prev_type = tag, type_
        tag, type_ = int(t) % per_type, int(t) // per_type
        if in_chunk and _chunk_ends(prev_tag, prev_type, tag, type_, other, scheme):
            found.append((start, i - 1, prev_type))
            in_chunk = False
        if _chunk_begins(prev_tag, prev_type, tag, type_, other, scheme):
            start, in_chunk = i, True
    if in_chunk:
        found.append((start, len(tags) - 1, type_))
    return found


@register
class ChunkEval(OpDef):
    type = "chunk_eval"
    inputs = ("Inference", "Label", "SeqLength")
    outputs = ("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
               "NumCorrectChunks")
    attrs = {"num_chunk_types": 1, "chunk_scheme": "IOB", "excluded_chunk_types": []}
    lod_lengths = {"SeqLength": "Inference"}
    lod_alike = {"Label": "Inference"}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("chunk_scheme") in SCHEMES, "chunk_scheme must be one of %s, "
                   "got %r" % (sorted(SCHEMES), ctx.attr("chunk_scheme")))
        for slot in ("Precision", "Recall", "F1-Score"):
            ctx.set_output(slot, (1,), "float32")
        for slot in ("NumInferChunks", "NumLabelChunks", "NumCorrectChunks"):
            ctx.set_output(slot, (1,), "int64")

    @staticmethod
    def forward(inference, label, seq_length, num_chunk_types=1, chunk_scheme="IOB",
                excluded_chunk_types=()):
        scheme = SCHEMES[chunk_scheme]
        excluded = set(excluded_chunk_types)
        if inference.ndim == 3 or inference.ndim == 2 and inference.shape[1] != 1:
            # padded [batch, max_len] or [batch, max_len, 1]
            lens = lengths_of(seq_length, None, "chunk_eval", "SeqLength")
            inference = inference.reshape(len(inference), -1)
            label = label.reshape(len(label), -1)
            pairs = [(inference[b, :n], label[b, :n]) for b, n in enumerate(lens)]
        else:
            lens = lengths_of(seq_length, len(inference), "chunk_eval", "SeqLength")
            flat_i, flat_l = inference.reshape(-1), label.reshape(-1)
            pairs = [(flat_i[s:e], flat_l[s:e]) for s, e in segments(lens)]
        n_infer = n_label = n_correct = 0
        for inferred, labelled in pairs:
            got = chunks(inferred, num_chunk_types, scheme)
            want = chunks(labelled, num_chunk_types, scheme)
            n_correct += len([c for c in set(got) & set(want) if c[2] not in excluded])
            n_infer += len([c for c in got if c[2] not in excluded])
            n_label += len([c for c in want if c[2] not in excluded])
        # in float32, as Paddle computes them
        f32 = np.float32
        precision = f32(n_correct) / f32(n_infer) if n_infer else f32(0)
        recall = f32(n_correct) / f32(n_label) if n_label else f32(0)
        f1 = f32(2) * precision * recall / (precision + recall) if n_correct else f32(0)
        return tuple(np.array([v], np.float32) for v in (precision, recall, f1)) + tuple(
            np.array([v], np.int64) for v in (n_infer, n_label, n_correct))

    def samples(self, rng):
        for scheme, types in (("IOB", 2), ("IOE", 2), ("IOBES", 2), ("plain", 3)):
            top = types * SCHEMES[scheme][0] + 1          # the last id is "outside"
            n = 9
            label = rng.randint(0, top, (n, 1)).astype(np.int64)
            inference = label.copy()
            flip = rng.rand(n) < 0.3
            inference[flip, 0] = rng.randint(0, top, int(flip.sum()))
            yield Sample({"Inference": inference, "Label": label,
                          "SeqLength": np.array([4, 2, 3], np.int64)},
                         {"num_chunk_types": types, "chunk_scheme": scheme,
                          "excluded_chunk_types": [1] if scheme == "IOBES" else []},
                         grad=False, name=scheme)
