"""Padding ops: pad (constant, every dim), pad2d (NCHW/NHWC, constant/reflect/edge),
pad3d (NCDHW/NDHWC, constant/reflect/replicate/circular) and pad_constant_like (Y padded
at the end of each dim up to X's shape).

Every mode maps each output element to one input element (or to the constant), so the
gradient of any mode is the same scatter-add: pad an array of input indices the same way,
and sum Out@GRAD into the indices it holds.
"""
import numpy as np

from ._common import COMPLEX, FLOATS, rand, runtime_ints
from .registry import OpDef, Sample, register

PAD_DTYPES = FLOATS + ("int32", "int64") + COMPLEX   # 3.3.1's pad and pad3d (measured)
NUMPY_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge",
               "replicate": "edge", "circular": "wrap"}


def pad_array(x, widths, mode, value=0.0):
    """np.pad with Paddle's mode names; widths [(before, after)] per dim."""
    if mode == "constant":
        return np.pad(x, widths, constant_values=value)
    return np.pad(x, widths, mode=NUMPY_MODES[mode])


def pad_grad(dout, x_shape, widths, mode):
    """Adjoint of pad_array: each input element collects the grads of its copies."""
    index = np.arange(int(np.prod(x_shape))).reshape(x_shape)
    padded = pad_array(index, widths, mode, -1)
    kept = padded >= 0

    def summed(weights):
        return np.bincount(padded[kept], weights=weights, minlength=index.size)

    picked = dout[kept]
    grad = summed(picked.real) + 1j * summed(picked.imag) if dout.dtype.kind == "c" \
        else summed(picked)
    return grad.reshape(x_shape).astype(dout.dtype)


def check_widths(ctx, x, widths, mode):
    """Negative widths crop in Paddle only for constant pad; reflect needs width < size
    (circular wraps around as often as it needs: 3.3.1, measured)."""
    for dim, ((before, after), size) in enumerate(zip(widths, x.shape)):
        ctx.expect(before >= 0 and after >= 0, "paddings must be >= 0, got %d and %d for "
                   "dim %d of X %r %s" % (before, after, dim, x.name, list(x.shape)))
        if mode == "reflect" and size >= 0:
            ctx.expect(max(before, after) < size,
                       "reflect padding %d must be smaller than dim %d (size %d) of X %r %s"
                       % (max(before, after), dim, size, x.name, list(x.shape)))


def padded_shape(shape, widths):
    return tuple(d + b + a if d >= 0 else -1 for d, (b, a) in zip(shape, widths))


