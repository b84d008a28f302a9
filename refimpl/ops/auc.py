"""auc: the area under the ROC curve of binary predictions, from bucketed counts kept
across runs (Paddle 1.8's auc op, what fluid.layers.auc builds).

Each prediction (the last column of Predict: the positive class's probability, in [0, 1])
falls in bucket floor(p * num_thresholds) of num_thresholds + 1; StatPos / StatNeg count
the positive / negative labels per bucket. slide_steps = 0: the counts accumulate over
every run (StatPosOut / StatNegOut [1, num_thresholds + 1]; the inputs may hold one
unused count more, as fluid.layers.auc's batch counters do). slide_steps = s > 0: the state holds s windows of
counts, their sum, and a run counter ((1 + s) (num_thresholds + 1) + 1 numbers); each run
replaces the oldest window by its batch's counts, so the AUC covers the last s batches.
AUC (float64) walks the buckets from the highest, adding trapezoids of (cumulative
negatives, cumulative positives), divided by positives x negatives (0 when either is 0).
Paddle's kernel computes this ROC area whatever `curve` says. No gradient.
"""
import numpy as np

from .registry import OpDef, Sample, register


def state_size(num_thresholds, slide_steps):
    """The length of StatPos / StatNeg (flat) for these attrs."""
    buckets = num_thresholds + 1
    return buckets if slide_steps == 0 else (1 + slide_steps) * buckets + 1


def roc_area(pos, neg):
    """The ROC AUC of per-bucket counts (lowest bucket first)."""
    tot_pos = np.concatenate([[0.0], np.cumsum(pos[::-1], dtype=np.float64)])
    tot_neg = np.concatenate([[0.0], np.cumsum(neg[::-1], dtype=np.float64)])
    area = float(np.sum(np.abs(np.diff(tot_neg)) * (tot_pos[1:] + tot_pos[:-1]) / 2.0))
    if tot_pos[-1] > 0 and tot_neg[-1] > 0:
        area = area / tot_pos[-1] / tot_neg[-1]
    return area


@register
class Auc(OpDef):
    type = "auc"
    inputs = ("Predict", "Label", "StatPos", "StatNeg")
    outputs = ("AUC", "StatPosOut", "StatNegOut")
    attrs = {"curve": "ROC", "num_thresholds": 4095, "slide_steps": 1}
    scalar_outputs = ("AUC",)

    def infer_shape(self, ctx):
        predict, label = ctx.input_var("Predict"), ctx.input_var("Label")
        ctx.expect(len(predict.shape) == 2, "Predict %r must be [N, 1] or [N, 2] "
                   "probabilities, got shape %s" % (predict.name, list(predict.shape)))
        ctx.expect(label.dtype.name in ("int32", "int64"), "Label %r must hold int labels, "
                   "got %s" % (label.name, label.dtype.name))
        ctx.expect(ctx.attr("curve") in ("ROC", "PR"), "curve must be 'ROC' or 'PR', got %r"
                   % (ctx.attr("curve"),))
        ctx.expect(ctx.attr("num_thresholds") >= 1 and ctx.attr("slide_steps") >= 0,
                   "num_thresholds must be >= 1 and slide_steps >= 0, got %s and %s"
                   % (ctx.attr("num_thresholds"), ctx.attr("slide_steps")))
        size = state_size(ctx.attr("num_thresholds"), ctx.attr("slide_steps"))
        for slot in ("StatPos", "StatNeg"):
            var = ctx.input_var(slot)
            n = int(np.prod(var.shape)) if all(d >= 0 for d in var.shape) else size
            # (fluid.layers.auc gives a slide_steps=0 op one unused count more)
            allowed = (size, size + 1) if ctx.attr("slide_steps") == 0 else (size,)
            ctx.expect(n in allowed, "%s %r must hold %d counts for num_thresholds=%d, "
                       "slide_steps=%d, got shape %s"
                       % (slot, var.name, size, ctx.attr("num_thresholds"),
                          ctx.attr("slide_steps"), list(var.shape)))
            if ctx.attr("slide_steps") == 0:     # Paddle's shape for accumulated counts
                ctx.set_output(slot + "Out", [1, size], "int64")
            else:
                ctx.same_as(slot, slot + "Out")
        ctx.set_output("AUC", (), "float64")

    @staticmethod
    def forward(predict, label, stat_pos, stat_neg, curve="ROC", num_thresholds=4095,
                slide_steps=1):
        p = predict[:, -1].astype(np.float64)
        bad = (p < 0) | (p > 1)
        if bad.any():
            raise ValueError("Predict: probabilities must be in [0, 1], got %r"
                             % float(p[bad][0]))
        buckets = num_thresholds + 1
        positive = label.reshape(-1) != 0
        # float32 product truncated, as Paddle's kernel computes the bucket
        index = (predict[:, -1] * predict.dtype.type(num_thresholds)).astype(np.int64)
        batch_pos = np.bincount(index[positive], minlength=buckets)
        batch_neg = np.bincount(index[~positive], minlength=buckets)
        pos, neg = stat_pos.reshape(-1).copy(), stat_neg.reshape(-1).copy()
        if slide_steps == 0:
            pos = (pos[:buckets] + batch_pos).reshape(1, buckets)
            neg = (neg[:buckets] + batch_neg).reshape(1, buckets)
            total_pos, total_neg = pos[0], neg[0]
        else:
            window = int(pos[-1]) % slide_steps * buckets
            total = slice(slide_steps * buckets, (slide_steps + 1) * buckets)
            for counts, batch in ((pos, batch_pos), (neg, batch_neg)):
                counts[total] += batch - counts[window:window + buckets]
                counts[window:window + buckets] = batch
                counts[-1] += 1
            total_pos, total_neg = pos[total], neg[total]
        auc = np.array(roc_area(total_pos, total_neg), np.float64)
        if slide_steps == 0:
            return auc, pos, neg
        return auc, pos.reshape(stat_pos.shape), neg.reshape(stat_neg.shape)

    def samples(self, rng):
        p = rng.uniform(0, 1, (6, 1))
        for slide in (0, 2):
            size = state_size(7, slide)
            state = np.zeros(size, np.int64) if slide else np.zeros((1, size), np.int64)
            yield Sample({"Predict": np.hstack([1 - p, p]).astype("float32"),
                          "Label": np.array([[0], [1], [1], [0], [1], [0]], "int64"),
                          "StatPos": state, "StatNeg": state.copy()},
                         {"num_thresholds": 7, "slide_steps": slide}, grad=False)
