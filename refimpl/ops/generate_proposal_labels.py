"""generate_proposal_labels (Faster R-CNN second stage): per image, the RPN proposals
(divided by ImInfo's scale) together with the ground-truth boxes are matched to the ground
truth by pixel IoU; foreground: best IoU >= fg_thresh (its ground truth: the first with
that IoU); background (if not foreground): bg_thresh_lo <= best IoU < bg_thresh_hi; crowd
ground-truth rows are neither. At most floor(batch_size_per_im * fg_fraction) foreground and then
batch_size_per_im - #foreground background boxes are kept (the first ones, or reservoir
sampled with use_random from an unseeded generator, as Paddle's).
is_cascade_rcnn (a later Cascade R-CNN stage): every foreground and background box is
kept, unsampled, and the proposals are those of the previous stage, in one of two forms:
- with MaxOverlap [P] (Paddle 2.0: each proposal's best IoU with the ground truth at the
  previous stage, required there): the proposals are divided by the scale, those of
  positive size (x2 - x1 + 1 > 0, y2 - y1 + 1 > 0) whose MaxOverlap is below 1 are kept
  (one zero box if none is), and the ground truth is put before them as without cascade;
- without it (Paddle 1.8.5, which has no MaxOverlap; switch cascade_rcnn_max_overlap):
  the RpnRois begin with the image's G ground-truth boxes, which take the ground truth's
  place undivided by the scale, and only boxes of positive size are kept.
is_cls_agnostic: a foreground box's deltas go to the columns of class 1.
  Rois [R, 4]                 kept boxes (foreground first), times the scale again
  LabelsInt32 [R, 1] int32    the ground truth's class, 0 for background
  BboxTargets [R, 4 * class_nums]   foreground deltas (pixel center-size, divided by
                              bbox_reg_weights) in the 4 columns of their class, else 0
  BboxInsideWeights, BboxOutsideWeights   1 in those columns, else 0
  MaxOverlapWithGT [R]        each kept box's best IoU with the ground truth (crowd
                              ground truth included; Paddle 2.0's output, 1 for a
                              ground-truth box)
RpnRois [P, 4] and GtClasses [G, 1], IsCrowd [G, 1], GtBoxes [G, 4] hold the images'
rows one after another; RpnRoisNum [N] and GtNum [N] int32 count them per image (absent:
RpnRois' and GtBoxes' LoD, 1.8's form; neither: one image); RoisNum [N] counts the
outputs' rows, which is also their LoD when RpnRois has one. No gradient."""
import numpy as np

from .. import versions
from ._boxes import pairwise_iou, random_boxes, roi_image_index
from ._common import FLOATS
from .anchor_target_assign import box_to_delta, reservoir_sample
from .registry import OpDef, Sample, lengths_lod, register


def _positive(boxes):
    return (boxes[:, 2] - boxes[:, 0] + 1 > 0) & (boxes[:, 3] - boxes[:, 1] + 1 > 0)


def _cascade_boxes(rois, gt_boxes, scale, max_overlap):
    """The boxes a cascade stage matches (the ground truth's rows first)."""
    if max_overlap is None:
        # 1.8.5: the rois begin with the ground truth the previous stage added, in image
        # units: those rows stand for the ground truth as they are (only the rest divided)
        g = len(gt_boxes)
        return np.concatenate([rois[:g], rois[g:] / scale])
    rois = rois / scale
    kept = rois[_positive(rois) & (max_overlap.reshape(-1) < 1.0)]
    return np.concatenate([gt_boxes, kept if len(kept) else np.zeros((1, 4), rois.dtype)])


