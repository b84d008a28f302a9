"""iou_similarity: the [N, M] intersection-over-union matrix of boxes X [N, 4] and
Y [M, 4] (x1, y1, x2, y2). box_normalized=False means pixel boxes (width x2 - x1 + 1).
An inverted box keeps its signed area (Paddle 1.8.5's kernel: only the intersection's sides
are clamped at 0), unlike the NMS ops, which count it as empty. No gradient, as in Paddle."""
from ._boxes import expect_boxes, pairwise_iou, random_boxes
from ._common import FLOATS
from .registry import OpDef, Sample, register, share_lod


@register
class IouSimilarity(OpDef):
    type = "iou_similarity"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"box_normalized": True}
    lod_outputs = {"Out": share_lod("X")}     # one row per box of X

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        x, y = expect_boxes(ctx, "X"), expect_boxes(ctx, "Y")
        ctx.set_output("Out", (x.shape[0], y.shape[0]), x.dtype)

    @staticmethod
    def forward(x, y, box_normalized=True):
        return pairwise_iou(x, y, box_normalized, signed_areas=True).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": random_boxes(rng, 3), "Y": random_boxes(rng, 4)})
        yield Sample({"X": random_boxes(rng, 2, 10.0), "Y": random_boxes(rng, 5, 10.0)},
                     {"box_normalized": False}, name="pixels")
