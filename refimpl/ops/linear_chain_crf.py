"""linear_chain_crf: the negative log-likelihood of each label sequence under a linear-chain
CRF (Paddle names the output LogLikelihood; it is the cost to minimise).

Emission [total, T] packed rows (or Paddle's padded [batch, max_len, T]); Transition
[T + 2, T]: row 0 the start weights, row 1 the end weights, rows 2.. the weight of tag j
following tag i at [2 + i, j]; Label [total, 1] (or [batch, max_len(, 1)]) int64; Length
the sequence lengths in both layouts. For a sequence x with labels y:
    score(y) = start[y0] + sum_k x[k, yk] + sum_k trans[y(k-1), yk] + end[y(n-1)]
    LogLikelihood = logsumexp over all paths of score - score(labels)   ([batch, 1])
As Paddle's outputs: Alpha [total, T] holds each step's forward probabilities, each row
normalized to sum 1; EmissionExps exp(x - the row's max), TransitionExps exp(Transition).
An empty sequence costs 0."""
import numpy as np

from ._common import FLOATS, rand
from ._sequence import INTS, lengths_of, segments
from .registry import OpDef, Sample, register


def _logsumexp(a, axis):
    top = a.max(axis=axis, keepdims=True)
    return (top + np.log(np.exp(a - top).sum(axis=axis, keepdims=True))).squeeze(axis)


def _packed(emission, label, length):
    """(emission rows, labels, [(start, end)]) in the packed layout."""
    if emission.ndim == 3:
        lens = lengths_of(length, None, "linear_chain_crf", "Length")
        keep = np.arange(emission.shape[1])[None, :] < lens[:, None]
        return emission[keep], label.reshape(label.shape[0], -1)[keep], segments(lens), keep
    lens = lengths_of(length, len(emission), "linear_chain_crf", "Length")
    return emission, label.reshape(-1), segments(lens), None


def _sequence_terms(x, y, trans):
    """(log alpha [n, T], log Z, score of labels y, log beta [n, T]) of one sequence."""
    start, end, pair = trans[0], trans[1], trans[2:]
    alpha = np.zeros_like(x)
    alpha[0] = start + x[0]
    for k in range(1, len(x)):
        alpha[k] = x[k] + _logsumexp(alpha[k - 1][:, None] + pair, axis=0)
    beta = np.zeros_like(x)
    beta[-1] = end
    for k in range(len(x) - 2, -1, -1):
        beta[k] = _logsumexp(pair + (x[k + 1] + beta[k + 1])[None, :], axis=1)
    log_z = _logsumexp(alpha[-1] + end, axis=0)
    score = start[y[0]] + end[y[-1]] + x[np.arange(len(y)), y].sum() + pair[y[:-1], y[1:]].sum()
    return alpha, log_z, score, beta


@register
class LinearChainCRF(OpDef):
    type = "linear_chain_crf"
    inputs = ("Emission", "Transition", "Label", "Length")
    outputs = ("Alpha", "EmissionExps", "TransitionExps", "LogLikelihood")
    no_grad = ("Label", "Length")
    grad_inputs = ("Emission", "Transition", "Label", "Length", "LogLikelihood@GRAD")
    lod_lengths = {"Length": "Emission"}
    lod_alike = {"Label": "Emission"}

    def infer_shape(self, ctx):
        emission, trans = ctx.input_var("Emission"), ctx.input_var("Transition")
        ctx.check_dtype("Emission", FLOATS)
        ctx.check_dtype("Label", INTS)
        ctx.check_dtype("Length", INTS)
        tags = emission.shape[-1]
        ctx.expect(len(emission.shape) in (2, 3), "input Emission %r: expected [total, tags] "
                   "or [batch, max_len, tags], got %s" % (emission.name, list(emission.shape)))
        ctx.expect(tags < 0 or tuple(trans.shape) == (tags + 2, tags),
                   "input Transition %r: expected [tags + 2, tags] = [%d, %d], got %s"
                   % (trans.name, tags + 2, tags, list(trans.shape)))
        ctx.set_output("Alpha", emission.shape, emission.dtype)
        ctx.set_output("EmissionExps", emission.shape, emission.dtype)
        ctx.set_output("TransitionExps", trans.shape, trans.dtype)
        ctx.set_output("LogLikelihood", (-1, 1), emission.dtype)

    @staticmethod
    def forward(emission, transition, label, length):
        x, y, spans, keep = _packed(emission, label, length)
        if len(y) != len(x):
            raise ValueError("linear_chain_crf: Label has %d labels for %d emission rows"
                             % (len(y), len(x)))
        if len(y) and (y.min() < 0 or y.max() >= x.shape[1]):
            raise ValueError("linear_chain_crf: labels must be in [0, %d), got %s"
                             % (x.shape[1], sorted(set(y.tolist()))))
        alpha = np.zeros_like(x)
        cost = np.zeros((len(spans), 1), x.dtype)
        for n, (s, e) in enumerate(spans):
            if e > s:
                log_alpha, log_z, score, _ = _sequence_terms(x[s:e], y[s:e], transition)
                alpha[s:e] = np.exp(log_alpha - _logsumexp(log_alpha, axis=1)[:, None])
                cost[n] = log_z - score
        if keep is not None:
            alpha = _unpack(alpha, keep, emission.shape)
        emission_exps = np.exp(emission - emission.max(axis=-1, keepdims=True))
        return alpha, emission_exps, np.exp(transition), cost

    @staticmethod
    def backward(emission, transition, label, length, dcost):
        x, y, spans, keep = _packed(emission, label, length)
        dx, dtrans = np.zeros_like(x), np.zeros_like(transition)
        pair = transition[2:]
        for n, (s, e) in enumerate(spans):
            if e == s:
                continue
            xs, ys, g = x[s:e], y[s:e], dcost.reshape(-1)[n]
            alpha, log_z, _, beta = _sequence_terms(xs, ys, transition)
            # d cost = expected counts under the CRF minus the label path's counts
            marginal = np.exp(alpha + beta - log_z)
            dx[s:e] = g * marginal
            dx[np.arange(s, e), ys] -= g
            dtrans[0] += g * marginal[0]
            dtrans[0, ys[0]] -= g
            dtrans[1] += g * marginal[-1]
            dtrans[1, ys[-1]] -= g
            if e - s > 1:
                pairs = np.exp(alpha[:-1, :, None] + pair[None] + (xs[1:] + beta[1:])[:, None, :]
                               - log_z)
                dtrans[2:] += g * pairs.sum(0)
                np.add.at(dtrans[2:], (ys[:-1], ys[1:]), -g)
        if keep is not None:
            dx = _unpack(dx, keep, emission.shape)
        return dx, dtrans

    def samples(self, rng):
        lens = np.array([3, 1, 0, 2], np.int64)
        yield Sample({"Emission": rand(rng, 6, 3), "Transition": rand(rng, 5, 3),
                      "Label": rng.randint(0, 3, (6, 1)).astype(np.int64), "Length": lens})
        yield Sample({"Emission": rand(rng, 2, 3, 4), "Transition": rand(rng, 6, 4),
                      "Label": rng.randint(0, 4, (2, 3, 1)).astype(np.int64),
                      "Length": np.array([2, 3], np.int64)})


def _unpack(rows, keep, shape):
    out = np.zeros(shape, rows.dtype)
    out[keep] = rows
    return out
