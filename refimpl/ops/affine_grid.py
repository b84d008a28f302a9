"""affine_grid and grid_sampler (spatial transformer networks).

affine_grid: Theta [N, 2, 3] and output_shape [N, C, H, W] -> Output [N, H, W, 2], the
affine image Theta [x, y, 1] of every output pixel's normalized coordinates; x runs over
W, y over H, in [-1, 1]: linspace(-1, 1, W) with align_corners, else the pixel centers
(2 i + 1) / W - 1.

grid_sampler: X [N, C, H, W] sampled at Grid [N, Ho, Wo, 2] (normalized (x, y)) ->
Output [N, C, Ho, Wo]. A grid coordinate g maps to the pixel position
(g + 1) / 2 (W - 1) with align_corners, else ((g + 1) W - 1) / 2; padding_mode 'zeros'
reads 0 outside, 'border' clamps the position to the image, 'reflection' folds it back
into the image (see _reflect). mode 'bilinear' mixes the
four neighbours (gradients to X and Grid), 'nearest' takes the rounded position
(gradient to X only).
"""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register

MODES = ("bilinear", "nearest")
PADDING_MODES = ("zeros", "reflection", "border")


def _base_coords(n, align_corners):
    if align_corners:
        return np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
    return (2 * np.arange(n) + 1) / n - 1


def _base_grid(h, w, align_corners):
    """[H, W, 3] homogeneous normalized coordinates (x, y, 1)."""
    ys, xs = np.meshgrid(_base_coords(h, align_corners), _base_coords(w, align_corners),
                         indexing="ij")
    return np.stack([xs, ys, np.ones_like(xs)], axis=-1)


@register
class AffineGrid(OpDef):
    type = "affine_grid"
    inputs = ("Theta", "OutputShape?")
    outputs = ("Output",)
    attrs = {"output_shape": [], "align_corners": True}
    no_grad = ("OutputShape",)
    grad_inputs = ("Theta", "OutputShape?", "Output@GRAD")

    def infer_shape(self, ctx):
        theta = ctx.input_var("Theta")
        ctx.check_dtype("Theta", FLOATS)
        ctx.expect(len(theta.shape) == 3 and tuple(theta.shape[1:]) == (2, 3),
                   "Theta %r must be [N, 2, 3], got %s" % (theta.name, list(theta.shape)))
        shape = ctx.attr("output_shape")
        if ctx.has_input("OutputShape"):
            ctx.set_output("Output", (theta.shape[0], -1, -1, 2), theta.dtype)
            return
        ctx.expect(len(shape) == 4, "output_shape must be [N, C, H, W], got %s" % list(shape))
        ctx.set_output("Output", (theta.shape[0], shape[2], shape[3], 2), theta.dtype)

    @staticmethod
    def _hw(output_shape_tensor, output_shape):
        shape = output_shape if output_shape_tensor is None else \
            [int(v) for v in np.asarray(output_shape_tensor).reshape(-1)]
        return shape[2], shape[3]

    @staticmethod
    def forward(theta, output_shape_tensor, output_shape=(), align_corners=True):
        h, w = AffineGrid._hw(output_shape_tensor, output_shape)
        base = _base_grid(h, w, align_corners)
        return np.einsum("hwk,njk->nhwj", base, theta).astype(theta.dtype)

    @staticmethod
    def backward(theta, output_shape_tensor, dout, output_shape=(), align_corners=True):
        h, w = AffineGrid._hw(output_shape_tensor, output_shape)
        base = _base_grid(h, w, align_corners)
        return np.einsum("hwk,nhwj->njk", base, dout).astype(theta.dtype)

    def samples(self, rng):
        yield Sample({"Theta": rand(rng, 2, 2, 3)}, {"output_shape": [2, 1, 3, 4]},
                     name="aligned")
        yield Sample({"Theta": rand(rng, 1, 2, 3)}, {"output_shape": [1, 3, 4, 2],
                                                     "align_corners": False},
                     name="centers")
        yield Sample({"Theta": rand(rng, 1, 2, 3),
                      "OutputShape": np.array([1, 1, 2, 3], "int32")}, name="shape_tensor")


def _unnormalize(g, size, align_corners):
    """(pixel position, d position / d g)."""
    if align_corners:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _reflect(p, scale, size, align_corners):
    """Positions p reflected into an axis of `size` as Paddle's kernel folds them: about
    the edge pixels' centers (align_corners) or their outer edges (then clamped to the
    image), and the derivative d position / d g (scale, its sign flipped on odd folds, 0
    where the clamp holds)."""
    shift = 0.0 if align_corners else 0.5
    span = 2.0 * ((size - 1) if align_corners else size)
    if span == 0:       # a one-pixel axis with align_corners: every position is 0
        return np.zeros_like(p), np.zeros_like(scale)
    q = p + shift
    extra = np.mod(np.abs(q), span)
    flipped = extra > span - extra
    sign = np.where((q < 0) == flipped, 1.0, -1.0)
    reflected = np.minimum(extra, span - extra) - shift
    clamped = np.clip(reflected, 0, size - 1)
    return clamped, scale * sign * (clamped == reflected)


