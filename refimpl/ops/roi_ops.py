"""RoI pooling over NCHW feature maps: roi_align (bilinear samples averaged per bin),
roi_pool (max per bin, with Argmax), psroi_pool (position-sensitive average per bin).
ROIs [R, 4] are (x1, y1, x2, y2) in input-image coordinates (scaled by spatial_scale onto
the feature map); the optional int32 RoisNum [N] says how many RoIs belong to each image
(Paddle 2.x's input, standing in for 1.8's LoD; absent: a batch of one). Out is
[R, C, pooled_height, pooled_width]. Each op has a gradient with respect to X only.

Each RoI's pooling is linear in X (roi_align, psroi_pool) or picks one cell of X per bin
(roi_pool), so forward and backward share one matrix per RoI: bins x feature cells."""
import math

import numpy as np

from ._boxes import c_round, random_boxes, roi_image_index, rois_counts
from ._common import FLOATS
from .registry import OpDef, Sample, register, share_lod


def _check_roi_inputs(ctx, out_channels=None):
    ctx.check_dtype("X", FLOATS)
    x, rois = ctx.input_var("X"), ctx.input_var("ROIs")
    ctx.expect(len(x.shape) == 4, "X %r must be 4-D NCHW, got %s" % (x.name, list(x.shape)))
    ctx.expect(len(rois.shape) == 2 and rois.shape[1] in (4, -1),
               "ROIs %r must be [R, 4], got %s" % (rois.name, list(rois.shape)))
    if ctx.has_input("RoisNum"):
        num = ctx.input_var("RoisNum")
        ctx.expect(len(num.shape) == 1, "RoisNum %r must be 1-D [N], got %s"
                   % (num.name, list(num.shape)))
    ph, pw = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    ctx.expect(ph > 0 and pw > 0, "pooled_height and pooled_width must be positive, got "
               "%d and %d" % (ph, pw))
    ctx.expect(ctx.attr("spatial_scale") > 0, "spatial_scale must be positive, got %s"
               % ctx.attr("spatial_scale"))
    shape = (rois.shape[0], out_channels or x.shape[1], ph, pw)
    ctx.set_output("Out", shape, x.dtype)
    return shape


def bilinear_taps(y, x, height, width):
    """(flat cell index [4, K], weight [4, K]) of bilinear interpolation at points (y, x),
    as RoIAlign samples: points beyond one cell outside the map weigh 0, others are
    clamped into it."""
    outside = (y < -1.0) | (y > height) | (x < -1.0) | (x > width)
    y, x = np.maximum(y, 0.0), np.maximum(x, 0.0)
    y_low = np.minimum(y.astype(np.int64), height - 1)
    x_low = np.minimum(x.astype(np.int64), width - 1)
    y = np.where(y_low >= height - 1, y_low, y)          # at the last row: no blending
    x = np.where(x_low >= width - 1, x_low, x)
    y_high = np.minimum(y_low + 1, height - 1)
    x_high = np.minimum(x_low + 1, width - 1)
    ly, lx = y - y_low, x - x_low
    hy, hx = 1.0 - ly, 1.0 - lx
    cells = np.stack([y_low * width + x_low, y_low * width + x_high,
                      y_high * width + x_low, y_high * width + x_high])
    weights = np.stack([hy * hx, hy * lx, ly * hx, ly * lx]) * ~outside
    return cells, weights


def roi_align_matrix(roi, height, width, pooled_height, pooled_width, spatial_scale,
                     sampling_ratio, aligned):
    """[bins, H * W]: each bin's average of a grid of bilinear samples (grid = the
    sampling_ratio, or ceil(bin size) per side when it is <= 0)."""
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = roi * spatial_scale - offset
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:                                      # Paddle 1.8: at least one cell
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    bin_h, bin_w = roi_h / pooled_height, roi_w / pooled_width
    grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / pooled_height))
    grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / pooled_width))
    count = max(grid_h * grid_w, 1)
    # sample points of every bin: [ph, grid_h] rows and [pw, grid_w] columns
    ys = y1 + np.arange(pooled_height)[:, None] * bin_h + \
        (np.arange(grid_h) + 0.5)[None, :] * bin_h / grid_h
    xs = x1 + np.arange(pooled_width)[:, None] * bin_w + \
        (np.arange(grid_w) + 0.5)[None, :] * bin_w / grid_w
    y = np.broadcast_to(ys[:, None, :, None], (pooled_height, pooled_width, grid_h, grid_w))
    x = np.broadcast_to(xs[None, :, None, :], y.shape)
    cells, weights = bilinear_taps(y.reshape(-1), x.reshape(-1), height, width)
    bins = np.repeat(np.arange(pooled_height * pooled_width), grid_h * grid_w)
    matrix = np.zeros((pooled_height * pooled_width, height * width))
    np.add.at(matrix, (np.broadcast_to(bins, cells.shape), cells), weights / count)
    return matrix


