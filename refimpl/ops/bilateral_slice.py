"""bilateral_slice (HDRNet's slicing; Paddle 2.0 has a CUDA kernel only): each pixel of X
[N, Ci, H, W] reads affine coefficients from the bilateral Grid [N, Cg, gd, gh, gw] at
(x, y, Guide[n, y, x]) by trilinear interpolation, then Out[n, o] = sum_k A[o, k] X[n, k]
(+ A[o, Ci], the offset, with has_offset); Cg = Co * (Ci + has_offset).

Grid coordinates: gx = (x + 0.5) gw / W, gy = (y + 0.5) gh / H, gz = Guide gd; the two
cells around each (floor(g - 0.5) and the next, clamped to the grid) weigh
max(1 - |cell + 0.5 - g|, 0), in z with |d| taken as sqrt(d^2 + 1e-8). Gradients as Paddle's
CUDA kernels compute them: X's and Guide's those of the formula (Guide's through the z
weight, 0 where |d| > 1), Grid's its own: each cell gathers the pixels within one cell of
it (mirrored at the image border), weighing them as above, with a z weight of 1 for a pixel
beyond the first or last z cell."""
import math

import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

_EPS = 1e-8


def _axis(size, cells):
    """Per pixel of an axis: the two cell indices (clamped) and their weights."""
    g = (np.arange(size) + 0.5) * cells / size
    low = np.floor(g - 0.5).astype(np.int64)
    return [(np.clip(c, 0, cells - 1), np.maximum(1 - np.abs(c + 0.5 - g), 0))
            for c in (low, low + 1)]


def _z_weight(d):
    return np.maximum(1 - np.sqrt(d * d + _EPS), 0)


def _z_slope(d):
    a = np.sqrt(d * d + _EPS)
    return np.where(a > 1, 0, d / a)


def _coefficients(grid, guide, z_rule):
    """[N, H, W, Cg]: the grid interpolated at each pixel, z weighted by z_rule(d)."""
    n, _, gd, gh, gw = grid.shape
    h, w = guide.shape[1:]
    cells = np.moveaxis(grid, 1, -1)            # [N, gd, gh, gw, Cg]
    gz = guide * gd
    low_z = np.floor(gz - 0.5).astype(np.int64)
    batch = np.arange(n)[:, None, None]
    out = np.zeros((n, h, w, grid.shape[1]), grid.dtype)
    for y_idx, wy in _axis(h, gh):
        for x_idx, wx in _axis(w, gw):
            for z in (low_z, low_z + 1):
                weight = wy[:, None] * wx[None, :] * z_rule(z + 0.5 - gz)
                picked = cells[batch, np.clip(z, 0, gd - 1), y_idx[None, :, None],
                               x_idx[None, None, :]]
                out += picked * weight[..., None]
    return out


def _apply(coeffs, x, has_offset):
    """Out [N, Co, H, W] from per-pixel coefficients [N, H, W, Co * stride]."""
    n, ci, h, w = x.shape
    a = coeffs.reshape(n, h, w, -1, ci + has_offset)
    out = np.einsum("nhwok,nkhw->nohw", a[..., :ci], x)
    return out + np.moveaxis(a[..., ci], -1, 1) if has_offset else out


def _mirror(i, size):
    return np.where(i < 0, -i - 1, np.where(i >= size, 2 * size - 1 - i, i))


