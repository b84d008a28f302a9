"""Box encoding against priors: box_coder (center-size encode / decode), box_decoder_and_assign
(per-class decode plus the best class's box), box_clip (boxes clipped to their image).
Forward-only, as in Paddle."""
import numpy as np

from ._boxes import expect_boxes, random_boxes, roi_image_index
from ._common import FLOATS
from .registry import OpDef, Sample, register, share_lod

CODE_TYPES = ("encode_center_size", "decode_center_size")


def center_size(boxes, normalized):
    """(cx, cy, w, h) of [..., 4] corner boxes; pixel boxes (not normalized) count both end
    pixels in w and h, and the center is x1 + w / 2."""
    offset = 0.0 if normalized else 1.0
    w = boxes[..., 2] - boxes[..., 0] + offset
    h = boxes[..., 3] - boxes[..., 1] + offset
    return boxes[..., 0] + w / 2, boxes[..., 1] + h / 2, w, h


def encode_center_size(target, prior, variance, normalized):
    """[N, M, 4]: each target box [N, 4] relative to each prior [M, 4], divided by the
    variance ([M, 4] per prior or [4])."""
    pcx, pcy, pw, ph = center_size(prior, normalized)
    offset = 0.0 if normalized else 1.0
    t = target[:, None, :]
    tcx, tcy = (t[..., 0] + t[..., 2]) / 2, (t[..., 1] + t[..., 3]) / 2
    tw, th = t[..., 2] - t[..., 0] + offset, t[..., 3] - t[..., 1] + offset
    with np.errstate(divide="ignore"):   # a zero-size target encodes to -inf, as in Paddle
        out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph,
                        np.log(np.abs(tw / pw)), np.log(np.abs(th / ph))], axis=-1)
    return out / variance


def decode_center_size(deltas, prior, variance, normalized):
    """Corner boxes from deltas [..., 4] against priors and variances broadcast to them."""
    pcx, pcy, pw, ph = center_size(prior, normalized)
    d = deltas * variance
    cx, cy = d[..., 0] * pw + pcx, d[..., 1] * ph + pcy
    w, h = np.exp(d[..., 2]) * pw, np.exp(d[..., 3]) * ph
    offset = 0.0 if normalized else 1.0
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - offset, cy + h / 2 - offset], axis=-1)


BBOX_CLIP = float(np.log(1000.0 / 16.0))   # Paddle's default bound on decoded log-sizes


def decode_pixel_boxes(deltas, priors, variance, size_clip=BBOX_CLIP):
    """Pixel boxes from deltas scaled by variance, the log-size deltas capped at size_clip
    (so a wild prediction cannot blow a box up)."""
    d = deltas * variance
    d[..., 2:] = np.minimum(d[..., 2:], size_clip)
    return decode_center_size(d, priors, 1.0, normalized=False)


