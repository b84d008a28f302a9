"""warpctc: CTC loss of padded sequences. Logits [Tmax, B, C] (softmax taken over C, as
Paddle's warpctc does, so log-probabilities work too), Label [B, Lmax] int, LogitsLength
and LabelLength [B] int64. Loss[b, 0] = -log sum over alignments of the label (blanks
and repeats collapsed) of prod_t softmax(Logits[t, b])[a_t], by the forward (alpha)
recursion over the label with blanks interleaved. WarpCTCGrad holds dLoss/dLogits
(softmax - occupancy / p); with norm_by_times the gradient (only) is divided by the
sequence's length, as Paddle does."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _ctc_one(logp, label, blank):
    """(loss, dloss/dlogits [T, C]) for one sequence, logp [T, C] log-softmax."""
    steps = logp.shape[0]
    ext = np.full(2 * len(label) + 1, blank)
    ext[1::2] = label
    size = len(ext)
    # a transition may skip the blank between two different labels
    skip = np.zeros(size, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg_inf = -np.inf
    alpha = np.full((steps, size), neg_inf)
    alpha[0, 0] = logp[0, ext[0]]
    if size > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        terms = [prev, np.concatenate([[neg_inf], prev[:-1]]),
                 np.where(skip, np.concatenate([[neg_inf, neg_inf], prev[:-2]]), neg_inf)]
        alpha[t] = np.logaddexp.reduce(terms, axis=0) + logp[t, ext]
    # beta[t, s]: log prob of finishing from state s at t, emissions after t only
    beta = np.full((steps, size), neg_inf)
    beta[-1, -1] = 0.0
    if size > 1:
        beta[-1, -2] = 0.0
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + logp[t + 1, ext]
        skip_next = np.concatenate([np.where(skip[2:], nxt[2:], neg_inf), [neg_inf, neg_inf]])
        beta[t] = np.logaddexp.reduce([nxt, np.concatenate([nxt[1:], [neg_inf]]), skip_next],
                                      axis=0)
    log_p = np.logaddexp.reduce(alpha[-1, -2:] if size > 1 else alpha[-1, -1:])
    if not np.isfinite(log_p):
        return np.inf, np.zeros_like(logp)
    occupancy = np.zeros_like(logp)
    with np.errstate(under="ignore"):
        weights = np.exp(alpha + beta - log_p)
    for s, k in enumerate(ext):
        occupancy[:, k] += weights[:, s]
    return -log_p, np.exp(logp) - occupancy


@register
class WarpCTC(OpDef):
    type = "warpctc"
    inputs = ("Logits", "Label", "LogitsLength?", "LabelLength?")
    outputs = ("WarpCTCGrad", "Loss")
    attrs = {"blank": 0, "norm_by_times": False}
    no_grad = ("Label", "LogitsLength", "LabelLength")
    grad_inputs = ("WarpCTCGrad", "Loss@GRAD")
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        logits, label = ctx.input_var("Logits"), ctx.input_var("Label")
        ctx.check_dtype("Logits", FLOATS)
        ctx.check_dtype("Label", ("int32", "int64"))
        ctx.expect(len(logits.shape) == 3, "Logits %r must be [Tmax, B, C] (padded; LoD "
                   "input is not supported), got %s" % (logits.name, list(logits.shape)))
        ctx.expect(ctx.has_input("LogitsLength") and ctx.has_input("LabelLength"),
                   "LogitsLength and LabelLength are required (padded sequences)")
        ctx.expect(len(label.shape) == 2, "Label %r must be [B, Lmax], got %s"
                   % (label.name, list(label.shape)))
        c = logits.shape[2]
        ctx.expect(c < 0 or 0 <= ctx.attr("blank") < c, "blank %d must be in [0, %d)"
                   % (ctx.attr("blank"), c))
        ctx.same_as("Logits", "WarpCTCGrad")
        ctx.set_output("Loss", (logits.shape[1], 1), logits.dtype)

    @staticmethod
    def forward(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
        steps, batch, _ = logits.shape
        logp = _log_softmax(logits.astype(np.float64))
        loss = np.zeros((batch, 1))
        grad = np.zeros(logits.shape)
        for b in range(batch):
            t_len, l_len = int(logits_length[b]), int(label_length[b])
            loss[b, 0], g = _ctc_one(logp[:t_len, b], label[b, :l_len], blank)
            grad[:t_len, b] = g / t_len if norm_by_times else g
        return grad.astype(logits.dtype), loss.astype(logits.dtype)

    @staticmethod
    def backward(grad, dloss, blank=0, norm_by_times=False):
        return (grad * dloss.reshape(1, -1, 1)).astype(grad.dtype)

    def samples(self, rng):
        yield Sample({"Logits": rand(rng, 6, 3, 4, low=-2, high=2),
                      "Label": np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]], "int32"),
                      "LogitsLength": np.array([6, 5, 3], "int64"),
                      "LabelLength": np.array([3, 2, 1], "int64")}, name="padded")
        yield Sample({"Logits": rand(rng, 4, 2, 3), "Label": np.array([[1, 1], [2, 0]], "int32"),
                      "LogitsLength": np.array([4, 4], "int64"),
                      "LabelLength": np.array([2, 1], "int64")}, {"blank": 0},
                     name="repeat")
