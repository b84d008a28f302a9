"""generate_proposals_v2 (Paddle 2.0): generate_proposals with ImShape [N, 2] (height,
width) in place of ImInfo: no image scale, so min_size is measured on the input image
(generate_proposals with scale 1). Outputs RpnRois, RpnRoiProbs and RpnRoisNum (int32
proposals per image, also the outputs' LoD). No gradient."""
import numpy as np

from .generate_proposals import GenerateProposals
from .registry import Sample, lengths_lod, register


@register
class GenerateProposalsV2(GenerateProposals):
    type = "generate_proposals_v2"
    inputs = ("Scores", "BboxDeltas", "ImShape", "Anchors", "Variances")
    outputs = ("RpnRois", "RpnRoiProbs", "RpnRoisNum?")
    lod_outputs = {"RpnRois": lengths_lod("RpnRoisNum"),
                   "RpnRoiProbs": lengths_lod("RpnRoisNum")}
    attrs = {"pre_nms_topN": 6000, "post_nms_topN": 1000, "nms_thresh": 0.5,
             "min_size": 0.1, "eta": 1.0}
    IM_SLOT, IM_WIDTH = "ImShape", 2

    @classmethod
    def forward(cls, scores, deltas, im_shape, anchors, variances, **attrs):
        im_info = np.concatenate([im_shape, np.ones((len(im_shape), 1), im_shape.dtype)], 1)
        return super().forward(scores, deltas, im_info, anchors, variances, **attrs)[:3]

    def samples(self, rng):
        for sample in super().samples(rng):
            inputs = dict(sample.inputs)
            inputs["ImShape"] = inputs.pop("ImInfo")[:, :2]
            yield Sample(inputs, sample.attrs, grad=False, name=sample.name)