@register
class BoxCoder(OpDef):
    type = "box_coder"
    inputs = ("PriorBox", "PriorBoxVar?", "TargetBox")
    outputs = ("OutputBox",)
    attrs = {"code_type": "encode_center_size", "box_normalized": True, "axis": 0,
             "variance": []}

    def infer_shape(self, ctx):
        ctx.check_dtype("TargetBox", FLOATS)
        prior = expect_boxes(ctx, "PriorBox")
        target = ctx.input_var("TargetBox")
        code_type, axis = ctx.attr("code_type"), ctx.attr("axis")
        ctx.expect(code_type in CODE_TYPES, "code_type must be one of %s, got %r"
                   % (list(CODE_TYPES), code_type))
        ctx.expect(axis in (0, 1), "axis must be 0 or 1, got %r" % (axis,))
        variance = ctx.attr("variance")
        ctx.expect(len(variance) in (0, 4), "attr variance must have 4 values, got %s"
                   % (variance,))
        ctx.expect(not (len(variance) and ctx.has_input("PriorBoxVar")),
                   "give the variance as input PriorBoxVar or attr variance, not both")
        if ctx.has_input("PriorBoxVar"):
            var = ctx.input_var("PriorBoxVar")
            ctx.expect(tuple(var.shape) == tuple(prior.shape),
                       "PriorBoxVar %r must have PriorBox's shape %s, got %s"
                       % (var.name, list(prior.shape), list(var.shape)))
        if code_type == "encode_center_size":
            expect_boxes(ctx, "TargetBox")
            ctx.set_output("OutputBox", (target.shape[0], prior.shape[0], 4), target.dtype)
            return
        ctx.expect(len(target.shape) == 3 and target.shape[2] in (4, -1),
                   "decode_center_size: TargetBox %r must be [N, M, 4], got %s"
                   % (target.name, list(target.shape)))
        # the priors run along TargetBox's dim 1 (axis=0) or dim 0 (axis=1)
        along = target.shape[1 - axis]
        ctx.expect(along < 0 or prior.shape[0] < 0 or along == prior.shape[0],
                   "decode_center_size with axis=%d: TargetBox %r dim %d (%d) must equal the "
                   "number of priors %d" % (axis, target.name, 1 - axis, along, prior.shape[0]))
        ctx.set_output("OutputBox", tuple(target.shape), target.dtype)

    @staticmethod
    def forward(prior, prior_var, target, code_type="encode_center_size",
                box_normalized=True, axis=0, variance=()):
        if prior_var is None:
            prior_var = np.asarray(variance if len(variance) else [1.0] * 4, prior.dtype)
        if code_type == "encode_center_size":
            out = encode_center_size(target, prior, prior_var, box_normalized)
        else:
            # axis=0: prior j serves column j of every row; axis=1: prior i serves row i
            view = (lambda a: a[None]) if axis == 0 else (lambda a: a[:, None])
            if prior_var.ndim == 2:
                prior_var = view(prior_var)
            out = decode_center_size(target, view(prior), prior_var, box_normalized)
        return out.astype(target.dtype)

    def samples(self, rng):
        prior, target = random_boxes(rng, 3), random_boxes(rng, 2)
        var = np.tile([0.1, 0.1, 0.2, 0.2], (3, 1))
        yield Sample({"PriorBox": prior, "PriorBoxVar": var, "TargetBox": target})
        yield Sample({"PriorBox": prior * 10, "TargetBox": target * 10},
                     {"box_normalized": False, "variance": [0.1, 0.1, 0.2, 0.2]},
                     name="encode_pixels_attr_variance")
        deltas = rng.uniform(-1, 1, (2, 3, 4))
        yield Sample({"PriorBox": prior, "PriorBoxVar": var, "TargetBox": deltas},
                     {"code_type": "decode_center_size"}, name="decode_axis0")
        yield Sample({"PriorBox": prior[:2], "TargetBox": deltas},
                     {"code_type": "decode_center_size", "axis": 1}, name="decode_axis1")


@register
class BoxDecoderAndAssign(OpDef):
    """Per-class deltas TargetBox [N, 4 * C] decoded against pixel priors [N, 4] (the width
    delta clipped to `box_clip` first); OutputAssignBox is each row's box for its best
    non-background class (class 0 is background), or its prior when no class scores
    above -1."""
    type = "box_decoder_and_assign"
    inputs = ("PriorBox", "PriorBoxVar", "TargetBox", "BoxScore")
    outputs = ("DecodeBox", "OutputAssignBox")
    attrs = {"box_clip": BBOX_CLIP}

    def infer_shape(self, ctx):
        ctx.check_dtype("TargetBox", FLOATS)
        prior = expect_boxes(ctx, "PriorBox")
        target, score = ctx.input_var("TargetBox"), ctx.input_var("BoxScore")
        ctx.expect(len(target.shape) == 2 and len(score.shape) == 2,
                   "TargetBox %r and BoxScore %r must be 2-D, got %s and %s"
                   % (target.name, score.name, list(target.shape), list(score.shape)))
        classes = score.shape[1]
        ctx.expect(min(classes, target.shape[1]) < 0 or target.shape[1] == 4 * classes,
                   "TargetBox %r must have 4 columns per class of BoxScore (%d), got %d"
                   % (target.name, classes, target.shape[1]))
        ctx.set_output("DecodeBox", tuple(target.shape), target.dtype)
        ctx.set_output("OutputAssignBox", (prior.shape[0], 4), target.dtype)

    @staticmethod
    def forward(prior, prior_var, target, score, box_clip=BBOX_CLIP):
        n, classes = score.shape
        decoded = decode_pixel_boxes(target.reshape(n, classes, 4), prior[:, None, :],
                                     np.asarray(prior_var).reshape(1, 1, 4), box_clip)
        masked = np.where(np.arange(classes) > 0, score, -np.inf)   # background excluded
        best = masked.argmax(axis=1)
        has_class = (classes > 1) & (masked[np.arange(n), best] > -1)
        assign = np.where(has_class[:, None], decoded[np.arange(n), best], prior)
        return (decoded.reshape(n, classes * 4).astype(target.dtype),
                assign.astype(target.dtype))

    def samples(self, rng):
        prior = random_boxes(rng, 3, 20.0)
        yield Sample({"PriorBox": prior, "PriorBoxVar": np.array([0.1, 0.1, 0.2, 0.2]),
                      "TargetBox": rng.uniform(-1, 1, (3, 8)),
                      "BoxScore": rng.uniform(0, 1, (3, 2))})
        # Paddle 1.8.5's float64 kernel reads the float attribute box_clip as a double
        # (boost::bad_get), so only its float32 kernel runs: this case checks the op there
        prior = random_boxes(rng, 4, 20.0)
        yield Sample({"PriorBox": prior.astype("float32"),
                      "PriorBoxVar": np.array([0.1, 0.1, 0.2, 0.2], np.float32),
                      "TargetBox": rng.uniform(-1, 1, (4, 12)).astype("float32"),
                      "BoxScore": rng.uniform(0, 1, (4, 3)).astype("float32")},
                     name="float32")


