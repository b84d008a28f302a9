"""nce: noise-contrastive estimation (fluid.layers.nce, fluid.dygraph.NCE), as Paddle 1.8.

Input [N, D], Label [N, T] int64, Weight [K, D] (K = num_total_classes), Bias [K, 1] or
[K], SampleWeight: row n's weight is its n-th value read flat (1 when absent). SampleLabels
[N, T + S] holds each row's T true labels, then S = num_neg_samples negative classes:
custom_neg_classes when given (a fixed list, Paddle's test hook), else S draws per row from
the sampler. SampleLogits (the name is Paddle's; they are probabilities) o =
sigmoid(Input[n] . Weight[c] + Bias[c]) per sampled class c, and with b = S * P(c), the
sampler's chance of drawing c (held in single precision, as Paddle's kernels do),
    Cost[n] = SampleWeight[n] * (sum over true c of -log(o / (o + b))
                                 + sum over negative c of -log(b / (o + b))).
Samplers (attr `sampler`): 0 uniform, P(c) = 1 / K; 1 log-uniform, drawn as
floor(exp(u L)) - 1 modulo K - 1 with u ~ U[0, 1) and P(c) = log((c + 2) / (c + 1)) / L,
L = log K held as a float (Paddle's formula, which sums to log(K + 1) / log K over the K
classes); 2 custom, P(c) = CustomDistProbs[c], drawn by the alias method (a uniform slot
i, then i itself with chance CustomDistAliasProbs[i], else CustomDistAlias[i]). The negatives are Paddle's own
(framework/class_samplers.py, the classes 0 .. K - 1): a fresh engine seeded with `seed`
on every run (the same negatives each step, as Paddle), the rows' draws in turn; for seed
0 Paddle seeds it from std::random_device, refimpl from the global stream. The gradient
reads the forward's SampleLabels and SampleLogits, so it never draws again; is_sparse and
remote_prefetch are accepted and the gradients of Weight and Bias are dense (the same
numbers a SelectedRows would hold)."""
import collections

import numpy as np

from ..framework.class_samplers import CUSTOM, LOG_UNIFORM, UNIFORM, probability
from ..framework.random import class_sampler
from ._common import rand
from .registry import OpDef, Sample, register


def alias_table(probs):
    """(alias, alias_probs) of Walker's alias method for `probs` (summing to 1) as Paddle's
    nce layers build it: slot i keeps class i with chance alias_probs[i] and gives alias[i]
    otherwise (-1: it always keeps its own class). With q = p K (in the values' own
    precision: Python floats for a list), classes above 1 queue as big, below 1 as small,
    first in first out; the head small takes the head big as its alias, the big's leftover
    q_big + q_small - 1 queuing again at the back (big, small, or exactly 1: kept whole).
    When a queue runs dry only the other's head gets -1 and chance 1: any classes left
    behind it keep alias 0 and chance 0 (Paddle's)."""
    k = len(probs)
    alias, keep = [0] * k, [0.0] * k
    queues = {True: collections.deque(), False: collections.deque()}   # big?

    def place(i, q):
        if q - 1.0 > 0 or 1.0 - q > 0:
            queues[bool(q - 1.0 > 0)].append((i, q))
        else:
            alias[i], keep[i] = -1, q

    for i, p in enumerate(probs):
        place(i, p * k)
    while queues[True] and queues[False]:
        (big, q_big), (small, q_small) = queues[True].popleft(), queues[False].popleft()
        alias[small], keep[small] = big, q_small
        place(big, q_big + q_small - 1)
    for queue in queues.values():
        if queue:
            alias[queue[0][0]], keep[queue[0][0]] = -1, 1.0
    return np.array(alias, np.int32), np.array(keep, np.float32)


def _is_true(shape, num_true):
    return np.arange(shape[1]) < num_true


def _b(labels, num_neg_samples, sampler, num_classes, custom_probs):
    """b = S * P(c) in single precision, as Paddle's kernels hold it (its samplers return
    P(c) as a float, class_samplers.probability, and b is a float), whatever the dtype of
    the logits."""
    chance = probability(sampler, labels, num_classes - 1, custom_probs)
    return (num_neg_samples * chance).astype(np.float32).astype(np.float64)


