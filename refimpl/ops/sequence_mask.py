"""sequence_mask: lengths -> mask[..., j] = j < length (no gradient). Float lengths too, as
Paddle 1.8.5's kernel takes them (maxlen from them truncated: [1.5, 0.2, 2.7] -> maxlen 2,
rows [1, 1], [1, 0], [1, 1])."""
import numpy as np

from ..framework.dtypes import to_numpy_dtype

from .registry import OpDef, Sample, register


@register
class SequenceMask(OpDef):
    type = "sequence_mask"
    inputs = ("X", "MaxLenTensor?")
    outputs = ("Y",)
    attrs = {"maxlen": -1, "out_dtype": "int64"}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("int32", "int64", "float32", "float64"))
        maxlen = ctx.attr("maxlen")
        known = maxlen if maxlen > 0 and not ctx.has_input("MaxLenTensor") else -1
        ctx.set_output("Y", tuple(ctx.input_shape("X")) + (known,), ctx.attr("out_dtype"))

    @staticmethod
    def forward(x, maxlen_tensor=None, maxlen=-1, out_dtype="int64"):
        if maxlen_tensor is not None:
            maxlen = int(np.asarray(maxlen_tensor).reshape(-1)[0])
        if maxlen < 0:
            maxlen = int(x.max()) if x.size else 0
        return (np.arange(maxlen) < x[..., None]).astype(to_numpy_dtype(out_dtype))    # a name, or Paddle's dtype code

    def samples(self, rng):
        yield Sample({"X": np.array([3, 1, 2], np.int64)}, {"maxlen": 4, "out_dtype": "int64"})
        yield Sample({"X": np.array([[0, 2], [5, 1]], np.int32)}, {"out_dtype": "float32"})
        yield Sample({"X": np.array([1.5, 0.2, 2.7], np.float32)}, name="float_lengths")
