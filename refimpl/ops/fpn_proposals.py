"""Feature-pyramid RoI routing: distribute_fpn_proposals (each RoI to the pyramid level
that suits its size) and collect_fpn_proposals (the best RoIs of all levels back in one
list). Image membership is the RoIs' LoD, as in Paddle 1.8 (outputs then carry the LoD
of their images' rows), or int32 counts per image (RoisNum inputs and MultiLevelRoIsNum /
RoisNum outputs, Paddle 2.x's); the kernels return the counts either way. Neither: the
RoIs are one image (refimpl's). No gradient."""
import numpy as np

from ._boxes import box_area, empty_rows, random_boxes, roi_image_index
from ._common import FLOATS
from .registry import LoDRule, OpDef, Sample, lengths_lod, register


def fpn_levels(rois, min_level, max_level, refer_level, refer_scale):
    """[R] level of each pixel RoI: floor(log2(sqrt(area) / refer_scale + 1e-6) +
    refer_level), clamped to [min_level, max_level]."""
    scale = np.sqrt(box_area(rois, normalized=False))
    level = np.floor(np.log2(scale / refer_scale + 1e-6) + refer_level)
    return np.clip(level, min_level, max_level).astype(np.int64)


@register
class DistributeFpnProposals(OpDef):
    """MultiFpnRois[k]: the RoIs of level min_level + k, in their original order (so
    image by image); RestoreIndex [R, 1]: where each original RoI is in the levels'
    concatenation (gathering that concatenation with it restores the order)."""
    type = "distribute_fpn_proposals"
    inputs = ("FpnRois", "RoisNum?")
    outputs = ("MultiFpnRois*", "RestoreIndex", "MultiLevelRoIsNum*")
    lod_lengths = {"RoisNum": "FpnRois"}
    # each level's RoIs carry the LoD of its per-image counts when FpnRois has a LoD
    lod_outputs = {"MultiFpnRois": LoDRule(
        lambda lods, values, attrs: [((tuple(int(n) for n in counts),)
                                      if lods.get("FpnRois") else ())
                                     for counts in values["MultiLevelRoIsNum"]],
        lambda levels: min((levels.get("FpnRois") or [0])[0], 1), reads="MultiLevelRoIsNum")}
    attrs = {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224}

    def infer_shape(self, ctx):
        ctx.check_dtype("FpnRois", FLOATS)
        rois = ctx.input_var("FpnRois")
        ctx.expect(len(rois.shape) == 2 and rois.shape[1] in (4, -1),
                   "FpnRois %r must be [R, 4], got %s" % (rois.name, list(rois.shape)))
        lo, hi = ctx.attr("min_level"), ctx.attr("max_level")
        ctx.expect(0 <= lo <= hi, "min_level %d must be <= max_level %d" % (lo, hi))
        ctx.expect(ctx.op.outputs.get("MultiFpnRois") is None or
                   len(ctx.op.outputs["MultiFpnRois"]) == hi - lo + 1,
                   "MultiFpnRois must have one variable per level (%d), got %d"
                   % (hi - lo + 1, len(ctx.op.outputs.get("MultiFpnRois", ()))))
        ctx.set_output("MultiFpnRois", (-1, 4), rois.dtype)
        ctx.set_output("RestoreIndex", (rois.shape[0], 1), "int32")
        n = ctx.input_var("RoisNum").shape[0] if ctx.has_input("RoisNum") else 1
        ctx.set_output("MultiLevelRoIsNum", (n,), "int32")

    @staticmethod
    def forward(rois, rois_num=None, min_level=2, max_level=5, refer_level=4, refer_scale=224):
        n_images = 1 if rois_num is None else len(rois_num)
        image = roi_image_index(len(rois), rois_num, n_images)
        level = fpn_levels(rois, min_level, max_level, refer_level, refer_scale)
        levels = range(min_level, max_level + 1)
        order = np.concatenate([np.flatnonzero(level == k) for k in levels])
        restore = np.empty(len(rois), np.int32)
        restore[order] = np.arange(len(rois))
        return ([empty_rows(rois[level == k]) for k in levels], restore.reshape(-1, 1),
                [np.bincount(image[level == k], minlength=n_images).astype(np.int32)
                 for k in levels])

    def samples(self, rng):
        sides = np.array([10.0, 200.0, 50.0, 500.0, 30.0, 120.0])
        corner = rng.uniform(0, 20, (6, 2))
        rois = np.concatenate([corner, corner + sides[:, None]], axis=1)
        yield Sample({"FpnRois": rois, "RoisNum": np.array([4, 2], np.int32)},
                     {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224})
        yield Sample({"FpnRois": rois[:4], "RoisNum": np.array([4], np.int32)},
                     {"min_level": 3, "max_level": 4, "refer_level": 4, "refer_scale": 224},
                     name="one_image")


