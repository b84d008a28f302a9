"""Per-class non-maximum suppression over a batch of images: multiclass_nms (greedy NMS
with an adaptive threshold; multiclass_nms2 adds Index) and matrix_nms (soft decay of
scores, SOLOv2).

Inputs: BBoxes [N, M, 4] shared by all classes with Scores [N, C, M]; or, for
multiclass_nms, per-class boxes BBoxes [M, C, 4] with Scores [M, C], the images' rows
told by BBoxes' LoD as in Paddle (or a RoisNum [N] variable, refimpl's; neither: one
image). Out [No, 6] rows are (label, score, x1, y1, x2, y2), image after image; as in
Paddle, Out (and multiclass_nms2's Index) carry one LoD level of the per-image row counts,
which the kernel returns as NmsRoisNum [N] int32 (bound only by refimpl's
return_rois_num; Paddle's multiclass_nms / multiclass_nms2 have no such output;
matrix_nms: RoisNum, as in Paddle 2.x, and no LoD). Index [No, 1] int32: the row's box in
the flattened input: image * M + box for 3-D BBoxes, and row * C + label for per-class
boxes. No is unknown at build time (-1). No gradient.

Row order: by label, then best score first (3-D BBoxes) or lowest row first (per-class
boxes), as Paddle orders them; matrix_nms: by decayed score across labels.

Ties in score keep the lower box index (then the lower label) first: Paddle's C++ sorts
are not all stable, so its order among exactly equal scores may differ."""
import numpy as np

from .. import versions
from ._boxes import empty_rows, nms_overlap, random_boxes, roi_image_index
from ._common import FLOATS
from .registry import LoDRule, OpDef, Sample, lengths_lod, register


def ranked_candidates(scores, threshold, top_k):
    """Indices of scores above `threshold`, best first (stable), at most top_k (-1: all)."""
    idx = np.flatnonzero(scores > threshold)
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return idx if top_k < 0 else idx[:top_k]


def greedy_nms(boxes, scores, score_threshold, top_k, nms_threshold, eta, normalized):
    """Kept indices, best first: a candidate survives if its IoU with every kept box is
    <= the threshold, which shrinks by `eta` after each survivor while it is above 0.5."""
    candidates = ranked_candidates(scores, score_threshold, top_k)
    iou = nms_overlap(boxes[candidates], boxes[candidates], normalized)
    threshold, kept = nms_threshold, []
    for i in range(len(candidates)):
        if all(iou[i, k] <= threshold for k in kept):
            kept.append(i)
            if eta < 1.0 and threshold > 0.5:
                threshold *= eta
    return candidates[kept]


def keep_best(scores, keep_top_k):
    """Positions of the keep_top_k best detections (all when keep_top_k < 0)."""
    order = np.argsort(-scores, kind="stable")
    return order if keep_top_k < 0 else order[:keep_top_k]


def split_images(bboxes, scores, rois_num):
    """[(boxes, scores [C, M_i], index offset)] per image (copies, which locality-aware
    NMS updates in place); boxes are [M_i, 4] shared by the classes (3-D BBoxes) or
    [C, M_i, 4] per class."""
    if scores.ndim == 3:
        m = bboxes.shape[1]
        return [(bboxes[i].copy(), scores[i].copy(), i * m) for i in range(len(bboxes))]
    n_images = 1 if rois_num is None else len(rois_num)
    image = roi_image_index(len(bboxes), rois_num, n_images)
    starts = np.searchsorted(image, np.arange(n_images))
    return [(bboxes[image == i].transpose(1, 0, 2), scores[image == i].T, starts[i])
            for i in range(n_images)]


def boxes_of(boxes, labels, kept):
    """The boxes of (label, index) pairs, from shared [M, 4] or per-class [C, M, 4] boxes."""
    return boxes[kept] if boxes.ndim == 2 else boxes[labels, kept]


