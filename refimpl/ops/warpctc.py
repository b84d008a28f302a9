"""warpctc: CTC loss -log p(label | logits) per sequence, softmax over the classes inside,
computed in log space (forward-backward over the label with blanks interleaved)."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of, segments
from .registry import OpDef, Sample, register


@register
class WarpCTC(OpDef):
    type = "warpctc"
    inputs = ("Logits", "Label", "LogitsLength", "LabelLength")
    outputs = ("Loss",)
    attrs = {"blank": 0, "norm_by_times": False}
    no_grad = ("Label", "LogitsLength", "LabelLength")
    grad_inputs = ("Logits", "Label", "LogitsLength", "LabelLength", "Loss@GRAD")
    fd_tolerance = (1e-3, 1e-4)

    def infer_shape(self, ctx):
        for slot in ("Label", "LogitsLength", "LabelLength"):
            check_lengths_var(ctx, slot)
        logits = ctx.input_var("Logits")
        ctx.expect(len(logits.shape) == 2, "input Logits %r: expected packed [total_time, "
                   "num_classes + 1], got shape %s" % (logits.name, list(logits.shape)))
        blank = ctx.attr("blank")
        ctx.expect(logits.shape[1] < 0 or 0 <= blank < logits.shape[1],
                   "blank %d is not a class index in [0, %d)" % (blank, logits.shape[1]))
        batch = ctx.input_var("LogitsLength").shape
        ctx.set_output("Loss", (batch[0] if batch else -1, 1), logits.dtype)

    @staticmethod
    def forward(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
        return np.array([[loss] for loss, _ in _per_sequence(
            logits, label, logits_length, label_length, blank)], logits.dtype).reshape(-1, 1)

    @staticmethod
    def backward(logits, label, logits_length, label_length, dloss, blank=0,
                 norm_by_times=False):
        dlogits = np.zeros_like(logits)
        spans = segments(lengths_of(logits_length, len(logits), "warpctc", "LogitsLength"))
        for i, ((s, e), (_, grad)) in enumerate(zip(spans, _per_sequence(
                logits, label, logits_length, label_length, blank))):
            # Paddle scales only the gradient by 1 / time steps under norm_by_times
            scale = dloss[i, 0] / (e - s if norm_by_times and e > s else 1)
            dlogits[s:e] = grad * scale
        return dlogits

    def samples(self, rng):
        yield Sample({"Logits": rand(rng, 7, 4), "Label": np.array([[1], [2], [1], [3]],
                                                                   np.int32),
                      "LogitsLength": np.array([4, 3], np.int64),
                      "LabelLength": np.array([2, 2], np.int64)})
        yield Sample({"Logits": rand(rng, 5, 3), "Label": np.array([[0], [0]], np.int32),
                      "LogitsLength": np.array([3, 2], np.int64),
                      "LabelLength": np.array([2, 0], np.int64)}, {"blank": 2})
        yield Sample({"Logits": rand(rng, 4, 3), "Label": np.array([[1]], np.int32),
                      "LogitsLength": np.array([4], np.int64),
                      "LabelLength": np.array([1], np.int64)}, {"norm_by_times": True},
                     grad=False)


def _per_sequence(logits, label, logits_length, label_length, blank):
    """(loss, d loss / d logits) of each sequence."""
    label = np.asarray(label).reshape(-1)
    time_spans = segments(lengths_of(logits_length, len(logits), "warpctc", "LogitsLength"))
    label_spans = segments(lengths_of(label_length, len(label), "warpctc", "LabelLength"))
    if len(time_spans) != len(label_spans):
        raise ValueError("warpctc: %d logit sequences but %d label sequences"
                         % (len(time_spans), len(label_spans)))
    return [ctc_loss_and_grad(logits[s:e].astype(np.float64), label[a:b], blank)
            for (s, e), (a, b) in zip(time_spans, label_spans)]


def ctc_loss_and_grad(logits, label, blank):
    """-log p(label | logits) and its gradient for one sequence of logits [T, C]."""
    steps, classes = logits.shape
    log_probs = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    ext = np.full(2 * len(label) + 1, blank, np.int64)   # blank, l1, blank, l2, ..., blank
    ext[1::2] = label
    n = len(ext)
    skip = np.zeros(n, bool)                             # s-2 -> s allowed
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    if steps == 0:
        return (0.0 if len(label) == 0 else np.inf), np.zeros_like(logits)

    def step(prev, emit):
        # from s, s-1 and (where allowed) s-2, then emit
        total = prev.copy()
        total[1:] = np.logaddexp(total[1:], prev[:-1])
        total[2:] = np.where(skip[2:], np.logaddexp(total[2:], prev[:-2]), total[2:])
        return total + emit

    alpha = np.full((steps, n), -np.inf)
    alpha[0, :min(2, n)] = log_probs[0, ext[:min(2, n)]]
    for t in range(1, steps):
        alpha[t] = step(alpha[t - 1], log_probs[t, ext])
    # beta[t, s]: log-probability of emitting the rest after step t from state s
    beta = np.full((steps, n), -np.inf)
    beta[-1, max(n - 2, 0):] = 0.0
    for t in range(steps - 2, -1, -1):
        after = beta[t + 1] + log_probs[t + 1, ext]
        total = after.copy()
        total[:-1] = np.logaddexp(total[:-1], after[1:])
        total[:-2] = np.where(skip[2:], np.logaddexp(total[:-2], after[2:]), total[:-2])
        beta[t] = total
    log_p = np.logaddexp.reduce(alpha[-1, max(n - 2, 0):])
    if not np.isfinite(log_p):
        return np.inf, np.zeros_like(logits)
    occupancy = np.exp(alpha + beta - log_p)             # [T, n], each row sums to 1
    grad = np.exp(log_probs)
    for s in range(n):
        grad[:, ext[s]] -= occupancy[:, s]
    return -log_p, grad