def _sample_weight(sample_weight, n):
    """Row n's weight: SampleWeight's n-th value read flat (Paddle's kernel reads its first
    N values whatever its shape: 1.8.5's test_layers gives a [5, 1] weight to one row)."""
    if sample_weight is None:
        return np.ones((n, 1))
    if sample_weight.size < n:
        raise ValueError("nce: SampleWeight holds %d values, fewer than the %d rows of Input"
                         % (sample_weight.size, n))
    return sample_weight.reshape(-1)[:n].reshape(n, 1).astype(np.float64)


@register
class NCE(OpDef):
    type = "nce"
    inputs = ("Input", "Label", "Weight", "Bias?", "SampleWeight?", "CustomDistProbs?",
              "CustomDistAlias?", "CustomDistAliasProbs?")
    outputs = ("Cost", "SampleLogits", "SampleLabels")
    attrs = {"num_total_classes": 1, "num_neg_samples": 10, "sampler": UNIFORM, "seed": 0,
             "custom_neg_classes": [], "is_sparse": False, "remote_prefetch": False,
             # Paddle's parameter-server prefetch: accepted, unused on one process
             "trainer_id": 0, "height_sections": [], "epmap": [], "table_names": []}
    no_grad = ("Label", "SampleWeight", "CustomDistProbs", "CustomDistAlias",
               "CustomDistAliasProbs")
    grad_inputs = ("Input", "Label", "Weight", "Bias?", "SampleWeight?", "CustomDistProbs?",
                   "SampleLogits", "SampleLabels", "Cost@GRAD")

    def infer_shape(self, ctx):
        x, label, w = (ctx.input_var(s) for s in ("Input", "Label", "Weight"))
        ctx.check_dtype("Input", ("float32", "float64"))
        ctx.check_dtype("Label", ("int64",))
        num_classes, num_neg = ctx.attr("num_total_classes"), ctx.attr("num_neg_samples")
        ctx.expect(len(x.shape) == 2 and len(label.shape) == 2,
                   "Input %r %s must be [N, D] and Label %r %s [N, num_true]"
                   % (x.name, list(x.shape), label.name, list(label.shape)))
        ctx.expect(len(w.shape) == 2 and w.shape[0] in (-1, num_classes) and
                   (w.shape[1] in (-1, x.shape[1]) or x.shape[1] == -1),
                   "Weight %r %s must be [num_total_classes = %d, D = %d]"
                   % (w.name, list(w.shape), num_classes, x.shape[1]))
        ctx.expect(num_neg >= 1 and num_neg < num_classes,
                   "num_neg_samples must be in [1, num_total_classes = %d), got %d"
                   % (num_classes, num_neg))
        ctx.expect(ctx.attr("sampler") in (UNIFORM, LOG_UNIFORM, CUSTOM),
                   "sampler must be 0 (uniform), 1 (log_uniform) or 2 (custom_dist), got %r"
                   % ctx.attr("sampler"))
        if ctx.attr("sampler") == CUSTOM:
            for slot in ("CustomDistProbs", "CustomDistAlias", "CustomDistAliasProbs"):
                ctx.expect(ctx.has_input(slot), "the custom_dist sampler needs input %s" % slot)
        custom = ctx.attr("custom_neg_classes")
        ctx.expect(not custom or len(custom) == num_neg,
                   "custom_neg_classes has %d classes, num_neg_samples is %d"
                   % (len(custom or ()), num_neg))
        width = label.shape[1] + num_neg if label.shape[1] >= 0 else -1
        ctx.set_output("Cost", (x.shape[0], 1), x.dtype)
        ctx.set_output("SampleLogits", (x.shape[0], width), x.dtype)
        ctx.set_output("SampleLabels", (x.shape[0], width), "int64")

    @staticmethod
    def forward(x, label, w, bias, sample_weight, custom_probs, alias, alias_probs,
                num_total_classes=1, num_neg_samples=10, sampler=UNIFORM, seed=0,
                custom_neg_classes=(), **_):
        n = x.shape[0]
        if len(custom_neg_classes):
            negatives = np.tile(np.asarray(custom_neg_classes, np.int64), (n, 1))
        else:
            negatives = class_sampler(sampler, seed, num_total_classes - 1, alias,
                                      alias_probs).samples(n * num_neg_samples) \
                .reshape(n, num_neg_samples)
        labels = np.concatenate([label.astype(np.int64), negatives], axis=1)
        bad = (labels < 0) | (labels >= num_total_classes)
        if bad.any():
            raise IndexError("nce: class %d is out of range [0, num_total_classes = %d)"
                             % (labels[bad][0], num_total_classes))
        # in the input's dtype throughout, as Paddle: its OpTest's finite differences of
        # a float32 cost are only as close to the gradient as its rounding is to Paddle's
        logits = np.einsum("nd,nsd->ns", x, w[labels])
        if bias is not None:
            logits += bias.reshape(-1)[labels]
        o = 1 / (1 + np.exp(-logits))
        b = _b(labels, num_neg_samples, sampler, num_total_classes,
               custom_probs).astype(x.dtype)
        terms = np.where(_is_true(labels.shape, label.shape[1]),
                         -np.log(o / (o + b)), -np.log(b / (o + b)))
        cost = (terms * _sample_weight(sample_weight, n).astype(x.dtype)).sum(1, keepdims=True)
        return cost.astype(x.dtype), o.astype(x.dtype), labels

    @staticmethod
    def backward(x, label, w, bias, sample_weight, custom_probs, o, labels, dcost,
                 num_total_classes=1, num_neg_samples=10, sampler=UNIFORM, **_):
        o = o.astype(np.float64)
        b = _b(labels, num_neg_samples, sampler, num_total_classes, custom_probs)
        # d cost / d logit: b (o - 1) / (o + b) for a true class, o (1 - o) / (o + b) else
        dlogits = np.where(_is_true(labels.shape, label.shape[1]),
                           b * (o - 1.0) / (o + b), o * (1.0 - o) / (o + b))
        dlogits *= _sample_weight(sample_weight, len(x)) * dcost.reshape(-1, 1)
        dx = np.einsum("ns,nsd->nd", dlogits, w[labels])
        dw = np.zeros(w.shape, np.float64)
        np.add.at(dw, labels, dlogits[..., None] * x[:, None, :])
        dbias = None
        if bias is not None:
            dbias = np.zeros(bias.size)
            np.add.at(dbias, labels, dlogits)
            dbias = dbias.reshape(bias.shape).astype(bias.dtype)
        return dx.astype(x.dtype), dw.astype(w.dtype), dbias

    def samples(self, rng):
        x, w = rand(rng, 3, 4), rand(rng, 6, 4)
        label = np.array([[1], [5], [0]], np.int64)
        yield Sample({"Input": x, "Label": label, "Weight": w, "Bias": rand(rng, 6, 1),
                      "SampleWeight": rng.uniform(0.5, 2.0, 3)},
                     {"num_total_classes": 6, "num_neg_samples": 2,
                      "custom_neg_classes": [2, 5]}, name="fixed_negatives")
        yield Sample({"Input": x, "Label": label, "Weight": w,
                      "SampleWeight": rng.uniform(0.5, 2.0, (5, 1))},
                     {"num_total_classes": 6, "num_neg_samples": 2,
                      "custom_neg_classes": [2, 5]}, name="longer_sample_weight")
        yield Sample({"Input": x, "Label": np.array([[1, 3], [5, 2], [0, 0]], np.int64),
                      "Weight": w}, {"num_total_classes": 6, "num_neg_samples": 3,
                                     "sampler": LOG_UNIFORM, "seed": 5},
                     name="log_uniform_no_bias")
        probs = rng.dirichlet(np.ones(6))
        alias, keep = alias_table(probs)
        yield Sample({"Input": x, "Label": label, "Weight": w, "Bias": rand(rng, 6),
                      "CustomDistProbs": probs.astype(np.float32), "CustomDistAlias": alias,
                      "CustomDistAliasProbs": keep},
                     {"num_total_classes": 6, "num_neg_samples": 2, "sampler": CUSTOM,
                      "seed": 3}, name="custom_dist")
