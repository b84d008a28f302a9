"""yolov3_loss: the YOLOv3 training loss of one head, per image.

X [N, M * (5 + C), H, W] are the raw predictions of the M = len(anchor_mask) anchors
this head owns; GTBox [N, B, 4] ground truth (cx, cy, w, h) normalized to the image,
boxes with w or h < 1e-6 being padding; GTLabel [N, B] int; GTScore [N, B] (default 1).
Each ground truth goes to the cell (int(cx * W), int(cy * H)) and to the anchor (of all
anchors) whose size has the best IoU with it; if that anchor is not in anchor_mask it is
ignored here (GTMatchMask -1, else the anchor's position in the mask). Per image:
  matched: (2 - w * h) * score * [SCE(tx, cx * W - i) + SCE(ty, cy * H - j)
           + |tw - log(w * input_size / anchor_w)| + |th - log(h * input_size / anchor_h)|]
           + score * sum_c SCE(class_c, pos if c == label else neg)
  objectness: SCE(obj, 1) * score for matched cells, SCE(obj, 0) for cells neither
           matched nor predicting a box with IoU > ignore_thresh with some ground truth
SCE(x, t) = max(x, 0) - x * t + log(1 + exp(-|x|)) (sigmoid cross entropy); with
use_label_smooth pos = 1 - s and neg = s, s = min(1 / C, 1 / 40). input_size =
downsample_ratio * H. ObjectnessMask [N, M, H, W] is the objectness weight (score, 0, or
-1 for ignored). The gradient flows to X only; the masks are fixed for it."""
import numpy as np

from ._common import FLOATS
from .registry import OpDef, Sample, register
from .yolo_box import sigmoid


def sigmoid_cross_entropy(x, t):
    return np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))


def center_iou(a, b):
    """IoU of center-size boxes [..., 4] (cx, cy, w, h), broadcast."""
    def overlap(c1, s1, c2, s2):
        return np.minimum(c1 + s1 / 2, c2 + s2 / 2) - np.maximum(c1 - s1 / 2, c2 - s2 / 2)
    ow = overlap(a[..., 0], a[..., 2], b[..., 0], b[..., 2])
    oh = overlap(a[..., 1], a[..., 3], b[..., 1], b[..., 3])
    inter = np.where((ow < 0) | (oh < 0), 0.0, ow * oh)
    return inter / (a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter)


