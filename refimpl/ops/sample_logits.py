"""sample_logits: the logits of the true classes plus a few sampled classes, for sampled
softmax (fluid.layers.sampled_softmax_with_cross_entropy).

Logits [N, K], Labels [N, NT] int64. Samples [N, NT + S]: the NT true labels of each row,
then S classes drawn once for the whole batch from the log-uniform (Zipfian) distribution
over [0, K):  P(c) = log((c + 2) / (c + 1)) / L, drawn as floor(exp(u * L)) - 1
(u ~ U[0, 1)), modulo K, L = log(K + 1) held as a float: Paddle's CPU draws
(framework/class_samplers.py; a fresh engine of `seed` each run), repeated until S
distinct classes came up, uniq or not (Paddle's CPU kernel reads uniq only on GPUs).
Probabilities [N, NT + S] are the chance each class appears in the draw: p * S when no draw was rejected,
else 1 - (1 - p) ** tries. SampledLogits = Logits[Samples] - log(Probabilities), with 1e20
subtracted from a sampled class that is one of the row's true labels when
remove_accidental_hits. SampledLabels [N, NT] = 0..NT-1 (where the true classes now sit).
use_customized_samples takes Samples and Probabilities from CustomizedSamples /
CustomizedProbabilities instead of drawing. LogitsDim and LabelsDim [2] int64 are the shapes
of Logits and Labels (Paddle declares them intermediate, for its grad op's shapes)."""
import numpy as np

from ..framework.class_samplers import LOG_UNIFORM, probability
from ..framework.random import class_sampler
from ._common import rand
from .registry import OpDef, Sample, register

ACCIDENTAL_HIT_PENALTY = 1e20


def log_uniform_draws(num_classes, num_samples, seed):
    """(S distinct sampled classes, number of draws made): Paddle's CPU kernel draws from its
    log-uniform sampler over the classes 0 .. num_classes (taken modulo num_classes), a
    fresh engine of `seed` (framework/class_samplers.py), until S distinct classes came up,
    whatever `uniq` says (measured on 1.8.5)."""
    if num_samples > num_classes:
        raise ValueError("sample_logits: num_samples %d distinct classes out of %d"
                         % (num_samples, num_classes))
    sampler = class_sampler(LOG_UNIFORM, seed, num_classes)
    drawn, seen, tries = [], set(), 0
    while len(drawn) < num_samples:
        tries += 1
        c = sampler.sample()
        if c not in seen:
            seen.add(c)
            drawn.append(c)
    return np.array(drawn, np.int64), tries


def log_uniform_probability(classes, num_classes, num_samples, tries, dtype=np.float64):
    """The chance each class comes up in the draw, in `dtype` as Paddle computes it: the
    sampler's P(c) (a float, class_samplers.probability), then p S in dtype when no draw was rejected,
    else -expm1(tries log1p(-p))."""
    t = np.dtype(dtype).type
    p = probability(LOG_UNIFORM, classes, num_classes).astype(dtype)
    return p * t(num_samples) if tries == num_samples else -np.expm1(t(tries) * np.log1p(-p))