def check_nms_inputs(ctx, per_class_allowed, polygons=False):
    """polygons: BBoxes' last dim may also be 8 to 32 (even), corners of polygons."""
    ctx.check_dtype("BBoxes", FLOATS)
    boxes, scores = ctx.input_var("BBoxes"), ctx.input_var("Scores")
    b, s = list(boxes.shape), list(scores.shape)
    if len(s) == 3:
        widths = "4, 8, 10, ..., 32" if polygons else "4"
        ctx.expect(len(b) == 3 and (b[2] in (4, -1) or
                                    (polygons and 8 <= b[2] <= 32 and b[2] % 2 == 0)),
                   "BBoxes %r must be [N, M, %s] for 3-D Scores, got %s"
                   % (boxes.name, widths, b))
        ctx.expect(all(x < 0 or y < 0 or x == y for x, y in ((b[0], s[0]), (b[1], s[2]))),
                   "BBoxes %r %s and Scores %r %s must be [N, M, 4] and [N, C, M]"
                   % (boxes.name, b, scores.name, s))
        return
    ctx.expect(per_class_allowed and len(s) == 2,
               "Scores %r must be [N, C, M]%s, got %s"
               % (scores.name, " or [M, C] (with BBoxes [M, C, 4])" if per_class_allowed
                  else "", s))
    ctx.expect(len(b) == 3 and b[2] in (4, -1) and
               all(x < 0 or y < 0 or x == y for x, y in zip(b[:2], s)),
               "BBoxes %r must be [M, C, 4] for Scores %r %s, got %s"
               % (boxes.name, scores.name, s, b))


def set_nms_outputs(ctx, dtype, index_slot, count_slot, out_width=6):
    ctx.set_output("Out", (-1, out_width), dtype)
    if ctx.has_output(index_slot):
        ctx.set_output(index_slot, (-1, 1), "int32")
    if ctx.has_output(count_slot):
        n = ctx.input_var("BBoxes").shape[0] if len(ctx.input_var("Scores").shape) == 3 \
            else (ctx.input_var("RoisNum").shape[0] if ctx.has_input("RoisNum") else 1)
        ctx.set_output(count_slot, (n,), "int32")


def assemble(rows, indices, counts, dtype, nothing_kept):
    """(Out, Index, counts) from per-image lists; `nothing_kept` is Out when nothing is."""
    if sum(counts) == 0:
        return nothing_kept.astype(dtype), np.zeros((0, 1), np.int32), np.zeros(len(counts),
                                                                              np.int32)
    return (np.concatenate(rows).astype(dtype),
            np.concatenate(indices).astype(np.int32).reshape(-1, 1),
            np.array(counts, np.int32))


def detection_rows(labels, scores, boxes):
    return np.concatenate([labels[:, None], scores[:, None],
                           boxes.reshape(len(labels), boxes.shape[-1])], axis=1)


def rows_lod(lods, values, attrs):
    """Out's LoD: the per-image row counts, except that the [1, 1] "nothing kept" marker
    is one row of one sequence whatever the batch (Paddle 1.8.5 and 3.3.1: [[1]])."""
    counts = lengths_lod("NmsRoisNum").lod(lods, values, attrs)
    return ((1,),) if sum(counts[0]) == 0 and len(values["Out"]) == 1 else counts


def nms_samples(rng, attrs):
    """Clustered boxes (so NMS has work to do), three classes, two images."""
    centers = random_boxes(rng, 3, 10.0)
    boxes = np.stack([centers[rng.randint(3, size=6)] + rng.uniform(-0.5, 0.5, (6, 4))
                      for _ in range(2)])
    scores = rng.permutation(36).reshape(2, 3, 6) / 36.0
    attrs = dict(attrs, nms_top_k=-1, keep_top_k=-1)   # no default in Paddle
    yield Sample({"BBoxes": boxes, "Scores": scores}, attrs)
    yield Sample({"BBoxes": boxes, "Scores": scores},
                 dict(attrs, keep_top_k=3, nms_top_k=4, normalized=False), name="top_k")
    yield Sample({"BBoxes": boxes, "Scores": scores}, dict(attrs, score_threshold=2.0),
                 name="nothing_kept")


