"""Anchor generators over a feature map: prior_box (SSD priors), density_prior_box (priors
at several densities per cell), anchor_generator (Faster R-CNN anchors, in pixels). Each
output is [H, W, num_priors, 4] (x1, y1, x2, y2) plus the variances tiled to that shape.
No inputs' values are read, only the shapes of Input (and Image); no gradient."""
import numpy as np

from .. import versions
from ._boxes import c_round
from ._common import FLOATS
from .registry import OpDef, Sample, register


def expand_aspect_ratios(aspect_ratios, flip):
    """1.0 first, then each new ratio (and its reciprocal when flip); near-duplicates
    (within 1e-6) are dropped."""
    out = [1.0]
    for ar in aspect_ratios:
        for r in ((ar, 1.0 / ar) if flip else (ar,)):
            if all(abs(r - seen) >= 1e-6 for seen in out):
                out.append(r)
    return out


def prior_half_sizes(min_sizes, max_sizes, ratios, min_max_order):
    """[(half width, half height)] of one cell's priors, in Paddle's order: per min size,
    its ratios then the sqrt(min * max) square (min_max_order: the min square, the
    max square, then the other ratios). Under 3 the sides before halving are worked out
    in float32, as 3.3.1's kernel does (its float sizes and ratios, measured in float64;
    1.8.5's in double: switch prior_box_sizes)."""
    t = np.float32 if versions.switch("prior_box_sizes") == "float32" else float
    out = []
    for k, min_size in enumerate(min_sizes):
        size = t(min_size)
        ratio_boxes = [(float(size * np.sqrt(t(r))) / 2, float(size / np.sqrt(t(r))) / 2)
                       for r in ratios]
        max_box = []
        if max_sizes:
            side = float(np.sqrt(size * t(max_sizes[k]))) / 2
            max_box = [(side, side)]
        if min_max_order:
            out += [ratio_boxes[0]] + max_box + [b for r, b in zip(ratios, ratio_boxes)
                                                 if abs(r - 1.0) >= 1e-6]
        else:
            out += ratio_boxes + max_box
    return out


def cell_centers(h, w, step_w, step_h, offset):
    """[H, W] center x and y of every cell."""
    cy, cx = np.meshgrid((np.arange(h) + offset) * step_h, (np.arange(w) + offset) * step_w,
                         indexing="ij")
    return cx, cy


def steps(attrs_step_w, attrs_step_h, feature_shape, image_shape):
    """The cell step: the attrs, or image size / feature size when either is 0."""
    if attrs_step_w == 0 or attrs_step_h == 0:
        return image_shape[3] / feature_shape[3], image_shape[2] / feature_shape[2]
    return attrs_step_w, attrs_step_h


def corner_boxes(cx, cy, half_w, half_h, img_w, img_h):
    """[H, W, P, 4] normalized corners of priors with half sizes [P] around centers
    [H, W, 1] (or per prior, [H, W, P])."""
    return np.stack([(cx - half_w) / img_w, (cy - half_h) / img_h,
                     (cx + half_w) / img_w, (cy + half_h) / img_h], axis=-1)


def with_variances(boxes, variances, clip, dtype):
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    var = np.broadcast_to(np.asarray(variances, dtype), boxes.shape).copy()
    return boxes.astype(dtype), var


def _expect_nchw(ctx, *slots):
    for slot in slots:
        v = ctx.input_var(slot)
        ctx.expect(len(v.shape) == 4, "input %s %r must be 4-D NCHW, got %s"
                   % (slot, v.name, list(v.shape)))


def _set_prior_outputs(ctx, slots, num_priors):
    x = ctx.input_var("Input")
    shape = (x.shape[2], x.shape[3], num_priors, 4)
    for slot in slots:
        ctx.set_output(slot, shape, x.dtype)