class _PadOp(OpDef):
    """An op padding X into Out by `widths(x_ndim, **attrs)` in mode `mode_of(attrs)`."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")
    modes = ("constant",)
    dtypes = FLOATS

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", self.dtypes)
        attrs = {k: ctx.attr(k) for k in self.attrs}
        mode = self.mode_of(attrs)
        ctx.expect(mode in self.modes, "mode must be one of %s, got %r"
                   % (list(self.modes), mode))
        n = self.paddings_length(len(x.shape))
        if ctx.has_input("Paddings"):     # known when it runs: the padded dims are -1
            padded = self.widths(len(x.shape), **dict(attrs, paddings=[1] * n))
            ctx.set_output("Out", [-1 if w != (0, 0) else d for d, w in zip(x.shape, padded)],
                           x.dtype)
            return
        ctx.expect(len(attrs["paddings"]) == n, "paddings must have %d values for X %r %s, "
                   "got %s" % (n, x.name, list(x.shape), list(attrs["paddings"])))
        widths = self.widths(len(x.shape), **attrs)
        check_widths(ctx, x, widths, mode)
        ctx.set_output("Out", padded_shape(x.shape, widths), x.dtype)

    def forward(self, x, paddings_tensor=None, **attrs):
        attrs = self.runtime_paddings(attrs, paddings_tensor)
        return pad_array(x, self.widths(x.ndim, **attrs), self.mode_of(attrs),
                         self.value_of(attrs)).astype(x.dtype)

    def backward(self, x, dout, paddings_tensor=None, **attrs):
        attrs = self.runtime_paddings(attrs, paddings_tensor)
        return pad_grad(dout, x.shape, self.widths(x.ndim, **attrs), self.mode_of(attrs))

    @staticmethod
    def runtime_paddings(attrs, paddings_tensor):
        """The attrs with `paddings` from the Paddings input when it is given."""
        if paddings_tensor is None:
            return attrs
        return dict(attrs, paddings=runtime_ints(paddings_tensor))

    @staticmethod
    def mode_of(attrs):
        return attrs.get("mode", "constant")


@register
class Pad(_PadOp):
    """paddings: [before_0, after_0, before_1, after_1, ...], constant pad_value."""
    type = "pad"
    attrs = {"paddings": [], "pad_value": 0.0}
    dtypes = PAD_DTYPES
    eager_double_attrs = ("pad_value",)          # Paddle 3's eager pad: a Scalar

    @staticmethod
    def paddings_length(ndim):
        return 2 * ndim

    @staticmethod
    def widths(ndim, paddings=(), **_):
        return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(ndim)]

    @staticmethod
    def value_of(attrs):
        return attrs["pad_value"]

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)}, {"paddings": [1, 0, 2, 1], "pad_value": 0.5})


def _spatial_widths(ndim, pairs, channels_last):
    """[(before, after)] for a 4-D / 5-D tensor whose spatial dims get `pairs`."""
    spatial = list(pairs)
    if channels_last:
        return [(0, 0)] + spatial + [(0, 0)]
    return [(0, 0), (0, 0)] + spatial


@register
class Pad2D(_PadOp):
    """paddings: [top, bottom, left, right]; mode constant / reflect / edge."""
    type = "pad2d"
    inputs = ("X", "Paddings?")
    grad_inputs = ("X", "Out@GRAD", "Paddings?")
    no_grad = ("Paddings",)
    attrs = {"paddings": [0, 0, 0, 0], "mode": "constant", "pad_value": 0.0,
             "data_format": "NCHW"}
    modes = ("constant", "reflect", "edge")

    @staticmethod
    def paddings_length(ndim):
        return 4

    @staticmethod
    def widths(ndim, paddings=(0, 0, 0, 0), data_format="NCHW", **_):
        p = paddings
        return _spatial_widths(ndim, [(p[0], p[1]), (p[2], p[3])], data_format == "NHWC")

    @staticmethod
    def value_of(attrs):
        return attrs["pad_value"]

    def samples(self, rng):
        for mode in self.modes:
            yield Sample({"X": rand(rng, 2, 2, 3, 4)}, {"paddings": [1, 2, 2, 1], "mode": mode},
                         name=mode)
        yield Sample({"X": rand(rng, 1, 3, 4, 2)}, {"paddings": [0, 1, 2, 0], "mode": "reflect",
                                                    "data_format": "NHWC"}, name="nhwc")
        yield Sample({"X": rand(rng, 1, 2, 3, 4), "Paddings": np.array([1, 0, 2, 1], np.int32)},
                     {"paddings": [], "mode": "edge"}, name="paddings_input")


@register
class Pad3D(_PadOp):
    """paddings: [left, right, top, bottom, front, back] (W, H, D pairs, innermost first);
    mode constant / reflect / replicate / circular."""
    type = "pad3d"
    inputs = ("X", "Paddings?")
    grad_inputs = ("X", "Out@GRAD", "Paddings?")
    no_grad = ("Paddings",)
    attrs = {"paddings": [0, 0, 0, 0, 0, 0], "mode": "constant", "value": 0.0,
             "data_format": "NCDHW"}
    eager_double_attrs = ("value",)              # a double in Paddle 3's eager pad3d
    pir_double_attrs = ("value",)                # and in its PIR op (pad_value)
    modes = ("constant", "reflect", "replicate", "circular")
    dtypes = PAD_DTYPES

    @staticmethod
    def paddings_length(ndim):
        return 6

    @staticmethod
    def widths(ndim, paddings=(0,) * 6, data_format="NCDHW", **_):
        p = paddings
        return _spatial_widths(ndim, [(p[4], p[5]), (p[2], p[3]), (p[0], p[1])],
                               data_format == "NDHWC")

    @staticmethod
    def value_of(attrs):
        return attrs["value"]

    def samples(self, rng):
        for mode in self.modes:
            yield Sample({"X": rand(rng, 1, 2, 3, 3, 4)},
                         {"paddings": [1, 2, 0, 2, 1, 1], "mode": mode, "value": 0.3},
                         name=mode)
        yield Sample({"X": rand(rng, 1, 3, 3, 2, 2)}, {"paddings": [1, 0, 1, 1, 2, 0],
                                                       "mode": "circular",
                                                       "data_format": "NDHWC"}, name="ndhwc")
        yield Sample({"X": rand(rng, 1, 2, 2, 3, 2) + 1j * rand(rng, 1, 2, 2, 3, 2)},
                     {"paddings": [1, 0, 2, 1, 0, 1], "mode": "reflect"}, grad=False,
                     name="complex")


@register
class PadConstantLike(OpDef):
    """Y padded with pad_value at the end of each dim up to X's shape (X gives only the
    shape); the gradient goes to Y."""
    type = "pad_constant_like"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"pad_value": 0.0}
    no_grad = ("X",)
    grad_inputs = ("Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(len(x.shape) == len(y.shape) and all(
            a < 0 or b < 0 or a >= b for a, b in zip(x.shape, y.shape)),
            "Y %r %s must have X %r %s's rank and no larger dims"
            % (y.name, list(y.shape), x.name, list(x.shape)))
        ctx.set_output("Out", x.shape, y.dtype)

    @staticmethod
    def forward(x, y, pad_value=0.0):
        widths = [(0, a - b) for a, b in zip(x.shape, y.shape)]
        return np.pad(y, widths, constant_values=pad_value).astype(y.dtype)

    @staticmethod
    def backward(y, dout, pad_value=0.0):
        return dout[tuple(slice(0, d) for d in y.shape)]

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 2, 4)}, {"pad_value": 1.5})
