"""Shared helpers for the detection ops: box areas and overlaps, shape checks, and the
RoIs-to-image mapping that replaces Paddle 1.8's LoD (a `RoisNum` count per image)."""
import numpy as np

from .. import versions


def empty_rows(rows):
    """`rows` [0, width] as the version profile gives an empty detection result: Paddle
    1.8.5's kernels leave it a [0] tensor (specs/versions.md, empty_detection_rows)."""
    if len(rows) == 0 and versions.switch("empty_detection_rows") == "flat":
        return rows.reshape(0)
    return rows


def box_area(boxes, normalized=True):
    """Area of [..., 4] boxes (x1, y1, x2, y2); an inverted box has area 0. Unnormalized
    (pixel) boxes count both end pixels: width = x2 - x1 + 1."""
    offset = 0.0 if normalized else 1.0
    w = boxes[..., 2] - boxes[..., 0]
    h = boxes[..., 3] - boxes[..., 1]
    area = (w + offset) * (h + offset)
    return np.where((w < 0) | (h < 0), 0.0, area)


def pairwise_iou(a, b, normalized=True, signed_areas=False):
    """[len(a), len(b)] intersection over union of two sets of boxes; 0 where the union is
    empty. `signed_areas`: an inverted box's area is its width times height as they are
    (negative for one inverted side), as iou_similarity computes it, not 0."""
    offset = 0.0 if normalized else 1.0
    a, b = a[:, None, :], b[None, :, :]
    inter_w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + offset
    inter_h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + offset
    inter = np.maximum(inter_w, 0.0) * np.maximum(inter_h, 0.0)
    if signed_areas:
        union = _signed_area(a, offset) + _signed_area(b, offset) - inter
        divides = union != 0
    else:
        union = box_area(a, normalized) + box_area(b, normalized) - inter
        divides = union > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(divides, inter / np.where(divides, union, 1.0), 0.0)


def _signed_area(boxes, offset):
    return (boxes[..., 2] - boxes[..., 0] + offset) * (boxes[..., 3] - boxes[..., 1] + offset)


def nms_overlap(a, b, normalized=True):
    """pairwise_iou as the NMS ops measure it: boxes apart in raw coordinates (one's x1
    past the other's x2, ...) overlap 0, even where the pixel +1 would make them touch.
    Polygons (8 to 32 coordinates) by polygon_iou, whatever `normalized` says (as Paddle)."""
    if a.shape[-1] > 4:       # polygons: (x, y) of each corner
        return np.array([[polygon_iou(p, q) for q in b] for p in a]).reshape(len(a), len(b))
    a_, b_ = a[:, None, :], b[None, :, :]
    apart = ((b_[..., 0] > a_[..., 2]) | (b_[..., 2] < a_[..., 0]) |
             (b_[..., 1] > a_[..., 3]) | (b_[..., 3] < a_[..., 1]))
    return np.where(apart, 0.0, pairwise_iou(a, b, normalized))


def polygon_area(points):
    """Signed area (shoelace) of a polygon [K, 2]: positive counter-clockwise."""
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _clip(subject, a, b):
    """The part of polygon `subject` left of the directed edge a -> b (Sutherland-Hodgman)."""
    side = lambda p: (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    out = []
    for k in range(len(subject)):
        p, q = subject[k], subject[(k + 1) % len(subject)]
        sp, sq = side(p), side(q)
        if sp >= 0:
            out.append(p)
        if sp * sq < 0:
            out.append(p + (q - p) * (sp / (sp - sq)))
    return out


def polygon_iou(a, b):
    """Intersection over union of two convex polygons given as flat (x, y) coordinates
    (Paddle's PolyIoU for the 8-to-32-coordinate NMS boxes); 0 when either area or the
    intersection is 0."""
    pa, pb = a.reshape(-1, 2).astype(np.float64), b.reshape(-1, 2).astype(np.float64)
    area_a, area_b = polygon_area(pa), polygon_area(pb)
    if area_a == 0 or area_b == 0:
        return 0.0
    pa, pb = (pa if area_a > 0 else pa[::-1]), (pb if area_b > 0 else pb[::-1])
    inter = list(pa)
    for k in range(len(pb)):
        if not inter:
            break
        inter = _clip(inter, pb[k], pb[(k + 1) % len(pb)])
    inter_area = abs(polygon_area(np.array(inter))) if len(inter) >= 3 else 0.0
    if inter_area == 0:
        return 0.0
    return inter_area / (abs(area_a) + abs(area_b) - inter_area)


def expect_boxes(ctx, slot, rank=2):
    """infer_shape check: `slot` is a rank-`rank` tensor of boxes (last dim 4)."""
    v = ctx.input_var(slot)
    ctx.expect(len(v.shape) == rank and v.shape[-1] in (4, -1),
               "input %s %r must have shape [%s4], got %s"
               % (slot, v.name, "..., " * (rank - 1), list(v.shape)))
    return v


def roi_image_index(n_rois, rois_num, n_images):
    """[n_rois] image index of each RoI. `rois_num` ([N] counts per image, Paddle 2.x's
    RoisNum, standing in for 1.8's LoD) or, when absent, every RoI on image 0 of a batch
    of one."""
    if rois_num is None:
        if n_images != 1 and n_rois > 0:
            raise ValueError("RoIs without RoisNum need a batch of one image, got %d images"
                             % n_images)
        return np.zeros(n_rois, np.int64)
    rois_num = np.asarray(rois_num).astype(np.int64).reshape(-1)
    if len(rois_num) != n_images or rois_num.sum() != n_rois or (rois_num < 0).any():
        raise ValueError("RoisNum %s must give one count per image (%d images) summing to "
                         "the %d RoIs" % (rois_num.tolist(), n_images, n_rois))
    return np.repeat(np.arange(n_images), rois_num)


def rois_counts(rois_num, rois_lod):
    """RoisNum ([N] RoIs per image), or the counts that Paddle 1.8's RoisLod ([N + 1]
    offsets into ROIs) gives when RoisNum is absent."""
    if rois_num is None and rois_lod is not None:
        return np.diff(np.asarray(rois_lod).astype(np.int64).reshape(-1))
    return rois_num


def c_round(x):
    """C's round(): halves away from zero (numpy rounds them to even)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def random_boxes(rng, n, scale=1.0):
    """n valid boxes (x1 < x2, y1 < y2) inside [0, 1.01 * scale]^2, float64."""
    corners = rng.uniform(0.0, scale, size=(n, 2, 2))
    return np.concatenate([corners.min(axis=1), corners.max(axis=1) + 0.01 * scale], axis=1)
