"""Matching priors to ground truth: bipartite_match (greedy global best-first matching of
the columns of a distance matrix to its rows, optionally topped up per column) and
target_assign (gathering each matched row's target). Forward-only, as in Paddle."""
import numpy as np

from ._common import FLOATS
from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, register

MATCH_TYPES = ("bipartite", "per_prediction")
EPS = 1e-6


def bipartite(dist):
    """(match [M] row per column or -1, match_dist [M]): repeatedly the largest positive
    entry whose row and column are both unmatched (ties: the earlier row-major entry)."""
    rows, cols = dist.shape
    match = np.full(cols, -1, np.int64)
    match_dist = np.zeros(cols, dist.dtype)
    row_used = np.zeros(rows, bool)
    for k in np.argsort(-dist, axis=None, kind="stable"):
        i, j = divmod(int(k), cols)
        if row_used.all() or dist[i, j] <= 0:
            break
        if match[j] == -1 and not row_used[i]:
            match[j], match_dist[j], row_used[i] = i, dist[i, j], True
    return match, match_dist


def per_prediction(dist, match, match_dist, threshold):
    """Every still unmatched column takes its best row if that distance >= threshold."""
    for j in np.flatnonzero(match == -1):
        column = np.where(dist[:, j] >= EPS, dist[:, j], -1.0)
        i = int(column.argmax()) if len(column) else -1
        if i >= 0 and column[i] >= threshold:
            match[j], match_dist[j] = i, column[i]
    return match, match_dist


@register
class BipartiteMatch(OpDef):
    """DistMat [K, M] (rows: ground truth, columns: priors) is one image, as a tensor
    without LoD is in Paddle; with a LoD, each sequence of rows is one image's (the kernel
    gets their counts as DistMatLength). Outputs are [images, M]: the matched row within
    the image (int32, -1 for none) and its distance."""
    type = "bipartite_match"
    inputs = ("DistMat", "DistMatLength?")
    lod_lengths = {"DistMatLength": "DistMat"}
    outputs = ("ColToRowMatchIndices", "ColToRowMatchDist")
    attrs = {"match_type": "bipartite", "dist_threshold": 0.5}

    def infer_shape(self, ctx):
        ctx.check_dtype("DistMat", FLOATS)
        dist = ctx.input_var("DistMat")
        ctx.expect(len(dist.shape) == 2, "DistMat %r must be 2-D [K, M], got %s"
                   % (dist.name, list(dist.shape)))
        ctx.expect(ctx.attr("match_type") in MATCH_TYPES, "match_type must be one of %s, "
                   "got %r" % (list(MATCH_TYPES), ctx.attr("match_type")))
        images = -1 if dist.lod_level else 1
        ctx.set_output("ColToRowMatchIndices", (images, dist.shape[1]), "int32")
        ctx.set_output("ColToRowMatchDist", (images, dist.shape[1]), dist.dtype)

    @staticmethod
    def forward(dist, lengths=None, match_type="bipartite", dist_threshold=0.5):
        spans = [(0, len(dist))] if lengths is None else \
            segments(lengths_of(lengths, len(dist), "bipartite_match", "DistMatLength"))
        matches, distances = [], []
        for start, end in spans:
            image = dist[start:end]
            match, match_dist = bipartite(image)
            if match_type == "per_prediction":
                match, match_dist = per_prediction(image, match, match_dist, dist_threshold)
            matches.append(match.astype(np.int32))
            distances.append(match_dist)
        return np.stack(matches), np.stack(distances)

    def samples(self, rng):
        dist = rng.permutation(12).reshape(3, 4) / 12.0
        yield Sample({"DistMat": dist})
        yield Sample({"DistMat": rng.permutation(15).reshape(3, 5) / 15.0},
                     {"match_type": "per_prediction", "dist_threshold": 0.3},
                     name="per_prediction")


@register
class TargetAssign(OpDef):
    """Out[i, j] = X[offset_i + MatchIndices[i, j], j % P] ([N, M, K] from X [G, P, K]),
    OutWeight[i, j] = 1; unmatched (-1) entries get mismatch_value and weight 0.
    offset_i: the first of image i's rows of X, from the optional int32 XNum [N] (rows of
    X per image, from X's LoD as in Paddle 1.8, or given); without it every image reads X
    from row 0. NegIndices [total, 1] (optional, one LoD sequence per image, e.g.
    mine_hard_examples' hard negatives): those priors of image i get weight 1 (their Out
    stays mismatch_value)."""
    type = "target_assign"
    inputs = ("X", "MatchIndices", "NegIndices?", "XNum?", "NegNum?")
    lod_lengths = {"XNum": "X", "NegNum": "NegIndices"}
    outputs = ("Out", "OutWeight")
    attrs = {"mismatch_value": 0}

    def infer_shape(self, ctx):
        x, match = ctx.input_var("X"), ctx.input_var("MatchIndices")
        ctx.expect(len(x.shape) == 3, "X %r must be 3-D [G, P, K], got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(len(match.shape) == 2, "MatchIndices %r must be 2-D [N, M], got %s"
                   % (match.name, list(match.shape)))
        ctx.set_output("Out", (match.shape[0], match.shape[1], x.shape[2]), x.dtype)
        ctx.set_output("OutWeight", (match.shape[0], match.shape[1], 1), "float32")

    @staticmethod
    def forward(x, match, neg_indices=None, x_num=None, neg_num=None, mismatch_value=0):
        n, m = match.shape
        offsets = np.zeros(n, np.int64) if x_num is None else \
            np.concatenate([[0], np.cumsum(x_num)[:-1]]).astype(np.int64)
        matched = match >= 0
        rows = offsets[:, None] + np.where(matched, match, 0)
        cols = np.broadcast_to(np.arange(m) % x.shape[1], (n, m))
        out = np.where(matched[..., None], x[rows, cols], mismatch_value).astype(x.dtype)
        weight = matched[..., None].astype(np.float32)
        if neg_indices is not None:
            if neg_num is None:
                raise ValueError("target_assign: NegIndices needs a LoD (one sequence of "
                                 "negative prior indices per image)")
            counts = lengths_of(neg_num, len(neg_indices), "target_assign", "NegIndices")
            if len(counts) != n:
                raise ValueError("target_assign: NegIndices holds %d images' negatives, "
                                 "MatchIndices %d images" % (len(counts), n))
            image = np.repeat(np.arange(len(counts)), counts)
            weight[image, neg_indices.reshape(-1), 0] = 1.0
        return out, weight

    def samples(self, rng):
        x = rng.uniform(-1, 1, (5, 4, 2))
        match = np.array([[0, -1, 1, 2], [-1, 1, 0, -1]], np.int32)
        yield Sample({"X": x, "MatchIndices": match, "XNum": np.array([3, 2], np.int32)},
                     {"mismatch_value": -1})
        yield Sample({"X": x[:, :1], "MatchIndices": match}, name="shared_rows")
        yield Sample({"X": x, "MatchIndices": match, "XNum": np.array([3, 2], np.int32),
                      "NegIndices": np.array([[1], [3], [0]], np.int32),
                      "NegNum": np.array([1, 2], np.int64)}, name="negatives")
