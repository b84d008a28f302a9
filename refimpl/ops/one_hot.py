"""one_hot (X int [..., 1] -> [..., depth], fluid 1.8) and one_hot_v2 (X of any shape ->
X.shape + [depth], Paddle 2.0). Out-of-range ids raise, or give an all-zero row when
allow_out_of_range is set. The [1] int tensor depth_tensor, when given, is the depth. No
gradient. one_hot checks X's rank (>= 2) when it is built and X's dtype and last dim when it runs,
as Paddle 1.8 does (a program may declare X otherwise than what is fed); one_hot_v2 checks
when it is built."""
import numpy as np

from ..framework.dtypes import to_numpy_dtype
from .registry import OpDef, Sample, register, share_lod


class _OneHot(OpDef):
    inputs = ("X", "depth_tensor?")
    outputs = ("Out",)
    lod_outputs = {"Out": share_lod("X")}    # both, as Paddle 1.8's ops share X's LoD
    attrs = {"depth": 1, "dtype": "float32", "allow_out_of_range": False}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        depth = -1 if ctx.has_input("depth_tensor") else ctx.attr("depth")
        ctx.expect(depth == -1 or depth >= 1, "depth must be >= 1, got %s" % depth)
        if self.checks_when_built:
            ctx.check_dtype("X", ("int32", "int64"))    # a TypeError, as Paddle's layers
            self.check_shape(list(x.shape), "X %r" % x.name, ctx.fail)
        ctx.set_output("Out", self.out_shape(list(x.shape)) + [depth], ctx.attr("dtype"))

    checks_when_built = True

    def check_shape(self, shape, what, fail):
        pass

    def forward(self, x, depth_tensor=None, depth=1, dtype="float32", allow_out_of_range=False):
        if depth_tensor is not None:
            depth = int(np.asarray(depth_tensor).reshape(-1)[0])
        if not self.checks_when_built:
            if x.dtype not in (np.int32, np.int64):
                raise TypeError("X must hold int64 (or int32) ids, got %s" % x.dtype)
            self.check_shape(list(x.shape), "X", _raise)
        flat = x.reshape(-1).astype(np.int64)
        bad = (flat < 0) | (flat >= depth)
        if bad.any() and not allow_out_of_range:
            raise ValueError("X: id %d is out of range for depth %d (set allow_out_of_range "
                             "to get an all-zero row)" % (flat[bad][0], depth))
        out = (flat[:, None] == np.arange(depth)[None, :]).astype(to_numpy_dtype(dtype))
        return out.reshape(self.out_shape(list(x.shape)) + [depth])

    def samples(self, rng):
        yield Sample({"X": self.ids(np.array([0, 3, 2], "int64"))}, {"depth": 4})
        yield Sample({"X": self.ids(np.array([1, 5, -1], "int64"))},
                     {"depth": 3, "allow_out_of_range": True}, name="out_of_range")
        yield Sample({"X": self.ids(np.array([2, 0], "int64")),
                      "depth_tensor": np.array([3], "int32")}, name="depth_tensor")


def _raise(message):
    raise ValueError(message)


@register
class OneHot(_OneHot):
    type = "one_hot"

    checks_when_built = False

    def infer_shape(self, ctx):
        # the rank is known when built, and 1.8 checks it then (the dims only when it runs)
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) >= 2, "X %r must be at least 2-D [..., 1], got shape %s "
                   "(one_hot_v2 takes any shape)" % (x.name, list(x.shape)))
        super().infer_shape(ctx)

    def check_shape(self, shape, what, fail):
        if shape[-1:] != [1]:
            fail("%s must have a last dim of 1, got shape %s (one_hot_v2 takes any shape)"
                 % (what, shape))

    out_shape = staticmethod(lambda s: s[:-1])
    ids = staticmethod(lambda a: a.reshape(-1, 1))


@register
class OneHotV2(_OneHot):
    type = "one_hot_v2"
    out_shape = staticmethod(lambda s: s)
    ids = staticmethod(lambda a: a)