@register
class PriorBox(OpDef):
    type = "prior_box"
    # float64: Paddle computes the box corners in float32 (the spec's Tolerances)
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-6, 1e-7)}
    inputs = ("Input", "Image")
    outputs = ("Boxes", "Variances")
    attrs = {"min_sizes": [], "max_sizes": [], "aspect_ratios": [1.0],
             "variances": [0.1, 0.1, 0.2, 0.2], "flip": True, "clip": True,
             "step_w": 0.0, "step_h": 0.0, "offset": 0.5, "min_max_aspect_ratios_order": False}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        _expect_nchw(ctx, "Input", "Image")
        min_sizes, max_sizes = ctx.attr("min_sizes"), ctx.attr("max_sizes")
        ctx.expect(len(min_sizes) > 0 and all(s > 0 for s in min_sizes),
                   "min_sizes must be positive and not empty, got %s" % (min_sizes,))
        ctx.expect(not max_sizes or len(max_sizes) == len(min_sizes),
                   "max_sizes must have one value per min size (%d), got %s"
                   % (len(min_sizes), max_sizes))
        ctx.expect(all(mx > mn for mn, mx in zip(min_sizes, max_sizes or [])),
                   "each max size must exceed its min size, got min %s max %s"
                   % (min_sizes, max_sizes))
        ctx.expect(len(ctx.attr("variances")) == 4,
                   "variances must have 4 values, got %s" % (ctx.attr("variances"),))
        ratios = expand_aspect_ratios(ctx.attr("aspect_ratios"), ctx.attr("flip"))
        _set_prior_outputs(ctx, ("Boxes", "Variances"),
                           len(ratios) * len(min_sizes) + len(max_sizes))

    @staticmethod
    def forward(feature, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,),
                variances=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, step_w=0.0,
                step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
        ratios = expand_aspect_ratios(aspect_ratios, flip)
        half = np.array(prior_half_sizes(min_sizes, max_sizes, ratios,
                                         min_max_aspect_ratios_order))
        step_w, step_h = steps(step_w, step_h, feature.shape, image.shape)
        cx, cy = cell_centers(feature.shape[2], feature.shape[3], step_w, step_h, offset)
        boxes = corner_boxes(cx[..., None], cy[..., None], half[:, 0], half[:, 1],
                             image.shape[3], image.shape[2])
        return with_variances(boxes, variances, clip, feature.dtype)

    def samples(self, rng):
        feature, image = np.zeros((1, 2, 2, 3)), np.zeros((1, 3, 8, 12))
        yield Sample({"Input": feature, "Image": image},
                     {"min_sizes": [2.0, 4.0], "max_sizes": [5.0, 6.0],
                      "aspect_ratios": [2.0], "flip": True, "clip": True,
                      "variances": [0.1, 0.1, 0.2, 0.2]})
        yield Sample({"Input": feature, "Image": image},
                     {"min_sizes": [3.0], "max_sizes": [6.0], "aspect_ratios": [2.0, 3.0],
                      "min_max_aspect_ratios_order": True, "step_w": 5.0, "step_h": 3.0,
                      "offset": 0.2, "flip": False, "clip": False,
                      "variances": [0.1, 0.2, 0.3, 0.4]}, name="min_max_order")


@register
class DensityPriorBox(OpDef):
    """For each fixed size s (density d) and ratio r: d x d priors of size
    (s * sqrt(r), s / sqrt(r)) spread over the cell on a grid of pitch
    int((step_w + step_h) / 2) // d (integer division); corners are clamped to [0, 1]. flatten_to_2d
    gives [H * W * num_priors, 4]."""
    type = "density_prior_box"
    # float64: Paddle 1.8.5 computes the box corners in float32, as prior_box's
    tolerances = PriorBox.tolerances
    inputs = ("Input", "Image")
    outputs = ("Boxes", "Variances")
    attrs = {"variances": [0.1, 0.1, 0.2, 0.2], "clip": False, "flatten_to_2d": False,
             "step_w": 0.0, "step_h": 0.0, "offset": 0.5, "fixed_sizes": [],
             "fixed_ratios": [], "densities": []}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        _expect_nchw(ctx, "Input", "Image")
        sizes, densities = ctx.attr("fixed_sizes"), ctx.attr("densities")
        ctx.expect(len(sizes) == len(densities) and len(sizes) > 0,
                   "fixed_sizes %s and densities %s must be non-empty and of equal length"
                   % (sizes, densities))
        ctx.expect(len(ctx.attr("fixed_ratios")) > 0, "fixed_ratios must not be empty")
        num = len(ctx.attr("fixed_ratios")) * sum(d * d for d in densities)
        if ctx.attr("flatten_to_2d"):
            x = ctx.input_var("Input")
            hw = x.shape[2] * x.shape[3] if min(x.shape[2:]) >= 0 else -1
            for slot in ("Boxes", "Variances"):
                ctx.set_output(slot, (hw * num if hw >= 0 else -1, 4), x.dtype)
        else:
            _set_prior_outputs(ctx, ("Boxes", "Variances"), num)

    @staticmethod
    def forward(feature, image, variances=(0.1, 0.1, 0.2, 0.2), clip=False,
                flatten_to_2d=False, step_w=0.0, step_h=0.0, offset=0.5, fixed_sizes=(),
                fixed_ratios=(), densities=()):
        step_w, step_h = steps(step_w, step_h, feature.shape, image.shape)
        cx, cy = cell_centers(feature.shape[2], feature.shape[3], step_w, step_h, offset)
        pitch_cell = int((step_w + step_h) * 0.5)
        shift_x, shift_y, half_w, half_h = [], [], [], []
        for size, density in zip(fixed_sizes, densities):
            pitch = pitch_cell // density   # integer division, as in Paddle
            grid = -pitch_cell / 2.0 + pitch / 2.0 + np.arange(density) * pitch
            for r in fixed_ratios:
                dy, dx = np.meshgrid(grid, grid, indexing="ij")
                shift_x += list(dx.ravel())
                shift_y += list(dy.ravel())
                half_w += [size * np.sqrt(r) / 2] * density ** 2
                half_h += [size / np.sqrt(r) / 2] * density ** 2
        boxes = corner_boxes(cx[..., None] + np.array(shift_x), cy[..., None] + np.array(shift_y),
                             np.array(half_w), np.array(half_h), image.shape[3], image.shape[2])
        boxes, var = with_variances(np.clip(boxes, 0.0, 1.0), variances, clip, feature.dtype)
        if flatten_to_2d:
            return boxes.reshape(-1, 4), var.reshape(-1, 4)
        return boxes, var

    def samples(self, rng):
        # Paddle 1.8.5 gives `variances` no default: the samples pass it
        yield Sample({"Input": np.zeros((1, 2, 2, 3)), "Image": np.zeros((1, 3, 16, 24))},
                     {"fixed_sizes": [4.0, 8.0], "fixed_ratios": [1.0, 2.0],
                      "densities": [2, 1], "variances": [0.1, 0.1, 0.2, 0.2]})
        yield Sample({"Input": np.zeros((1, 2, 2, 2)), "Image": np.zeros((1, 3, 10, 10))},
                     {"fixed_sizes": [3.0], "fixed_ratios": [0.5], "densities": [3],
                      "flatten_to_2d": True, "step_w": 5.0, "step_h": 4.0,
                      "variances": [0.1, 0.1, 0.2, 0.2]}, name="flat")


