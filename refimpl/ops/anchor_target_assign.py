"""Anchor training targets: rpn_target_assign (Faster R-CNN RPN, with sampling) and
retinanet_target_assign (RetinaNet, every anchor). Both match anchors to the non-crowd
ground truth of each image (scaled by ImInfo's scale) by pixel IoU: an anchor passes the
foreground test if it holds some ground truth's best IoU (within 1e-5) or has an IoU >=
the positive overlap; it is background (which wins) if its best IoU < the negative
overlap; the rest are ignored. Targets are pixel center-size deltas to the best ground
truth, ((gx - ax) / aw, (gy - ay) / ah, log(gw / aw), log(gh / ah)) with centers at
x1 + w / 2, w = x2 - x1 + 1. Outputs hold the images one after another, anchor indices
as image * A + anchor:
  LocationIndex [F] int32, TargetBBox [F, 4], BBoxInsideWeight [F, 4]   (foreground)
  ScoreIndex [F + B] int32, TargetLabel [F + B, 1] int32   (foreground, then background)
GtBoxes [G, 4], IsCrowd [G] int32 (and GtLabels [G, 1] int32) hold the images' ground
truth one after another; GtNum [N] int32 counts it per image (refimpl's stand-in for
their LoD; absent: one image). No gradient."""
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


def match_anchors(anchors, gt_boxes, positive_overlap, negative_overlap):
    """(passed [A] bool: the foreground test, negative [A] bool, best gt [A])."""
    overlap = pairwise_iou(anchors, gt_boxes, normalized=False)          # [A, G]
    anchor_max = overlap.max(axis=1, initial=0.0)
    best_gt = overlap.argmax(axis=1) if gt_boxes.size else np.zeros(len(anchors), np.int64)
    has_gt_max = (np.abs(overlap - overlap.max(axis=0, initial=0.0)) < 1e-5).any(axis=1)
    return has_gt_max | (anchor_max >= positive_overlap), anchor_max < negative_overlap, best_gt


def images_ground_truth(gt_boxes, is_crowd, gt_num, im_info, *per_gt):
    """Yield (image, its non-crowd gt boxes times the image scale, the same rows of each
    of per_gt) for every image."""
    image = roi_image_index(len(gt_boxes), gt_num, len(im_info))
    crowd = np.asarray(is_crowd).ravel() != 0
    for i in range(len(im_info)):
        keep = (image == i) & ~crowd
        yield (i, gt_boxes[keep] * im_info[i, 2]) + tuple(a[keep] for a in per_gt)


def check_target_inputs(ctx):
    ctx.check_dtype("Anchor", FLOATS)
    for slot in ("Anchor", "GtBoxes"):
        v = ctx.input_var(slot)
        ctx.expect(len(v.shape) == 2 and v.shape[1] in (4, -1),
                   "%s %r must be [K, 4], got %s" % (slot, v.name, list(v.shape)))
    info = ctx.input_var("ImInfo")
    ctx.expect(len(info.shape) == 2 and info.shape[1] in (3, -1),
               "ImInfo %r must be [N, 3], got %s" % (info.name, list(info.shape)))
    dtype = ctx.input_dtype("Anchor")
    for slot, shape, out_dtype in (("LocationIndex", (-1,), "int32"),
                                   ("ScoreIndex", (-1,), "int32"),
                                   ("TargetBBox", (-1, 4), dtype),
                                   ("TargetLabel", (-1, 1), "int32"),
                                   ("BBoxInsideWeight", (-1, 4), dtype)):
        ctx.set_output(slot, shape, out_dtype)


def stack_targets(parts, dtype):
    """The outputs from per-image (loc, score, bbox, label, weight) lists."""
    loc, score, bbox, label, weight = (list(p) for p in zip(*parts))
    return (np.concatenate(loc).astype(np.int32), np.concatenate(score).astype(np.int32),
            np.concatenate(bbox).reshape(-1, 4).astype(dtype),
            np.concatenate(label).astype(np.int32).reshape(-1, 1),
            np.concatenate(weight).reshape(-1, 4).astype(dtype))


