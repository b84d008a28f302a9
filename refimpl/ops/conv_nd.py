"""Every convolution on one N-d reference: conv2d, depthwise_conv2d, conv3d,
conv2d_transpose, depthwise_conv2d_transpose and conv3d_transpose (channels first;
NHWC / NDHWC are transposed in and out). The compiled conv2d kernel (im2col + GEMM,
depthwise as direct stencils:
refimpl/_kernels/im2col.pyx) is a drop-in for conv2d and depthwise_conv2d.

  patches(x)       [N, C, *S] -> [N, C, *O, *K]: every window of the zero-padded input
  scatter(cols)    its adjoint: windows [N, C, *O, *K] summed back into [N, C, *S]
  conv:            Out[n, m, o] = sum_{c in m's group, k} W[m, c, k] patches(X)[n, c, o, k]
  conv transpose:  the adjoint of conv in its input: Out = scatter(W^T X), so that
                   <conv(x), y> = <x, conv_transpose(y)> for the same Filter and attrs.
                   Filter is [C_in, M / groups, *K]; Out's size per dim is
                   (S - 1) stride - pad_lo - pad_hi + dilation (K - 1) + 1 (output_size may
                   add up to stride - 1, output_padding adds that much).
The gradients reuse the same two functions: conv's dX is scatter(W^T dOut) (a transposed
conv), conv transpose's dX is conv(dOut); both filters' gradients contract X with
patches of the other tensor.
"""
import itertools
import math

from ..geometry import conv_dilations, conv_out_size, explicit_pads
from ..xp import array_module
from ._common import FLOATS, channels_first, channels_last, rand
from .registry import OpDef, Sample, register


def patches(x, ksize, strides, pads, dilations, fill=0):
    """Read-only view [N, C, *O, *K] of the windows of x [N, C, *S] padded by [(lo, hi)]
    with `fill` (pooling pads max with -inf)."""
    xp = array_module(x)
    padded = x if not any(lo or hi for lo, hi in pads) else \
        xp.pad(x, [(0, 0), (0, 0)] + list(pads), constant_values=fill)   # 1x1 convs: no copy
    out = [conv_out_size(s, k, st, 0, 0, d)
           for s, k, st, d in zip(padded.shape[2:], ksize, strides, dilations)]
    st = padded.strides
    return xp.lib.stride_tricks.as_strided(
        padded, padded.shape[:2] + tuple(out) + tuple(ksize),
        st[:2] + tuple(a * b for a, b in zip(st[2:], strides))
        + tuple(a * b for a, b in zip(st[2:], dilations)), writeable=False)


def scatter(cols, spatial, strides, pads, dilations):
    """Adjoint of patches: windows [N, C, *O, *K] added into the padded [N, C, *spatial]."""
    nd = len(spatial)
    return scatter_taps(cols.transpose([0, 1] + list(range(2 + nd, 2 + 2 * nd))
                                       + list(range(2, 2 + nd))),
                        spatial, strides, pads, dilations)


def scatter_taps(cols, spatial, strides, pads, dilations):
    """scatter() of windows laid out taps first, [N, C, *K, *O]: per kernel offset, one
    strided add of that tap's [N, C, *O] plane (each sum in the order of the offsets)."""
    nd = len(spatial)
    ksize = cols.shape[2:2 + nd]
    padded = _zeros_padded(cols, cols.shape[:2], spatial, pads)
    for offset in itertools.product(*(range(k) for k in ksize)):
        _add_tap(padded, offset, cols[(slice(None), slice(None)) + offset], strides, dilations)
    return _cropped(padded, spatial, pads)


def _zeros_padded(like, lead, spatial, pads):
    return array_module(like).zeros(
        tuple(lead) + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads)), like.dtype)


def _add_tap(padded, offset, plane, strides, dilations):
    """Add one kernel offset's [N, C, *O] plane into the padded output at its windows."""
    window = tuple(slice(o * d, o * d + st * (n - 1) + 1, st)
                   for o, d, st, n in zip(offset, dilations, strides, plane.shape[2:]))
    padded[(slice(None), slice(None)) + window] += plane


def _cropped(padded, spatial, pads):
    return padded[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _)
                                                     in zip(spatial, pads))]


def _patches_cropped(x, ksize, strides, pads, dilations, out_spatial):
    """patches(), keeping at most `out_spatial` windows per dim (a transposed conv's
    output_padding can leave a partial window the forward never used)."""
    cols = patches(x, ksize, strides, pads, dilations)
    if out_spatial is None:
        return cols
    return cols[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_spatial)]