@register
class AnchorGenerator(OpDef):
    """Pixel anchors: for each ratio r then size s, a base box of width
    round(sqrt(stride_w * stride_h / r)) and height round(width * r) (rounded halves away
    from zero) scaled by s / stride, centered at (w * stride_w + offset * (stride_w - 1),
    likewise y), with corners center -/+ (size - 1) / 2."""
    type = "anchor_generator"
    inputs = ("Input",)
    outputs = ("Anchors", "Variances")
    attrs = {"anchor_sizes": [64.0, 128.0, 256.0, 512.0], "aspect_ratios": [0.5, 1.0, 2.0],
             "variances": [0.1, 0.1, 0.2, 0.2], "stride": [16.0, 16.0], "offset": 0.5}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        _expect_nchw(ctx, "Input")
        ctx.expect(len(ctx.attr("stride")) == 2 and min(ctx.attr("stride")) > 0,
                   "stride must be 2 positive values, got %s" % (ctx.attr("stride"),))
        ctx.expect(len(ctx.attr("variances")) == 4,
                   "variances must have 4 values, got %s" % (ctx.attr("variances"),))
        _set_prior_outputs(ctx, ("Anchors", "Variances"),
                           len(ctx.attr("anchor_sizes")) * len(ctx.attr("aspect_ratios")))

    @staticmethod
    def forward(feature, anchor_sizes=(), aspect_ratios=(), variances=(0.1, 0.1, 0.2, 0.2),
                stride=(16.0, 16.0), offset=0.5):
        stride_w, stride_h = stride
        half_w, half_h = [], []
        for r in aspect_ratios:
            base_w = c_round(np.sqrt(stride_w * stride_h / r))
            base_h = c_round(base_w * r)
            for size in anchor_sizes:
                half_w.append((size / stride_w * base_w - 1) / 2)
                half_h.append((size / stride_h * base_h - 1) / 2)
        h, w = feature.shape[2:]
        cy, cx = np.meshgrid(np.arange(h) * stride_h + offset * (stride_h - 1),
                             np.arange(w) * stride_w + offset * (stride_w - 1), indexing="ij")
        boxes = corner_boxes(cx[..., None], cy[..., None], np.array(half_w), np.array(half_h),
                             1.0, 1.0)
        return with_variances(boxes, variances, False, feature.dtype)

    def samples(self, rng):
        yield Sample({"Input": np.zeros((1, 2, 2, 3))},
                     {"anchor_sizes": [32.0, 64.0], "aspect_ratios": [0.5, 1.0, 2.0],
                      "stride": [8.0, 16.0], "offset": 0.5, "variances": [0.1, 0.1, 0.2, 0.2]})