def sample_image(rois, gt_boxes, gt_classes, is_crowd, scale, batch_size_per_im, fg_fraction,
                 fg_thresh, bg_thresh_hi, bg_thresh_lo, weights, class_nums, use_random, rng,
                 is_cls_agnostic=False, is_cascade_rcnn=False, max_overlap=None):
    """(rois, labels, targets, weights, best IoUs) of one image."""
    g = len(gt_boxes)
    boxes = _cascade_boxes(rois, gt_boxes, scale, max_overlap) if is_cascade_rcnn else \
        np.concatenate([gt_boxes, rois / scale])
    overlap = pairwise_iou(boxes, gt_boxes, normalized=False)              # [B, G]
    best = overlap.max(axis=1, initial=-1.0)
    raw_best = best.copy()
    best[:g][is_crowd != 0] = -1.0                            # crowd gts
    # the first ground truth within 1e-5 of the best IoU
    best_gt = np.argmax(np.abs(overlap - best[:, None]) < 1e-5, axis=1) if gt_boxes.size \
        else np.zeros(len(boxes), np.int64)
    is_fg = best >= fg_thresh
    is_bg = ~is_fg & (best >= bg_thresh_lo) & (best < bg_thresh_hi)
    if is_cascade_rcnn:              # no sampling; 1.8.5: every box of positive size
        if max_overlap is None:
            is_fg, is_bg = is_fg & _positive(boxes), is_bg & _positive(boxes)
        fg, bg = np.flatnonzero(is_fg), np.flatnonzero(is_bg)
    else:
        fg_quota = int(np.floor(batch_size_per_im * fg_fraction))
        fg = reservoir_sample(np.flatnonzero(is_fg), fg_quota, use_random, rng)
        bg = reservoir_sample(np.flatnonzero(is_bg), batch_size_per_im - len(fg), use_random,
                              rng)
    kept = np.concatenate([fg, bg]).astype(np.int64)
    labels = np.concatenate([gt_classes[best_gt[fg]], np.zeros(len(bg), np.int64)])
    deltas = box_to_delta(boxes[fg], gt_boxes[best_gt[fg]]) / np.asarray(weights)
    targets = np.zeros((len(kept), class_nums, 4))
    box_weights = np.zeros_like(targets)
    # class-agnostic regression: every foreground box in the columns of class 1
    columns = np.minimum(labels[:len(fg)], 1) if is_cls_agnostic else labels[:len(fg)]
    targets[np.arange(len(fg)), columns] = deltas
    box_weights[np.arange(len(fg)), columns] = 1.0
    foreground = labels[:len(fg)] > 0                    # a class-0 ground truth: no target
    targets[:len(fg)][~foreground] = 0.0
    box_weights[:len(fg)][~foreground] = 0.0
    return (boxes[kept] * scale, labels, targets.reshape(len(kept), -1),
            box_weights.reshape(len(kept), -1), raw_best[kept])


