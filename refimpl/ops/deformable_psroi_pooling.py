"""deformable_psroi_pooling (Deformable ConvNets' RoI pooling; fluid.layers.
deformable_roi_pooling builds it). Per RoI (corners rounded, scaled by spatial_scale,
shifted by -0.5, sides at least 0.1) and output bin (ph, pw) of output channel c: the bin
moves by Trans * trans_std * (RoI width, height), Trans [R, 2 * classes, part_h, part_w]
holding (x, y) shifts per class (c // (output_dim / classes)) and part (floor(ph / PH *
part_h), likewise w); sample_per_part^2 points (bin start + i * bin / samples) are read
by bilinear interpolation from input channel (c * group_h + gh) * group_w + gw, with
(gh, gw) the bin's group cell; points beyond half a cell outside the map are skipped,
the others clamped into it. Output is the mean of the points read (0 if none), TopCount
how many. Gradients: Input (the transpose of the sampling) and Trans (the exact
derivative of the bilinear reads; 0 where a point is clamped)."""
import numpy as np

from ._boxes import c_round, roi_image_index
from ._common import FLOATS
from .registry import OpDef, Sample, register


def bilinear_reads(h, w, height, width):
    """For points (h, w) already inside [0, H-1] x [0, W-1]: (flat cells [4, K], weights
    [4, K], d weights / dh [4, K], d weights / dw [4, K])."""
    y0, x0 = np.floor(h).astype(np.int64), np.floor(w).astype(np.int64)
    y1, x1 = np.ceil(h).astype(np.int64), np.ceil(w).astype(np.int64)
    dy, dx = h - y0, w - x0
    cells = np.stack([y0 * width + x0, y1 * width + x0, y0 * width + x1, y1 * width + x1])
    weights = np.stack([(1 - dx) * (1 - dy), (1 - dx) * dy, dx * (1 - dy), dx * dy])
    d_dh = np.stack([-(1 - dx), 1 - dx, -dx, dx])
    d_dw = np.stack([-(1 - dy), -dy, 1 - dy, dy])
    return cells, weights, d_dh, d_dw


def sample_points(rois, trans, height, width, no_trans, spatial_scale, output_dim,
                  group_size, pooled_height, pooled_width, part_size, sample_per_part,
                  trans_std):
    """Every sample point of every (RoI, c, ph, pw, i, j): a dict of flat arrays: roi,
    out (flat output index), channel, h, w (unclamped), trans_x / trans_y (flat Trans
    indices, -1 without Trans), scale_x / scale_y (d point / d Trans)."""
    r_, c_, ph_, pw_, i_, j_ = np.meshgrid(
        np.arange(len(rois)), np.arange(output_dim), np.arange(pooled_height),
        np.arange(pooled_width), np.arange(sample_per_part), np.arange(sample_per_part),
        indexing="ij")
    r_, c_, ph_, pw_, i_, j_ = (a.ravel() for a in (r_, c_, ph_, pw_, i_, j_))
    corners = c_round(rois)
    x1 = corners[:, 0] * spatial_scale - 0.5
    y1 = corners[:, 1] * spatial_scale - 0.5
    roi_w = np.maximum((corners[:, 2] + 1) * spatial_scale - 0.5 - x1, 0.1)
    roi_h = np.maximum((corners[:, 3] + 1) * spatial_scale - 0.5 - y1, 0.1)
    bin_w, bin_h = roi_w / pooled_width, roi_h / pooled_height
    part_h = np.floor(ph_ / pooled_height * part_size[0]).astype(np.int64)
    part_w = np.floor(pw_ / pooled_width * part_size[1]).astype(np.int64)
    if no_trans:
        shift_x = shift_y = np.zeros(len(r_))
        tx = ty = np.full(len(r_), -1)
    else:
        classes = trans.shape[1] // 2
        class_id = c_ // (output_dim // classes)
        # Trans read flat as [R, 2 * classes, part_size[0], part_size[1]], as Paddle's
        # kernel reads it whatever Trans's own channels and spatial dims
        layout = (trans.shape[0], 2 * classes) + tuple(part_size)
        tx = np.ravel_multi_index((r_, class_id * 2, part_h, part_w), layout)
        ty = np.ravel_multi_index((r_, class_id * 2 + 1, part_h, part_w), layout)
        shift_x, shift_y = trans.ravel()[tx] * trans_std, trans.ravel()[ty] * trans_std
    gh = np.clip(np.floor(ph_ * group_size[0] / pooled_height), 0, group_size[0] - 1)
    gw = np.clip(np.floor(pw_ * group_size[1] / pooled_width), 0, group_size[1] - 1)
    return {
        "roi": r_, "out": np.ravel_multi_index((r_, c_, ph_, pw_),
                                               (len(rois), output_dim, pooled_height,
                                                pooled_width)),
        "channel": ((c_ * group_size[0] + gh) * group_size[1] + gw).astype(np.int64),
        "w": x1[r_] + pw_ * bin_w[r_] + shift_x * roi_w[r_] + j_ * bin_w[r_] / sample_per_part,
        "h": y1[r_] + ph_ * bin_h[r_] + shift_y * roi_h[r_] + i_ * bin_h[r_] / sample_per_part,
        "trans_x": tx, "trans_y": ty,
        "scale_x": trans_std * roi_w[r_], "scale_y": trans_std * roi_h[r_]}


