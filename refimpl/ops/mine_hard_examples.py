"""mine_hard_examples: the hard negatives of SSD training (forward-only, as in Paddle).

Per image n, over priors m of ClsLoss [N, M] with MatchIndices [N, M] (-1: unmatched) and
MatchDist [N, M]:
- max_negative: candidates are the unmatched priors with MatchDist < neg_dist_threshold;
  the int(num_positives * neg_pos_ratio) of them with the largest ClsLoss are kept.
  UpdatedMatchIndices = MatchIndices.
- hard_example: every prior is a candidate, ranked by ClsLoss + LocLoss; the top
  sample_size are kept; matched priors that were not kept become unmatched (-1) in
  UpdatedMatchIndices, and the kept unmatched ones are the negatives.
Ties keep the lower prior index first.

Outputs, as Paddle 1.8: NegIndices [total, 1] int32, each image's negative prior indices
ascending, one LoD sequence per image (their counts: NegCount [N], which carries the LoD
and is no program variable in Paddle); UpdatedMatchIndices [N, M] int32."""
import numpy as np

from ._common import FLOATS, shapes_agree
from .registry import OpDef, Sample, lengths_lod, register

MINING_TYPES = ("max_negative", "hard_example")


def _top(losses, candidates, count):
    """The `count` candidate indices with the largest loss (ties: lower index first)."""
    order = candidates[np.argsort(-losses[candidates], kind="stable")]
    return order[:count]


@register
class MineHardExamples(OpDef):
    type = "mine_hard_examples"
    inputs = ("ClsLoss", "LocLoss?", "MatchIndices", "MatchDist")
    outputs = ("NegIndices", "UpdatedMatchIndices", "NegCount")
    lod_outputs = {"NegIndices": lengths_lod("NegCount")}
    attrs = {"neg_pos_ratio": 1.0, "neg_dist_threshold": 0.5, "sample_size": 0,
             "mining_type": "max_negative"}

    def infer_shape(self, ctx):
        ctx.check_dtype("ClsLoss", FLOATS)
        cls_loss = ctx.input_var("ClsLoss")
        shape = list(cls_loss.shape)
        ctx.expect(len(shape) == 2, "ClsLoss %r must be 2-D [N, M], got %s"
                   % (cls_loss.name, shape))
        mining = ctx.attr("mining_type")
        ctx.expect(mining in MINING_TYPES, "mining_type must be one of %s, got %r"
                   % (list(MINING_TYPES), mining))
        ctx.expect(mining != "hard_example" or ctx.has_input("LocLoss"),
                   "mining_type 'hard_example' needs the LocLoss input")
        ctx.expect(ctx.attr("neg_pos_ratio") >= 0, "neg_pos_ratio must be >= 0, got %r"
                   % (ctx.attr("neg_pos_ratio"),))
        for slot in ("LocLoss", "MatchIndices", "MatchDist"):
            var = ctx.input_var(slot)
            if var is not None:
                ctx.expect(shapes_agree(var.shape, shape),
                    "%s %r %s must have ClsLoss %r's shape %s"
                    % (slot, var.name, list(var.shape), cls_loss.name, shape))
        ctx.set_output("NegIndices", (-1, 1), "int32")
        ctx.set_output("UpdatedMatchIndices", shape, "int32")
        ctx.set_output("NegCount", shape[:1], "int32")

    @staticmethod
    def forward(cls_loss, loc_loss, match, match_dist, neg_pos_ratio=1.0,
                neg_dist_threshold=0.5, sample_size=0, mining_type="max_negative"):
        n, m = cls_loss.shape
        neg_indices = []
        updated = match.astype(np.int32).copy()
        for i in range(n):
            matched = match[i] != -1
            if mining_type == "max_negative":
                candidates = np.flatnonzero(~matched & (match_dist[i] < neg_dist_threshold))
                count = min(int(matched.sum() * neg_pos_ratio), len(candidates))
                negatives = _top(cls_loss[i], candidates, count)
            else:
                kept = _top(cls_loss[i] + loc_loss[i], np.arange(m), min(sample_size, m))
                dropped = np.ones(m, bool)
                dropped[kept] = False
                updated[i, matched & dropped] = -1
                negatives = kept[~matched[kept]]
            neg_indices.append(np.sort(negatives))
        counts = np.array([len(a) for a in neg_indices], np.int32)
        neg_indices = np.concatenate(neg_indices) if n else np.zeros(0, np.int64)
        return neg_indices.astype(np.int32).reshape(-1, 1), updated, counts

    def samples(self, rng):
        cls_loss = rng.permutation(12).reshape(2, 6) / 12.0
        match = np.array([[0, -1, -1, 1, -1, -1], [-1, -1, 0, -1, -1, -1]], np.int32)
        dist = np.array([[.9, .1, .6, .8, .2, .3], [.1, .2, .7, .4, .9, .1]])
        yield Sample({"ClsLoss": cls_loss, "MatchIndices": match, "MatchDist": dist},
                     {"neg_pos_ratio": 1.5, "neg_dist_threshold": 0.5}, grad=False)
        yield Sample({"ClsLoss": cls_loss, "LocLoss": rng.uniform(0, 1, (2, 6)),
                      "MatchIndices": match, "MatchDist": dist},
                     {"mining_type": "hard_example", "sample_size": 3}, grad=False,
                     name="hard_example")