def _positions(grid, h, w, align_corners, padding_mode):
    """(ix, iy, dix/dgx, diy/dgy) with border clamping (its derivative is 0 outside) or
    reflection."""
    ix, sx = _unnormalize(grid[..., 0], w, align_corners)
    iy, sy = _unnormalize(grid[..., 1], h, align_corners)
    sx, sy = np.full(ix.shape, sx), np.full(iy.shape, sy)
    if padding_mode == "border":
        sx = np.where((ix > 0) & (ix < w - 1), sx, 0)
        sy = np.where((iy > 0) & (iy < h - 1), sy, 0)
        ix, iy = np.clip(ix, 0, w - 1), np.clip(iy, 0, h - 1)
    elif padding_mode == "reflection":
        ix, sx = _reflect(ix, sx, w, align_corners)
        iy, sy = _reflect(iy, sy, h, align_corners)
    return ix, iy, sx, sy


def _corners(ix, iy):
    """The four bilinear neighbours: (xi, yi, weight, d weight / d ix, d weight / d iy)."""
    x0, y0 = np.floor(ix).astype(int), np.floor(iy).astype(int)
    fx, fy = ix - x0, iy - y0
    return [(x0, y0, (1 - fx) * (1 - fy), -(1 - fy), -(1 - fx)),
            (x0 + 1, y0, fx * (1 - fy), 1 - fy, -fx),
            (x0, y0 + 1, (1 - fx) * fy, -fy, 1 - fx),
            (x0 + 1, y0 + 1, fx * fy, fy, fx)]


def _gather(x, xi, yi):
    """x[n, :, yi, xi] -> [N, C, Ho, Wo], 0 where (xi, yi) is outside; and the mask."""
    h, w = x.shape[2:]
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    n_idx = np.arange(x.shape[0])[:, None, None]
    vals = x[n_idx, :, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]   # [N, Ho, Wo, C]
    return np.moveaxis(vals, -1, 1) * inside[:, None], inside


@register
class GridSampler(OpDef):
    type = "grid_sampler"
    inputs = ("X", "Grid")
    outputs = ("Output",)
    attrs = {"align_corners": True, "mode": "bilinear", "padding_mode": "zeros",
             "use_cudnn": False}
    grad_inputs = ("X", "Grid", "Output@GRAD")

    def infer_shape(self, ctx):
        x, grid = ctx.input_var("X"), ctx.input_var("Grid")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 4, "X %r must be [N, C, H, W], got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(len(grid.shape) == 4 and grid.shape[3] == 2,
                   "Grid %r must be [N, Ho, Wo, 2], got %s" % (grid.name, list(grid.shape)))
        ctx.expect(ctx.attr("mode") in MODES,
                   "mode must be 'bilinear' or 'nearest', got %r" % ctx.attr("mode"))
        ctx.expect(ctx.attr("padding_mode") in PADDING_MODES,
                   "padding_mode must be one of %s, got %r"
                   % (list(PADDING_MODES), ctx.attr("padding_mode")))
        ctx.set_output("Output", (x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]),
                       x.dtype)

    @staticmethod
    def forward(x, grid, align_corners=True, mode="bilinear", padding_mode="zeros",
                use_cudnn=False):
        ix, iy, _, _ = _positions(grid, *x.shape[2:], align_corners, padding_mode)
        if mode == "nearest":
            return _gather(x, np.rint(ix).astype(int), np.rint(iy).astype(int))[0]
        out = 0
        for xi, yi, wgt, _, _ in _corners(ix, iy):
            out = out + _gather(x, xi, yi)[0] * wgt[:, None]
        return out.astype(x.dtype)

    @staticmethod
    def backward(x, grid, dout, align_corners=True, mode="bilinear", padding_mode="zeros",
                 use_cudnn=False):
        n, c, h, w = x.shape
        ix, iy, sx, sy = _positions(grid, h, w, align_corners, padding_mode)
        dx = np.zeros_like(x)
        n_idx = np.broadcast_to(np.arange(n)[:, None, None], ix.shape)

        def scatter(xi, yi, wgt):
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            contrib = np.moveaxis(dout * wgt[:, None], 1, -1)[inside]   # [K, C]
            np.add.at(dx, (n_idx[inside], slice(None), yi[inside], xi[inside]), contrib)
        if mode == "nearest":
            scatter(np.rint(ix).astype(int), np.rint(iy).astype(int), np.ones_like(ix))
            return dx, np.zeros_like(grid)
        dgrid = np.zeros_like(grid)
        for xi, yi, wgt, dwx, dwy in _corners(ix, iy):
            scatter(xi, yi, wgt)
            vals = (_gather(x, xi, yi)[0] * dout).sum(1)   # [N, Ho, Wo]
            dgrid[..., 0] += vals * dwx * sx
            dgrid[..., 1] += vals * dwy * sy
        return dx, dgrid

    def samples(self, rng):
        x = rand(rng, 2, 2, 3, 4)
        grid = rand(rng, 2, 3, 2, 2, low=-1.2, high=1.2)
        yield Sample({"X": x, "Grid": grid}, name="bilinear_zeros")
        yield Sample({"X": x, "Grid": grid}, {"align_corners": False,
                                              "padding_mode": "border"}, name="border")
        yield Sample({"X": x, "Grid": rand(rng, 2, 3, 2, 2, low=-0.9, high=0.9)},
                     {"mode": "nearest"}, grad=False, name="nearest")
        for align_corners in (True, False):
            yield Sample({"X": x, "Grid": rand(rng, 2, 3, 2, 2, low=-2.6, high=2.6)},
                         {"align_corners": align_corners, "padding_mode": "reflection"},
                         name="reflection_ac%d" % align_corners)