def read_points(x, rois, rois_num, trans, attrs):
    """(points restricted to the readable ones, their image, clamped-ness, bilinear reads,
    per-output counts)."""
    n, channels, height, width = x.shape
    p = sample_points(rois, trans, height, width, **attrs)
    readable = (p["w"] >= -0.5) & (p["w"] <= width - 0.5) & \
        (p["h"] >= -0.5) & (p["h"] <= height - 0.5)
    p = {k: v[readable] for k, v in p.items()}
    h, w = np.clip(p["h"], 0, height - 1), np.clip(p["w"], 0, width - 1)
    inside = (h == p["h"], w == p["w"])
    image = roi_image_index(len(rois), rois_num, n)[p["roi"]]
    size = len(rois) * attrs["output_dim"] * attrs["pooled_height"] * attrs["pooled_width"]
    count = np.bincount(p["out"], minlength=size).astype(x.dtype)
    return p, image, inside, bilinear_reads(h, w, height, width), count


def cell_values(x, image, channel, cells):
    """x's values at each point's four bilinear cells, [4, K]: gathered by flat index,
    not by taking each point's whole [H * W] plane first."""
    n, c, h, w = x.shape
    return x.reshape(-1)[(image * c + channel) * (h * w) + cells]


ATTRS = {"no_trans": False, "spatial_scale": 1.0, "output_dim": 1, "group_size": [1, 1],
         "pooled_height": 1, "pooled_width": 1, "part_size": [1, 1], "sample_per_part": 1,
         "trans_std": 0.1}