class _LinearRoIPool(OpDef):
    """An RoI pooling that is, per RoI, one matrix [bins, H * W] (`matrix(roi, H, W,
    **attrs)`) applied to the RoI's image of X; the gradient applies its transpose."""
    inputs = ("X", "ROIs", "RoisNum?")
    outputs = ("Out",)
    no_grad = ("ROIs", "RoisNum")
    grad_inputs = ("X", "ROIs", "RoisNum?", "Out@GRAD")
    # without a RoisNum variable the images' RoIs are ROIs' LoD (Paddle 1.8's form)
    lod_lengths = {"RoisNum": "ROIs"}

    def infer_shape(self, ctx):
        _check_roi_inputs(ctx)

    @classmethod
    def matrices(cls, x, rois, rois_num, attrs):
        """[(image index, matrix)] per RoI."""
        _, _, h, w = x.shape
        image = roi_image_index(len(rois), rois_num, len(x))
        attrs = dict(cls.attrs, **attrs)
        return [(image[r], cls.matrix(roi, h, w, **attrs)) for r, roi in enumerate(rois)]

    @staticmethod
    def out_channels(channels, attrs):
        return channels

    @staticmethod
    def out_size(attrs):
        return attrs["pooled_height"], attrs["pooled_width"]

    @classmethod
    def forward(cls, x, rois, rois_num=None, **attrs):
        n, c, h, w = x.shape
        attrs = dict(cls.attrs, **attrs)
        ph, pw = cls.out_size(attrs)
        out = np.zeros((len(rois), cls.out_channels(c, attrs), ph * pw), x.dtype)
        for r, (i, m) in enumerate(cls.matrices(x, rois, rois_num, attrs)):
            out[r] = cls.apply(x[i].reshape(c, h * w), m)
        return out.reshape(out.shape[:2] + (ph, pw))

    @classmethod
    def backward(cls, x, rois, rois_num, dout, **attrs):
        n, c, h, w = x.shape
        dx = np.zeros((n, c, h * w), x.dtype)
        for r, (i, m) in enumerate(cls.matrices(x, rois, rois_num, attrs)):
            dx[i] += cls.apply_transposed(dout[r].reshape(len(dout[r]), -1), m, c)
        return dx.reshape(x.shape)

    @staticmethod
    def apply(x_flat, matrix):
        """[C, H * W] cells -> [C, bins]."""
        return x_flat @ matrix.T

    @staticmethod
    def apply_transposed(dout_flat, matrix, channels):
        return dout_flat @ matrix


