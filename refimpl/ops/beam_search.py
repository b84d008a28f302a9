"""Paddle 1.8's beam search step and backtracking ops (forward only; specs/fluid_rnn.md),
in Paddle's LoD convention when the inputs carry a LoD, else in refimpl's padded one.

LoD (Paddle's): scores [N, K] carries the beams in its LoD, level `level` grouping the N
rows (prefixes) by source sentence. Per source, candidates are offered as below and kept
in a top-beam_size list (Paddle's insertion order: a later candidate with an equal score
ranks above an earlier row's, below the same row's); the selected candidates are listed by
parent row, each row's in rank order. A source whose every selected candidate is end_id
from a finished row is pruned (its rows select nothing). Outputs: selected_ids /
selected_scores [M, 1] with LoD [sources -> prefixes (scores' level `level`), prefixes ->
selected], parent_idx [M] the parent row of each. beam_search_decode then takes the steps'
selected ids and scores as tensor arrays and backtracks each source's prefixes from the
last step, dropping an end_id repeated after the first one seen from the end; the result
is 1-D with LoD [sources -> sentences, sentences -> words], each source's sentences sorted
by their last score (highest first).

Padded (refimpl's, inputs without LoD): beam_search: the N = batch * beam_size rows of
pre_ids / pre_scores / ids / scores are the beams, beam_size consecutive rows per batch
entry. A row whose pre_id is end_id is finished and offers one candidate (end_id, its
pre_score); any other row offers its K candidates (ids[i, k], or k when ids is absent) with
score scores[i, k] (is_accumulated) or pre_score + log(scores[i, k]). Each batch entry
keeps its beam_size best candidates (ties: the earlier row, then the earlier column),
listed by parent row, then score; parent_idx is the flat row each came from.
beam_search_decode: per-step selected ids, scores and parent rows stacked as [T, N];
backtracks each final beam to its sentence [T] (cut after the first end_id, padded with
end_id and score 0), the beams of each batch entry sorted by final score."""
import numpy as np

from ._sequence import segments
from .registry import LoDRule, OpDef, Sample, register


def _steps_by_rows(x):
    """[T, N] or [T, N, 1] -> [T, N]."""
    return x.reshape(x.shape[0], -1)


def _selected_lod(lods, values, attrs):
    """[sources -> prefixes (scores' LoD at `level` in rows), prefixes -> selected]."""
    if values.get("SelectedLength") is None:
        return ()
    return tuple(tuple(int(n) for n in values[k]) for k in ("SourceRows", "SelectedLength"))


def _selected_level(levels):
    return 2 if (levels.get("scores") or [0])[0] else 0


