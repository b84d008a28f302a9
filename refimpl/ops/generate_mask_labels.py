"""generate_mask_labels (Mask R-CNN mask head targets), per image:
  the ground truths that are neither crowd nor class 0 keep their polygons; each
  foreground RoI (LabelsInt32 > 0; coordinates divided by ImInfo's scale) is matched to
  the one whose polygons' bounding box it overlaps most (pixel IoU, first on ties), and
  that ground truth's polygons, mapped into the RoI's box scaled to resolution x
  resolution, are rasterized as COCO's mask API rasterizes a polygon (coco_polygon_mask).
  An image without foreground RoIs keeps its first RoI with an all -1 mask and the index
  of its first background RoI (Paddle 1.8.5's pairing; one row unless labels are < 0).
  MaskRois [K, 4]                        the kept RoIs (divided and multiplied back by the
                                         scale, in the RoIs' dtype, as Paddle)
  RoiHasMaskInt32 [K, 1] int32           their row index among the image's RoIs
  MaskInt32 [K, num_classes * res^2] int32   the mask in the columns of the RoI's class,
                                         -1 elsewhere
  MaskRoisNum [N] int32                  kept rows per image (refimpl)
As Paddle 1.8: GtSegms [P, 2] holds every polygon's (x, y) points with a 3-level LoD
(image -> ground truth -> polygon -> points) and Rois the LoD of their images; the outputs
carry the kept rows per image as their LoD. Without those LoDs the counts come as inputs
(refimpl): GtSegmsPointNum [Q] each polygon's points, GtPolyNum [G] each ground truth's
polygons, GtNum [N] each image's ground truths, RoisNum [N] each image's RoIs (the last
two absent: one image). No gradient."""
import numpy as np

from ..framework.lod import as_plain, lod_of, with_lod
from ._boxes import expect_boxes, pairwise_iou, roi_image_index
from ._common import FLOATS
from ._sequence import INTS, lengths_of, segments
from .registry import OpDef, Sample, lengths_lod, register

# COCO traces polygon edges on a grid this many times finer than the mask's
UPSAMPLE = 5


def _c_int(x):
    """C's (int) of doubles: truncation toward zero."""
    return np.trunc(x).astype(np.int64)


def _edge_points(xs, ys):
    """The fine-grid points COCO steps along each edge of the closed polygon with integer
    vertices (xs, ys), edge by edge from its start to its end, both ends included: one per
    unit of the edge's longer axis, the other axis rounded from the line through the
    endpoints, taken from the endpoint with the smaller major coordinate."""
    x0, y0 = xs, ys
    x1, y1 = np.roll(xs, -1), np.roll(ys, -1)
    dx, dy = np.abs(x1 - x0), np.abs(y1 - y0)
    along_x = dx >= dy
    flip = np.where(along_x, x0 > x1, y0 > y1)
    sx, sy = np.where(flip, x1, x0), np.where(flip, y1, y0)
    ex, ey = np.where(flip, x0, x1), np.where(flip, y0, y1)
    major = np.where(along_x, dx, dy)
    # (a point edge: 0 / 1)
    slope = np.where(along_x, ey - sy, ex - sx) / np.maximum(major, 1)
    steps = major + 1
    edge = np.repeat(np.arange(len(xs)), steps)
    d = np.arange(steps.sum()) - np.repeat(np.cumsum(steps) - steps, steps)
    t = np.where(flip[edge], major[edge] - d, d)
    minor = _c_int(np.where(along_x[edge], sy[edge], sx[edge]) + slope[edge] * t + 0.5)
    u = np.where(along_x[edge], sx[edge] + t, minor)
    v = np.where(along_x[edge], minor, sy[edge] + t)
    return u, v


