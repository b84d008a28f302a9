"""generate_proposals (Faster R-CNN RPN): per image, the pre_nms_topN best anchors by
score, decoded with their deltas and variances into pixel boxes (log-size deltas capped at
log(1000 / 16)), clipped to the image (ImInfo rows: height, width, scale), filtered
(side / scale + 1 >= max(min_size, 1) in the original image, center inside the image),
greedy NMS (pixel IoU, adaptive eta) and the post_nms_topN best. Scores [N, A, H, W],
BboxDeltas [N, 4A, H, W], Anchors and Variances [H, W, A, 4] (or [H*W*A, 4]).
RpnRois [R, 4] and RpnRoiProbs [R, 1] hold the images' proposals one after another;
RpnRoisNum [N] int32 counts them per image, as does the outputs' LoD; 1.8's RpnRoisLod
[N] int64 holds each image's end offset (the running total: Paddle 1.8.5 measured, [5, 10]
for 5 and 5; its return_rois_num attr has no effect here). An image with no box left gives one all-zero proposal with score 0 (Paddle
2.x / 3), or none (1.8.5; when no image keeps one the outputs are [0] tensors):
specs/versions.md, proposals_of_empty_image. No gradient."""
import numpy as np

from .. import versions
from ._boxes import empty_rows
from ._common import FLOATS
from .box_coder import decode_pixel_boxes
from .multiclass_nms import greedy_nms
from .registry import OpDef, Sample, lengths_lod, register


def proposals_of_image(scores, deltas, im_info, anchors, variances, pre_nms_topN,
                       post_nms_topN, nms_thresh, min_size, eta):
    """(boxes [R, 4], scores [R]) of one image: scores [A, H, W], deltas [4A, H, W]."""
    scores = scores.transpose(1, 2, 0).ravel()                       # [H, W, A] order
    deltas = deltas.reshape(-1, 4, *deltas.shape[1:]).transpose(2, 3, 0, 1).reshape(-1, 4)
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_nms_topN < len(order):
        order = order[:pre_nms_topN]
    boxes = decode_pixel_boxes(deltas[order], anchors[order], variances[order])
    height, width, scale = im_info
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, width - 1)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, height - 1)
    scores = scores[order]
    side = max(min_size, 1.0)
    w, h = boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1
    keep = (((boxes[:, 2] - boxes[:, 0]) / scale + 1 >= side) &
            ((boxes[:, 3] - boxes[:, 1]) / scale + 1 >= side) &
            (boxes[:, 0] + w / 2 <= width) & (boxes[:, 1] + h / 2 <= height))
    if not keep.any():
        rows = 1 if versions.switch("proposals_of_empty_image") == "zero_row" else 0
        return np.zeros((rows, 4)), np.zeros(rows)
    boxes, scores = boxes[keep], scores[keep]
    if nms_thresh <= 0:
        return boxes, scores
    kept = greedy_nms(boxes, scores, -np.inf, -1, nms_thresh, eta, normalized=False)
    if 0 < post_nms_topN < len(kept):
        kept = kept[:post_nms_topN]
    return boxes[kept], scores[kept]