@register
class SampleLogits(OpDef):
    type = "sample_logits"
    inputs = ("Logits", "Labels", "CustomizedSamples?", "CustomizedProbabilities?")
    outputs = ("Samples", "Probabilities", "SampledLogits", "SampledLabels", "LogitsDim",
               "LabelsDim")
    internal_outputs = ("LogitsDim", "LabelsDim")
    attrs = {"use_customized_samples": False, "uniq": True, "remove_accidental_hits": True,
             "num_samples": 1, "seed": 0}
    no_grad = ("Labels", "CustomizedSamples", "CustomizedProbabilities")
    grad_inputs = ("Logits", "Samples", "SampledLogits@GRAD")

    def infer_shape(self, ctx):
        logits, labels = ctx.input_var("Logits"), ctx.input_var("Labels")
        ctx.expect(len(logits.shape) == 2, "input Logits %r: expected [N, K], got %s"
                   % (logits.name, list(logits.shape)))
        ctx.expect(len(labels.shape) == 2 and labels.dtype.name in ("int32", "int64"),
                   "input Labels %r: expected int [N, num_true], got %s %s"
                   % (labels.name, labels.dtype.name, list(labels.shape)))
        num_true = labels.shape[1]
        width = num_true + ctx.attr("num_samples") if num_true >= 0 else -1
        if ctx.attr("use_customized_samples"):
            for slot in ("CustomizedSamples", "CustomizedProbabilities"):
                v = ctx.input_var(slot)
                ctx.expect(v is not None, "use_customized_samples needs input %s" % slot)
                ctx.expect(len(v.shape) == 2 and v.shape[1] in (-1, width),
                           "input %s %r: expected [N, num_true + num_samples = %d], got %s"
                           % (slot, v.name, width, list(v.shape)))
        else:
            ctx.expect(ctx.attr("num_samples") >= 1, "attr num_samples must be >= 1, got %d"
                       % ctx.attr("num_samples"))
        n = logits.shape[0]
        ctx.set_output("Samples", (n, width), "int64")
        ctx.set_output("Probabilities", (n, width), logits.dtype)
        ctx.set_output("SampledLogits", (n, width), logits.dtype)
        ctx.set_output("SampledLabels", (n, num_true), "int64")
        ctx.set_output("LogitsDim", (2,), "int64")
        ctx.set_output("LabelsDim", (2,), "int64")

    @staticmethod
    def forward(logits, labels, custom_samples, custom_probs, use_customized_samples=False,
                uniq=True, remove_accidental_hits=True, num_samples=1, seed=0):
        n, num_classes = logits.shape
        num_true = labels.shape[1]
        if use_customized_samples:
            if custom_samples is None or custom_probs is None:
                raise ValueError("sample_logits: use_customized_samples needs "
                                 "CustomizedSamples and CustomizedProbabilities")
            samples = custom_samples.astype(np.int64)
            probs = custom_probs.astype(logits.dtype)
        else:
            drawn, tries = log_uniform_draws(num_classes, num_samples, seed)
            samples = np.concatenate([labels.astype(np.int64),
                                      np.broadcast_to(drawn, (n, num_samples))], axis=1)
            probs = log_uniform_probability(samples, num_classes, num_samples, tries,
                                            logits.dtype)
        if ((samples < 0) | (samples >= num_classes)).any():
            raise IndexError("sample_logits: Samples hold classes outside [0, %d)" % num_classes)
        sampled = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
        if remove_accidental_hits:
            hits = (samples[:, num_true:, None] == samples[:, None, :num_true]).any(2)
            sampled[:, num_true:] -= ACCIDENTAL_HIT_PENALTY * hits
        sampled_labels = np.tile(np.arange(num_true, dtype=np.int64), (n, 1))
        return (samples, probs, sampled.astype(logits.dtype), sampled_labels,
                np.array(logits.shape, np.int64), np.array(labels.shape, np.int64))

    @staticmethod
    def backward(logits, samples, dsampled, **attrs):
        dlogits = np.zeros_like(logits)
        rows = np.broadcast_to(np.arange(len(logits))[:, None], samples.shape)
        np.add.at(dlogits, (rows, samples), dsampled)
        return dlogits

    def samples(self, rng):
        logits = rand(rng, 3, 6)
        labels = np.array([[1], [4], [0]], np.int64)
        # customized: row 0 draws its own true class again (an accidental hit, whose -1e20
        # finite differences cannot see, so that case runs without the gradient check)
        custom = np.array([[1, 2, 5], [4, 0, 3], [0, 2, 5]], np.int64)
        probs = rng.uniform(0.1, 0.9, (3, 3))
        yield Sample({"Logits": logits, "Labels": labels, "CustomizedSamples": custom,
                      "CustomizedProbabilities": probs},
                     {"use_customized_samples": True, "num_samples": 2})
        hit = custom.copy()
        hit[0, 2] = 1
        yield Sample({"Logits": logits, "Labels": labels, "CustomizedSamples": hit,
                      "CustomizedProbabilities": probs},
                     {"use_customized_samples": True, "num_samples": 2}, grad=False,
                     name="accidental_hit")
        yield Sample({"Logits": rand(rng, 2, 8), "Labels": np.array([[3, 0], [7, 1]], np.int64)},
                     {"num_samples": 3, "seed": 7, "remove_accidental_hits": False},
                     name="log_uniform")