@register
class BeamSearch(OpDef):
    type = "beam_search"
    inputs = ("pre_ids", "pre_scores", "ids?", "scores", "SourceLength?", "RowLength?")
    outputs = ("selected_ids", "selected_scores", "parent_idx", "SourceRows",
               "SelectedLength")
    attrs = {"level": 0, "beam_size": 1, "end_id": 0, "is_accumulated": True}
    lod_lengths = {"SourceLength": "scores:level", "RowLength": "scores"}
    lod_outputs = {slot: LoDRule(_selected_lod, _selected_level,
                                 reads=("SourceRows", "SelectedLength"))
                   for slot in ("selected_ids", "selected_scores")}

    def infer_shape(self, ctx):
        beam = ctx.attr("beam_size")
        ctx.expect(beam >= 1, "beam_size must be >= 1, got %r" % (beam,))
        ctx.check_dtype("pre_ids", ("int32", "int64"))
        scores = ctx.input_var("scores")
        ctx.expect(len(scores.shape) == 2, "scores %r must be [N, K] (one row per beam), "
                   "got %s" % (scores.name, list(scores.shape)))
        rows = scores.shape[0]
        for slot in ("pre_ids", "pre_scores"):
            v = ctx.input_var(slot)
            # one value per beam, in any shape: Paddle reads them flat ([N, 1] as the
            # layer makes them; Paddle 1.8's own test passes [1, N])
            count = int(np.prod(v.shape)) if all(d >= 0 for d in v.shape) else -1
            ctx.expect(count < 0 or rows < 0 or count == rows,
                       "%s %r %s holds %d values, but scores %r has %d rows (one per beam)"
                       % (slot, v.name, list(v.shape), count, scores.name, rows))
        if ctx.has_input("ids"):
            ids = ctx.input_var("ids")
            ctx.check_dtype("ids", ("int32", "int64"))
            ctx.expect(tuple(ids.shape) == tuple(scores.shape),
                       "ids %r %s must have scores %r's shape %s" % (
                           ids.name, list(ids.shape), scores.name, list(scores.shape)))
        if not scores.lod_level:     # the padded convention: beam_size rows per entry
            ctx.expect(rows < 0 or rows % beam == 0,
                       "the %d rows of scores %r must be batch * beam_size (beam_size=%d)"
                       % (rows, scores.name, beam))
        rows = -1      # with a LoD (known at run time) the selected candidates' count
        ctx.set_output("selected_ids", [rows, 1], "int64")
        ctx.set_output("selected_scores", [rows, 1], scores.dtype)
        ctx.set_output("parent_idx", [rows], "int32")

    @staticmethod
    def forward(pre_ids, pre_scores, ids, scores, source_length, row_length, level=0,
                beam_size=1, end_id=0, is_accumulated=True):
        pre_ids, pre_scores = pre_ids.reshape(-1), pre_scores.reshape(-1)
        if ids is None:
            ids = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
        if source_length is not None:
            source_rows = _rows_per_source(source_length, row_length, len(scores))
            return _beam_search_lod(pre_ids, pre_scores, ids, scores, source_rows,
                                    beam_size, end_id, is_accumulated)
        return _beam_search_padded(pre_ids, pre_scores, ids, scores, beam_size, end_id,
                                   is_accumulated) + (None, None)

    def samples(self, rng):
        beam, rows, k = 2, 6, 3
        pre_ids = rng.randint(1, 5, (rows, 1)).astype("int64")
        pre_ids[1, 0] = 0                                        # one finished beam
        pre_scores = rng.uniform(-2, 0, (rows, 1)).astype("float32")
        yield Sample({"pre_ids": pre_ids, "pre_scores": pre_scores,
                      "ids": rng.randint(0, 9, (rows, k)).astype("int64"),
                      "scores": rng.uniform(-4, 0, (rows, k)).astype("float32"),
                      "SourceLength": np.array([2, 1, 3], np.int64)},
                     {"beam_size": beam, "end_id": 0, "level": 0}, grad=False,
                     name="accumulated")
        yield Sample({"pre_ids": pre_ids, "pre_scores": pre_scores,
                      "scores": rng.uniform(0.05, 1, (rows, 5)).astype("float32"),
                      "SourceLength": np.array([3, 3], np.int64)},
                     {"beam_size": beam, "end_id": 0, "level": 0, "is_accumulated": False},
                     grad=False, name="probabilities, no ids")
        finished = np.array([[0], [0], [3], [0]], np.int64)     # source 0 has ended
        yield Sample({"pre_ids": finished, "pre_scores": pre_scores[:4],
                      "ids": rng.randint(1, 9, (4, k)).astype("int64"),
                      "scores": rng.uniform(-4, 0, (4, k)).astype("float32"),
                      "SourceLength": np.array([2, 2], np.int64)},
                     {"beam_size": beam, "end_id": 0, "level": 0}, grad=False,
                     name="pruned source")
        yield Sample({"pre_ids": pre_ids, "pre_scores": pre_scores,
                      "ids": rng.randint(0, 9, (rows, k)).astype("int64"),
                      "scores": rng.uniform(-4, 0, (rows, k)).astype("float32")},
                     {"beam_size": beam, "end_id": 0, "level": 0}, grad=False, name="padded")


def _candidates(row, pre_ids, pre_scores, ids, scores, end_id, is_accumulated):
    """(score, id) offered by one beam: a finished one offers end_id at its score."""
    if pre_ids[row] == end_id:
        return [(pre_scores[row], end_id)]
    if is_accumulated:
        row_scores = scores[row]
    else:
        with np.errstate(divide="ignore"):
            row_scores = pre_scores[row] + np.log(scores[row])
    return list(zip(row_scores, ids[row].tolist()))


def _insert(top, item, beam_size):
    """Paddle's top-beam insertion: item = (score, row, id); a lower score, or an equal
    score from an earlier row, ranks below."""
    def below(a, b):
        return a[0] < b[0] or (a[0] == b[0] and a[1] < b[1])
    if len(top) < beam_size:
        top.append(None)
    elif below(item, top[-1]):
        return
    k = len(top) - 2
    while k >= 0 and below(top[k], item):
        top[k + 1] = top[k]
        k -= 1
    top[k + 1] = item


def _rows_per_source(source_length, row_length, rows):
    """Rows of scores per source (Paddle's absolute offsets of the `level` LoD level): the
    lengths themselves when they count rows, else the sums of the last level's lengths
    they group."""
    source_length = np.asarray(source_length, np.int64)
    if int(source_length.sum()) != rows and int(source_length.sum()) == len(row_length):
        ends = np.cumsum(np.asarray(row_length, np.int64))
        at = np.concatenate([[0], ends])[np.concatenate([[0], np.cumsum(source_length)])]
        source_length = np.diff(at)
    if int(source_length.sum()) != rows:
        raise ValueError("beam_search: scores' LoD at `level` covers %d rows, scores has %d"
                         % (int(source_length.sum()), rows))
    return source_length


def _beam_search_lod(pre_ids, pre_scores, ids, scores, source_rows, beam_size, end_id,
                     is_accumulated):
    rows = len(scores)
    by_row = [[] for _ in range(rows)]
    for start, end in segments(source_rows):
        top = []
        for row in range(start, end):
            for score, cand in _candidates(row, pre_ids, pre_scores, ids, scores, end_id,
                                           is_accumulated):
                _insert(top, (score, row, cand), beam_size)
        for score, row, cand in top:
            by_row[row].append((cand, score))
        if all(cand == end_id and pre_ids[row] == end_id
               for row in range(start, end) for cand, _ in by_row[row]):
            for row in range(start, end):      # every beam of this source has ended
                by_row[row] = []
    picked = [(row, cand, score) for row in range(rows) for cand, score in by_row[row]]
    return (np.array([c for _, c, _ in picked], np.int64).reshape(-1, 1),
            np.array([s for _, _, s in picked], scores.dtype).reshape(-1, 1),
            np.array([r for r, _, _ in picked], np.int32), source_rows,
            np.array([len(b) for b in by_row], np.int64))


