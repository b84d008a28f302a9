"""generate_mask_labels (Mask R-CNN mask head targets), per image:
  the ground truths that are neither crowd nor class 0 keep their polygons; each
  foreground RoI (LabelsInt32 > 0; coordinates divided by ImInfo's scale) is matched to
  the one whose polygons' bounding box it overlaps most (pixel IoU, first on ties), and
  that ground truth's polygons, mapped into the RoI's box scaled to resolution x
  resolution, are rasterized: a cell is 1 when its centre lies inside any polygon
  (even-odd rule; Paddle rasterizes with COCO's polygon-to-RLE, which this approximates).
  An image without foreground RoIs keeps its first background RoI with an all -1 mask.
  MaskRois [K, 4]                        the kept RoIs (in the input's scaled coordinates)
  RoiHasMaskInt32 [K, 1] int32           their row index among the image's RoIs
  MaskInt32 [K, num_classes * res^2] int32   the mask in the columns of the RoI's class,
                                         -1 elsewhere
  MaskRoisNum [N] int32                  kept rows per image (refimpl)
In place of 1.8's LoD: GtSegms [P, 2] holds every polygon's (x, y) points one after
another, GtSegmsPointNum [Q] counts each polygon's points, GtPolyNum [G] each ground
truth's polygons, GtNum [N] each image's ground truths and RoisNum [N] each image's RoIs
(the last two absent: one image). No gradient."""
import numpy as np

from ._boxes import expect_boxes, pairwise_iou, roi_image_index
from ._common import FLOATS
from ._sequence import INTS, lengths_of, segments
from .registry import OpDef, Sample, register


def polygons_inside(polygons, resolution):
    """[res, res] bool: cells (row y, column x) whose centre (x + .5, y + .5) lies inside
    any of the [n, 2] (x, y) polygons (even-odd rule)."""
    centre = np.arange(resolution) + 0.5
    cx, cy = centre[None, :], centre[:, None]
    mask = np.zeros((resolution, resolution), bool)
    for poly in polygons:
        inside = np.zeros_like(mask)
        for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
            if y0 == y1:
                continue
            crosses = (y0 > cy) != (y1 > cy)
            x_at = x0 + (cy - y0) * (x1 - x0) / (y1 - y0)
            inside ^= crosses & (cx < x_at)
        mask |= inside
    return mask


def roi_mask(polygons, roi, resolution):
    """The ground truth's polygons rasterized within `roi` (x1, y1, x2, y2)."""
    w, h = max(roi[2] - roi[0], 1.0), max(roi[3] - roi[1], 1.0)
    scale = np.array([resolution / w, resolution / h])
    return polygons_inside([(p - roi[:2]) * scale for p in polygons], resolution)


def image_masks(rois, labels, gt_polygons, scale, num_classes, resolution):
    """(kept rois, their indices, class-expanded int32 masks) of one image; gt_polygons:
    one list of [n, 2] polygons per eligible ground truth."""
    size = resolution * resolution
    fg = np.flatnonzero(labels > 0)
    if fg.size == 0 or not gt_polygons:
        kept = np.flatnonzero(labels == 0)[:1]
        masks = np.full((len(kept), num_classes * size), -1, np.int32)
        return rois[kept], kept, masks
    gt_boxes = np.array([np.concatenate([np.concatenate(p).min(0), np.concatenate(p).max(0)])
                         for p in gt_polygons])
    unscaled = rois[fg] / scale
    best_gt = pairwise_iou(unscaled, gt_boxes, normalized=False).argmax(axis=1)
    masks = np.full((len(fg), num_classes, size), -1, np.int32)
    for i, (roi, gt) in enumerate(zip(unscaled, best_gt)):
        masks[i, labels[fg[i]]] = roi_mask(gt_polygons[gt], roi, resolution).reshape(-1)
    return rois[fg], fg, masks.reshape(len(fg), -1)