@register
class GenerateProposals(OpDef):
    type = "generate_proposals"
    inputs = ("Scores", "BboxDeltas", "ImInfo", "Anchors", "Variances")
    outputs = ("RpnRois", "RpnRoiProbs", "RpnRoisNum", "RpnRoisLod")
    # the images' proposals are also the outputs' LoD (Paddle 1.8's form)
    lod_outputs = {"RpnRois": lengths_lod("RpnRoisNum"),
                   "RpnRoiProbs": lengths_lod("RpnRoisNum")}
    attrs = {"pre_nms_topN": 6000, "post_nms_topN": 1000, "nms_thresh": 0.5,
             "min_size": 0.1, "eta": 1.0, "return_rois_num": False}
    # the image-size input and its row length (ImInfo: height, width, scale)
    IM_SLOT, IM_WIDTH = "ImInfo", 3

    def infer_shape(self, ctx):
        ctx.check_dtype("Scores", FLOATS)
        scores, deltas = ctx.input_var("Scores"), ctx.input_var("BboxDeltas")
        anchors, info = ctx.input_var("Anchors"), ctx.input_var(self.IM_SLOT)
        ctx.expect(len(scores.shape) == 4 and len(deltas.shape) == 4,
                   "Scores %r and BboxDeltas %r must be 4-D, got %s and %s"
                   % (scores.name, deltas.name, list(scores.shape), list(deltas.shape)))
        a = scores.shape[1]
        ctx.expect(a < 0 or deltas.shape[1] in (4 * a, -1),
                   "BboxDeltas %r must have 4 channels per anchor (%d), got %d"
                   % (deltas.name, 4 * a, deltas.shape[1]))
        ctx.expect(anchors.shape[-1] in (4, -1), "Anchors %r must end in 4, got %s"
                   % (anchors.name, list(anchors.shape)))
        ctx.expect(tuple(ctx.input_var("Variances").shape) == tuple(anchors.shape),
                   "Variances %r must have Anchors' shape %s, got %s"
                   % (ctx.input_var("Variances").name, list(anchors.shape),
                      list(ctx.input_var("Variances").shape)))
        ctx.expect(len(info.shape) == 2 and info.shape[1] in (self.IM_WIDTH, -1),
                   "%s %r must be [N, %d], got %s"
                   % (self.IM_SLOT, info.name, self.IM_WIDTH, list(info.shape)))
        ctx.set_output("RpnRois", (-1, 4), scores.dtype)
        ctx.set_output("RpnRoiProbs", (-1, 1), scores.dtype)
        for slot, dtype in (("RpnRoisNum", "int32"), ("RpnRoisLod", "int64")):
            if ctx.has_output(slot):
                ctx.set_output(slot, (scores.shape[0],), dtype)

    @staticmethod
    def forward(scores, deltas, im_info, anchors, variances, pre_nms_topN=6000,
                post_nms_topN=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                return_rois_num=False):
        anchors, variances = anchors.reshape(-1, 4), variances.reshape(-1, 4)
        per_image = [proposals_of_image(scores[i], deltas[i], im_info[i], anchors, variances,
                                        pre_nms_topN, post_nms_topN, nms_thresh, min_size,
                                        eta) for i in range(len(scores))]
        rois = np.concatenate([boxes for boxes, _ in per_image]).astype(scores.dtype)
        probs = np.concatenate([s for _, s in per_image]).reshape(-1, 1).astype(scores.dtype)
        counts = np.array([len(s) for _, s in per_image], np.int32)
        return empty_rows(rois), empty_rows(probs), counts, np.cumsum(counts, dtype=np.int64)

    def samples(self, rng):
        h, w, a = 3, 4, 2
        cy, cx = np.meshgrid(np.arange(h) * 8 + 4, np.arange(w) * 8 + 4, indexing="ij")
        half = np.array([[6, 6], [10, 5]])                                # [A, 2]
        centers = np.stack([cx, cy], -1)[:, :, None, :]
        anchors = np.concatenate([centers - half, centers + half], axis=-1).astype(float)
        variances = np.full(anchors.shape, 1.0)
        scores = rng.permutation(2 * a * h * w).reshape(2, a, h, w) / 48.0
        deltas = rng.uniform(-0.3, 0.3, (2, 4 * a, h, w))
        info = np.array([[24.0, 32.0, 1.0], [20.0, 30.0, 2.0]])
        yield Sample({"Scores": scores, "BboxDeltas": deltas, "ImInfo": info,
                      "Anchors": anchors, "Variances": variances},
                     {"pre_nms_topN": 12, "post_nms_topN": 5, "nms_thresh": 0.5,
                      "min_size": 2.0, "eta": 1.0})
        yield Sample({"Scores": scores, "BboxDeltas": deltas, "ImInfo": info,
                      "Anchors": anchors, "Variances": variances * 0.5},
                     {"pre_nms_topN": -1, "post_nms_topN": -1, "nms_thresh": 0.7,
                      "min_size": 10.0, "eta": 0.8}, name="all_big")
