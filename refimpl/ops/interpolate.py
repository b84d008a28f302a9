"""Resizing by interpolation: {nearest,linear,bilinear,trilinear,bicubic}_interp_v2
(Paddle 2.0's interpolate), the 1.8 ops {nearest,bilinear,trilinear,bicubic}_interp and
2.0's linear_interp (fluid.layers.resize_linear).

Every method is separable: along each spatial axis the output is a fixed matrix
[out, in] times the input, so the forward applies one matrix per axis and the gradient
applies their transposes. Source coordinates for output index i along an axis (in -> out):
  align_corners:      ratio = (in - 1) / (out - 1), src = ratio i
  else:               ratio = 1 / scale if a scale is given, else in / out;
                      linear with align_mode 0: src = max(ratio (i + 0.5) - 0.5, 0);
                      align_mode 1: src = ratio i; cubic: ratio (i + 0.5) - 0.5 (taps
                      clamped to the edge)
  nearest:            align_corners: round(ratio i), else floor(ratio i)
"""
import functools
import math

import numpy as np

from ..xp import to_host
from ._common import FLOATS, rand, runtime_ints
from .registry import OpDef, Sample, register_variant

CUBIC_A = -0.75


def _ratio(n_in, n_out, align_corners, scale, size_ratio):
    """size_ratio (Paddle 1.8's ops): in/out whatever gave the size. One output reads the
    first input (ratio 0) whatever the scale: the kernels set a ratio only for out > 1."""
    if n_out <= 1:
        return 0.0
    if align_corners or size_ratio:
        return (n_in - 1) / (n_out - 1) if align_corners else n_in / n_out
    return 1.0 / scale if scale and scale > 0 else n_in / n_out


def _cubic_weights(t):
    """Cubic convolution weights of the four taps at offsets -1, 0, 1, 2 from floor(src)."""
    a = CUBIC_A

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@functools.lru_cache(maxsize=256)
def axis_matrix(n_in, n_out, method, align_corners, align_mode, scale, size_ratio=False,
                dtype="float64"):
    """The [n_out, n_in] interpolation matrix along one axis, in `dtype` (size_ratio: the
    1.8 ops' ratio rule, see _ratio); cached (read-only):
    OpTest's numeric gradient runs the op twice per input element with the same sizes."""
    m = _axis_matrix(n_in, n_out, method, align_corners, align_mode, scale,
                     size_ratio).astype(dtype)
    m.setflags(write=False)
    return m