def background_wins(fg_kept, bg_kept, n):
    """(LocationIndex rows, foreground, background, BBoxInsideWeight) of n anchors from the
    kept foreground and background candidates: a candidate that is both becomes
    background, and LocationIndex gets the first foreground candidate in its place, with
    weight 0 (Paddle's quirk)."""
    label = np.full(n, -1)
    label[fg_kept] = 1
    demoted = int((label[bg_kept] == 1).sum())
    label[bg_kept] = 0
    fg, bg = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    loc = np.concatenate([np.repeat(fg_kept[:1], demoted), fg]).astype(np.int64)
    weight = np.repeat([0.0, 1.0], [demoted, len(fg_kept) - demoted])[:, None] * np.ones(4)
    return loc, fg, bg, weight


def reservoir_sample(indices, count, use_random, rng):
    """At most `count` of `indices`: the first ones, or with use_random Paddle's reservoir
    sampling (which leaves the kept ones in swap order)."""
    indices = list(indices)
    if len(indices) > count:
        if use_random:
            for i in range(count, len(indices)):
                j = int(rng.uniform() * i)
                if j < count:
                    indices[j], indices[i] = indices[i], indices[j]
        indices = indices[:count]
    return np.array(indices, np.int64)


@register
class RpnTargetAssign(OpDef):
    """Anchors sticking out of the image by more than rpn_straddle_thresh (>= 0) are
    skipped. With rpn_fg_fraction and rpn_batch_size_per_im > 0, at most
    int(fraction * batch) foreground candidates are kept, then at most batch - that many
    background ones (first ones, or sampled with use_random from an unseeded generator,
    as Paddle's). A kept background anchor that was a kept foreground one becomes
    background, and LocationIndex gets the first kept foreground candidate in its place
    with BBoxInsideWeight 0 (Paddle's quirk). TargetLabel is 1 / 0."""
    type = "rpn_target_assign"
    inputs = ("Anchor", "GtBoxes", "IsCrowd", "ImInfo", "GtNum?")
    lod_lengths = {"GtNum": "GtBoxes"}    # without GtNum: GtBoxes' LoD (Paddle 1.8's form)
    outputs = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight")
    attrs = {"rpn_batch_size_per_im": 256, "rpn_straddle_thresh": 0.0,
             "rpn_positive_overlap": 0.7, "rpn_negative_overlap": 0.3,
             "rpn_fg_fraction": 0.25, "use_random": True}

    def infer_shape(self, ctx):
        check_target_inputs(ctx)

    @staticmethod
    def forward(anchors, gt_boxes, is_crowd, im_info, gt_num=None, rpn_batch_size_per_im=256,
                rpn_straddle_thresh=0.0, rpn_positive_overlap=0.7, rpn_negative_overlap=0.3,
                rpn_fg_fraction=0.25, use_random=True):
        rng = np.random.default_rng()
        sampling = rpn_fg_fraction > 0 and rpn_batch_size_per_im > 0
        parts = []
        for i, gts in images_ground_truth(gt_boxes, is_crowd, gt_num, im_info):
            height, width = im_info[i, :2]
            t = rpn_straddle_thresh
            inside = np.flatnonzero((anchors[:, 0] >= -t) & (anchors[:, 1] >= -t) &
                                    (anchors[:, 2] < width + t) &
                                    (anchors[:, 3] < height + t)) if t >= 0 \
                else np.arange(len(anchors))
            passed, negative, best_gt = match_anchors(anchors[inside], gts,
                                                      rpn_positive_overlap,
                                                      rpn_negative_overlap)
            fg_kept, bg_kept = np.flatnonzero(passed), np.flatnonzero(negative)
            if sampling:
                fg_quota = int(rpn_fg_fraction * rpn_batch_size_per_im)
                fg_kept = reservoir_sample(fg_kept, fg_quota, use_random, rng)
                bg_kept = reservoir_sample(bg_kept, rpn_batch_size_per_im - len(fg_kept),
                                           use_random, rng)
            loc, fg, bg, weight = background_wins(fg_kept, bg_kept, len(inside))
            offset = i * len(anchors)
            parts.append((inside[loc] + offset, inside[np.concatenate([fg, bg])] + offset,
                          box_to_delta(anchors[inside[loc]], gts[best_gt[loc]]),
                          np.repeat([1, 0], [len(fg), len(bg)]), weight))
        return stack_targets(parts, anchors.dtype)

    def samples(self, rng):
        anchors = random_boxes(rng, 10, 30.0)
        anchors[3] = [-5.0, 0.0, 10.0, 10.0]                  # straddles the image
        gts = np.concatenate([anchors[[1, 4]] + rng.uniform(-0.3, 0.3, (2, 4)),
                              random_boxes(rng, 2, 30.0)])
        yield Sample({"Anchor": anchors, "GtBoxes": gts,
                      "IsCrowd": np.array([0, 1, 0, 0], np.int32),
                      "ImInfo": np.array([[40.0, 40.0, 1.0], [80.0, 80.0, 2.0]]),
                      "GtNum": np.array([3, 1], np.int32)},
                     {"rpn_batch_size_per_im": 6, "rpn_fg_fraction": 0.5,
                      "rpn_positive_overlap": 0.5, "use_random": False})


