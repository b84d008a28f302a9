"""temporal_shift (TSM): X [N T, C, H, W] seen as [N, T, C, H, W]; the first
int(C shift_ratio) channels take the previous frame's values, the next
int(2 C shift_ratio) - int(C shift_ratio) the next frame's, the rest stay; frames beyond
the clip give 0. The gradient shifts Out@GRAD back the other way."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _shift(x, seg_num, shift_ratio, data_format, sign):
    """Shift forward (sign 1) or back (sign -1) along the segment axis."""
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    nt, c, h, w = x.shape
    v = x.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = v.copy()
    out[:, :, :c1] = 0
    out[:, :, c1:c2] = 0
    # forward: channels [0, c1) read frame t-1, [c1, c2) frame t+1; back: the reverse
    late, early = (slice(1, None), slice(None, -1))
    if sign < 0:
        late, early = early, late
    out[:, late, :c1] = v[:, early, :c1]
    out[:, early, c1:c2] = v[:, late, c1:c2]
    out = out.reshape(nt, c, h, w)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if data_format == "NHWC" else out


@register
class TemporalShift(OpDef):
    type = "temporal_shift"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"seg_num": 1, "shift_ratio": 0.25, "data_format": "NCHW"}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        seg, ratio = ctx.attr("seg_num"), ctx.attr("shift_ratio")
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D, got %s" % (x.name, list(x.shape)))
        ctx.expect(seg > 0 and (x.shape[0] < 0 or x.shape[0] % seg == 0),
                   "the batch of X %r %s must be a multiple of seg_num %d"
                   % (x.name, list(x.shape), seg))
        ctx.expect(0 < ratio <= 0.5, "shift_ratio must be in (0, 0.5], got %s" % ratio)
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, seg_num=1, shift_ratio=0.25, data_format="NCHW"):
        return _shift(x, seg_num, shift_ratio, data_format, 1)

    @staticmethod
    def backward(dout, seg_num=1, shift_ratio=0.25, data_format="NCHW"):
        return _shift(dout, seg_num, shift_ratio, data_format, -1)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 6, 8, 2, 2)}, {"seg_num": 3, "shift_ratio": 0.25})
        yield Sample({"X": rand(rng, 4, 2, 1, 8)}, {"seg_num": 2, "shift_ratio": 0.2,
                                                    "data_format": "NHWC"}, name="nhwc")
