"""positive_negative_pair: ranking pair counts (Paddle's positive_negative_pair op, 1.8 and
2.0). Items are grouped by QueryID; within a query every pair of items with different
Labels counts once, with the weight (w1 + w2) / 2 (Weight, default 1): PositivePair when
Score's `column` orders the pair as its labels do, NegativePair otherwise, NeutralPair
when the two scores are equal -- such a pair counts as negative too, as Paddle's kernel
adds it to both. The optional Accumulate*Pair inputs (all three or none) start the
counts. Outputs: one number each, Score's dtype. No gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

ACCUMULATORS = ("AccumulatePositivePair", "AccumulateNegativePair", "AccumulateNeutralPair")


@register
class PositiveNegativePair(OpDef):
    type = "positive_negative_pair"
    inputs = ("Score", "Label", "QueryID") + tuple(s + "?" for s in ACCUMULATORS) + \
        ("Weight?",)
    outputs = ("PositivePair", "NegativePair", "NeutralPair")
    attrs = {"column": -1}
    scalar_outputs = ("PositivePair", "NegativePair", "NeutralPair")

    def infer_shape(self, ctx):
        given = [ctx.has_input(s) for s in ACCUMULATORS]
        ctx.expect(all(given) or not any(given), "the Accumulate*Pair inputs come all three "
                   "or none, got %s" % [s for s, g in zip(ACCUMULATORS, given) if g])
        score, label = ctx.input_shape("Score"), ctx.input_shape("Label")
        ctx.expect(len(score) == 2, "Score must be 2-D [batch, depth], got shape %s"
                   % list(score))
        ctx.expect(len(label) == 2 and label[1] in (1, -1), "Label must be [batch, 1], got "
                   "shape %s" % list(label))
        for slot in ("QueryID",) + (("Weight",) if ctx.has_input("Weight") else ()):
            ctx.expect(tuple(ctx.input_shape(slot)) == tuple(label), "%s must have Label's "
                       "shape %s, got %s" % (slot, list(label), list(ctx.input_shape(slot))))
        column = ctx.attr("column")
        ctx.expect(score[1] < 0 or -score[1] <= column < score[1], "column must be in "
                   "[-%d, %d) for Score of shape %s, got %d"
                   % (score[1], score[1], list(score), column))
        for out in self.outputs:
            ctx.set_output(out, (), ctx.input_dtype("Score"))

    @staticmethod
    def forward(score, label, query, acc_pos, acc_neg, acc_neu, weight, column=-1):
        t = score.dtype.type
        counts = np.zeros(3, np.float64)           # positive, negative, neutral
        if acc_pos is not None:
            counts[:] = [a.reshape(-1)[0] for a in (acc_pos, acc_neg, acc_neu)]
        s, lab, q = score[:, column], label.reshape(-1), query.reshape(-1)
        w = np.ones(len(q)) if weight is None else weight.reshape(-1).astype(np.float64)
        for qid in np.unique(q):
            i, j = np.triu_indices(int((q == qid).sum()), k=1)
            members = np.flatnonzero(q == qid)
            i, j = members[i], members[j]
            differ = lab[i] != lab[j]
            i, j = i[differ], j[differ]
            pair_w = (w[i] + w[j]) * 0.5
            agree = (s[i] - s[j]) * (lab[i] - lab[j]) > 0
            counts += [pair_w[agree].sum(), pair_w[~agree].sum(), pair_w[s[i] == s[j]].sum()]
        return tuple(np.array(c, dtype=t) for c in counts)

    def samples(self, rng):
        score = rand(rng, 6, 2).astype("float32")
        score[4, 1] = score[5, 1]                  # a tie: neutral and negative
        inputs = {"Score": score, "Label": np.array([[1], [0], [2], [1], [0], [2]], "float32"),
                  "QueryID": np.array([[0], [0], [0], [1], [1], [1]], "int64")}
        yield Sample(dict(inputs), {"column": -1})
        yield Sample(dict(inputs, Weight=rng.uniform(0, 1, (6, 1)).astype("float32"),
                          **{s: np.array([v], "float32") for s, v in zip(ACCUMULATORS,
                                                                          (3, 2, 1))}),
                     {"column": 0})
