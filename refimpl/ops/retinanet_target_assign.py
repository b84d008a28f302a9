"""retinanet_target_assign: RetinaNet training targets for all anchors of each image.

Per image, with the non-crowd ground truth scaled by ImInfo's scale and pixel IoU
between anchors and ground truth: an anchor is foreground if it has some ground truth's
best IoU (within 1e-5) or an IoU >= positive_overlap; background (overriding that) if its
best IoU < negative_overlap; else ignored. Outputs, images one after another:
  LocationIndex [F] int32     foreground anchors (image * A + anchor, ascending)
  ScoreIndex [F + B] int32    foreground then background anchors
  TargetBBox [F, 4]           foreground deltas to their best ground truth, pixel
                              center-size ((gx - ax) / aw, (gy - ay) / ah, log(gw / aw),
                              log(gh / ah)), centers at x1 + w / 2, w = x2 - x1 + 1
  TargetLabel [F + B, 1] int32  the ground truth's label, 0 for background
  BBoxInsideWeight [F, 4]     ones
  ForegroundNumber [N, 1] int32  1 + the number of anchors that passed the foreground
                              test (counting those background then overrode, as Paddle)
GtBoxes [G, 4], GtLabels [G, 1] int32, IsCrowd [G] int32 hold the images' ground truth
one after another; GtNum [N] int32 counts it per image (refimpl's stand-in for their
LoD; absent: one image). No gradient."""
import numpy as np

from ._boxes import pairwise_iou, random_boxes, roi_image_index
from ._common import FLOATS
from .box_coder import center_size
from .registry import OpDef, Sample, register


def box_to_delta(anchors, gts):
    """Pixel center-size deltas of gts [K, 4] against anchors [K, 4] (no variance)."""
    acx, acy, aw, ah = center_size(anchors, normalized=False)
    gcx, gcy, gw, gh = center_size(gts, normalized=False)
    return np.stack([(gcx - acx) / aw, (gcy - acy) / ah, np.log(gw / aw), np.log(gh / ah)],
                    axis=-1)


def assign_image(anchors, gt_boxes, gt_labels, positive_overlap, negative_overlap):
    """(fg, bg, best gt per fg, foreground test count) of one image's anchors."""
    overlap = pairwise_iou(anchors, gt_boxes, normalized=False)          # [A, G]
    anchor_max = overlap.max(axis=1, initial=0.0)
    best_gt = overlap.argmax(axis=1) if gt_boxes.size else np.zeros(len(anchors), np.int64)
    gt_max = overlap.max(axis=0, initial=0.0)
    has_gt_max = (np.abs(overlap - gt_max) < 1e-5).any(axis=1)
    passed = has_gt_max | (anchor_max >= positive_overlap)
    label = np.where(passed, 1, -1)
    label[anchor_max < negative_overlap] = 0
    fg, bg = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    return fg, bg, best_gt[fg], int(passed.sum())


@register
class RetinanetTargetAssign(OpDef):
    type = "retinanet_target_assign"
    inputs = ("Anchor", "GtBoxes", "GtLabels", "IsCrowd", "ImInfo", "GtNum?")
    outputs = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel",
               "BBoxInsideWeight", "ForegroundNumber")
    attrs = {"positive_overlap": 0.5, "negative_overlap": 0.4}

    def infer_shape(self, ctx):
        ctx.check_dtype("Anchor", FLOATS)
        for slot in ("Anchor", "GtBoxes"):
            v = ctx.input_var(slot)
            ctx.expect(len(v.shape) == 2 and v.shape[1] in (4, -1),
                       "%s %r must be [K, 4], got %s" % (slot, v.name, list(v.shape)))
        for slot in ("GtLabels", "ImInfo"):
            v = ctx.input_var(slot)
            ctx.expect(len(v.shape) == 2, "%s %r must be 2-D, got %s"
                       % (slot, v.name, list(v.shape)))
        dtype = ctx.input_dtype("Anchor")
        ctx.set_output("LocationIndex", (-1,), "int32")
        ctx.set_output("ScoreIndex", (-1,), "int32")
        ctx.set_output("TargetBBox", (-1, 4), dtype)
        ctx.set_output("TargetLabel", (-1, 1), "int32")
        ctx.set_output("BBoxInsideWeight", (-1, 4), dtype)
        ctx.set_output("ForegroundNumber", (ctx.input_var("ImInfo").shape[0], 1), "int32")

    @staticmethod
    def forward(anchors, gt_boxes, gt_labels, is_crowd, im_info, gt_num=None,
                positive_overlap=0.5, negative_overlap=0.4):
        image = roi_image_index(len(gt_boxes), gt_num, len(im_info))
        parts = {k: [] for k in ("loc", "score", "bbox", "label", "fg_num")}
        for i in range(len(im_info)):
            keep = (image == i) & (np.asarray(is_crowd).ravel() == 0)
            gts, labels = gt_boxes[keep] * im_info[i, 2], gt_labels[keep].ravel()
            fg, bg, best, passed = assign_image(anchors, gts, labels, positive_overlap,
                                                negative_overlap)
            offset = i * len(anchors)
            parts["loc"].append(fg + offset)
            parts["score"].append(np.concatenate([fg, bg]) + offset)
            parts["bbox"].append(box_to_delta(anchors[fg], gts[best]))
            parts["label"].append(np.concatenate([labels[best], np.zeros(len(bg), np.int64)]))
            parts["fg_num"].append(passed + 1)
        bbox = np.concatenate(parts["bbox"]).reshape(-1, 4).astype(anchors.dtype)
        return (np.concatenate(parts["loc"]).astype(np.int32),
                np.concatenate(parts["score"]).astype(np.int32), bbox,
                np.concatenate(parts["label"]).astype(np.int32).reshape(-1, 1),
                np.ones_like(bbox), np.array(parts["fg_num"], np.int32).reshape(-1, 1))

    def samples(self, rng):
        anchors = random_boxes(rng, 8, 30.0)
        gts = np.concatenate([anchors[[1, 4]] + rng.uniform(-0.3, 0.3, (2, 4)),
                              random_boxes(rng, 2, 30.0)])
        yield Sample({"Anchor": anchors, "GtBoxes": gts,
                      "GtLabels": np.array([[1], [3], [2], [1]], np.int32),
                      "IsCrowd": np.array([0, 0, 1, 0], np.int32),
                      "ImInfo": np.array([[40.0, 40.0, 1.0], [80.0, 80.0, 1.0]]),
                      "GtNum": np.array([3, 1], np.int32)})