@register
class RoIAlign(_LinearRoIPool):
    type = "roi_align"
    # float64: Paddle computes the sampling points' coordinates in float32 (the spec's Tolerances)
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-4, 1e-6)}
    attrs = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0,
             "sampling_ratio": -1, "aligned": False}
    # without a RoisNum variable the images' RoIs are 1.8's RoisLod offsets, or ROIs' LoD
    inputs = ("X", "ROIs", "RoisNum?", "RoisLod?")
    grad_inputs = ("X", "ROIs", "RoisNum?", "RoisLod?", "Out@GRAD")
    no_grad = ("ROIs", "RoisNum", "RoisLod")
    matrix = staticmethod(roi_align_matrix)

    @classmethod
    def forward(cls, x, rois, rois_num=None, rois_lod=None, **attrs):
        return super().forward(x, rois, rois_counts(rois_num, rois_lod), **attrs)

    @classmethod
    def backward(cls, x, rois, rois_num, rois_lod, dout, **attrs):
        return super().backward(x, rois, rois_counts(rois_num, rois_lod), dout, **attrs)

    def samples(self, rng):
        x = rng.uniform(-1, 1, (2, 3, 6, 5))
        rois = random_boxes(rng, 3, 8.0)
        yield Sample({"X": x, "ROIs": rois, "RoisNum": np.array([2, 1], np.int32)},
                     {"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.6})
        yield Sample({"X": x[:1], "ROIs": rois, "RoisNum": np.array([3], np.int32)},
                     {"pooled_height": 3, "pooled_width": 2, "sampling_ratio": 2,
                      "aligned": True}, name="aligned_sampling2_one_image")


def psroi_matrix(roi, height, width, pooled_height, pooled_width, spatial_scale,
                 output_channels):
    """[bins, H * W]: each bin's plain average over the feature cells it covers; the RoI
    spans round(x1) .. round(x2) + 1 (times spatial_scale), at least 0.1 a side."""
    x1, y1 = c_round(roi[0]) * spatial_scale, c_round(roi[1]) * spatial_scale
    x2, y2 = (c_round(roi[2]) + 1) * spatial_scale, (c_round(roi[3]) + 1) * spatial_scale
    bin_h = max(y2 - y1, 0.1) / pooled_height
    bin_w = max(x2 - x1, 0.1) / pooled_width
    matrix = np.zeros((pooled_height, pooled_width, height, width))
    for i in range(pooled_height):
        h0 = min(max(int(math.floor(bin_h * i + y1)), 0), height)
        h1 = min(max(int(math.ceil(bin_h * (i + 1) + y1)), 0), height)
        for j in range(pooled_width):
            w0 = min(max(int(math.floor(bin_w * j + x1)), 0), width)
            w1 = min(max(int(math.ceil(bin_w * (j + 1) + x1)), 0), width)
            if h1 > h0 and w1 > w0:                      # an empty bin pools to 0
                matrix[i, j, h0:h1, w0:w1] = 1.0 / ((h1 - h0) * (w1 - w0))
    return matrix.reshape(pooled_height * pooled_width, height * width)


@register
class PSRoIPool(_LinearRoIPool):
    """Position-sensitive: output channel c's bin (i, j) reads input channel
    (c * pooled_height + i) * pooled_width + j, so X has output_channels * bins channels."""
    type = "psroi_pool"
    attrs = {"output_channels": 1, "spatial_scale": 1.0, "pooled_height": 1,
             "pooled_width": 1}
    matrix = staticmethod(psroi_matrix)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        out_c = ctx.attr("output_channels")
        _check_roi_inputs(ctx, out_c)
        want = out_c * ctx.attr("pooled_height") * ctx.attr("pooled_width")
        ctx.expect(x.shape[1] in (want, -1),
                   "X %r must have output_channels * pooled_height * pooled_width = %d "
                   "channels, got %d" % (x.name, want, x.shape[1]))

    @staticmethod
    def out_channels(channels, attrs):
        return attrs["output_channels"]

    @staticmethod
    def apply(x_flat, matrix):
        bins = len(matrix)
        # [out_c, bins, H * W] input channels, each bin reading its own channel
        x_by_bin = x_flat.reshape(-1, bins, x_flat.shape[1])
        return np.einsum("cbk,bk->cb", x_by_bin, matrix)

    @staticmethod
    def apply_transposed(dout_flat, matrix, channels):
        return (dout_flat[:, :, None] * matrix[None]).reshape(channels, -1)

    def samples(self, rng):
        x = rng.uniform(-1, 1, (2, 2 * 2 * 3, 6, 7))
        rois = random_boxes(rng, 3, 10.0)
        yield Sample({"X": x, "ROIs": rois, "RoisNum": np.array([1, 2], np.int32)},
                     {"output_channels": 2, "pooled_height": 2, "pooled_width": 3,
                      "spatial_scale": 0.5})


def hat_integral(lo, hi, nodes):
    """[len(nodes)]: the integral over [lo, hi] of each node's linear-interpolation hat
    max(0, 1 - |t - node|), via its antiderivative."""
    def antiderivative(u):
        u = np.clip(u, -1.0, 1.0)
        return np.where(u <= 0, (u + 1) ** 2 / 2, 1 - (1 - u) ** 2 / 2)
    return antiderivative(hi - nodes) - antiderivative(lo - nodes)


def prroi_matrices(rois, height, width, pooled_height, pooled_width, spatial_scale):
    """[R, bins, H * W]: each bin's exact average of the bilinear interpolation of the map
    (zero beyond it) over the bin; an empty bin pools to 0. The interpolation is a sum of
    separable hats, so each bin's weights are an outer product of 1-D hat integrals (all
    RoIs and bins at once; every value as a scalar loop over them computes it)."""
    x1, y1, x2, y2 = (rois * spatial_scale).T[:, :, None, None]          # [R, 1, 1] each
    bin_h = np.maximum(y2 - y1, 0.0) / pooled_height
    bin_w = np.maximum(x2 - x1, 0.0) / pooled_width
    # [R, bins along an axis, 1] edges against [cells] nodes (bin indices in the RoIs'
    # precision, so each edge is the one a scalar loop computes)
    i = np.arange(pooled_height, dtype=bin_h.dtype)[:, None]
    j = np.arange(pooled_width, dtype=bin_w.dtype)[:, None]
    along_y = hat_integral(y1 + i * bin_h, y1 + (i + 1) * bin_h, np.arange(height, dtype=float))
    along_x = hat_integral(x1 + j * bin_w, x1 + (j + 1) * bin_w, np.arange(width, dtype=float))
    area = (bin_h * bin_w)[..., None, None]                              # [R, 1, 1, 1, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        matrix = np.where(area > 0, along_y[:, :, None, :, None] * along_x[:, None, :, None, :]
                          / area, 0.0)
    return matrix.reshape(len(rois), pooled_height * pooled_width, height * width)


@register
class PrRoIPool(_LinearRoIPool):
    """Precise RoI pooling: the RoI (scaled, not rounded) cut into equal bins, each the
    integral average of the bilinearly interpolated map. BatchRoINums is Paddle's name for
    the per-image RoI counts of this op."""
    type = "prroi_pool"
    inputs = ("X", "ROIs", "BatchRoINums?")
    no_grad = ("ROIs", "BatchRoINums")
    grad_inputs = ("X", "ROIs", "BatchRoINums?", "Out@GRAD")
    lod_lengths = {"BatchRoINums": "ROIs"}
    attrs = {"spatial_scale": 1.0, "pooled_height": 1, "pooled_width": 1}

    @classmethod
    def matrices(cls, x, rois, rois_num, attrs):
        _, _, h, w = x.shape
        image = roi_image_index(len(rois), rois_num, len(x))
        return list(zip(image, prroi_matrices(rois, h, w, **dict(cls.attrs, **attrs))))

    def samples(self, rng):
        x = rng.uniform(-1, 1, (2, 2, 5, 6))
        rois = random_boxes(rng, 3, 12.0)
        yield Sample({"X": x, "ROIs": rois, "BatchRoINums": np.array([1, 2], np.int32)},
                     {"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5})


TOLERANCE = 1e-4    # Paddle's roi_perspective_transform compares coordinates with this slack


def transform_matrix(xs, ys, out_height, out_width):
    """[9] homography taking output (w, h, 1) to the quadrilateral (x0..x3, y0..y3)
    (corners clockwise from top-left): corner 0 at (0, 0), 1 at (W' - 1, 0), 3 at
    (0, H' - 1), where H' = max(2, out_height) and W' is the quadrilateral's mean width
    over mean height times (H' - 1), rounded, plus 1, within [2, out_width]."""
    x0, x1, x2, x3 = xs
    y0, y1, y2, y3 = ys
    est_w = (np.hypot(x0 - x1, y0 - y1) + np.hypot(x2 - x3, y2 - y3)) / 2
    est_h = (np.hypot(x1 - x2, y1 - y2) + np.hypot(x3 - x0, y3 - y0)) / 2
    norm_h = max(2, out_height)
    norm_w = max(2, min(int(c_round(est_w * (norm_h - 1) / est_h)) + 1, out_width))
    dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    det = dx1 * dy2 - dx2 * dy1 + 1e-5
    a31 = (dx3 * dy2 - dx2 * dy3) / det / (norm_w - 1)
    a32 = (dx1 * dy3 - dx3 * dy1) / det / (norm_h - 1)
    return np.array([(x1 - x0 + a31 * (norm_w - 1) * x1) / (norm_w - 1),
                     (x3 - x0 + a32 * (norm_h - 1) * x3) / (norm_h - 1), x0,
                     (y1 - y0 + a31 * (norm_w - 1) * y1) / (norm_w - 1),
                     (y3 - y0 + a32 * (norm_h - 1) * y3) / (norm_h - 1), y0,
                     a31, a32, 1.0])


def in_quad(px, py, xs, ys):
    """Points (px, py) inside or on the quadrilateral (within TOLERANCE): on an edge, or
    an odd number of edge crossings to their right."""
    on_edge = np.zeros(px.shape, bool)
    crossings = np.zeros(px.shape, np.int64)
    for k in range(4):
        xs_, ys_, xe, ye = xs[k], ys[k], xs[(k + 1) % 4], ys[(k + 1) % 4]
        if abs(ys_ - ye) < TOLERANCE:                         # horizontal edge
            on_edge |= ((np.abs(py - ys_) < TOLERANCE) & (np.abs(py - ye) < TOLERANCE) &
                        (px > min(xs_, xe) - TOLERANCE) & (px < max(xs_, xe) + TOLERANCE))
            continue
        cross_x = (py - ys_) * (xe - xs_) / (ye - ys_) + xs_
        within = (py > min(ys_, ye) - TOLERANCE) & (py < max(ys_, ye) + TOLERANCE)
        on_edge |= (np.abs(cross_x - px) < TOLERANCE) & within
        # half-open in y so a vertex shared by two edges counts once
        counted = (py > min(ys_, ye) + TOLERANCE) & (py <= max(ys_, ye) + TOLERANCE)
        crossings += counted & (cross_x - px > TOLERANCE)
    return on_edge | (crossings % 2 == 1)


def perspective_matrix(roi, height, width, transformed_height, transformed_width,
                       spatial_scale):
    """[H' * W' output cells, H * W]: each output cell's bilinear read at its source point
    (the homography of its (w, h)), when that point is inside the quadrilateral and more
    than half a cell (minus TOLERANCE) inside the map; else the cell is 0."""
    xs, ys = roi[0::2] * spatial_scale, roi[1::2] * spatial_scale
    m = transform_matrix(xs, ys, transformed_height, transformed_width)
    out_h, out_w = np.meshgrid(np.arange(transformed_height), np.arange(transformed_width),
                               indexing="ij")
    out_h, out_w = out_h.ravel(), out_w.ravel()
    denom = m[6] * out_w + m[7] * out_h + m[8]
    src_x = (m[0] * out_w + m[1] * out_h + m[2]) / denom
    src_y = (m[3] * out_w + m[4] * out_h + m[5]) / denom
    readable = (in_quad(src_x, src_y, xs, ys) &
                (src_x > -0.5 + TOLERANCE) & (src_x < width - 0.5 - TOLERANCE) &
                (src_y > -0.5 + TOLERANCE) & (src_y < height - 0.5 - TOLERANCE))
    src_x = np.where(src_x <= TOLERANCE, 0.0, src_x)
    src_y = np.where(src_y <= TOLERANCE, 0.0, src_y)
    cells, weights = bilinear_taps(src_y, src_x, height, width)
    matrix = np.zeros((len(out_h), height * width))
    rows = np.broadcast_to(np.arange(len(out_h)), cells.shape)
    np.add.at(matrix, (rows, cells), weights * readable)
    return matrix, readable, m, (cells, weights)


# Paddle's tap order (rows, cols): (low, low), (high, low), (high, high), (low, high), as
# bilinear_taps' rows 0, 2, 3, 1
_PADDLE_TAP_ORDER = [0, 2, 3, 1]


def out_to_in_taps(taps, readable, image, channels, height, width, dtype):
    """One RoI's Out2InIdx / Out2InWeights rows [C * H' * W', 4]: per output element
    (channel-major), the flat indices into X of its four bilinear taps and their weights;
    -1 and 0 for an element read from nowhere (outside the quadrilateral or the map)."""
    cells, weights = (a[_PADDLE_TAP_ORDER].T for a in taps)
    base = (image * channels + np.arange(channels)) * height * width
    idx = np.where(readable[None, :, None], base[:, None, None] + cells[None], -1)
    w = np.where(readable[None, :, None], weights[None], 0.0)
    w = np.broadcast_to(w, idx.shape)
    return idx.reshape(-1, 4).astype(np.int32), w.reshape(-1, 4).astype(dtype)


@register
class RoIPerspectiveTransform(_LinearRoIPool):
    """Each quadrilateral RoI (x0, y0, ..., x3, y3) [R, 8], times spatial_scale, warped to
    [transformed_height, transformed_width] by a homography; Mask [R, 1, H', W'] int32
    marks the cells read from the map, TransformMatrix [R, 9] holds the homographies
    (output (w, h, 1) -> map). Out2InIdx int32 / Out2InWeights [R * C * H' * W', 4]
    (Paddle's intermediate outputs, which its GPU kernel fills and its CPU kernel leaves
    unset): each output element's four bilinear taps in X (flat indices) and their
    weights, -1 / 0 where it reads nothing. Gradient to X only."""
    type = "roi_perspective_transform"
    outputs = ("Out", "Mask", "TransformMatrix", "Out2InIdx?", "Out2InWeights?")
    # Paddle's intermediate outputs: its CPU kernels (1.8.5, 2.0) leave them unset
    internal_outputs = ("Out2InIdx", "Out2InWeights")
    # Out has one row per RoI: Paddle (1.8.5, 2.0) gives it ROIs' LoD
    lod_outputs = {"Out": share_lod("ROIs")}
    attrs = {"transformed_height": 1, "transformed_width": 1, "spatial_scale": 1.0}

    @staticmethod
    def matrix(roi, height, width, **attrs):
        return perspective_matrix(roi, height, width, **attrs)[0]

    @staticmethod
    def out_size(attrs):
        return attrs["transformed_height"], attrs["transformed_width"]

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        x, rois = ctx.input_var("X"), ctx.input_var("ROIs")
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D NCHW, got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(len(rois.shape) == 2 and rois.shape[1] in (8, -1),
                   "ROIs %r must be [R, 8] quadrilaterals, got %s"
                   % (rois.name, list(rois.shape)))
        th, tw = ctx.attr("transformed_height"), ctx.attr("transformed_width")
        ctx.expect(th > 0 and tw > 0, "transformed_height and transformed_width must be "
                   "positive, got %d and %d" % (th, tw))
        ctx.set_output("Out", (rois.shape[0], x.shape[1], th, tw), x.dtype)
        ctx.set_output("Mask", (rois.shape[0], 1, th, tw), "int32")
        ctx.set_output("TransformMatrix", (rois.shape[0], 9), x.dtype)
        elements = -1 if -1 in (rois.shape[0], x.shape[1]) else \
            rois.shape[0] * x.shape[1] * th * tw
        ctx.set_output("Out2InIdx", (elements, 4), "int32")
        ctx.set_output("Out2InWeights", (elements, 4), x.dtype)

    @classmethod
    def forward(cls, x, rois, rois_num=None, **attrs):
        attrs = dict(cls.attrs, **attrs)
        th, tw = cls.out_size(attrs)
        out = super().forward(x, rois, rois_num, **attrs)
        n, c, h, w = x.shape
        image = roi_image_index(len(rois), rois_num, n)
        per_roi = [perspective_matrix(roi, h, w, **attrs)[1:] for roi in rois]
        mask = np.array([readable for readable, _, _ in per_roi], np.int32)
        matrices = np.array([m for _, m, _ in per_roi], x.dtype)
        taps = [out_to_in_taps(t, readable, image[r], c, h, w, x.dtype)
                for r, (readable, _, t) in enumerate(per_roi)]
        out2in_idx = np.concatenate([i for i, _ in taps]) if taps else \
            np.zeros((0, 4), np.int32)
        out2in_weights = np.concatenate([wt for _, wt in taps]) if taps else \
            np.zeros((0, 4), x.dtype)
        return (out, mask.reshape(len(rois), 1, th, tw), matrices.reshape(len(rois), 9),
                out2in_idx, out2in_weights)

    def samples(self, rng):
        # float64, though Paddle's CPU kernel is float32 only: central differences in float32
        # miss the gradient by 1e-2 here
        x = rng.uniform(-1, 1, (2, 2, 8, 9))
        rois = np.array([[1.0, 1.0, 6.0, 2.0, 7.0, 6.0, 0.5, 5.0],
                         [2.0, 0.5, 8.5, 0.5, 8.5, 7.5, 2.0, 7.5],
                         [0.0, 0.0, 4.0, 0.0, 4.0, 3.0, 0.0, 3.0]])
        yield Sample({"X": x, "ROIs": rois, "RoisNum": np.array([2, 1], np.int32)},
                     {"transformed_height": 3, "transformed_width": 4, "spatial_scale": 1.0})


def roi_pool_bins(roi, height, width, pooled_height, pooled_width, spatial_scale):
    """Yield (bin index, rows slice, cols slice) of each bin's feature cells (possibly
    empty): the RoI's rounded corners, at least one cell a side, cut into bins with
    floor/ceil edges."""
    x1, y1, x2, y2 = (int(v) for v in c_round(roi * spatial_scale))
    bin_h = max(y2 - y1 + 1, 1) / pooled_height
    bin_w = max(x2 - x1 + 1, 1) / pooled_width
    for i in range(pooled_height):
        h0 = min(max(int(math.floor(i * bin_h)) + y1, 0), height)
        h1 = min(max(int(math.ceil((i + 1) * bin_h)) + y1, 0), height)
        for j in range(pooled_width):
            w0 = min(max(int(math.floor(j * bin_w)) + x1, 0), width)
            w1 = min(max(int(math.ceil((j + 1) * bin_w)) + x1, 0), width)
            yield i * pooled_width + j, slice(h0, h1), slice(w0, w1)


@register
class RoIPool(OpDef):
    """Max over each bin's cells; Argmax [R, C, ph, pw] int64 is the flat h * W + w of the
    (first, row-major) maximum, -1 for an empty bin, whose output is 0. The gradient goes
    to the Argmax cell."""
    type = "roi_pool"
    inputs = ("X", "ROIs", "RoisNum?", "RoisLod?")
    outputs = ("Out", "Argmax")
    attrs = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0}
    no_grad = ("ROIs", "RoisNum", "RoisLod")
    # without a RoisNum variable the images' RoIs are 1.8's RoisLod offsets, or ROIs' LoD
    lod_lengths = {"RoisNum": "ROIs"}
    grad_inputs = ("X", "ROIs", "RoisNum?", "RoisLod?", "Argmax", "Out@GRAD")

    def infer_shape(self, ctx):
        shape = _check_roi_inputs(ctx)
        ctx.set_output("Argmax", shape, "int64")

    @staticmethod
    def forward(x, rois, rois_num=None, rois_lod=None, pooled_height=1, pooled_width=1,
                spatial_scale=1.0):
        n, c, h, w = x.shape
        image = roi_image_index(len(rois), rois_counts(rois_num, rois_lod), n)
        out = np.zeros((len(rois), c, pooled_height * pooled_width), x.dtype)
        argmax = np.full(out.shape, -1, np.int64)
        for r, roi in enumerate(rois):
            for b, rows, cols in roi_pool_bins(roi, h, w, pooled_height, pooled_width,
                                               spatial_scale):
                window = x[image[r], :, rows, cols].reshape(c, -1)
                if window.shape[1] == 0:
                    continue
                first = window.argmax(axis=1)
                out[r, :, b] = window[np.arange(c), first]
                win_w = cols.stop - cols.start
                argmax[r, :, b] = (rows.start + first // win_w) * w + cols.start + first % win_w
        shape = (len(rois), c, pooled_height, pooled_width)
        return out.reshape(shape), argmax.reshape(shape)

    @staticmethod
    def backward(x, rois, rois_num, rois_lod, argmax, dout, **attrs):
        n, c, h, w = x.shape
        image = roi_image_index(len(rois), rois_counts(rois_num, rois_lod), n)
        dx = np.zeros((n, c, h * w), x.dtype)
        r, ch, _, _ = np.nonzero(argmax >= 0)
        np.add.at(dx, (image[r], ch, argmax[argmax >= 0]), dout[argmax >= 0])
        return dx.reshape(x.shape)

    def samples(self, rng):
        x = rng.permutation(2 * 3 * 6 * 5).reshape(2, 3, 6, 5) / 50.0  # no ties
        rois = random_boxes(rng, 3, 8.0)
        yield Sample({"X": x, "ROIs": rois, "RoisNum": np.array([2, 1], np.int32)},
                     {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.7})
        # the RoIs' image counts are given: without them (no RoisNum, no LoD) Paddle's
        # kernel reads the last level of an empty LoD and crashes
        yield Sample({"X": x[:1], "ROIs": np.array([[0.0, 0.0, 3.0, 2.0], [1.0, 1.0, 60.0, 60.0]]),
                      "RoisNum": np.array([2], np.int32)},
                     {"pooled_height": 4, "pooled_width": 3}, name="small_and_clipped_rois")