@register
class BoxClip(OpDef):
    """Boxes [..., 4] clipped to their image, ImInfo [B, 3] = (height, width, scale):
    x to [0, round(width / scale) - 1], y to [0, round(height / scale) - 1]. Image
    membership: Input's dim 0 indexes the images (Input [B, ..., 4]), or, with the
    optional RoisNum (or, without it, Input's LoD as in 1.8), Input [R, 4] has RoisNum[i]
    boxes of image i."""
    type = "box_clip"
    inputs = ("Input", "ImInfo", "RoisNum?")
    outputs = ("Output",)
    attrs = {}
    # without a RoisNum variable the images' boxes are Input's LoD (Paddle 1.8's form)
    lod_lengths = {"RoisNum": "Input"}
    lod_outputs = {"Output": share_lod("Input")}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        boxes, info = ctx.input_var("Input"), ctx.input_var("ImInfo")
        ctx.expect(len(boxes.shape) >= 2 and boxes.shape[-1] in (4, -1),
                   "Input %r must be [..., 4], got %s" % (boxes.name, list(boxes.shape)))
        ctx.expect(len(info.shape) == 2 and info.shape[1] in (3, -1),
                   "ImInfo %r must be [B, 3], got %s" % (info.name, list(info.shape)))
        if not ctx.has_input("RoisNum") and not boxes.lod_level:
            b, n = info.shape[0], boxes.shape[0]
            ctx.expect(b < 0 or n < 0 or b == n,
                       "Input %r dim 0 (%d) must equal the number of images in ImInfo %r "
                       "(%d), or give RoisNum" % (boxes.name, n, info.name, b))
        ctx.same_as("Input", "Output")

    @staticmethod
    def forward(boxes, im_info, rois_num=None):
        if rois_num is None:
            image = np.arange(len(boxes))
        else:
            image = roi_image_index(len(boxes), rois_num, len(im_info))
        height = np.round(im_info[:, 0] / im_info[:, 2])[image]
        width = np.round(im_info[:, 1] / im_info[:, 2])[image]
        view = (-1,) + (1,) * (boxes.ndim - 2)
        x_max, y_max = (width - 1).reshape(view), (height - 1).reshape(view)
        out = boxes.copy()
        out[..., 0::2] = np.clip(boxes[..., 0::2], 0, x_max[..., None])
        out[..., 1::2] = np.clip(boxes[..., 1::2], 0, y_max[..., None])
        return out

    def samples(self, rng):
        info = np.array([[10.0, 8.0, 1.0], [20.0, 30.0, 2.0]])
        boxes = rng.uniform(-5, 20, (2, 3, 4))
        # Input [B, M, 4] with one dim-0 row per image: Paddle's LoD [[1, 1]] (the same
        # clipping as refimpl's dense form, which Paddle lacks: it always reads the LoD)
        yield Sample({"Input": boxes, "ImInfo": info, "RoisNum": np.array([1, 1], np.int32)},
                     name="per_image_rows")
        yield Sample({"Input": boxes.reshape(6, 4), "ImInfo": info,
                      "RoisNum": np.array([4, 2], np.int32)}, name="rois_num")