@register
class MulticlassNMS(OpDef):
    type = "multiclass_nms"
    inputs = ("BBoxes", "Scores", "RoisNum?")
    outputs = ("Out", "NmsRoisNum")
    outputs_index = False
    lod_lengths = {"RoisNum": "BBoxes"}
    lod_alike = {"Scores": "BBoxes"}
    lod_outputs = {"Out": LoDRule(rows_lod, lambda levels: 1, creates=True,
                                  reads="NmsRoisNum")}
    attrs = {"background_label": 0, "score_threshold": 0.0, "nms_top_k": -1,
             "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": -1, "normalized": True}

    def infer_shape(self, ctx):
        check_nms_inputs(ctx, per_class_allowed=True)
        ctx.expect(ctx.attr("nms_eta") > 0, "nms_eta must be positive, got %s"
                   % ctx.attr("nms_eta"))
        # multiclass_nms's Out may be the [1, 1] "nothing kept" marker: width unknown
        set_nms_outputs(ctx, ctx.input_dtype("BBoxes"), "Index", "NmsRoisNum",
                        6 if self.outputs_index else -1)

    select = staticmethod(greedy_nms)    # one class's kept indices, best first

    @classmethod
    def detect(cls, bboxes, scores, rois_num, background_label, score_threshold, nms_top_k,
               nms_threshold, nms_eta, keep_top_k, normalized):
        """(rows, indices, counts) per image."""
        rows, indices, counts = [], [], []
        per_class_boxes = scores.ndim == 2
        for boxes, image_scores, offset in split_images(bboxes, scores, rois_num):
            labels, kept = [], []
            for c in range(len(image_scores)):
                if c == background_label:
                    continue
                keep = cls.select(boxes if boxes.ndim == 2 else boxes[c], image_scores[c],
                                  score_threshold, nms_top_k, nms_threshold, nms_eta,
                                  normalized)
                labels += [c] * len(keep)
                kept += list(keep)
            labels, kept = np.array(labels, np.int64), np.array(kept, np.int64)
            best = image_scores[labels, kept]
            chosen = np.sort(keep_best(best, keep_top_k))   # back in (label, rank) order
            labels, kept = labels[chosen], kept[chosen]
            if per_class_boxes:
                by_row = np.lexsort((kept, labels))
                labels, kept = labels[by_row], kept[by_row]
            rows.append(detection_rows(labels, image_scores[labels, kept],
                                       boxes_of(boxes, labels, kept)))
            classes = len(image_scores)
            indices.append((offset + kept) * classes + labels if per_class_boxes
                           else offset + kept)
            counts.append(len(kept))
        return rows, indices, counts

    @classmethod
    def forward(cls, bboxes, scores, rois_num=None, background_label=0, score_threshold=0.0,
                nms_top_k=-1, nms_threshold=0.3, nms_eta=1.0, keep_top_k=-1, normalized=True):
        rows, indices, counts = cls.detect(bboxes, scores, rois_num, background_label,
                                           score_threshold, nms_top_k, nms_threshold,
                                           nms_eta, keep_top_k, normalized)
        if cls.outputs_index:   # multiclass_nms2 / 3: an empty Out when nothing is kept
            out, index, counts = assemble(rows, indices, counts, bboxes.dtype,
                                          np.zeros((0, 6)))
            out, index = empty_rows(out), empty_rows(index)     # as the profile fetches them
            return out, index, counts
        # Paddle 1.8 gives a [1, 1] Out holding -1 when no image keeps anything
        out, _, counts = assemble(rows, indices, counts, bboxes.dtype, np.full((1, 1), -1.0))
        return out, counts

    def samples(self, rng):
        yield from nms_samples(rng, {"score_threshold": 0.1, "nms_threshold": 0.3})
        boxes = random_boxes(rng, 5)
        per_class = np.stack([boxes, boxes + 0.01], axis=1)           # [M, C, 4]
        yield Sample({"BBoxes": per_class, "Scores": rng.permutation(10).reshape(5, 2) / 10.0,
                      "RoisNum": np.array([3, 2], np.int32)},
                     {"score_threshold": 0.05, "background_label": -1, "nms_eta": 0.9,
                      "nms_threshold": 0.6, "nms_top_k": -1, "keep_top_k": -1},
                     name="per_class_boxes")