def yolo_terms(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
               ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    """The loss as a list of terms: (image, flat index into x, target, weight, is_l1)
    arrays; plus ObjectnessMask and GTMatchMask."""
    n, _, h, w = x.shape
    m = len(anchor_mask)
    stride = 5 + class_num
    xv = x.reshape(n, m, stride, h, w)
    input_size = downsample_ratio * h
    anchors = np.asarray(anchors, np.float64).reshape(-1, 2)
    if gt_score is None:
        gt_score = np.ones(gt_label.shape, x.dtype)
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    pos, neg = 1.0 - smooth, smooth

    def flat(i, a, channel, row, col):
        return (((i * m + a) * stride + channel) * h + row) * w + col

    # predicted boxes (normalized center-size) for the ignore test
    bias = -0.5 * (scale_x_y - 1.0)
    col, row = np.arange(w), np.arange(h)[:, None]
    mask_anchors = anchors[anchor_mask]                               # [M, 2]
    pred = np.stack(np.broadcast_arrays(
        (col + sigmoid(xv[:, :, 0]) * scale_x_y + bias) / w,
        (row + sigmoid(xv[:, :, 1]) * scale_x_y + bias) / h,
        np.exp(xv[:, :, 2]) * mask_anchors[None, :, 0, None, None] / input_size,
        np.exp(xv[:, :, 3]) * mask_anchors[None, :, 1, None, None] / input_size), axis=-1)
    valid = (gt_box[..., 2] >= 1e-6) & (gt_box[..., 3] >= 1e-6)       # [N, B]
    # cells whose predicted box overlaps some ground truth of their image by more than
    # ignore_thresh are ignored (-1), all images at once
    iou = center_iou(pred[:, :, :, :, None, :], gt_box[:, None, None, None, :, :])
    best = np.where(valid[:, None, None, None, :], iou, -np.inf).max(axis=-1)
    obj_mask = np.where(best > ignore_thresh, -1.0, 0.0).astype(x.dtype)
    # each ground truth's best anchor by shape alone (centers at 0)
    shapes = np.zeros(gt_box.shape[:2] + (4,))
    shapes[..., 2:] = gt_box[..., 2:]
    anchor_shapes = np.concatenate([np.zeros_like(anchors), anchors / input_size], axis=1)
    shape_iou = center_iou(shapes[:, :, None, :], anchor_shapes)          # [N, B, anchors]
    best_anchor = np.where(shape_iou.max(axis=-1) > 0, np.argmax(shape_iou, axis=-1), 0)
    match_mask = np.full(gt_label.shape, -1, np.int32)
    terms = []                                 # (image, index, target, weight, is_l1)
    for i, t in zip(*np.nonzero(valid)):
        best_n = int(best_anchor[i, t])
        if best_n not in anchor_mask:
            continue
        cx, cy, bw, bh = gt_box[i, t]
        gi, gj = int(cx * w), int(cy * h)
        a = list(anchor_mask).index(best_n)
        match_mask[i, t] = a
        score = gt_score[i, t]
        scale = (2.0 - bw * bh) * score
        targets = [cx * w - gi, cy * h - gj, np.log(bw * input_size / anchors[best_n, 0]),
                   np.log(bh * input_size / anchors[best_n, 1])]
        for channel, target in enumerate(targets):
            terms.append((i, flat(i, a, channel, gj, gi), target, scale, channel >= 2))
        for c in range(class_num):
            terms.append((i, flat(i, a, 5 + c, gj, gi), pos if c == gt_label[i, t] else neg,
                          score, False))
        obj_mask[i, a, gj, gi] = score
    # objectness of every cell: positive (weight score), negative, or ignored (-1), as
    # arrays after the ground truths' terms (the loss adds each image's terms in this order)
    i, a, r, c = np.nonzero(obj_mask > -0.5)
    weight = obj_mask[i, a, r, c]
    positive = weight > 1e-5
    objectness = (i, flat(i, a, 4, r, c), positive.astype(float), np.where(positive, weight, 1.0),
                  np.zeros(len(i), bool))
    matched = [np.array(col) for col in zip(*terms)] if terms else [()] * 5
    image, index, target, weight, is_l1 = (np.concatenate([np.asarray(g), o]) for g, o in
                                           zip(matched, objectness))
    return (image.astype(np.int64), index.astype(np.int64), target.astype(np.float64),
            weight.astype(np.float64), is_l1.astype(bool)), obj_mask, match_mask


ATTRS = {"anchors": [], "anchor_mask": [], "class_num": 1, "ignore_thresh": 0.7,
         "downsample_ratio": 32, "use_label_smooth": True, "scale_x_y": 1.0}


@register
class Yolov3Loss(OpDef):
    type = "yolov3_loss"
    inputs = ("X", "GTBox", "GTLabel", "GTScore?")
    outputs = ("Loss", "ObjectnessMask", "GTMatchMask")
    attrs = ATTRS
    no_grad = ("GTBox", "GTLabel", "GTScore")
    grad_inputs = ("X", "GTBox", "GTLabel", "GTScore?", "Loss@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        x, box, label = (ctx.input_var(s) for s in ("X", "GTBox", "GTLabel"))
        anchors, mask = ctx.attr("anchors"), ctx.attr("anchor_mask")
        classes = ctx.attr("class_num")
        ctx.expect(len(anchors) > 0 and len(anchors) % 2 == 0,
                   "anchors must be (width, height) pairs, got %s" % (anchors,))
        ctx.expect(len(mask) > 0 and all(0 <= k < len(anchors) // 2 for k in mask),
                   "anchor_mask must index the %d anchors, got %s" % (len(anchors) // 2, mask))
        ctx.expect(classes > 0, "class_num must be positive, got %d" % classes)
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D NCHW, got %s" % (x.name, list(x.shape)))
        channels = len(mask) * (5 + classes)
        ctx.expect(x.shape[1] in (channels, -1),
                   "X %r must have %d masked anchors x (5 + %d classes) = %d channels, got %d"
                   % (x.name, len(mask), classes, channels, x.shape[1]))
        ctx.expect(x.shape[2] == x.shape[3] or min(x.shape[2:]) < 0,
                   "X %r must be square (H == W), got %s" % (x.name, list(x.shape)))
        ctx.expect(len(box.shape) == 3 and box.shape[2] in (4, -1),
                   "GTBox %r must be [N, B, 4], got %s" % (box.name, list(box.shape)))
        ctx.expect(len(label.shape) == 2 and label.shape[1] in (box.shape[1], -1),
                   "GTLabel %r must be [N, B] like GTBox %s, got %s"
                   % (label.name, list(box.shape), list(label.shape)))
        n = x.shape[0]
        ctx.set_output("Loss", (n,), x.dtype)
        ctx.set_output("ObjectnessMask", (n, len(mask), x.shape[2], x.shape[3]), x.dtype)
        ctx.set_output("GTMatchMask", tuple(label.shape), "int32")

    @staticmethod
    def forward(x, gt_box, gt_label, gt_score=None, **attrs):
        (image, index, target, weight, is_l1), obj_mask, match_mask = yolo_terms(
            x, gt_box, gt_label, gt_score, **dict(ATTRS, **attrs))
        pred = x.ravel()[index]
        per_term = np.where(is_l1, np.abs(pred - target),
                            sigmoid_cross_entropy(pred, target)) * weight
        loss = np.bincount(image, per_term, minlength=len(x)).astype(x.dtype)
        return loss, obj_mask, match_mask

    @staticmethod
    def backward(x, gt_box, gt_label, gt_score, dloss, **attrs):
        (image, index, target, weight, is_l1), _, _ = yolo_terms(
            x, gt_box, gt_label, gt_score, **dict(ATTRS, **attrs))
        pred = x.ravel()[index]
        slope = np.where(is_l1, np.where(pred > target, 1.0, -1.0), sigmoid(pred) - target)
        dx = np.zeros(x.size)
        np.add.at(dx, index, slope * weight * dloss[image])
        return dx.reshape(x.shape).astype(x.dtype)

    def samples(self, rng):
        anchors = [10, 13, 16, 30, 33, 23, 30, 61]
        x = rng.uniform(-1, 1, (2, 2 * (5 + 3), 4, 4))
        gt = np.concatenate([rng.uniform(0.1, 0.9, (2, 3, 2)), rng.uniform(0.1, 0.6, (2, 3, 2))],
                            axis=2)
        gt[1, 2] = 0.0                                      # padding
        labels = rng.randint(0, 3, (2, 3)).astype(np.int32)
        attrs = {"anchors": anchors, "anchor_mask": [1, 2], "class_num": 3,
                 "ignore_thresh": 0.5, "downsample_ratio": 32}
        yield Sample({"X": x, "GTBox": gt, "GTLabel": labels}, attrs)
        yield Sample({"X": x, "GTBox": gt, "GTLabel": labels,
                      "GTScore": rng.uniform(0.5, 1, (2, 3))},
                     dict(attrs, use_label_smooth=False, ignore_thresh=0.2), name="scored")