def _beam_search_padded(pre_ids, pre_scores, ids, scores, beam_size, end_id, is_accumulated):
    rows, width = scores.shape
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


def _sentences_lod(lods, values, attrs):
    """[sources -> sentences, sentences -> words] (LoD mode only)."""
    if values.get("SentenceLength") is None:
        return ()
    return tuple(tuple(int(n) for n in values[k]) for k in ("SourceSentences",
                                                            "SentenceLength"))


@register
class BeamSearchDecode(OpDef):
    type = "beam_search_decode"
    inputs = ("Ids", "Scores", "ParentIdx?", "SourceLength?", "PrefixLength?")
    outputs = ("SentenceIds", "SentenceScores", "SourceSentences", "SentenceLength")
    attrs = {"beam_size": 1, "end_id": 0}
    lod_lengths = {"SourceLength": "Ids:0", "PrefixLength": "Ids:1"}
    lod_outputs = {slot: LoDRule(_sentences_lod, lambda levels: 2,
                                 reads=("SourceSentences", "SentenceLength"))
                   for slot in ("SentenceIds", "SentenceScores")}

    def infer_shape(self, ctx):
        ids = ctx.input_var("Ids")
        if ids.type == "LOD_TENSOR_ARRAY":    # Paddle's convention: the steps' LoD
            ctx.set_output("SentenceIds", [-1], "int64")
            ctx.set_output("SentenceScores", [-1], ctx.input_var("Scores").dtype)
            return
        ctx.expect(ctx.has_input("ParentIdx"), "without tensor arrays of LoD steps, give "
                   "ParentIdx (the steps' parent rows, [T, N])")
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
    def forward(ids, scores, parent_idx, source_length, prefix_length, beam_size=1,
                end_id=0):
        if source_length is not None:
            return _decode_lod(ids, scores, source_length, prefix_length, end_id)
        return _decode_padded(ids, scores, parent_idx, beam_size, end_id) + (None, None)

    def samples(self, rng):
        steps, beam, rows = 3, 2, 4
        yield Sample({"Ids": rng.randint(0, 5, (steps, rows)).astype("int64"),
                      "Scores": rng.uniform(-3, 0, (steps, rows)).astype("float32"),
                      "ParentIdx": np.array([[0, 0, 2, 2], [1, 0, 3, 2], [0, 0, 2, 3]],
                                            "int32")},
                     {"beam_size": beam, "end_id": 0}, grad=False)


def _decode_lod(step_ids, step_scores, source_lengths, prefix_lengths, end_id):
    """Paddle's backtrace over the steps' 2-level LoD (see the module doc)."""
    if not len(step_ids):
        raise ValueError("beam_search_decode: Ids holds no steps")
    sources = len(source_lengths[0])
    sentences = [[] for _ in range(sources)]     # per source: (words, scores), last first
    prefixes = [[] for _ in range(sources)]      # per source: each sentence's row a step back
    for t in range(len(step_ids) - 1, -1, -1):
        ids, scores = step_ids[t].reshape(-1), step_scores[t].reshape(-1)
        source_at = np.concatenate([[0], np.cumsum(source_lengths[t])])
        candidate_at = np.concatenate([[0], np.cumsum(prefix_lengths[t])])
        for src in range(sources):
            first, last = int(source_at[src]), int(source_at[src + 1])
            if not prefixes[src]:        # ended (or pruned) here: its candidates start
                for prefix in range(first, last):
                    for c in range(int(candidate_at[prefix]), int(candidate_at[prefix + 1])):
                        prefixes[src].append(c)
                        sentences[src].append(([], []))
            for k, c in enumerate(prefixes[src]):
                words, word_scores = sentences[src][k]
                if ids[c] != end_id or not words:      # one end_id, however many steps
                    words.append(int(ids[c]))
                    word_scores.append(scores[c])
                prefixes[src][k] = first + int(np.searchsorted(
                    candidate_at[first + 1:last + 1], c, side="right"))
    out_ids, out_scores, per_source, lengths = [], [], [], []
    for src_sentences in sentences:
        ranked = sorted(src_sentences, key=lambda s: -s[1][0])     # by the last score
        for words, word_scores in ranked:
            out_ids += words[::-1]
            out_scores += word_scores[::-1]
            lengths.append(len(words))
        per_source.append(len(ranked))
    dtype = step_scores[0].dtype
    return (np.array(out_ids, np.int64), np.array(out_scores, dtype),
            np.array(per_source, np.int64), np.array(lengths, np.int64))


def _decode_padded(ids, scores, parent_idx, beam_size, end_id):
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