@register
class MulticlassNMS2(MulticlassNMS):
    """multiclass_nms plus Index; as in Paddle, nothing kept gives an empty Out and Index
    ([0, 6] and [0, 1]; [0] under the 1.8 profile, as Paddle 1.8.5)."""
    type = "multiclass_nms2"
    outputs = ("Out", "Index", "NmsRoisNum")
    outputs_index = True
    lod_outputs = {"Out": lengths_lod("NmsRoisNum"), "Index": lengths_lod("NmsRoisNum")}


@register
class MulticlassNMS3(MulticlassNMS2):
    """Paddle 2.x / 3.x's multiclass_nms2 with counts: the images of per-class boxes are
    the RoisNum input and NmsRoisNum [N] is a real output. Out and Index carry the images'
    LoD as multiclass_nms2's do under 2.0 (its kernel is multiclass_nms2's), none under 3
    (Paddle 3.3.1; nothing kept: Out [0, 6], Index [0, 1], counts 0): switch
    multiclass_nms3_lod."""
    type = "multiclass_nms3"
    lod_lengths = lod_alike = {}

    @property
    def lod_outputs(self):
        return MulticlassNMS2.lod_outputs if versions.switch("multiclass_nms3_lod") else {}


def merge_local_runs(boxes, scores, threshold, normalized):
    """Locality-aware merging, in place, in input order: a box overlapping the head of the
    current run (IoU > threshold) is merged into it (coordinates averaged by score, scores
    summed), any other box starts a new run. Returns the mask of run heads."""
    heads = np.zeros(len(boxes), bool)
    head = -1
    for i in range(len(boxes)):
        if head >= 0 and nms_overlap(boxes[i:i + 1], boxes[head:head + 1], normalized)[0, 0] \
                > threshold:
            total = scores[i] + scores[head]
            boxes[head] = (boxes[i] * scores[i] + boxes[head] * scores[head]) / total
            scores[head] = total
        else:
            heads[head] = head >= 0
            head = i
    if head >= 0:
        heads[head] = True
    return heads


def locality_aware_nms(boxes, scores, score_threshold, top_k, nms_threshold, eta,
                       normalized):
    """Kept indices, best first: greedy NMS over the heads of the merged runs."""
    heads = merge_local_runs(boxes, scores, nms_threshold, normalized)
    return greedy_nms(boxes, np.where(heads, scores, -np.inf), score_threshold, top_k,
                      nms_threshold, eta, normalized)


@register
class LocalityAwareNMS(MulticlassNMS):
    """multiclass_nms after merging runs of consecutive overlapping boxes (EAST). As in
    Paddle, the merges of one class update the image's boxes that later classes (and the
    output rows) see, and a merged box's score is the sum of its run's scores. BBoxes
    [N, M, 4], or [N, M, 8 to 32] convex polygons' corners (x, y), overlapping by their
    polygon IoU; Out's rows are then [label, score, the corners]."""
    type = "locality_aware_nms"
    inputs = ("BBoxes", "Scores")
    lod_lengths = lod_alike = {}
    attrs = dict(MulticlassNMS.attrs, background_label=-1)
    select = staticmethod(locality_aware_nms)

    def infer_shape(self, ctx):
        check_nms_inputs(ctx, per_class_allowed=False, polygons=True)
        set_nms_outputs(ctx, ctx.input_dtype("BBoxes"), "Index", "NmsRoisNum", -1)

    @classmethod
    def forward(cls, bboxes, scores, background_label=-1, score_threshold=0.0, nms_top_k=-1,
                nms_threshold=0.3, nms_eta=1.0, keep_top_k=-1, normalized=True):
        return super().forward(bboxes, scores, None, background_label, score_threshold,
                               nms_top_k, nms_threshold, nms_eta, keep_top_k, normalized)

    def samples(self, rng):
        yield from nms_samples(rng, {"score_threshold": 0.1, "nms_threshold": 0.3})