@register
class GenerateProposalLabels(OpDef):
    type = "generate_proposal_labels"
    inputs = ("RpnRois", "GtClasses", "IsCrowd", "GtBoxes", "ImInfo", "RpnRoisNum?",
              "GtNum?", "MaxOverlap?")
    outputs = ("Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights",
               "BboxOutsideWeights", "MaxOverlapWithGT", "RoisNum")
    # without the counts: the inputs' LoD; the outputs then carry RoisNum as theirs (1.8)
    lod_lengths = {"RpnRoisNum": "RpnRois", "GtNum": "GtBoxes"}
    lod_outputs = {slot: lengths_lod("RoisNum", if_lod="RpnRois") for slot in outputs[:-1]}
    lod_alike = {"MaxOverlap": "RpnRois"}     # fed with the proposals' LoD, as in Paddle 2.0
    attrs = {"batch_size_per_im": 256, "fg_fraction": 0.25, "fg_thresh": 0.25,
             "bg_thresh_hi": 0.5, "bg_thresh_lo": 0.0,
             "bbox_reg_weights": [0.1, 0.1, 0.2, 0.2], "class_nums": 1, "use_random": True,
             "is_cls_agnostic": False, "is_cascade_rcnn": False}

    def infer_shape(self, ctx):
        ctx.check_dtype("RpnRois", FLOATS)
        for slot in ("RpnRois", "GtBoxes"):
            v = ctx.input_var(slot)
            ctx.expect(len(v.shape) == 2 and v.shape[1] in (4, -1),
                       "%s %r must be [K, 4], got %s" % (slot, v.name, list(v.shape)))
        ctx.expect(len(ctx.attr("bbox_reg_weights")) == 4,
                   "bbox_reg_weights must have 4 values, got %s"
                   % (ctx.attr("bbox_reg_weights"),))
        ctx.expect(ctx.attr("class_nums") > 0, "class_nums must be positive, got %d"
                   % ctx.attr("class_nums"))
        if ctx.attr("is_cascade_rcnn") and \
                versions.switch("cascade_rcnn_max_overlap") == "required":
            ctx.expect(ctx.has_input("MaxOverlap"), "MaxOverlap is required when "
                       "is_cascade_rcnn is True (Paddle 2.0; 1.8.5's form, whose RpnRois "
                       "begin with the ground truth, is the 1.8 profile's)")
        if ctx.has_input("MaxOverlap"):
            ctx.check_dtype("MaxOverlap", FLOATS)
            m, rois = ctx.input_var("MaxOverlap"), ctx.input_var("RpnRois")
            ctx.expect(int(np.prod(m.shape)) < 0 or rois.shape[0] < 0 or
                       int(np.prod(m.shape)) == rois.shape[0],
                       "MaxOverlap %r %s must hold one value per row of RpnRois %r %s"
                       % (m.name, list(m.shape), rois.name, list(rois.shape)))
        dtype, width = ctx.input_dtype("RpnRois"), 4 * ctx.attr("class_nums")
        ctx.set_output("Rois", (-1, 4), dtype)
        ctx.set_output("LabelsInt32", (-1, 1), "int32")
        for slot in ("BboxTargets", "BboxInsideWeights", "BboxOutsideWeights"):
            ctx.set_output(slot, (-1, width), dtype)
        ctx.set_output("MaxOverlapWithGT", (-1,), dtype)
        ctx.set_output("RoisNum", (ctx.input_var("ImInfo").shape[0],), "int32")

    @staticmethod
    def forward(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info, rpn_rois_num=None,
                gt_num=None, max_overlap=None, batch_size_per_im=256, fg_fraction=0.25, fg_thresh=0.25,
                bg_thresh_hi=0.5, bg_thresh_lo=0.0, bbox_reg_weights=(0.1, 0.1, 0.2, 0.2),
                class_nums=1, use_random=True, is_cls_agnostic=False, is_cascade_rcnn=False):
        rng = np.random.default_rng()
        n = len(im_info)
        roi_image = roi_image_index(len(rpn_rois), rpn_rois_num, n)
        gt_image = roi_image_index(len(gt_boxes), gt_num, n)
        per_image = [sample_image(
            rpn_rois[roi_image == i], gt_boxes[gt_image == i],
            gt_classes.ravel()[gt_image == i].astype(np.int64),
            is_crowd.ravel()[gt_image == i], im_info[i, 2], batch_size_per_im, fg_fraction,
            fg_thresh, bg_thresh_hi, bg_thresh_lo, bbox_reg_weights, class_nums, use_random,
            rng, is_cls_agnostic, is_cascade_rcnn,
            None if max_overlap is None else max_overlap.reshape(-1)[roi_image == i])
            for i in range(n)]
        rois, labels, targets, weights, best = (np.concatenate(p) for p in zip(*per_image))
        dtype = rpn_rois.dtype
        return (rois.reshape(-1, 4).astype(dtype), labels.astype(np.int32).reshape(-1, 1),
                targets.reshape(len(rois), -1).astype(dtype),
                weights.reshape(len(rois), -1).astype(dtype),
                weights.reshape(len(rois), -1).astype(dtype), best.astype(dtype),
                np.array([len(p[0]) for p in per_image], np.int32))

    def samples(self, rng):
        gts = random_boxes(rng, 3, 30.0) + 1.0
        rois = np.concatenate([gts + rng.uniform(-1, 1, (3, 4)), random_boxes(rng, 5, 30.0)])
        yield Sample({"RpnRois": rois * 2.0, "GtClasses": np.array([[1], [2], [1]], np.int32),
                      "IsCrowd": np.array([[0], [0], [1]], np.int32), "GtBoxes": gts,
                      "ImInfo": np.array([[60.0, 60.0, 2.0], [60.0, 60.0, 2.0]]),
                      "RpnRoisNum": np.array([5, 3], np.int32),
                      "GtNum": np.array([2, 1], np.int32)},
                     {"batch_size_per_im": 6, "fg_fraction": 0.5, "class_nums": 3,
                      "use_random": False})
        # a cascade stage (Paddle 2.0's form): the proposals whose MaxOverlap is 1 (the
        # ground truth the previous stage added) and one of negative width are dropped
        flipped = np.array([[20.0, 5.0, 10.0, 15.0]])           # x2 - x1 + 1 < 0
        yield Sample({"RpnRois": np.concatenate([gts, rois, flipped]) * 2.0,
                      "GtClasses": np.array([[1], [2], [1]], np.int32),
                      "IsCrowd": np.array([[0], [0], [0]], np.int32), "GtBoxes": gts,
                      "ImInfo": np.array([[60.0, 60.0, 2.0]]),
                      "MaxOverlap": np.concatenate([np.ones(3), rng.uniform(0, 0.9, 9)])},
                     {"class_nums": 2, "fg_thresh": 0.5, "is_cascade_rcnn": True,
                      "is_cls_agnostic": True})