def _axis_matrix(n_in, n_out, method, align_corners, align_mode, scale, size_ratio):
    ratio = _ratio(n_in, n_out, align_corners, scale, size_ratio)
    m = np.zeros((n_out, n_in))
    i = np.arange(n_out)
    if method == "nearest":
        src = np.floor(ratio * i + 0.5) if align_corners else np.floor(ratio * i)
        m[i, np.minimum(src.astype(int), n_in - 1)] = 1.0
        return m
    # cubic ignores align_mode: half-pixel centers unless align_corners
    half_pixel = not align_corners and (align_mode == 0 or method == "cubic")
    src = ratio * (i + 0.5) - 0.5 if half_pixel else ratio * i
    if method == "cubic":
        base = np.floor(src).astype(int)
        for tap, w in zip(range(-1, 3), _cubic_weights(src - base)):
            np.add.at(m, (i, np.clip(base + tap, 0, n_in - 1)), w)
        return m
    src = np.maximum(src, 0)
    lo = np.minimum(np.floor(src).astype(int), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    np.add.at(m, (i, lo), 1 - frac)
    np.add.at(m, (i, hi), frac)
    return m


def _apply(x, matrices, axes):
    """x with each axis in `axes` multiplied by its [out, in] matrix: contiguous GEMMs on
    x seen as [before, in, after] (the last axis as one [rows, in] @ [in, out])."""
    x = np.ascontiguousarray(x)
    for m, axis in sorted(zip(matrices, axes), key=lambda ma: -ma[1]):
        shape = x.shape
        before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
        if after == 1:
            x = x.reshape(-1, shape[axis]) @ m.T
        else:
            x = m @ x.reshape(before, shape[axis], after)
        x = x.reshape(shape[:axis] + (m.shape[0],) + shape[axis + 1:])
    return x


class _Interp(OpDef):
    """Shared by all interp ops: `spatial` dims (1, 2 or 3), `method`."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")
    # Paddle's kernels compute the source coordinates in float32 whatever the data type
    # (specs/ops/functional_vision.md#tolerances)
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-6, 1e-6)}
    OUT_NAMES = ("out_d", "out_h", "out_w")
    INTEGER_IMAGES = ()     # integer dtypes X may have besides floats
    SIZE_RATIO = False      # the source ratio ignores the scale (see _ratio)

    def _axes(self, ndim, data_layout):
        first = 1 if data_layout[-1] == "C" else 2
        return list(range(first, first + self.spatial))

    def _sizes_and_scales(self, in_sizes, attrs):
        """Output size and scale per spatial axis, from out_* when > 0, else the scale."""
        names = self.OUT_NAMES[3 - self.spatial:]
        scales = self._scales(attrs)
        sizes = []
        for n_in, name, scale in zip(in_sizes, names, scales):
            out = attrs.get(name, -1)
            if out is None or out <= 0:
                out = int(n_in * scale) if n_in >= 0 and scale and scale > 0 else -1
                if n_in >= 0 and out <= 0:
                    raise ValueError("%s: no output size: %s <= 0 and scale %s"
                                     % (self.type, name, scale))
            sizes.append(out)
        return sizes, scales

    def _size_attrs(self, attrs):
        """The attrs that decide the output size."""
        return attrs

    def _runtime_size(self, ctx):
        """Whether the output size comes from an input at run time."""
        return any(ctx.has_input(slot) for slot in self.no_grad)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS + self.INTEGER_IMAGES)
        attrs = self._size_attrs({k: ctx.attr(k) for k in self.attrs})
        ctx.expect(len(x.shape) == 2 + self.spatial, "X %r must be %d-D for %s, got %s"
                   % (x.name, 2 + self.spatial, self.type, list(x.shape)))
        axes = self._axes(len(x.shape), attrs["data_layout"])
        if self._runtime_size(ctx):
            sizes = [-1] * self.spatial
        else:
            try:
                sizes, _ = self._sizes_and_scales([x.shape[a] for a in axes], attrs)
            except ValueError as e:
                ctx.fail(str(e))
        shape = list(x.shape)
        for a, s in zip(axes, sizes):
            shape[a] = s
        ctx.set_output("Out", shape, x.dtype)

    def _matrices(self, x_shape, sizes, scales, dtype, attrs):
        """The axis matrices from x's spatial sizes to `sizes`, and the spatial axes."""
        axes = self._axes(len(x_shape), attrs["data_layout"])
        mats = [axis_matrix(x_shape[a], n_out, self.method, attrs["align_corners"],
                            attrs.get("align_mode", 1),
                            None if attrs["align_corners"] else s, self.SIZE_RATIO,
                            dtype.str)
                for a, n_out, s in zip(axes, sizes, scales)]
        return mats, axes

    def _resize(self, x, sizes, scales, attrs):
        # integer images (1.8's uint8) are interpolated in float64, then truncated as
        # Paddle's kernel stores them
        dtype = x.dtype if x.dtype.kind == "f" else np.dtype("float64")
        mats, axes = self._matrices(x.shape, sizes, scales, dtype, attrs)
        if self.method == "nearest":
            # each output copies one source element (the row's 1): a gather, exact for
            # int64 labels past 2**53 and for inf / nan, which a product would spread
            for m, axis in zip(mats, axes):
                x = np.take(x, m.argmax(axis=1), axis=axis)
            return x
        return _apply(x.astype(dtype, copy=False), mats, axes).astype(x.dtype, copy=False)

    def forward(self, x, **attrs):
        axes = self._axes(x.ndim, attrs["data_layout"])
        sizes, scales = self._sizes_and_scales([x.shape[a] for a in axes],
                                               self._size_attrs(attrs))
        return self._resize(x, sizes, scales, attrs)

    def backward(self, x, dout, **attrs):
        # the output sizes are dout's (they may have come from a run-time input)
        axes = self._axes(x.ndim, attrs["data_layout"])
        mats, axes = self._matrices(x.shape, [dout.shape[a] for a in axes],
                                    self._scales(attrs), dout.dtype, attrs)
        return _apply(dout, [m.T for m in mats], axes).astype(x.dtype, copy=False)

    def samples(self, rng):
        spatial_in = [3, 4, 5][:self.spatial]
        outs = dict(zip(self.OUT_NAMES[3 - self.spatial:], [5, 7, 3]))
        for align_corners, align_mode in ((False, 0), (False, 1), (True, 1)):
            attrs = dict(outs, interp_method=self.mode, align_corners=align_corners,
                         align_mode=align_mode)
            yield Sample({"X": rand(rng, 2, 2, *spatial_in)}, attrs,
                         name="ac%d_am%d" % (align_corners, align_mode))
        yield Sample({"X": rand(rng, 1, *spatial_in, 2)},
                     dict(self._scale_attrs(2.0), interp_method=self.mode,
                          data_layout="NHWC"),
                     name="scale_channels_last")


class _InterpV2(_Interp):
    """Paddle 2.0's ops: a scale per spatial axis (one value: every axis), and the output
    size may come at run time. Priority (2.0's kernels): SizeTensor (1-element int
    tensors, one a spatial axis), else OutSize (a 1-D int tensor), else the Scale tensor or
    the scale attr when > 0, else out_*. The source ratio is 1/scale when a scale is given,
    even when OutSize gave the size, except in the forward with SizeTensor, which reads no
    scale (the gradient kernel reads it always)."""
    inputs = ("X", "OutSize?", "SizeTensor*?", "Scale?")
    grad_inputs = ("X", "Scale?", "Out@GRAD")
    no_grad = ("OutSize", "SizeTensor", "Scale")

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        # 2.0's CPU kernels take uint8 images, except bicubic's; nearest also takes
        # int32 (2.0's CUDA kernel; PaddleSeg resizes its argmax labels back) and int64
        # (3.x's kernels): specs/divergences.md
        cls.INTEGER_IMAGES = {"cubic": (), "nearest": ("uint8", "int32", "int64")}.get(
            cls.method, ("uint8",))
        cls.attrs = {"out_d": 0, "out_h": 0, "out_w": 0, "scale": [],
                     "interp_method": cls.mode, "align_corners": True, "align_mode": 1,
                     "data_layout": "NCHW"}

    def _scales(self, attrs):
        scale = list(attrs.get("scale") or [])
        if len(scale) == 1:
            scale = scale * self.spatial
        return scale if scale else [None] * self.spatial

    def _scale_attrs(self, s):
        return {"scale": [s] * self.spatial}

    def _size_attrs(self, attrs):
        # scales > 0 win over out_*
        return dict(attrs, out_d=0, out_h=0, out_w=0) \
            if all(s and s > 0 for s in self._scales(attrs)) else attrs

    def _with_scale_tensor(self, attrs, scale_tensor):
        if scale_tensor is None:
            return attrs
        return dict(attrs, scale=[float(v) for v in np.asarray(to_host(scale_tensor)).ravel()])

    def forward(self, x, out_size=None, size_tensor=None, scale_tensor=None, **attrs):
        if size_tensor:
            sizes, scales = runtime_ints(tensor_list=size_tensor), [None] * self.spatial
        else:
            attrs = self._size_attrs(self._with_scale_tensor(attrs, scale_tensor))
            scales = self._scales(attrs)
            if out_size is not None:
                sizes = runtime_ints(out_size)
            else:
                axes = self._axes(x.ndim, attrs["data_layout"])
                sizes, _ = self._sizes_and_scales([x.shape[a] for a in axes], attrs)
        if len(sizes) != self.spatial:
            raise ValueError("%s: the run-time output size must have %d values, got %s"
                             % (self.type, self.spatial, sizes))
        return self._resize(x, sizes, scales, attrs)

    def backward(self, x, scale_tensor, dout, **attrs):
        return super().backward(x, dout, **self._with_scale_tensor(attrs, scale_tensor))


class _InterpV1(_Interp):
    """Paddle 1.8's ops: one float `scale` for every spatial axis, and the output size may
    come at run time. Priority (1.8.5's kernel): SizeTensor (1-element int tensors, one a
    spatial axis), else OutSize (a 1-D int tensor), else the Scale tensor or the scale attr
    when > 0, else out_*. The source ratio is in/out (align_corners: (in-1)/(out-1)) even
    when a scale gave the size (measured on 1.8.5: 7 -> 10 at scale 1.5 reads row 0.7)."""
    inputs = ("X", "OutSize?", "SizeTensor*?", "Scale?")
    grad_inputs = ("X", "Out@GRAD")
    no_grad = ("OutSize", "SizeTensor", "Scale")
    INTEGER_IMAGES = ("uint8",)
    SIZE_RATIO = True

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.attrs = {"out_d": 0, "out_h": 0, "out_w": 0, "scale": 0.0,
                     "interp_method": cls.mode, "align_corners": True, "align_mode": 1,
                     "data_layout": "NCHW"}

    def _scales(self, attrs):
        s = attrs.get("scale") or 0.0
        return [s if s > 0 else None] * self.spatial

    def _scale_attrs(self, s):
        return {"scale": s}

    def _size_attrs(self, attrs):
        # a scale > 0 wins over out_*
        return dict(attrs, out_d=0, out_h=0, out_w=0) if (attrs.get("scale") or 0) > 0 \
            else attrs

    def forward(self, x, out_size=None, size_tensor=None, scale_tensor=None, **attrs):
        axes = self._axes(x.ndim, attrs["data_layout"])
        if size_tensor or out_size is not None:
            sizes = runtime_ints(out_size, size_tensor)
            if len(sizes) != self.spatial:
                raise ValueError("%s: the run-time output size must have %d values, got %s"
                                 % (self.type, self.spatial, sizes))
            return self._resize(x, sizes, [None] * self.spatial, attrs)
        if scale_tensor is not None:
            attrs = dict(attrs, scale=float(np.asarray(to_host(scale_tensor)).reshape(-1)[0]))
        attrs = self._size_attrs(attrs)
        sizes, scales = self._sizes_and_scales([x.shape[a] for a in axes], attrs)
        return self._resize(x, sizes, scales, attrs)


def _define(base, op_type, method, spatial):
    # `mode`: Paddle's interp_method name for the op (the op name's prefix); Paddle's own
    # op default is "bilinear" for every interp op, so callers and samples pass it
    return register_variant(base, op_type, method=method, mode=op_type.split("_")[0],
                            spatial=spatial,
                            __doc__="%s interpolation over %d spatial dims." % (method, spatial))


for _v2, _method, _spatial in (("linear_interp_v2", "linear", 1),
                               ("bilinear_interp_v2", "linear", 2),
                               ("trilinear_interp_v2", "linear", 3),
                               ("bicubic_interp_v2", "cubic", 2),
                               ("nearest_interp_v2", "nearest", 2)):
    _define(_InterpV2, _v2, _method, _spatial)
for _v1, _method, _spatial in (("linear_interp", "linear", 1),
                               ("bilinear_interp", "linear", 2),
                               ("trilinear_interp", "linear", 3),
                               ("bicubic_interp", "cubic", 2),
                               ("nearest_interp", "nearest", 2)):
    _define(_InterpV1, _v1, _method, _spatial)