def matrix_decay(boxes, scores, score_threshold, post_threshold, top_k, use_gaussian,
                 gaussian_sigma, normalized):
    """(kept indices, decayed scores), best original score first. Each candidate's score
    is multiplied by the smallest decay over the better candidates j:
    (1 - iou_ij) / (1 - max_iou_j) or exp((max_iou_j^2 - iou_ij^2) * sigma), where
    max_iou_j is j's largest IoU with a candidate better than j; kept if > post_threshold."""
    candidates = ranked_candidates(scores, score_threshold, top_k)
    iou = np.triu(nms_overlap(boxes[candidates], boxes[candidates], normalized), k=1)
    max_iou = iou.max(axis=0, initial=0.0)             # [j]: over better candidates i < j
    max_iou_of_better = max_iou[:, None]                # row i: the better box's own max
    if use_gaussian:
        decay = np.exp((max_iou_of_better ** 2 - iou ** 2) * gaussian_sigma)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = (1.0 - iou) / (1.0 - max_iou_of_better)
    better = np.triu(np.ones_like(iou, dtype=bool), k=1)
    min_decay = np.where(better, decay, np.inf).min(axis=0, initial=np.inf)
    min_decay = np.minimum(min_decay, 1.0)
    decayed = scores[candidates] * min_decay
    keep = decayed > post_threshold
    return candidates[keep], decayed[keep]


@register
class MatrixNMS(OpDef):
    type = "matrix_nms"
    inputs = ("BBoxes", "Scores")
    outputs = ("Out", "Index", "RoisNum")
    lod_outputs = {"Out": lengths_lod("RoisNum"), "Index": lengths_lod("RoisNum")}
    attrs = {"background_label": 0, "score_threshold": 0.0, "post_threshold": 0.0,
             "nms_top_k": -1, "keep_top_k": -1, "normalized": True, "use_gaussian": False,
             "gaussian_sigma": 2.0}

    def infer_shape(self, ctx):
        # every Paddle version checks the shapes only at run time (a program with
        # mismatched ones builds, as 1.8.5's test_matrix_nms_op requires)
        ctx.check_dtype("BBoxes", FLOATS)
        set_nms_outputs(ctx, ctx.input_dtype("BBoxes"), "Index", "RoisNum")

    @staticmethod
    def forward(bboxes, scores, background_label=0, score_threshold=0.0, post_threshold=0.0,
                nms_top_k=-1, keep_top_k=-1, normalized=True, use_gaussian=False,
                gaussian_sigma=2.0):
        if scores.ndim != 3 or bboxes.ndim != 3 or bboxes.shape[2] != 4 or \
                (bboxes.shape[0], bboxes.shape[1]) != (scores.shape[0], scores.shape[2]):
            raise ValueError("BBoxes %s and Scores %s must be [N, M, 4] and [N, C, M]"
                             % (list(bboxes.shape), list(scores.shape)))
        rows, indices, counts = [], [], []
        for boxes, image_scores, offset in split_images(bboxes, scores, None):
            labels, kept, decayed = [], [], []
            for c in range(len(image_scores)):
                if c == background_label:
                    continue
                keep, dec = matrix_decay(boxes, image_scores[c], score_threshold,
                                         post_threshold, nms_top_k, use_gaussian,
                                         gaussian_sigma, normalized)
                labels += [c] * len(keep)
                kept += list(keep)
                decayed += list(dec)
            labels, kept = np.array(labels, np.int64), np.array(kept, np.int64)
            decayed = np.array(decayed, bboxes.dtype)
            # rows by decayed score, best first, across classes
            chosen = keep_best(decayed, keep_top_k)
            labels, kept = labels[chosen], kept[chosen]
            rows.append(detection_rows(labels, decayed[chosen], boxes_of(boxes, labels, kept)))
            indices.append(offset + kept)
            counts.append(len(kept))
        out, index, counts = assemble(rows, indices, counts, bboxes.dtype, np.zeros((0, 6)))
        return empty_rows(out), empty_rows(index), counts

    def samples(self, rng):
        yield from nms_samples(rng, {"score_threshold": 0.1, "post_threshold": 0.2})
        yield from nms_samples(rng, {"score_threshold": 0.1, "post_threshold": 0.2,
                                     "use_gaussian": True, "gaussian_sigma": 3.0})
