"""filter_by_instag: keep the instances of Ins that carry at least one tag of Filter_tag.

An instance is one row of Ins (is_lod False) or, with is_lod, a run of InsLength rows
(packed rows + lengths, specs/ops/sequence.md, in place of 1.8's LoD). Ins_tag holds every
instance's tags packed one instance after another, Ins_tagLength [N] counting them per
instance (absent: one tag each).
  Out [K, D]          the kept instances' rows, in input order
  LossWeight [K, 1]   1.0 per output row
  IndexMap [M, 3]     per kept instance: (first output row, first input row, row count)
Nothing kept: Out is one row of out_val_if_empty, LossWeight [[0]], IndexMap [[0, 0, 0]].
Gradient (Ins only): Out@GRAD's rows copied back through IndexMap, zero elsewhere."""
import numpy as np

from ._common import FLOATS, rand
from ._sequence import INTS, check_lengths_var, lengths_of, offsets, segments
from .registry import OpDef, Sample, register


def kept_instances(ins_rows, tags, tag_lengths, ins_lengths, filter_tags):
    """[(first input row, row count)] of the instances carrying a filter tag."""
    wanted = set(np.asarray(filter_tags).reshape(-1).tolist())
    tags = np.asarray(tags).reshape(-1)
    if ins_lengths is None:
        ins_lengths = np.ones(ins_rows, np.int64)
    ins_lengths = lengths_of(ins_lengths, ins_rows, "filter_by_instag", "InsLength")
    if tag_lengths is None:
        tag_lengths = np.ones(len(tags), np.int64)
    tag_lengths = lengths_of(tag_lengths, len(tags), "filter_by_instag", "Ins_tagLength")
    if len(tag_lengths) != len(ins_lengths):
        raise ValueError("filter_by_instag: Ins has %d instances but Ins_tag gives tags for "
                         "%d" % (len(ins_lengths), len(tag_lengths)))
    starts = offsets(ins_lengths)
    return [(int(starts[i]), int(ins_lengths[i])) for i, (s, e) in enumerate(segments(tag_lengths))
            if wanted.intersection(tags[s:e].tolist())]


@register
class FilterByInstag(OpDef):
    type = "filter_by_instag"
    inputs = ("Ins", "Ins_tag", "Filter_tag", "Ins_tagLength?", "InsLength?")
    outputs = ("Out", "LossWeight", "IndexMap")
    attrs = {"is_lod": False, "out_val_if_empty": 0}
    no_grad = ("Ins_tag", "Filter_tag", "Ins_tagLength", "InsLength")
    grad_inputs = ("Ins", "IndexMap", "Out@GRAD")
    lod_lengths = {"Ins_tagLength": "Ins_tag", "InsLength": "Ins"}

    def infer_shape(self, ctx):
        ctx.check_dtype("Ins", FLOATS)
        for slot in ("Ins_tag", "Filter_tag"):
            ctx.check_dtype(slot, INTS)
        for slot in ("Ins_tagLength", "InsLength"):
            check_lengths_var(ctx, slot)
        ins = ctx.input_var("Ins")
        ctx.expect(len(ins.shape) == 2, "input Ins %r: expected [rows, D], got shape %s"
                   % (ins.name, list(ins.shape)))
        ctx.set_output("Out", (-1, ins.shape[1]), ins.dtype)
        ctx.set_output("LossWeight", (-1, 1), ins.dtype)
        ctx.set_output("IndexMap", (-1, 3), "int64")

    @staticmethod
    def forward(ins, ins_tag, filter_tag, ins_tag_length=None, ins_length=None, is_lod=False,
                out_val_if_empty=0):
        kept = kept_instances(len(ins), ins_tag, ins_tag_length,
                              ins_length if is_lod else None, filter_tag)
        if not kept:
            return (np.full((1, ins.shape[1]), out_val_if_empty, ins.dtype),
                    np.zeros((1, 1), ins.dtype), np.zeros((1, 3), np.int64))
        counts = np.array([n for _, n in kept], np.int64)
        index_map = np.stack([offsets(counts)[:-1], [s for s, _ in kept], counts], axis=1)
        out = np.concatenate([ins[s:s + n] for s, n in kept])
        return out, np.ones((len(out), 1), ins.dtype), index_map.astype(np.int64)

    @staticmethod
    def backward(ins, index_map, dout, is_lod=False, out_val_if_empty=0):
        dins = np.zeros_like(ins)
        for out_row, in_row, count in index_map.tolist():
            dins[in_row:in_row + count] = dout[out_row:out_row + count]
        return dins

    def samples(self, rng):
        tags = np.array([1, 2, 3, 2, 5, 6], np.int64)       # per instance: [1, 2], [3], [2, 5, 6]
        tag_lengths = np.array([2, 1, 3], np.int64)
        yield Sample({"Ins": rand(rng, 3, 4), "Ins_tag": tags, "Filter_tag":
                      np.array([2], np.int64), "Ins_tagLength": tag_lengths})
        yield Sample({"Ins": rand(rng, 6, 2), "Ins_tag": tags.reshape(-1, 1),
                      "Filter_tag": np.array([3, 6], np.int64), "Ins_tagLength": tag_lengths,
                      "InsLength": np.array([1, 2, 3], np.int64)}, {"is_lod": True})
        yield Sample({"Ins": rand(rng, 2, 3), "Ins_tag": np.array([4, 7], np.int64),
                      "Filter_tag": np.array([9], np.int64)}, {"out_val_if_empty": 5},
                     name="nothing kept")
