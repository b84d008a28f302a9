"""Paddle 1.8's beam search step and backtracking ops on refimpl's padded convention
(forward only; specs/fluid_rnn.md).

beam_search: the N = batch * beam_size rows of pre_ids / pre_scores / ids / scores are the
beams, beam_size consecutive rows per batch entry (Paddle groups the rows by the LoD
instead). A row whose pre_id is end_id is finished and offers one candidate (end_id, its
pre_score); any other row offers its K candidates (ids[i, k], or k when ids is absent) with
score scores[i, k] (is_accumulated) or pre_score + log(scores[i, k]). Each batch entry
keeps its beam_size best candidates (ties: the earlier row, then the earlier column),
listed by parent row, then score; parent_idx is the flat row each came from.

beam_search_decode: per-step selected ids, scores and parent rows stacked as [T, N];
backtracks each final beam to its sentence [T] (cut after the first end_id, padded with
end_id and score 0), the beams of each batch entry sorted by final score."""
import numpy as np

from .registry import OpDef, Sample, register


def _steps_by_rows(x):
    """[T, N] or [T, N, 1] -> [T, N]."""
    return x.reshape(x.shape[0], -1)


@register
class BeamSearch(OpDef):
    type = "beam_search"
    inputs = ("pre_ids", "pre_scores", "ids?", "scores")
    outputs = ("selected_ids", "selected_scores", "parent_idx")
    attrs = {"level": 0, "beam_size": 1, "end_id": 0, "is_accumulated": True}

    def infer_shape(self, ctx):
        beam = ctx.attr("beam_size")
        ctx.expect(beam >= 1, "beam_size must be >= 1, got %r" % (beam,))
        ctx.check_dtype("pre_ids", ("int32", "int64"))
        scores = ctx.input_var("scores")
        ctx.expect(len(scores.shape) == 2, "scores %r must be [batch * beam_size, K], got %s"
                   % (scores.name, list(scores.shape)))
        rows = scores.shape[0]
        for slot in ("pre_ids", "pre_scores"):
            v = ctx.input_var(slot)
            ctx.expect(len(v.shape) in (1, 2) and (len(v.shape) == 1 or v.shape[1] == 1),
                       "%s %r must be [N, 1] (one per beam), got %s"
                       % (slot, v.name, list(v.shape)))
            ctx.expect(v.shape[0] < 0 or rows < 0 or v.shape[0] == rows,
                       "%s %r has %d rows, scores %r has %d" % (slot, v.name, v.shape[0],
                                                               scores.name, rows))
        if ctx.has_input("ids"):
            ids = ctx.input_var("ids")
            ctx.check_dtype("ids", ("int32", "int64"))
            ctx.expect(tuple(ids.shape) == tuple(scores.shape),
                       "ids %r %s must have scores %r's shape %s" % (
                           ids.name, list(ids.shape), scores.name, list(scores.shape)))
        ctx.expect(rows < 0 or rows % beam == 0,
                   "the %d rows of scores %r must be batch * beam_size (beam_size=%d)"
                   % (rows, scores.name, beam))
        ctx.set_output("selected_ids", [rows, 1], "int64")
        ctx.set_output("selected_scores", [rows, 1], scores.dtype)
        ctx.set_output("parent_idx", [rows], "int32")

    @staticmethod
    def forward(pre_ids, pre_scores, ids, scores, level=0, beam_size=1, end_id=0,
                is_accumulated=True):
        pre_ids, pre_scores = pre_ids.reshape(-1), pre_scores.reshape(-1)
        rows, width = scores.shape
        if ids is None:
            ids = np.broadcast_to(np.arange(width), scores.shape)
        if is_accumulated:
            cand_scores = scores.astype(np.float64)
        else:
            with np.errstate(divide="ignore"):
                cand_scores = pre_scores[:, None] + np.log(scores.astype(np.float64))
        finished = pre_ids == end_id
        # a finished row's one candidate sits in column 0; its others can't be chosen
        cand_ids = np.where(finished[:, None], end_id, ids).astype(np.int64)
        cand_scores = np.where(finished[:, None], pre_scores[:, None], cand_scores)
        usable = np.ones(scores.shape, bool)
        usable[finished, 1:] = False
        selected_ids = np.empty(rows, np.int64)
        selected_scores = np.empty(rows, scores.dtype)
        parents = np.empty(rows, np.int32)
        for start in range(0, rows, beam_size):
            block = slice(start, start + beam_size)
            flat = np.flatnonzero(usable[block])     # row-major: earlier row, then column
            order = np.argsort(-cand_scores[block].reshape(-1)[flat], kind="stable")
            best = flat[order[:beam_size]]
            best = best[np.lexsort((np.arange(len(best)), best // width))]  # by parent row
            local_rows, cols = best // width, best % width
            selected_ids[block] = cand_ids[block][local_rows, cols]
            selected_scores[block] = cand_scores[block][local_rows, cols]
            parents[block] = start + local_rows
        return selected_ids[:, None], selected_scores[:, None], parents

    def samples(self, rng):
        beam, rows, k = 2, 6, 3
        pre_ids = rng.randint(1, 5, (rows, 1)).astype("int64")
        pre_ids[1, 0] = 0                                        # one finished beam
        pre_scores = rng.uniform(-2, 0, (rows, 1)).astype("float32")
        yield Sample({"pre_ids": pre_ids, "pre_scores": pre_scores,
                      "ids": rng.randint(0, 9, (rows, k)).astype("int64"),
                      "scores": rng.uniform(-4, 0, (rows, k)).astype("float32")},
                     {"beam_size": beam, "end_id": 0}, grad=False, name="accumulated")
        yield Sample({"pre_ids": pre_ids, "pre_scores": pre_scores,
                      "scores": rng.uniform(0.05, 1, (rows, 5)).astype("float32")},
                     {"beam_size": beam, "end_id": 0, "is_accumulated": False}, grad=False,
                     name="probabilities, no ids")


@register
class BeamSearchDecode(OpDef):
    type = "beam_search_decode"
    inputs = ("Ids", "Scores", "ParentIdx")
    outputs = ("SentenceIds", "SentenceScores")
    attrs = {"beam_size": 1, "end_id": 0}

    def infer_shape(self, ctx):
        ids = ctx.input_var("Ids")
        ctx.check_dtype("Ids", ("int32", "int64"))
        ctx.check_dtype("ParentIdx", ("int32", "int64"))
        ctx.expect(len(ids.shape) in (2, 3) and (len(ids.shape) == 2 or ids.shape[2] == 1),
                   "Ids %r must be the stacked steps [T, N] (or [T, N, 1]), got %s"
                   % (ids.name, list(ids.shape)))
        for slot in ("Scores", "ParentIdx"):
            v = ctx.input_var(slot)
            ctx.expect(tuple(v.shape[:2]) == tuple(ids.shape[:2]),
                       "%s %r %s must have Ids %r's [T, N] %s" % (
                           slot, v.name, list(v.shape), ids.name, list(ids.shape[:2])))
        beam, rows = ctx.attr("beam_size"), ids.shape[1]
        ctx.expect(beam >= 1 and (rows < 0 or rows % beam == 0),
                   "N=%d rows of Ids %r must be batch * beam_size (beam_size=%r)"
                   % (rows, ids.name, beam))
        steps = ids.shape[0]
        ctx.set_output("SentenceIds", [rows, steps], "int64")
        ctx.set_output("SentenceScores", [rows, steps], ctx.input_var("Scores").dtype)

    @staticmethod
    def forward(ids, scores, parent_idx, beam_size=1, end_id=0):
        ids, scores, parents = (_steps_by_rows(a) for a in (ids, scores, parent_idx))
        steps, rows = ids.shape
        sentence_ids = np.empty((rows, steps), np.int64)
        sentence_scores = np.empty((rows, steps), scores.dtype)
        row = np.arange(rows)
        for t in range(steps - 1, -1, -1):
            sentence_ids[:, t] = ids[t, row]
            sentence_scores[:, t] = scores[t, row]
            row = parents[t, row]
        ended = np.cumsum(sentence_ids == end_id, axis=1)
        past_end = (ended - (sentence_ids == end_id)) > 0     # after the first end_id
        sentence_ids[past_end] = end_id
        sentence_scores[past_end] = 0
        final = scores[steps - 1] if steps else np.zeros(rows, scores.dtype)
        for start in range(0, rows, beam_size):
            block = slice(start, start + beam_size)
            order = np.argsort(-final[block], kind="stable")
            sentence_ids[block] = sentence_ids[block][order]
            sentence_scores[block] = sentence_scores[block][order]
        return sentence_ids, sentence_scores

    def samples(self, rng):
        steps, beam, rows = 3, 2, 4
        yield Sample({"Ids": rng.randint(0, 5, (steps, rows)).astype("int64"),
                      "Scores": rng.uniform(-3, 0, (steps, rows)).astype("float32"),
                      "ParentIdx": np.array([[0, 0, 2, 2], [1, 0, 3, 2], [0, 0, 2, 3]],
                                            "int32")},
                     {"beam_size": beam, "end_id": 0}, grad=False)
