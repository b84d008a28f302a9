"""retinanet_detection_output: RetinaNet's head output over FPN levels. Per image and
level, the nms_top_k best (anchor, class) scores above score_threshold (the last level:
above 0) are decoded against their pixel anchors (center-size, no variance), divided by
the image scale and clipped to the original image (ImInfo rows: height, width, scale);
then per class greedy NMS over all levels (pixel IoU, adaptive eta), and the keep_top_k
best detections of the image by score. Out rows are (label + 1, score, x1, y1, x2, y2),
best first (labels count from 1: Scores exclude the background); nothing kept: [0, 6].
BBoxes [N, Mi, 4], Scores [N, Mi, C], Anchors [Mi, 4] per level. NmsRoisNum [N] counts
each image's rows (refimpl, in place of LoD). No gradient."""
import numpy as np

from ._boxes import random_boxes
from ._common import FLOATS
from .box_coder import decode_center_size
from .multiclass_nms import greedy_nms, ranked_candidates
from .registry import OpDef, Sample, lengths_lod, register


def detections_of_image(boxes, scores, anchors, im_info, score_threshold, nms_top_k,
                        keep_top_k, nms_threshold, nms_eta):
    """(labels, scores, boxes [K, 4]) of one image: boxes/scores/anchors per level."""
    height, width, scale = im_info
    height, width = np.round(height / scale), np.round(width / scale)
    classes = scores[0].shape[1]
    labels, best, decoded = [], [], []
    for level, (level_boxes, level_scores, level_anchors) in enumerate(
            zip(boxes, scores, anchors)):
        threshold = score_threshold if level < len(boxes) - 1 else 0.0
        flat = ranked_candidates(level_scores.ravel(), threshold, nms_top_k)
        anchor, label = np.divmod(flat, classes)
        out = decode_center_size(level_boxes[anchor], level_anchors[anchor], 1.0,
                                 normalized=False) / scale
        out[:, 0::2] = np.clip(out[:, 0::2], 0, width - 1)
        out[:, 1::2] = np.clip(out[:, 1::2], 0, height - 1)
        labels.append(label)
        best.append(level_scores.ravel()[flat])
        decoded.append(out)
    labels, best, decoded = np.concatenate(labels), np.concatenate(best), np.concatenate(decoded)
    kept = []                           # by class, each class's survivors best first
    for c in range(classes):
        mine = np.flatnonzero(labels == c)
        kept += list(mine[greedy_nms(decoded[mine], best[mine], -np.inf, -1, nms_threshold,
                                     nms_eta, normalized=False)])
    kept = np.array(kept, np.int64)
    kept = kept[np.argsort(-best[kept], kind="stable")][:keep_top_k]
    return labels[kept], best[kept], decoded[kept]


@register
class RetinanetDetectionOutput(OpDef):
    type = "retinanet_detection_output"
    inputs = ("BBoxes*", "Scores*", "Anchors*", "ImInfo")
    outputs = ("Out", "NmsRoisNum")
    lod_outputs = {"Out": lengths_lod("NmsRoisNum")}    # the images' rows (1.8's form)
    attrs = {"score_threshold": 0.05, "nms_top_k": 1000, "nms_threshold": 0.3,
             "nms_eta": 1.0, "keep_top_k": 100}

    def infer_shape(self, ctx):
        boxes, scores = ctx.input_vars("BBoxes"), ctx.input_vars("Scores")
        anchors = ctx.input_vars("Anchors")
        ctx.check_dtype("BBoxes", FLOATS)
        ctx.expect(len(boxes) == len(scores) == len(anchors) > 0,
                   "BBoxes, Scores and Anchors must list the same FPN levels, got %d, %d "
                   "and %d" % (len(boxes), len(scores), len(anchors)))
        for b, s, a in zip(boxes, scores, anchors):
            ctx.expect(len(b.shape) == 3 and len(s.shape) == 3 and len(a.shape) == 2,
                       "each level needs BBoxes [N, Mi, 4], Scores [N, Mi, C] and Anchors "
                       "[Mi, 4], got %s, %s and %s for %r, %r, %r"
                       % (list(b.shape), list(s.shape), list(a.shape), b.name, s.name, a.name))
            ctx.expect(all(x < 0 or y < 0 or x == y for x, y in
                           ((b.shape[1], s.shape[1]), (b.shape[1], a.shape[0]))),
                       "BBoxes %r %s, Scores %r %s and Anchors %r %s disagree on Mi"
                       % (b.name, list(b.shape), s.name, list(s.shape), a.name, list(a.shape)))
        ctx.expect(ctx.attr("keep_top_k") > 0, "keep_top_k must be positive, got %d"
                   % ctx.attr("keep_top_k"))
        ctx.set_output("Out", (-1, 6), boxes[0].dtype)
        ctx.set_output("NmsRoisNum", (boxes[0].shape[0],), "int32")

    @staticmethod
    def forward(boxes, scores, anchors, im_info, score_threshold=0.05, nms_top_k=1000,
                nms_threshold=0.3, nms_eta=1.0, keep_top_k=100):
        rows, counts = [], []
        for i in range(len(im_info)):
            labels, best, decoded = detections_of_image(
                [b[i] for b in boxes], [s[i] for s in scores], anchors, im_info[i],
                score_threshold, nms_top_k, keep_top_k, nms_threshold, nms_eta)
            rows.append(np.concatenate([labels[:, None] + 1.0, best[:, None], decoded], axis=1))
            counts.append(len(labels))
        return (np.concatenate(rows).astype(boxes[0].dtype).reshape(-1, 6),
                np.array(counts, np.int32))

    def samples(self, rng):
        anchors = [random_boxes(rng, 6, 40.0), random_boxes(rng, 3, 40.0)]
        boxes = [rng.uniform(-0.2, 0.2, (2, len(a), 4)) for a in anchors]
        scores = [rng.uniform(0, 1, (2, len(a), 3)) for a in anchors]
        info = np.array([[40.0, 48.0, 1.0], [60.0, 60.0, 2.0]])
        yield Sample({"BBoxes": boxes, "Scores": scores, "Anchors": anchors, "ImInfo": info},
                     {"score_threshold": 0.3, "nms_top_k": 8, "keep_top_k": 10,
                      "nms_threshold": 0.4, "nms_eta": 1.0})   # no default in Paddle 1.8.5