def _columns(x, ksize, strides, pads, dilations, groups, out_spatial=None):
    """im2col: the windows of x [N, C, *S] copied as [G, C/G * K, N * P] (K kernel taps, P
    output positions), and the output sizes O."""
    nd = x.ndim - 2
    cols = _patches_cropped(x, ksize, strides, pads, dilations, out_spatial)
    out_sizes = tuple(cols.shape[2:2 + nd])
    order = [1] + list(range(2 + nd, 2 + 2 * nd)) + [0] + list(range(2, 2 + nd))
    return (array_module(x).ascontiguousarray(cols.transpose(order))
            .reshape(groups, -1, x.shape[0] * math.prod(out_sizes)), out_sizes)


def _by_groups(a, groups):
    """[N, C, *S] -> [G, C/G, N * S] (a copy): the images side by side within each group."""
    n, c = a.shape[:2]
    per_group = a.reshape(n, groups, c // groups, -1).transpose(1, 2, 0, 3)
    return array_module(a).ascontiguousarray(per_group).reshape(groups, c // groups, -1)


# The contractions are GEMMs, one per group over all the images (np.matmul over [G, ...]
# stacks of packed operands), not einsum's own loops, whose rounding depends on where the
# operands lie in memory: memory_optimize hands ops reused buffers and must not change a
# result by a bit. One GEMM per group, not per group and image: each BLAS call wakes
# OpenBLAS's threads, which on a loaded machine costs more than the small GEMMs.

def conv(x, w, strides, pads, dilations, groups, out_spatial=None):
    """Out [N, M, *O] = grouped correlation of x [N, C, *S] with w [M, C/groups, *K]."""
    cols, out_sizes = _columns(x, w.shape[2:], strides, pads, dilations, groups, out_spatial)
    xp = array_module(x, w)
    out = xp.matmul(w.reshape(groups, w.shape[0] // groups, -1), cols)   # [G, M/G, N*P]
    out = out.reshape((w.shape[0], x.shape[0], -1)).transpose(1, 0, 2)
    # C order, as the compiled kernel's: a later op's rounding may depend on the layout
    return xp.ascontiguousarray(out).reshape(x.shape[:1] + w.shape[:1] + out_sizes)


def conv_filter_grad(x, dy, ksize, strides, pads, dilations, groups):
    """dW [M, C/groups, *K] of conv, from x and dOut: per group, one GEMM contracting
    images and output positions."""
    cols, _ = _columns(x, ksize, strides, pads, dilations, groups, dy.shape[2:])
    dw = array_module(x, dy).matmul(_by_groups(dy, groups), cols.transpose(0, 2, 1))
    return dw.reshape((dy.shape[1], x.shape[1] // groups) + tuple(ksize))   # [G, mg, cg*K]


# the most bytes of tap planes conv_transpose makes at once: a big kernel over a big input
# (a 12^3 Conv3DTranspose of [5, 3, 12, 32, 32]) would otherwise need them all, gigabytes
# the layouts Paddle's conv kernels take (its StringToDataLayout names)
LAYOUTS = ("NCHW", "NHWC", "NCDHW", "NDHWC", "AnyLayout")
_TAP_CHUNK_BYTES = 64 << 20


def conv_transpose(x, w, out_spatial, strides, pads, dilations, groups):
    """Adjoint of conv in its input: x [N, C, *S], w [C, M/groups, *K] -> [N, M, *out].
    The tap planes W^T X are made a chunk of kernel offsets at a time and added in the
    order of the offsets."""
    n, c = x.shape[:2]
    xp = array_module(x, w)
    ksize = tuple(w.shape[2:])
    m, taps_count = w.shape[1] * groups, math.prod(ksize)
    taps = w.reshape(groups, c // groups, w.shape[1], taps_count)          # [G, cg, mg, K]
    x_groups = _by_groups(x, groups)                                       # [G, cg, N*S]
    plane_bytes = m * x_groups.shape[2] * x.itemsize
    chunk = max(1, min(taps_count, _TAP_CHUNK_BYTES // max(plane_bytes, 1)))
    offsets = list(itertools.product(*(range(k) for k in ksize)))
    padded = _zeros_padded(x, (n, m), out_spatial, pads)
    for start in range(0, taps_count, chunk):
        part = taps[..., start:start + chunk]
        kc = part.shape[-1]
        part = part.transpose(0, 2, 3, 1).reshape(groups, -1, c // groups)  # [G, mg*kc, cg]
        # one input channel per group (depthwise): an outer product, which matmul would run
        # as GEMMs of depth 1 (3x slower)
        cols = part * x_groups if c == groups else xp.matmul(part, x_groups)
        cols = cols.reshape((m, kc, n) + tuple(x.shape[2:]))                # [M, kc, N, *S]
        for j in range(kc):
            _add_tap(padded, offsets[start + j], xp.moveaxis(cols[:, j], 1, 0),
                     strides, dilations)
    return _cropped(padded, out_spatial, pads)


class _ConvND(OpDef):
    inputs = ("Input", "Filter")
    outputs = ("Output",)
    grad_inputs = ("Input", "Filter", "Output@GRAD")
    bilinear = ("Input", "Filter")
    tolerances = {"float32": (1e-4, 1e-4), "float64": (1e-7, 1e-9)}

    def samples(self, rng):
        return _samples(self.nd, self.transposed, rng)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "nd" not in cls.__dict__:   # the abstract _Forward / _Transpose
            return
        nd = cls.nd
        cls.attrs = dict({"strides": [1] * nd, "paddings": [0] * nd,
                          "padding_algorithm": "EXPLICIT", "groups": 1, "dilations": [1] * nd,
                          "data_format": cls.formats[0], "use_cudnn": False},
                         **cls.extra_attrs)

    extra_attrs = {}

    def infer_shape(self, ctx):
        x, f = ctx.input_var("Input"), ctx.input_var("Filter")
        nd = self.nd
        ctx.check_dtype("Input", FLOATS)
        ctx.expect(len(x.shape) == nd + 2, "Input %r must be %d-D, got %s"
                   % (x.name, nd + 2, list(x.shape)))
        ctx.expect(len(f.shape) == nd + 2, "Filter %r must be %d-D, got %s"
                   % (f.name, nd + 2, list(f.shape)))
        fmt = ctx.attr("data_format")
        # Paddle's conv kernels take any layout it names: channels last when it ends in C,
        # else channels first (AnyLayout, the default of its conv ops; depthwise_conv2d's
        # NCDHW, which Paddle 3's op tests pass, measured on 3.3.1)
        ctx.expect(fmt in LAYOUTS, "data_format must be one of %s, got %r"
                   % (list(self.formats), fmt))
        shape = list(x.shape)
        if fmt[-1] == "C":
            shape = [shape[0], shape[-1]] + shape[1:-1]
        groups = ctx.attr("groups") or 1
        in_per_group = self.filter_in_channels(f.shape, groups)
        ctx.expect(shape[1] < 0 or shape[1] == in_per_group * groups,
                   "Filter %r %s expects %d input channels (x groups=%d), Input %r has %d"
                   % (f.name, list(f.shape), in_per_group * groups, groups, x.name, shape[1]))
        if not self.transposed:
            ctx.expect(f.shape[0] % groups == 0, "Filter %r has %d output channels, not "
                       "divisible by groups=%d" % (f.name, f.shape[0], groups))
        ctx.check_positive("strides", "dilations")
        attrs = {k: ctx.attr(k) for k in self.attrs}
        spatial = shape[2:]
        try:
            out_spatial = self.out_spatial(spatial, f.shape[2:], attrs)
        except ValueError as e:
            ctx.fail(str(e))
        known = [o for s, o in zip(spatial, out_spatial) if s >= 0]
        ctx.expect(min(known, default=1) > 0, "Input %r spatial size %s is too small for "
                   "filter %s" % (x.name, spatial, list(f.shape[2:])))
        out = [shape[0], self.out_channels(f.shape, groups)] + list(out_spatial)
        if fmt[-1] == "C":
            out = [out[0]] + out[2:] + [out[1]]
        ctx.set_output("Output", out, x.dtype)

    @staticmethod
    def settled(attrs):
        """attrs with the dilations the convolution runs with (geometry.conv_dilations)."""
        return dict(attrs, dilations=conv_dilations(attrs["padding_algorithm"],
                                                    attrs["dilations"]))

    def _geometry(self, x_cf, f, attrs):
        """(pads, out spatial) for a channels-first input."""
        spatial = x_cf.shape[2:]
        pads = explicit_pads(attrs["paddings"], attrs["padding_algorithm"],
                             spatial, f.shape[2:], attrs["strides"], attrs["dilations"])
        return pads, self.out_spatial(spatial, f.shape[2:], attrs)

    def _backward_setup(self, x, f, dy, attrs):
        """(data_format, groups, x and dy channels-first, pads, strides, dilations)."""
        fmt, groups = attrs["data_format"], attrs["groups"] or 1
        x_cf, dy_cf = channels_first(x, fmt), channels_first(dy, fmt)
        pads, _ = self._geometry(x_cf, f, attrs)
        return fmt, groups, x_cf, dy_cf, pads, attrs["strides"], attrs["dilations"]


class _Forward(_ConvND):
    """conv2d, depthwise_conv2d, conv3d: Filter [M, C/groups, *K]."""
    transposed = False

    @staticmethod
    def filter_in_channels(fshape, groups):
        return fshape[1]

    @staticmethod
    def out_channels(fshape, groups):
        return fshape[0]

    @staticmethod
    def out_spatial(spatial, ksize, attrs):
        """Output size per spatial dim (-1 where the input's is unknown)."""
        attrs = _ConvND.settled(attrs)
        pads = explicit_pads(attrs["paddings"], attrs["padding_algorithm"], spatial, ksize,
                             attrs["strides"], attrs["dilations"])
        return [conv_out_size(s, k, st, lo, hi, d) if s >= 0 else -1 for s, (lo, hi), k, st, d
                in zip(spatial, pads, ksize, attrs["strides"], attrs["dilations"])]

    def forward(self, x, f, **attrs):
        attrs = self.settled(attrs)
        x_cf = channels_first(x, attrs["data_format"])
        pads, _ = self._geometry(x_cf, f, attrs)
        out = conv(x_cf, f, attrs["strides"], pads, attrs["dilations"], attrs["groups"] or 1)
        return channels_last(out.astype(x.dtype), attrs["data_format"])

    def backward(self, x, f, dy, **attrs):
        fmt, groups, x_cf, dy_cf, pads, s, d = self._backward_setup(x, f, dy,
                                                                    self.settled(attrs))
        dx = conv_transpose(dy_cf, f, x_cf.shape[2:], s, pads, d, groups)
        df = conv_filter_grad(x_cf, dy_cf, f.shape[2:], s, pads, d, groups)
        return channels_last(dx.astype(x.dtype), fmt), df.astype(f.dtype)


class _Transpose(_ConvND):
    """Filter [C, M/groups, *K]; output_size (if given) picks the size within
    [base, base + stride - 1]; output_padding adds to base."""
    extra_attrs = {"output_size": [], "output_padding": []}
    transposed = True

    @staticmethod
    def filter_in_channels(fshape, groups):
        return fshape[0] // groups

    @staticmethod
    def out_channels(fshape, groups):
        return fshape[1] * groups

    @staticmethod
    def out_spatial(spatial, ksize, attrs):
        """Output size per spatial dim: -1 where the input's is unknown (each dim's size and
        pads depend on that dim alone), unless output_size gives it."""
        attrs = _ConvND.settled(attrs)
        strides, dil = attrs["strides"], attrs["dilations"]
        known = [s >= 0 for s in spatial]
        # an unknown dim's pads are computed for size 1 and not used
        pads = explicit_pads(attrs["paddings"], attrs["padding_algorithm"],
                             [s if k else 1 for s, k in zip(spatial, known)], ksize, strides,
                             dil)
        base = [(s - 1) * st - lo - hi + d * (k - 1) + 1 for s, (lo, hi), k, st, d
                in zip(spatial, pads, ksize, strides, dil)]
        if attrs.get("output_size"):
            size = list(attrs["output_size"])
            for b, o, st, k in zip(base, size, strides, known):
                if k and not b <= o < b + st:
                    raise ValueError("output_size %s must lie in [%s, %s + strides %s)"
                                     % (size, base, base, list(strides)))
            return size
        extra = list(attrs.get("output_padding") or [0] * len(base))
        for e, st, d in zip(extra, strides, dil):
            if not 0 <= e < max(st, d):
                raise ValueError("output_padding %s must be >= 0 and smaller than the "
                                 "stride or dilation" % extra)
        return [b + e if k else -1 for b, e, k in zip(base, extra, known)]

    def forward(self, x, f, **attrs):
        attrs = self.settled(attrs)
        x_cf = channels_first(x, attrs["data_format"])
        pads, out_spatial = self._geometry(x_cf, f, attrs)
        out = conv_transpose(x_cf, f, out_spatial, attrs["strides"], pads,
                             attrs["dilations"], attrs["groups"] or 1)
        return channels_last(out.astype(x.dtype), attrs["data_format"])

    def backward(self, x, f, dy, **attrs):
        fmt, groups, x_cf, dy_cf, pads, s, d = self._backward_setup(x, f, dy,
                                                                    self.settled(attrs))
        # Filter [C, M/groups, *K] is, read as conv's [out, in/groups, *K], the filter of
        # the conv this op is the adjoint of: dX is that conv of dOut
        dx = conv(dy_cf, f, s, pads, d, groups, x_cf.shape[2:])
        df = conv_filter_grad(dy_cf, x_cf, f.shape[2:], s, pads, d, groups)
        return channels_last(dx.astype(x.dtype), fmt), df.astype(f.dtype)


def _samples(nd, transpose, rng):
    """Grouped/strided/padded/dilated cases, and channels-last, for an nd-dim conv."""
    spatial = [4, 5, 3][:nd]
    k = [2, 3, 2][:nd]
    c, m, groups = 4, 6, 2
    fshape = [c, m // groups] + k if transpose else [m, c // groups] + k
    yield Sample({"Input": rand(rng, 2, c, *spatial), "Filter": rand(rng, *fshape)},
                 {"strides": [2] * nd, "paddings": [1] * nd, "dilations": [1] * nd,
                  "groups": groups}, name="grouped_strided")
    attrs = {"strides": [1] * nd, "paddings": [0, 1] * nd, "dilations": [2] * nd}
    if transpose:
        attrs.update(strides=[2] * nd, output_padding=[1] * nd)
    channels = 3 if transpose else 2   # Filter [3, 2, *K]: [C, M] transposed, [M, C] not
    yield Sample({"Input": rand(rng, 1, channels, *spatial),
                  "Filter": rand(rng, *([3, 2] + k))}, attrs, name="dilated_asym")
    fmt = "NHWC" if transpose else {2: "NHWC", 3: "NDHWC"}[nd]
    yield Sample({"Input": rand(rng, 1, *spatial, channels),
                  "Filter": rand(rng, *([3, 2] + k))},
                 {"data_format": fmt, "padding_algorithm": "SAME", "strides": [2] * nd},
                 name="channels_last_same")


@register
class Conv2D(_Forward):
    type = "conv2d"
    nd = 2
    formats = ("NCHW", "NHWC")

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 6, 5), "Filter": rand(rng, 4, 3, 3, 2)})
        yield Sample({"Input": rand(rng, 1, 4, 7, 7), "Filter": rand(rng, 4, 2, 3, 3)},
                     {"strides": [2, 1], "paddings": [1, 2], "groups": 2, "dilations": [1, 2]})
        yield Sample({"Input": rand(rng, 1, 5, 5, 2), "Filter": rand(rng, 3, 2, 2, 2)},
                     {"data_format": "NHWC", "padding_algorithm": "SAME"})


@register
class DepthwiseConv2D(Conv2D):
    """conv2d with groups == channels (its own type so passes can find it)."""
    type = "depthwise_conv2d"

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 5, 5), "Filter": rand(rng, 3, 1, 3, 3)},
                     {"groups": 3, "paddings": [1, 1]})


@register
class Conv3D(_Forward):
    type = "conv3d"
    nd = 3
    formats = ("NCDHW", "NDHWC")


@register
class Conv2DTranspose(_Transpose):
    type = "conv2d_transpose"
    nd = 2
    formats = ("NCHW", "NHWC")


@register
class DepthwiseConv2DTranspose(Conv2DTranspose):
    """conv2d_transpose with groups == channels, its own type as Paddle 1.8's
    fluid.layers.conv2d_transpose picks it (num_filters == channels == groups, use_cudnn
    False)."""
    type = "depthwise_conv2d_transpose"

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 4, 4), "Filter": rand(rng, 3, 1, 3, 3)},
                     {"groups": 3, "strides": [2, 2], "paddings": [1, 1]})
        yield Sample({"Input": rand(rng, 1, 4, 3, 2), "Filter": rand(rng, 2, 1, 2, 2)},
                     {"groups": 2, "data_format": "NHWC", "padding_algorithm": "SAME"},
                     name="channels_last_same")


@register
class Conv3DTranspose(_Transpose):
    type = "conv3d_transpose"
    nd = 3
    # Paddle's op names the layouts NCHW / NHWC (its default NCHW); the 5-D names are
    # accepted too
    formats = ("NCHW", "NHWC", "NCDHW", "NDHWC")
