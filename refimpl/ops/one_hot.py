"""one_hot (X int [..., 1] -> [..., depth], fluid 1.8) and one_hot_v2 (X of any shape ->
X.shape + [depth], Paddle 2.0). Out-of-range ids raise, or give an all-zero row when
allow_out_of_range is set. No gradient."""
import numpy as np

from .registry import OpDef, Sample, register, share_lod


class _OneHot(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"depth": 1, "dtype": "float32", "allow_out_of_range": False}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(x.dtype.name in ("int32", "int64"),
                   "X %r must hold int64 (or int32) ids, got %s" % (x.name, x.dtype.name))
        ctx.expect(ctx.attr("depth") >= 1, "depth must be >= 1, got %s" % ctx.attr("depth"))
        self.check_x(ctx, x)
        ctx.set_output("Out", self.out_shape(list(x.shape)) + [ctx.attr("depth")],
                       ctx.attr("dtype"))

    def check_x(self, ctx, x):
        pass

    def forward(self, x, depth=1, dtype="float32", allow_out_of_range=False):
        flat = x.reshape(-1).astype(np.int64)
        bad = (flat < 0) | (flat >= depth)
        if bad.any() and not allow_out_of_range:
            raise ValueError("X: id %d is out of range for depth %d (set allow_out_of_range "
                             "to get an all-zero row)" % (flat[bad][0], depth))
        out = (flat[:, None] == np.arange(depth)[None, :]).astype(dtype)
        return out.reshape(self.out_shape(list(x.shape)) + [depth])

    def samples(self, rng):
        yield Sample({"X": self.ids(np.array([0, 3, 2], "int64"))}, {"depth": 4})
        yield Sample({"X": self.ids(np.array([1, 5, -1], "int64"))},
                     {"depth": 3, "allow_out_of_range": True}, name="out_of_range")


@register
class OneHot(_OneHot):
    type = "one_hot"
    lod_outputs = {"Out": share_lod("X")}

    def check_x(self, ctx, x):
        ctx.expect(list(x.shape[-1:]) == [1], "X %r must have a last dim of 1, got shape %s "
                   "(one_hot_v2 takes any shape)" % (x.name, list(x.shape)))

    out_shape = staticmethod(lambda s: s[:-1])
    ids = staticmethod(lambda a: a.reshape(-1, 1))


@register
class OneHotV2(_OneHot):
    type = "one_hot_v2"
    out_shape = staticmethod(lambda s: s)
    ids = staticmethod(lambda a: a)
