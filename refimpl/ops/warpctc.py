"""warpctc: CTC loss of sequences. Padded: Logits [Tmax, B, C] (softmax taken over C, as
Paddle's warpctc does, so log-probabilities work too), Label [B, Lmax] int, LogitsLength
and LabelLength [B] (or [B, 1]) int64. Packed (1.8's LoD form): Logits [sum T, C] and Label
[sum L, 1], the lengths taken from their LoD; WarpCTCGrad is [Tmax, B, C] either way (as
in Paddle 1.8.5), and Logits@GRAD has Logits' form. Loss[b, 0] = -log sum over alignments of the label (blanks
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


def _shifted(v, k):
    """v moved k places right (left when k < 0), -inf filling, of v's length (an empty
    label has one state: every shift leaves -inf)."""
    out = np.full_like(v, -np.inf)
    if k >= 0:
        out[k:] = v[:max(len(v) - k, 0)]
    else:
        out[:k] = v[-k:]
    return out


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
        terms = [prev, _shifted(prev, 1), np.where(skip, _shifted(prev, 2), neg_inf)]
        alpha[t] = np.logaddexp.reduce(terms, axis=0) + logp[t, ext]
    # beta[t, s]: log prob of finishing from state s at t, emissions after t only
    beta = np.full((steps, size), neg_inf)
    beta[-1, -1] = 0.0
    if size > 1:
        beta[-1, -2] = 0.0
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + logp[t + 1, ext]
        skip_next = _shifted(np.where(skip, nxt, neg_inf), -2)
        beta[t] = np.logaddexp.reduce([nxt, _shifted(nxt, -1), skip_next], axis=0)
    log_p = np.logaddexp.reduce(alpha[-1, -2:] if size > 1 else alpha[-1, -1:])
    if not np.isfinite(log_p):   # more labels and repeats than steps: 0, as warp-ctc
        return 0.0, np.zeros_like(logp)
    occupancy = np.zeros_like(logp)
    with np.errstate(under="ignore"):
        weights = np.exp(alpha + beta - log_p)
    for s, k in enumerate(ext):
        occupancy[:, k] += weights[:, s]
    return -log_p, np.exp(logp) - occupancy


def _flat(lengths):
    """[B] or [B, 1] lengths as [B]: Paddle reads the lengths flat (ctc_loss users pass the
    [B, 1] columns paddle.full makes, as the OCR tutorial does)."""
    return None if lengths is None else np.asarray(lengths).reshape(-1)


def _padded(rows, lengths):
    """[sum T, C] rows of sequences with `lengths` -> [Tmax, B, C], zero past each end."""
    lengths = np.asarray(lengths, np.int64)
    out = np.zeros((int(lengths.max(initial=0)), len(lengths), rows.shape[1]), rows.dtype)
    steps = np.arange(out.shape[0])[:, None] < lengths[None, :]
    out.transpose(1, 0, 2)[steps.T] = rows
    return out


def _check_ranks(logits, label):
    if logits.ndim not in (2, 3):
        raise ValueError("warpctc: Logits must be [Tmax, B, C] (padded) or [sum T, C] "
                         "(sequences with a LoD), got shape %s" % (list(logits.shape),))
    if label.ndim != 2:
        raise ValueError("warpctc: Label must be [B, Lmax] (padded) or [sum L, 1] "
                         "(sequences with a LoD), got shape %s" % (list(label.shape),))


@register
class WarpCTC(OpDef):
    type = "warpctc"
    inputs = ("Logits", "Label", "LogitsLength?", "LabelLength?")
    outputs = ("WarpCTCGrad", "Loss")
    attrs = {"blank": 0, "norm_by_times": False}
    # without the lengths: the packed sequences' LoD (1.8's form)
    lod_lengths = {"LogitsLength": "Logits", "LabelLength": "Label"}
    no_grad = ("Label", "LogitsLength", "LabelLength")
    grad_inputs = ("Logits", "LogitsLength", "WarpCTCGrad", "Loss@GRAD")
    grad_shape_only = ("Logits",)
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        logits = ctx.input_var("Logits")
        ctx.check_dtype("Logits", FLOATS)
        ctx.check_dtype("Label", ("int32", "int64"))
        # the ranks are checked when the op runs (_check_ranks), as Paddle 1.8.5 does: its
        # test_layers builds a warpctc of a [-1, 4, 4, 8] Logits
        c = logits.shape[-1]
        ctx.expect(c < 0 or 0 <= ctx.attr("blank") < c, "blank %d must be in [0, %d)"
                   % (ctx.attr("blank"), c))
        padded = len(logits.shape) > 2
        ctx.set_output("WarpCTCGrad", logits.shape if padded else (-1, -1, c), logits.dtype)
        ctx.set_output("Loss", (logits.shape[1] if padded else -1, 1), logits.dtype)

    @staticmethod
    def forward(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
        _check_ranks(logits, label)
        if logits_length is None or label_length is None:
            raise ValueError("warpctc: give LogitsLength and LabelLength with padded Logits "
                             "%s and Label %s, or feed both as sequences with a LoD"
                             % (list(logits.shape), list(label.shape)))
        logits_length, label_length = _flat(logits_length), _flat(label_length)
        if logits.ndim == 2:
            logits = _padded(logits, logits_length)
            label = _padded(label.reshape(-1, 1), label_length)[..., 0].T
        steps, batch, _ = logits.shape
        # Paddle reads the first B lengths (3.3.1 measured: a [6, 1] pair for a batch of 3
        # works; the OCR tutorial's last batch is smaller than its paddle.full lengths)
        if len(logits_length) < batch or len(label_length) < batch:
            raise ValueError("warpctc: LogitsLength (%d) and LabelLength (%d) need a length "
                             "for each of the %d sequences of the batch"
                             % (len(logits_length), len(label_length), batch))
        logp = _log_softmax(logits.astype(np.float64))
        loss = np.zeros((batch, 1))
        grad = np.zeros(logits.shape)
        for b in range(batch):
            t_len, l_len = int(logits_length[b]), int(label_length[b])
            loss[b, 0], g = _ctc_one(logp[:t_len, b], label[b, :l_len], blank)
            grad[:t_len, b] = g / t_len if norm_by_times else g
        return grad.astype(logits.dtype), loss.astype(logits.dtype)

    @staticmethod
    def backward(logits, logits_length, grad, dloss, blank=0, norm_by_times=False):
        dlogits = (grad * dloss.reshape(1, -1, 1)).astype(grad.dtype)
        if logits.ndim == 2:          # back to the packed rows
            steps = np.arange(dlogits.shape[0])[:, None] < _flat(logits_length)[None, :]
            dlogits = dlogits.transpose(1, 0, 2)[steps.T]
        return dlogits

    def samples(self, rng):
        yield Sample({"Logits": rand(rng, 6, 3, 4, low=-2, high=2),
                      "Label": np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]], "int32"),
                      "LogitsLength": np.array([6, 5, 3], "int64"),
                      "LabelLength": np.array([3, 2, 1], "int64")}, name="padded")
        yield Sample({"Logits": rand(rng, 4, 2, 3), "Label": np.array([[1, 1], [2, 0]], "int32"),
                      "LogitsLength": np.array([4, 4], "int64"),
                      "LabelLength": np.array([2, 1], "int64")}, {"blank": 0},
                     name="repeat")