def coco_polygon_mask(points, height, width):
    """[height, width] int mask of one polygon ([n, 2] (x, y) in mask cells), as COCO's
    mask API (frPyObjects + decode) gives it: the vertices are rounded onto a 5x finer
    grid, the edges traced there, and where the trace changes fine column at a mask
    column's centre the cell below the crossing starts (or ends) a run; the runs go down
    the columns one after another, so a cell is 1 when an odd number of crossings lie at
    or before it in column-major order (a crossing below the last row starts the next
    column)."""
    fine = _c_int(UPSAMPLE * points.astype(np.float64) + 0.5)
    u, v = _edge_points(fine[:, 0], fine[:, 1])
    moved = u[1:] != u[:-1]
    crossed = np.where(u[1:] < u[:-1], u[1:], u[1:] - 1)[moved]
    lower = np.minimum(v[1:], v[:-1])[moved]
    # a crossing counts at fine columns UPSAMPLE * c + 2, the centre of mask column c
    centred = (crossed - UPSAMPLE // 2) % UPSAMPLE == 0
    column = (crossed - UPSAMPLE // 2) // UPSAMPLE
    keep = centred & (column >= 0) & (column < width)
    # ceil((lower - 2) / 5): the first mask row whose centre is at or below the crossing
    row = np.clip(-((UPSAMPLE // 2 - lower[keep]) // UPSAMPLE), 0, height)
    starts = np.bincount(column[keep] * height + row, minlength=height * width + 1)
    inside = np.cumsum(starts[:height * width]) % 2
    return inside.reshape(width, height).T


def roi_mask(polygons, roi, resolution):
    """The union of a ground truth's polygons rasterized within `roi` (x1, y1, x2, y2),
    mapped in the RoI's dtype as Paddle: (x - x1) * resolution / max(x2 - x1, 1)."""
    one = roi.dtype.type(1)
    size = np.array([max(roi[2] - roi[0], one), max(roi[3] - roi[1], one)], roi.dtype)
    mask = np.zeros((resolution, resolution), np.int32)
    for poly in polygons:
        mapped = (poly.astype(roi.dtype) - roi[:2]) * roi.dtype.type(resolution) / size
        mask |= coco_polygon_mask(mapped, resolution, resolution)
    return mask


def image_masks(rois, labels, gt_polygons, scale, num_classes, resolution, image):
    """(kept rois, their indices, class-expanded int32 masks) of one image; gt_polygons:
    one list of [n, 2] polygons per eligible ground truth."""
    size = resolution * resolution
    fg = np.flatnonzero(labels > 0)
    if fg.size == 0:
        if len(rois) == 0:
            return rois, fg, np.zeros((0, num_classes * size), np.int32)
        background = np.flatnonzero(labels == 0)[:1]
        if background.size == 0:
            # Paddle 1.8.5 reads past the image's RoIs here
            raise ValueError("generate_mask_labels: image %d has neither a foreground "
                             "(label > 0) nor a background (label 0) RoI, labels %s"
                             % (image, labels.tolist()))
        # as Paddle 1.8.5: the image's first RoI is kept, with the index of its first
        # background RoI (the same row unless negative labels come first)
        masks = np.full((1, num_classes * size), -1, np.int32)
        return rois[:1] / scale * scale, background, masks
    if not gt_polygons:
        # Paddle 1.8.5 crashes (SIGSEGV) here
        raise ValueError("generate_mask_labels: image %d has %d foreground RoIs but no "
                         "ground truth with class > 0 that is not crowd to take masks from"
                         % (image, fg.size))
    gt_boxes = np.array([np.concatenate([np.concatenate(p).min(0), np.concatenate(p).max(0)])
                         for p in gt_polygons])
    unscaled = rois[fg] / scale
    best_gt = pairwise_iou(unscaled, gt_boxes.astype(unscaled.dtype),
                           normalized=False).argmax(axis=1)
    masks = np.full((len(fg), num_classes, size), -1, np.int32)
    for i, (roi, gt) in enumerate(zip(unscaled, best_gt)):
        masks[i, labels[fg[i]]] = roi_mask(gt_polygons[gt], roi, resolution).reshape(-1)
    return unscaled * scale, fg, masks.reshape(len(fg), -1)


@register
class GenerateMaskLabels(OpDef):
    type = "generate_mask_labels"
    inputs = ("ImInfo", "GtClasses", "IsCrowd", "GtSegms", "Rois", "LabelsInt32",
              "GtSegmsPointNum?", "GtPolyNum?", "GtNum?", "RoisNum?")
    outputs = ("MaskRois", "RoiHasMaskInt32", "MaskInt32", "MaskRoisNum")
    # Paddle 1.8's form: the kernel reads the counts from GtSegms' 3-level LoD and Rois'
    # LoD where they are not given; the outputs then carry MaskRoisNum as theirs
    lod_whole = ("GtSegms", "Rois")
    lod_outputs = {slot: lengths_lod("MaskRoisNum", if_lod="Rois") for slot in outputs[:-1]}
    attrs = {"num_classes": 1, "resolution": 14}

    def infer_shape(self, ctx):
        ctx.check_dtype("Rois", FLOATS)
        ctx.check_dtype("GtSegms", FLOATS)
        for slot in ("GtClasses", "IsCrowd", "LabelsInt32", "GtSegmsPointNum", "GtPolyNum",
                     "GtNum", "RoisNum"):
            if ctx.has_input(slot):
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
    def forward(im_info, gt_classes, is_crowd, gt_segms, rois, labels, point_num=None,
                poly_num=None, gt_num=None, rois_num=None, num_classes=1, resolution=14):
        where = "generate_mask_labels"
        segms_lod, rois_lod = lod_of(gt_segms), lod_of(rois)
        gt_segms, rois = as_plain(gt_segms), as_plain(rois)
        if segms_lod:
            if len(segms_lod) != 3:
                raise ValueError("%s: GtSegms must carry a 3-level LoD (image -> ground "
                                 "truth -> polygon -> points), got %d level(s) %s"
                                 % (where, len(segms_lod), [list(l) for l in segms_lod]))
            gt_num = segms_lod[0] if gt_num is None else gt_num
            poly_num = segms_lod[1] if poly_num is None else poly_num
            point_num = segms_lod[2] if point_num is None else point_num
        if point_num is None or poly_num is None:
            raise ValueError("%s: GtSegms carries no LoD and GtSegmsPointNum / GtPolyNum "
                             "are not given: feed gt_segms as a LoDTensor with a 3-level "
                             "LoD (image -> ground truth -> polygon -> points)" % where)
        if rois_num is None and rois_lod:
            rois_num = rois_lod[-1]
        point_num = lengths_of(point_num, len(gt_segms), where, "GtSegmsPointNum")
        poly_num = lengths_of(poly_num, len(point_num), where, "GtPolyNum")
        polygons = [gt_segms[s:e] for s, e in segments(point_num)]
        gt_polygons = [polygons[s:e] for s, e in segments(poly_num)]
        classes, crowd = gt_classes.reshape(-1), is_crowd.reshape(-1)
        if len(classes) != len(gt_polygons) or len(crowd) != len(gt_polygons):
            raise ValueError("%s: GtSegms holds polygons for %d ground truths, GtClasses has "
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
            rois.dtype.type(im_info[i, 2]), num_classes, resolution, i) for i in range(n)]
        kept_rois, kept, masks = (list(p) for p in zip(*per_image))
        return (np.concatenate(kept_rois).reshape(-1, 4).astype(rois.dtype),
                np.concatenate(kept).astype(np.int32).reshape(-1, 1),
                np.concatenate(masks).reshape(-1, num_classes * resolution ** 2),
                np.array([len(k) for k in kept], np.int32))

    def samples(self, rng):
        # Paddle 1.8's form (float32: 1.8.5's kernel). Image 0 (scale 1.5): ground truth 0
        # a square and a triangle, 1 a quadrilateral, 2 crowd (ignored); RoI 3 cuts through
        # both polygons of ground truth 0. Image 1: no foreground RoI, a negative label
        # first (1.8.5 keeps RoI 0, with background index 1).
        segms = np.array([[2, 2], [8, 2], [8, 8], [2, 8], [9, 3], [12, 3], [9, 7],
                          [10, 10], [16, 11], [15, 16], [11, 15.5], [0, 0], [4, 0], [4, 4],
                          [0, 0], [6, 0], [0, 6]], np.float32)
        gt_lod = ((3, 1),)
        rois = np.array([[1, 1, 9, 9], [9, 9, 17, 17], [0, 0, 3, 3], [2, 2, 13, 8]],
                        np.float32) * 1.5
        rois = np.concatenate([rois, np.array([[-1, 0, 4, 5], [0, 0, 2, 2]], np.float32)])
        yield Sample({"ImInfo": np.array([[40, 40, 1.5], [40, 40, 1]], np.float32),
                      "GtClasses": with_lod(np.array([[1], [2], [1], [1]], np.int32), gt_lod),
                      "IsCrowd": with_lod(np.array([[0], [0], [1], [0]], np.int32), gt_lod),
                      "GtSegms": with_lod(segms, ((3, 1), (2, 1, 1, 1), (4, 3, 4, 3, 3))),
                      "Rois": with_lod(rois, ((4, 2),)),
                      "LabelsInt32": with_lod(np.array([[1], [2], [0], [1], [-1], [0]],
                                                       np.int32), ((4, 2),))},
                     {"num_classes": 3, "resolution": 7}, grad=False, name="lod")
        # refimpl's count form, float64
        yield Sample({"ImInfo": np.array([[40.0, 40.0, 2.0], [40.0, 40.0, 2.0]]),
                      "GtClasses": np.array([[1], [2], [1]], np.int32),
                      "IsCrowd": np.array([[0], [0], [1]], np.int32),
                      "GtSegms": segms[[0, 1, 2, 3, 7, 8, 9, 11, 12, 13]].astype(np.float64),
                      "Rois": np.array([[2, 2, 8, 8], [9, 9, 17, 17], [0, 0, 3, 3],
                                        [1, 1, 9, 9], [0, 0, 5, 5], [3, 3, 6, 6]]) * 2.0,
                      "LabelsInt32": np.array([[1], [2], [0], [1], [0], [0]], np.int32),
                      "GtSegmsPointNum": np.array([4, 3, 3], np.int32),
                      "GtPolyNum": np.array([1, 1, 1], np.int32),
                      "GtNum": np.array([3, 0], np.int32),
                      "RoisNum": np.array([4, 2], np.int32)},
                     {"num_classes": 3, "resolution": 4}, grad=False, name="counts")
