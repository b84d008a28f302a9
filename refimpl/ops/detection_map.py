"""detection_map (fluid.layers.detection_map, fluid.metrics.DetectionMAP; Paddle 1.8): the
mean average precision of detections against ground truth, optionally accumulated over
batches through state tensors.
  DetectRes [M, 6] (label, score, xmin, ymin, xmax, ymax), Label [G, 6] (label, difficult,
  box) or [G, 5] (label, box): each image's rows, by their LoD (absent: one image).
Per image, every ground-truth class counts its boxes (only the non-difficult ones unless
evaluate_difficult) as positives. Each class's detections, highest score first (ties in
input order; in input order when the image has none of the class), are clipped to [0, 1]
and matched to that class's ground truth of best IoU
(normalized boxes); IoU > overlap_threshold on a box not yet matched is a true positive
(a difficult box, without evaluate_difficult, counts neither way), anything else a false
positive. Per class, precision and recall along the score-sorted (score, flag) lists give
the AP: "integral" sums precision * recall step, "11point" averages the best precision at
recall >= 0, 0.1, ..., 1. MAP [1] is the mean over the classes with positives (a class
with positives and no detection counts 0; as in Paddle 1.8.5, a class is skipped when its
positive count equals background_label, so with the default 0 the classes without
positives).
State: with HasState [1] int32 nonzero, PosCount [class_num, 1] int32 and TruePos /
FalsePos [*, 2] (score, flag; class i's rows = sequence i of their LoD) are added first.
AccumPosCount [class_num, 1] int32, AccumTruePos / AccumFalsePos (the same form, LoD of
class_num sequences) hold the totals. No gradient."""
import numpy as np

from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, lengths_lod, register


def _images(rows, lengths, op_slot):
    if lengths is None:
        return [rows]
    return [rows[s:e] for s, e in segments(lengths_of(lengths, len(rows), "detection_map",
                                                      op_slot))]


def _iou(box, boxes):
    """IoU of one normalized box with each of boxes [K, 4] (no +1 pixel)."""
    ix = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    inter = ix * iy
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return np.where(inter > 0, inter / np.where(inter > 0, area + areas - inter, 1), 0.0)


def _state(rows, lengths):
    """{class: [(score, flag)]} from a TruePos / FalsePos state; classes without rows absent."""
    pairs = {}
    for c, seq in enumerate(_images(rows, lengths, "TruePosLength")):
        if len(seq):
            pairs[c] = [(float(s), int(f)) for s, f in seq]
    return pairs


def match_detections(detections, ground_truth, evaluate_difficult, overlap_threshold,
                     positives, true_pos, false_pos):
    """Add one image's positives and (score, flag) pairs to the per-class tallies."""
    gt_labels = ground_truth[:, 0].astype(np.int64)
    difficult = ground_truth[:, 1] != 0 if ground_truth.shape[1] == 6 else \
        np.zeros(len(ground_truth), bool)
    gt_boxes = ground_truth[:, -4:]
    for c in np.unique(gt_labels):
        n = int((gt_labels == c).sum() if evaluate_difficult else
                ((gt_labels == c) & ~difficult).sum())
        if n:
            positives[int(c)] = positives.get(int(c), 0) + n
    labels = detections[:, 0].astype(np.int64)
    for c in np.unique(labels):
        c = int(c)
        mine = detections[labels == c]
        tp, fp = true_pos.setdefault(c, []), false_pos.setdefault(c, [])
        gts = np.flatnonzero(gt_labels == c)
        if len(gts):           # matched highest score first (else kept in input order)
            mine = mine[np.argsort(-mine[:, 1], kind="stable")]
        matched = np.zeros(len(gts), bool)
        for det in mine:
            score = float(det[1])
            overlap = _iou(np.clip(det[2:6], 0.0, 1.0), gt_boxes[gts]) if len(gts) else []
            best = int(np.argmax(overlap)) if len(gts) else -1
            if best >= 0 and overlap[best] > overlap_threshold:
                if not evaluate_difficult and difficult[gts[best]]:
                    continue                       # a difficult box: neither way
                hit = not matched[best]
                matched[best] = True
                tp.append((score, int(hit)))
                fp.append((score, int(not hit)))
            else:
                tp.append((score, 0))
                fp.append((score, 1))


