"""filter_by_instag: keep the instances of Ins that carry at least one tag of Filter_tag.

An instance is one row of Ins (is_lod False) or, with is_lod, one sequence of Ins' LoD
(InsLength: a lengths variable in its place, refimpl's). Ins_tag holds every instance's
tags, its LoD (or an Ins_tagLength variable) counting them per instance (neither: one tag
each). As Paddle 1.8.5 (the last release with the op) gives them:
  Out [R, D]          the kept instances' rows, in input order; LoD: their row counts
  LossWeight [K, 1]   float32 1.0 per kept instance (whatever Ins' dtype); LoD: one row
                      each
  IndexMap [K, 3]     per kept instance: (first output row, first input row, row count);
                      LoD: one row each
Nothing kept: Out is one row of out_val_if_empty, LossWeight [[0]], IndexMap [[0, 1, 1]],
each with LoD [[1]]. Gradient (Ins only): Out@GRAD's rows copied back through IndexMap,
zero elsewhere (all zero when nothing was kept)."""
import numpy as np

from ._common import FLOATS, rand
from ._sequence import INTS, check_lengths_var, lengths_of, offsets, segments
from .registry import LoDRule, OpDef, Sample, register


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


def _rows(ins):
    """Ins as [rows, D] (its trailing dims are 1: infer_shape checks)."""
    if ins.ndim > 2 and ins.size != ins.shape[0] * ins.shape[1]:
        raise ValueError("filter_by_instag: Ins of shape %s must be [rows, D] or "
                         "[rows, D, 1...]" % (list(ins.shape),))
    return ins.reshape(ins.shape[:2])


@register
class FilterByInstag(OpDef):
    type = "filter_by_instag"
    inputs = ("Ins", "Ins_tag", "Filter_tag", "Ins_tagLength?", "InsLength?")
    outputs = ("Out", "LossWeight", "IndexMap")
    attrs = {"is_lod": False, "out_val_if_empty": 0}
    no_grad = ("Ins_tag", "Filter_tag", "Ins_tagLength", "InsLength")
    grad_inputs = ("Ins", "IndexMap", "LossWeight", "Out@GRAD")
    lod_lengths = {"Ins_tagLength": "Ins_tag", "InsLength": "Ins"}
    lod_outputs = {"Out": LoDRule(lambda lods, values, attrs: (
                       tuple(int(n) for n in values["IndexMap"][:, 2]),),
                       lambda levels: 1, creates=True),
                   "LossWeight": LoDRule(lambda lods, values, attrs: (
                       (1,) * len(values["IndexMap"]),), lambda levels: 1, creates=True),
                   "IndexMap": LoDRule(lambda lods, values, attrs: (
                       (1,) * len(values["IndexMap"]),), lambda levels: 1, creates=True)}

    def infer_shape(self, ctx):
        ctx.check_dtype("Ins", FLOATS + INTS)     # Paddle registers int32 and int64 too
        for slot in ("Ins_tag", "Filter_tag"):
            ctx.check_dtype(slot, INTS)
        for slot in ("Ins_tagLength", "InsLength"):
            check_lengths_var(ctx, slot)
        ins = ctx.input_var("Ins")
        # [rows, D, 1...]: the rows Paddle's kernel copies are D wide (a layer's data
        # of shape [D, 1] gets here as [-1, D, 1])
        ctx.expect(len(ins.shape) >= 2 and all(d in (1, -1) for d in ins.shape[2:]),
                   "input Ins %r: expected [rows, D] (or [rows, D, 1...]), got shape %s"
                   % (ins.name, list(ins.shape)))
        ctx.set_output("Out", (-1, ins.shape[1]), ins.dtype)
        ctx.set_output("LossWeight", (-1, 1), "float32")
        ctx.set_output("IndexMap", (-1, 3), "int64")

    @staticmethod
    def forward(ins, ins_tag, filter_tag, ins_tag_length=None, ins_length=None, is_lod=False,
                out_val_if_empty=0):
        ins = _rows(ins)
        if is_lod and ins_length is None:
            raise ValueError("filter_by_instag: is_lod=True reads the instances from Ins' "
                             "LoD, but Ins carries none (feed a LoDTensor)")
        kept = kept_instances(len(ins), ins_tag, ins_tag_length,
                              ins_length if is_lod else None, filter_tag)
        if not kept:
            return (np.full((1, ins.shape[1]), out_val_if_empty, ins.dtype),
                    np.zeros((1, 1), np.float32), np.array([[0, 1, 1]], np.int64))
        counts = np.array([n for _, n in kept], np.int64)
        index_map = np.stack([offsets(counts)[:-1], [s for s, _ in kept], counts], axis=1)
        out = np.concatenate([ins[s:s + n] for s, n in kept])
        return out, np.ones((len(kept), 1), np.float32), index_map.astype(np.int64)

    @staticmethod
    def backward(ins, index_map, loss_weight, dout, is_lod=False, out_val_if_empty=0):
        dins = np.zeros_like(_rows(ins))
        if loss_weight.any():     # else nothing kept: Out is the filler row
            for out_row, in_row, count in index_map.tolist():
                dins[in_row:in_row + count] = dout[out_row:out_row + count]
        return dins.reshape(ins.shape)

    def samples(self, rng):
        tags = np.array([1, 2, 3, 2, 5, 6], np.int64)       # per instance: [1, 2], [3], [2, 5, 6]
        tag_lengths = np.array([2, 1, 3], np.int64)
        yield Sample({"Ins": rand(rng, 3, 4), "Ins_tag": tags, "Filter_tag":
                      np.array([2], np.int64), "Ins_tagLength": tag_lengths},
                     {"is_lod": False})    # no default in Paddle 1.8.5
        yield Sample({"Ins": rand(rng, 6, 2), "Ins_tag": tags.reshape(-1, 1),
                      "Filter_tag": np.array([3, 6], np.int64), "Ins_tagLength": tag_lengths,
                      "InsLength": np.array([1, 2, 3], np.int64)}, {"is_lod": True})
        yield Sample({"Ins": rand(rng, 2, 3), "Ins_tag": np.array([4, 7], np.int64),
                      "Filter_tag": np.array([9], np.int64),
                      "Ins_tagLength": np.array([1, 1], np.int64)},
                     {"is_lod": False, "out_val_if_empty": 5},
                     name="nothing kept")
        # one tag per instance, given as Ins_tag's LoD (Paddle reads the tags' LoD and
        # crashes on a tag tensor without one)
        yield Sample({"Ins": rand(rng, 3, 2, 1), "Ins_tag": np.array([1, 2, 1], np.int64),
                      "Filter_tag": np.array([1], np.int64),
                      "Ins_tagLength": np.array([1, 1, 1], np.int64)}, {"is_lod": False},
                     name="rows_of_a_3d_ins")