@register
class DeformablePSROIPooling(OpDef):
    type = "deformable_psroi_pooling"
    inputs = ("Input", "ROIs", "Trans", "RoisNum?")
    outputs = ("TopCount", "Output")
    attrs = ATTRS
    no_grad = ("ROIs", "RoisNum")
    grad_inputs = ("Input", "ROIs", "Trans", "RoisNum?", "Output@GRAD")
    # without a RoisNum variable the images' RoIs are ROIs' LoD (Paddle 1.8's form)
    lod_lengths = {"RoisNum": "ROIs"}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        x, rois, trans = (ctx.input_var(s) for s in ("Input", "ROIs", "Trans"))
        ctx.expect(len(x.shape) == 4, "Input %r must be 4-D NCHW, got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(len(rois.shape) == 2 and rois.shape[1] in (4, -1),
                   "ROIs %r must be [R, 4], got %s" % (rois.name, list(rois.shape)))
        group, out_dim = ctx.attr("group_size"), ctx.attr("output_dim")
        need = out_dim * group[0] * group[1]
        ctx.expect(x.shape[1] < 0 or x.shape[1] >= need,
                   "Input %r needs output_dim * group_size = %d channels, got %d"
                   % (x.name, need, x.shape[1]))
        if not ctx.attr("no_trans"):
            # classes = Trans channels // 2 (an odd last channel unused, as in Paddle)
            ctx.expect(len(trans.shape) == 4 and trans.shape[1] >= 2
                       and out_dim % (trans.shape[1] // 2) == 0,
                       "Trans %r must be [R, 2 * classes, part_h, part_w] with output_dim "
                       "%d a multiple of classes, got %s" % (trans.name, out_dim,
                                                             list(trans.shape)))
            part = ctx.attr("part_size")
            ctx.expect(all(d < 0 or p <= d for p, d in zip(part, trans.shape[2:])),
                       "part_size %s must fit in Trans %r's spatial dims %s"
                       % (list(part), trans.name, list(trans.shape[2:])))
        shape = (rois.shape[0], out_dim, ctx.attr("pooled_height"), ctx.attr("pooled_width"))
        ctx.set_output("Output", shape, x.dtype)
        ctx.set_output("TopCount", shape, x.dtype)

    @staticmethod
    def forward(x, rois, trans, rois_num=None, **attrs):
        attrs = dict(ATTRS, **attrs)
        p, image, _, (cells, weights, _, _), count = read_points(x, rois, rois_num, trans,
                                                                 attrs)
        values = (cell_values(x, image, p["channel"], cells) * weights).sum(0) \
            if len(image) else np.zeros(0)
        total = np.bincount(p["out"], values, minlength=len(count))
        out = np.where(count > 0, total / np.maximum(count, 1), 0.0)
        shape = (len(rois), attrs["output_dim"], attrs["pooled_height"], attrs["pooled_width"])
        return count.reshape(shape), out.reshape(shape).astype(x.dtype)

    @staticmethod
    def backward(x, rois, trans, rois_num, dout, **attrs):
        attrs = dict(ATTRS, **attrs)
        p, image, (h_inside, w_inside), (cells, weights, d_dh, d_dw), count = read_points(
            x, rois, rois_num, trans, attrs)
        share = (dout.ravel() / np.maximum(count, 1))[p["out"]]          # d out / d read
        dx = np.zeros((x.shape[0], x.shape[1], x.shape[2] * x.shape[3]))
        for k in range(4):
            np.add.at(dx, (image, p["channel"], cells[k]), share * weights[k])
        dtrans = np.zeros(trans.size)
        if not attrs["no_trans"] and len(image):
            values = cell_values(x, image, p["channel"], cells)            # [4, K]
            d_h = (values * d_dh).sum(0) * h_inside * share * p["scale_y"]
            d_w = (values * d_dw).sum(0) * w_inside * share * p["scale_x"]
            np.add.at(dtrans, p["trans_y"], d_h)
            np.add.at(dtrans, p["trans_x"], d_w)
        return dx.reshape(x.shape).astype(x.dtype), dtrans.reshape(trans.shape).astype(x.dtype)

    def samples(self, rng):
        # Paddle 1.8.5 gives no_trans, group_size and trans_std no default: samples pass them
        x = rng.uniform(-1, 1, (2, 8, 7, 7))
        rois = np.array([[1.0, 1.0, 4.0, 5.0], [2.0, 1.0, 5.0, 4.0], [0.0, 2.0, 3.0, 5.0]])
        # shifts that keep every point well inside the map and off integer coordinates
        trans = rng.uniform(-0.5, 0.5, (3, 4, 2, 2))
        yield Sample({"Input": x, "ROIs": rois, "Trans": trans,
                      "RoisNum": np.array([2, 1], np.int32)},
                     {"no_trans": False, "output_dim": 2, "group_size": [2, 2],
                      "pooled_height": 2, "pooled_width": 2, "part_size": [2, 2],
                      "sample_per_part": 2, "trans_std": 0.1, "spatial_scale": 1.0})
        # the one image's RoI count is given (Paddle reads an image index from ROIs' LoD
        # and crashes without one); Trans, unread with no_trans, is as high as part_size,
        # which Paddle 1.8.5 checks all the same
        yield Sample({"Input": x[:1, :3], "ROIs": rois[:2] * 2,
                      "Trans": trans[:2, :2].repeat(2, axis=2),
                      "RoisNum": np.array([2], np.int32)},
                     {"no_trans": True, "group_size": [1, 1], "trans_std": 0.1,
                      "output_dim": 3, "pooled_height": 3,
                      "pooled_width": 2, "part_size": [3, 2], "sample_per_part": 3,
                      "spatial_scale": 0.5}, name="no_trans_not_sensitive")
        # Trans with an odd channel count and larger than part_size: read flat as
        # [R, 2, 2, 2] (Paddle 1.8.5's test_layers builds such a pooling)
        yield Sample({"Input": x[:1, :2], "ROIs": rois[:2], "Trans": trans[:2, :3, :2, :2]
                      .repeat(2, axis=2), "RoisNum": np.array([2], np.int32)},
                     {"no_trans": False, "output_dim": 2, "group_size": [1, 1],
                      "pooled_height": 2, "pooled_width": 2, "part_size": [2, 2],
                      "sample_per_part": 2, "trans_std": 0.1, "spatial_scale": 1.0},
                     name="trans_read_flat")