def _eleven_point(precision, recall):
    """Paddle's 11-point scan from recall 1 down: the best precision at recall >= j / 10,
    carried to j - 1 only where the scan stops at a lower recall (as 1.8.5 computes it)."""
    best, start = [0.0] * 11, len(recall) - 1
    for j in range(10, -1, -1):
        for i in range(start, -1, -1):
            if recall[i] < j / 10.0:
                start = i
                if j > 0:
                    best[j - 1] = best[j]
                break
            best[j] = max(best[j], precision[i])
    return sum(best) / 11


def average_precision(tp_pairs, fp_pairs, n_positive, ap_type):
    order = np.argsort(-np.array([s for s, _ in tp_pairs]), kind="stable")
    tp = np.cumsum(np.array([f for _, f in tp_pairs])[order])
    order = np.argsort(-np.array([s for s, _ in fp_pairs]), kind="stable")
    fp = np.cumsum(np.array([f for _, f in fp_pairs])[order])
    precision = tp / np.maximum(tp + fp, 1)
    recall = tp / n_positive
    if ap_type == "11point":
        return _eleven_point(precision, recall)
    ap, prev = 0.0, 0.0
    for p, r in zip(precision, recall):
        if abs(r - prev) > 1e-6:
            ap += p * abs(r - prev)
            prev = r
    return ap