@register
class CollectFpnProposals(OpDef):
    """The post_nms_topN best RoIs (by score; ties: earlier level, earlier RoI) over all
    levels and images, then regrouped image by image (keeping the score order within
    each image). FpnRois [R, 4], RoisNum [N] int32."""
    type = "collect_fpn_proposals"
    inputs = ("MultiLevelRois*", "MultiLevelScores*", "MultiLevelRoIsNum*?")
    outputs = ("FpnRois", "RoisNum")
    lod_lengths = {"MultiLevelRoIsNum": "MultiLevelRois"}
    lod_alike = {"MultiLevelScores": "MultiLevelRois"}
    lod_outputs = {"FpnRois": lengths_lod("RoisNum", if_lod="MultiLevelRois")}
    attrs = {"post_nms_topN": 100}

    def infer_shape(self, ctx):
        rois, scores = ctx.input_vars("MultiLevelRois"), ctx.input_vars("MultiLevelScores")
        ctx.expect(len(rois) == len(scores) and rois,
                   "MultiLevelRois and MultiLevelScores must list the same levels, got %d and "
                   "%d" % (len(rois), len(scores)))
        for r, s in zip(rois, scores):
            ctx.expect(len(r.shape) == 2 and r.shape[1] in (4, -1),
                       "MultiLevelRois %r must be [R, 4], got %s" % (r.name, list(r.shape)))
            ctx.expect(r.shape[0] < 0 or s.shape[0] < 0 or r.shape[0] == s.shape[0],
                       "MultiLevelScores %r must have one score per RoI of %r (%d), got %s"
                       % (s.name, r.name, r.shape[0], list(s.shape)))
        ctx.expect(ctx.attr("post_nms_topN") > 0, "post_nms_topN must be positive, got %d"
                   % ctx.attr("post_nms_topN"))
        ctx.set_output("FpnRois", (-1, 4), rois[0].dtype)
        nums = ctx.input_vars("MultiLevelRoIsNum")
        ctx.set_output("RoisNum", (nums[0].shape[0] if nums else 1,), "int32")

    @staticmethod
    def forward(rois, scores, rois_nums=None, post_nms_topN=100):
        n_images = len(rois_nums[0]) if rois_nums else 1
        image = np.concatenate([roi_image_index(len(r), None if not rois_nums else rois_nums[k],
                                                n_images) for k, r in enumerate(rois)])
        # (a level without RoIs is [0] under 1.8: switch empty_detection_rows)
        all_rois = np.concatenate([r.reshape(-1, 4) for r in rois])
        best = np.argsort(-np.concatenate([s.ravel() for s in scores]), kind="stable")[
            :post_nms_topN]
        best = best[np.argsort(image[best], kind="stable")]
        return (all_rois[best],
                np.bincount(image[best], minlength=n_images).astype(np.int32))

    def samples(self, rng):
        rois = [random_boxes(rng, k, 50.0) for k in (3, 4)]
        ranked = (rng.permutation(7) / 7.0).reshape(-1, 1)
        scores = [ranked[:3], ranked[3:]]
        nums = [np.array([2, 1], np.int32), np.array([1, 3], np.int32)]
        yield Sample({"MultiLevelRois": rois, "MultiLevelScores": scores,
                      "MultiLevelRoIsNum": nums}, {"post_nms_topN": 5})
        yield Sample({"MultiLevelRois": rois, "MultiLevelScores": scores,
                      "MultiLevelRoIsNum": [np.array([3], np.int32), np.array([4], np.int32)]},
                     {"post_nms_topN": 10}, name="one_image_all")