@register
class GenerateMaskLabels(OpDef):
    type = "generate_mask_labels"
    inputs = ("ImInfo", "GtClasses", "IsCrowd", "GtSegms", "Rois", "LabelsInt32",
              "GtSegmsPointNum", "GtPolyNum", "GtNum?", "RoisNum?")
    outputs = ("MaskRois", "RoiHasMaskInt32", "MaskInt32", "MaskRoisNum")
    attrs = {"num_classes": 1, "resolution": 14}

    def infer_shape(self, ctx):
        ctx.check_dtype("Rois", FLOATS)
        ctx.check_dtype("GtSegms", FLOATS)
        for slot in ("GtClasses", "IsCrowd", "LabelsInt32", "GtSegmsPointNum", "GtPolyNum"):
            ctx.check_dtype(slot, INTS)
        expect_boxes(ctx, "Rois")
        segms = ctx.input_var("GtSegms")
        ctx.expect(len(segms.shape) == 2 and segms.shape[1] in (2, -1),
                   "input GtSegms %r must be [points, 2], got %s"
                   % (segms.name, list(segms.shape)))
        for attr in ("num_classes", "resolution"):
            ctx.expect(ctx.attr(attr) > 0, "%s must be positive, got %d"
                       % (attr, ctx.attr(attr)))
        width = ctx.attr("num_classes") * ctx.attr("resolution") ** 2
        ctx.set_output("MaskRois", (-1, 4), ctx.input_dtype("Rois"))
        ctx.set_output("RoiHasMaskInt32", (-1, 1), "int32")
        ctx.set_output("MaskInt32", (-1, width), "int32")
        ctx.set_output("MaskRoisNum", (ctx.input_var("ImInfo").shape[0],), "int32")

    @staticmethod
    def forward(im_info, gt_classes, is_crowd, gt_segms, rois, labels, point_num, poly_num,
                gt_num=None, rois_num=None, num_classes=1, resolution=14):
        where = "generate_mask_labels"
        point_num = lengths_of(point_num, len(gt_segms), where, "GtSegmsPointNum")
        poly_num = lengths_of(poly_num, len(point_num), where, "GtPolyNum")
        polygons = [gt_segms[s:e] for s, e in segments(point_num)]
        gt_polygons = [polygons[s:e] for s, e in segments(poly_num)]
        classes, crowd = gt_classes.reshape(-1), is_crowd.reshape(-1)
        if len(classes) != len(gt_polygons) or len(crowd) != len(gt_polygons):
            raise ValueError("%s: GtPolyNum gives polygons for %d ground truths, GtClasses has "
                             "%d and IsCrowd %d" % (where, len(gt_polygons), len(classes),
                                                    len(crowd)))
        n = len(im_info)
        roi_image = roi_image_index(len(rois), rois_num, n)
        gt_image = roi_image_index(len(gt_polygons), gt_num, n)
        eligible = (classes > 0) & (crowd == 0)
        labels = labels.reshape(-1).astype(np.int64)
        if labels.size and labels.max() >= num_classes:
            raise ValueError("%s: LabelsInt32 has class %d, num_classes is %d"
                             % (where, labels.max(), num_classes))
        per_image = [image_masks(
            rois[roi_image == i], labels[roi_image == i],
            [gt_polygons[g] for g in np.flatnonzero((gt_image == i) & eligible)],
            im_info[i, 2], num_classes, resolution) for i in range(n)]
        kept_rois, kept, masks = (list(p) for p in zip(*per_image))
        return (np.concatenate(kept_rois).reshape(-1, 4).astype(rois.dtype),
                np.concatenate(kept).astype(np.int32).reshape(-1, 1),
                np.concatenate(masks).reshape(-1, num_classes * resolution ** 2),
                np.array([len(k) for k in kept], np.int32))

    def samples(self, rng):
        # image 0: a square and a triangle ground truth, the crowd one ignored;
        # image 1: no foreground RoI
        segms = np.array([[2, 2], [8, 2], [8, 8], [2, 8], [10, 10], [16, 10], [10, 16],
                          [0, 0], [4, 0], [4, 4]], np.float64)
        rois = np.array([[2, 2, 8, 8], [9, 9, 17, 17], [0, 0, 3, 3], [1, 1, 9, 9],
                         [0, 0, 5, 5], [3, 3, 6, 6]], np.float64) * 2.0
        yield Sample({"ImInfo": np.array([[40.0, 40.0, 2.0], [40.0, 40.0, 2.0]]),
                      "GtClasses": np.array([[1], [2], [1]], np.int32),
                      "IsCrowd": np.array([[0], [0], [1]], np.int32), "GtSegms": segms,
                      "Rois": rois, "LabelsInt32": np.array([[1], [2], [0], [1], [0], [0]],
                                                            np.int32),
                      "GtSegmsPointNum": np.array([4, 3, 3], np.int32),
                      "GtPolyNum": np.array([1, 1, 1], np.int32),
                      "GtNum": np.array([3, 0], np.int32),
                      "RoisNum": np.array([4, 2], np.int32)},
                     {"num_classes": 3, "resolution": 4}, grad=False)