@register
class RetinanetTargetAssign(OpDef):
    """Every anchor, no sampling; an anchor both foreground and background is background,
    with rpn_target_assign's LocationIndex quirk; TargetLabel is the ground truth's label
    (0 for background); ForegroundNumber [N, 1] int32 is 1 + the anchors that passed the
    foreground test (counting those background then overrode, as Paddle)."""
    type = "retinanet_target_assign"
    inputs = ("Anchor", "GtBoxes", "GtLabels", "IsCrowd", "ImInfo", "GtNum?")
    lod_lengths = {"GtNum": "GtBoxes"}    # without GtNum: GtBoxes' LoD (Paddle 1.8's form)
    outputs = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel",
               "BBoxInsideWeight", "ForegroundNumber")
    attrs = {"positive_overlap": 0.5, "negative_overlap": 0.4}

    def infer_shape(self, ctx):
        check_target_inputs(ctx)
        labels = ctx.input_var("GtLabels")
        ctx.expect(len(labels.shape) == 2, "GtLabels %r must be [G, 1], got %s"
                   % (labels.name, list(labels.shape)))
        ctx.set_output("ForegroundNumber", (ctx.input_var("ImInfo").shape[0], 1), "int32")

    @staticmethod
    def forward(anchors, gt_boxes, gt_labels, is_crowd, im_info, gt_num=None,
                positive_overlap=0.5, negative_overlap=0.4):
        parts, fg_numbers = [], []
        for i, gts, labels in images_ground_truth(gt_boxes, is_crowd, gt_num, im_info,
                                                  gt_labels):
            passed, negative, best_gt = match_anchors(anchors, gts, positive_overlap,
                                                      negative_overlap)
            loc, fg, bg, weight = background_wins(np.flatnonzero(passed),
                                                  np.flatnonzero(negative), len(anchors))
            offset = i * len(anchors)
            parts.append((loc + offset, np.concatenate([fg, bg]) + offset,
                          box_to_delta(anchors[loc], gts[best_gt[loc]]),
                          np.concatenate([labels.ravel()[best_gt[fg]], np.zeros(len(bg))]),
                          weight))
            fg_numbers.append(int(passed.sum()) + 1)
        return stack_targets(parts, anchors.dtype) + (
            np.array(fg_numbers, np.int32).reshape(-1, 1),)

    def samples(self, rng):
        anchors = random_boxes(rng, 8, 30.0)
        gts = np.concatenate([anchors[[1, 4]] + rng.uniform(-0.3, 0.3, (2, 4)),
                              random_boxes(rng, 2, 30.0)])
        yield Sample({"Anchor": anchors, "GtBoxes": gts,
                      "GtLabels": np.array([[1], [3], [2], [1]], np.int32),
                      "IsCrowd": np.array([0, 0, 1, 0], np.int32),
                      "ImInfo": np.array([[40.0, 40.0, 1.0], [80.0, 80.0, 1.0]]),
                      "GtNum": np.array([3, 1], np.int32)})