@register
class DetectionMAP(OpDef):
    type = "detection_map"
    inputs = ("DetectRes", "Label", "HasState?", "PosCount?", "TruePos?", "FalsePos?",
              "DetectResLength?", "LabelLength?", "TruePosLength?", "FalsePosLength?")
    outputs = ("AccumPosCount", "AccumTruePos", "AccumFalsePos", "MAP",
               "AccumTruePosLength", "AccumFalsePosLength")
    attrs = {"class_num": 1, "background_label": 0, "overlap_threshold": 0.5,
             "evaluate_difficult": True, "ap_type": "integral"}
    lod_lengths = {"DetectResLength": "DetectRes", "LabelLength": "Label",
                   "TruePosLength": "TruePos", "FalsePosLength": "FalsePos"}
    lod_outputs = {"AccumTruePos": lengths_lod("AccumTruePosLength"),
                   "AccumFalsePos": lengths_lod("AccumFalsePosLength")}

    def infer_shape(self, ctx):
        det, label = ctx.input_var("DetectRes"), ctx.input_var("Label")
        ctx.expect(len(det.shape) == 2 and det.shape[1] in (6, -1),
                   "DetectRes %r must be [M, 6] (label, score, xmin, ymin, xmax, ymax), got %s"
                   % (det.name, list(det.shape)))
        ctx.expect(len(label.shape) == 2 and label.shape[1] in (5, 6, -1),
                   "Label %r must be [G, 6] (label, difficult, box) or [G, 5], got %s"
                   % (label.name, list(label.shape)))
        ctx.expect(ctx.attr("class_num") > 0, "class_num must be positive, got %d"
                   % ctx.attr("class_num"))
        ctx.expect(ctx.attr("ap_type") in ("integral", "11point"),
                   "ap_type must be 'integral' or '11point', got %r" % ctx.attr("ap_type"))
        ctx.expect(ctx.has_input("HasState") == ctx.has_input("PosCount") ==
                   ctx.has_input("TruePos") == ctx.has_input("FalsePos"),
                   "HasState, PosCount, TruePos and FalsePos come together")
        ctx.set_output("AccumPosCount", (ctx.attr("class_num"), 1), "int32")
        for slot in ("AccumTruePos", "AccumFalsePos"):
            ctx.set_output(slot, (-1, 2), det.dtype)
        ctx.set_output("MAP", (1,), det.dtype)
        for slot in ("AccumTruePosLength", "AccumFalsePosLength"):
            ctx.set_output(slot, (ctx.attr("class_num"),), "int64")

    @staticmethod
    def forward(detect_res, label, has_state=None, pos_count=None, true_pos_in=None,
                false_pos_in=None, detect_length=None, label_length=None,
                true_pos_length=None, false_pos_length=None, class_num=1,
                background_label=0, overlap_threshold=0.5, evaluate_difficult=True,
                ap_type="integral"):
        positives, true_pos, false_pos = {}, {}, {}
        if has_state is not None and int(np.asarray(has_state).reshape(-1)[0]) != 0:
            positives = {c: int(n) for c, n in enumerate(np.asarray(pos_count).reshape(-1))}
            true_pos = _state(true_pos_in, true_pos_length)
            false_pos = _state(false_pos_in, false_pos_length)
        detections = _images(detect_res, detect_length, "DetectResLength")
        ground_truth = _images(label, label_length, "LabelLength")
        if len(detections) != len(ground_truth):
            raise ValueError("detection_map: DetectRes holds %d images and Label %d"
                             % (len(detections), len(ground_truth)))
        for det, gt in zip(detections, ground_truth):
            match_detections(det, gt, evaluate_difficult, overlap_threshold, positives,
                             true_pos, false_pos)
        total, count = 0.0, 0
        for c, n in sorted(positives.items()):
            if n == background_label:
                continue
            count += 1
            if c in true_pos and true_pos[c]:
                total += average_precision(true_pos[c], false_pos[c], n, ap_type)
        dtype = detect_res.dtype

        def accumulated(pairs):
            rows = [pairs.get(c, []) for c in range(class_num)]
            flat = np.array([p for r in rows for p in r], dtype).reshape(-1, 2)
            return flat, np.array([len(r) for r in rows], np.int64)
        tp, tp_len = accumulated(true_pos)
        fp, fp_len = accumulated(false_pos)
        counts = np.array([positives.get(c, 0) for c in range(class_num)], np.int32)
        return (counts.reshape(-1, 1), tp, fp,
                np.array([total / count if count else 0.0], dtype), tp_len, fp_len)

    def samples(self, rng):
        det = np.array([[1, 0.3, 0.1, 0.0, 0.4, 0.3], [1, 0.7, 0.0, 0.1, 0.2, 0.3],
                        [1, 0.9, 0.7, 0.6, 0.8, 0.8], [2, 0.8, 0.2, 0.1, 0.4, 0.4],
                        [2, 0.1, 0.4, 0.3, 0.7, 0.5], [1, 0.2, 0.8, 0.1, 1.0, 0.3]],
                       np.float32)
        label = np.array([[1, 0, 0.1, 0.1, 0.3, 0.3], [1, 1, 0.6, 0.6, 0.8, 0.8],
                          [2, 0, 0.3, 0.3, 0.6, 0.5], [1, 0, 0.7, 0.1, 0.9, 0.3]], np.float32)
        lengths = {"DetectResLength": np.array([3, 3], np.int64),
                   "LabelLength": np.array([2, 2], np.int64)}
        yield Sample(dict({"DetectRes": det, "Label": label}, **lengths),
                     {"class_num": 3, "overlap_threshold": 0.3})
        yield Sample(dict({"DetectRes": det, "Label": label, "HasState": np.array([1], np.int32),
                           "PosCount": np.array([[0], [2], [1]], np.int32),
                           "TruePos": np.array([[0.6, 1], [0.5, 0]], np.float32),
                           "FalsePos": np.array([[0.6, 0], [0.5, 1]], np.float32),
                           "TruePosLength": np.array([0, 2, 0], np.int64),
                           "FalsePosLength": np.array([0, 2, 0], np.int64)}, **lengths),
                     {"class_num": 3, "overlap_threshold": 0.3, "evaluate_difficult": False,
                      "ap_type": "11point"})