@register
class BilateralSlice(OpDef):
    type = "bilateral_slice"
    inputs = ("X", "Grid", "Guide")
    outputs = ("Out",)
    attrs = {"has_offset": False}
    grad_inputs = ("X", "Grid", "Guide", "Out@GRAD")

    def infer_shape(self, ctx):
        x, grid, guide = (ctx.input_var(s) for s in ("X", "Grid", "Guide"))
        ctx.expect(len(x.shape) == 4 and len(grid.shape) == 5 and len(guide.shape) == 3,
                   "X %r must be [N, C, H, W], Grid %r [N, C, gd, gh, gw] and Guide %r "
                   "[N, H, W], got %s, %s and %s" % (x.name, grid.name, guide.name,
                                                     list(x.shape), list(grid.shape),
                                                     list(guide.shape)))
        stride = x.shape[1] + int(ctx.attr("has_offset"))
        coeffs = grid.shape[1]
        out_chans = -1
        if coeffs >= 0 and x.shape[1] >= 0:
            ctx.expect(coeffs % stride == 0, "Grid %r's %d channels are not a multiple of "
                       "X's channels%s (%d)" % (grid.name, coeffs,
                                                " + 1" if ctx.attr("has_offset") else "",
                                                stride))
            out_chans = coeffs // stride
        ctx.set_output("Out", (grid.shape[0], out_chans) + tuple(guide.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, grid, guide, has_offset=False):
        coeffs = _coefficients(grid, guide, _z_weight)
        return _apply(coeffs, x, int(has_offset)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(x, grid, guide, dout, has_offset=False):
        n, ci, h, w = x.shape
        stride = ci + int(has_offset)
        a = _coefficients(grid, guide, _z_weight).reshape(n, h, w, -1, stride)
        dx = np.einsum("nohw,nhwok->nkhw", dout, a[..., :ci])
        slope = _coefficients(grid, guide, _z_slope) * grid.shape[2]
        dguide = np.einsum("nohw,nohw->nhw", dout,
                           _apply(slope, x, int(has_offset)))
        return dx.astype(x.dtype), _grid_grad(x, grid, guide, dout, stride), \
            dguide.astype(guide.dtype)

    def samples(self, rng):
        for has_offset in (False, True):
            ci, co = 2, 2
            yield Sample({"X": rand(rng, 2, ci, 5, 4),
                          "Grid": rand(rng, 2, co * (ci + has_offset), 3, 2, 3),
                          "Guide": rng.uniform(0.05, 0.95, (2, 5, 4))},
                         {"has_offset": has_offset})


def _grid_grad(x, grid, guide, dout, stride):
    """Paddle's Grid gradient: cell (z, gy, gx) of channel (o, k) gathers dOut[o] X[k] (1 for
    the offset k) of the pixels within one cell of it, mirrored at the border."""
    n, ci, h, w = x.shape
    _, cg, gd, gh, gw = grid.shape
    scale_w, scale_h = w / gw, h / gh
    ones = np.ones((n, 1, h, w), x.dtype)
    # per grid channel c = o * stride + k: dOut[o] * (X[k] or 1)
    upstream = np.concatenate([dout[:, :, None] * x[:, None], dout[:, :, None] * ones[:, None]],
                              axis=2)[:, :, :stride].reshape(n, cg, h, w)
    z = np.arange(gd)
    ggrad = np.zeros(grid.shape, np.float64)
    for cy in range(gh):
        ys = np.arange(math.floor(scale_h * (cy - 0.5)), math.ceil(scale_h * (cy + 1.5)))
        wy = np.maximum(1 - np.abs(cy + 0.5 - (ys + 0.5) / scale_h), 0)
        for cx in range(gw):
            xs = np.arange(math.floor(scale_w * (cx - 0.5)), math.ceil(scale_w * (cx + 1.5)))
            wx = np.maximum(1 - np.abs(cx + 0.5 - (xs + 0.5) / scale_w), 0)
            my, mx = _mirror(ys, h)[:, None], _mirror(xs, w)[None, :]
            gz = guide[:, my, mx] * gd                                   # [N, Y, X]
            wz = _z_weight(z[None, :, None, None] + 0.5 - gz[:, None])   # [N, gd, Y, X]
            wz[:, 0][gz < 0.5] = 1
            wz[:, gd - 1][gz > gd - 0.5] = 1
            picked = upstream[:, :, my, mx] * (wy[:, None] * wx[None, :])  # [N, Cg, Y, X]
            ggrad[:, :, :, cy, cx] = np.einsum("ncyx,nzyx->ncz", picked, wz)
    return ggrad.astype(grid.dtype)
