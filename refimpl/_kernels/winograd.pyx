# cython: language_level=3
"""conv2d's 3x3, stride-1, undilated, ungrouped case by Winograd's minimal filtering
F(2x2, 3x3): each 2x2 output tile is A^T [(G g G^T) * (B^T d B)] A for the 4x4 input tile
d under it, so the sum over channels becomes 16 GEMMs [M, C] x [C, tiles] (one per point of
the 4x4 transformed tile): 16 multiply-adds per output tile and channel pair instead of 36.
The transforms' coefficients are 0, +-1 and +-1/2, so the result differs from the direct
sum only in rounding (conv2d's tolerances). Used for the forward and, with the filter
flipped and transposed, for the input gradient of a stride-1 3x3 convolution (issue 21:
ResNet-18's 3x3 convolutions were 80 % of its step). The images are split over the
kernels' team like im2col's (refimpl._kernels.blas); each part works a chunk of images at a
time so that its transformed tiles stay in cache through the GEMMs."""
import numpy as np

from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, sgemm, dgemm, gemm_team, release_team, cut

ctypedef fused real:
    float
    double


cdef struct Plan:
    int n, c, m, h, w, pt, pl, ho, wo, th, tw, per_part, step
    Py_ssize_t tiles   # tiles per image: th * tw


cdef void _input_tiles(const real* x, const Plan* p, real* v, Py_ssize_t stride,
                       real* pad, real* t) noexcept nogil:
    """v[k * stride + ty * tw + tx] = (B^T d B)[k] (k = 4 * row + column) of every 4x4 patch d
    of one channel plane `x` (tile (ty, tx) at rows 2 ty - pt.., columns 2 tx - pl..), zero
    outside the plane. The plane is copied into `pad` with its zero border first, so the
    loops have no bounds checks: B^T along the columns over whole rows (t, 4 rows), then B
    across each row's tiles (stride-2 reads), both vectorizable."""
    cdef Py_ssize_t wp = 2 * p.tw + 2, hp = 2 * p.th + 2, r, q, iy, ty, tx, i
    cdef const real* r0
    cdef real* ti
    for r in range(hp):
        iy = r - p.pt
        for q in range(wp):
            pad[r * wp + q] = 0
        if 0 <= iy < p.h:
            for q in range(max(0, p.pl), min(wp, p.w + p.pl)):
                pad[r * wp + q] = x[iy * p.w + q - p.pl]
    for ty in range(p.th):
        r0 = pad + 2 * ty * wp
        for q in range(wp):   # B^T d over whole rows
            t[q] = r0[q] - r0[2 * wp + q]
            t[wp + q] = r0[wp + q] + r0[2 * wp + q]
            t[2 * wp + q] = r0[2 * wp + q] - r0[wp + q]
            t[3 * wp + q] = r0[wp + q] - r0[3 * wp + q]
        for i in range(4):    # (B^T d) B per tile
            ti = t + i * wp
            for tx in range(p.tw):
                v[(4 * i) * stride + ty * p.tw + tx] = ti[2 * tx] - ti[2 * tx + 2]
            for tx in range(p.tw):
                v[(4 * i + 1) * stride + ty * p.tw + tx] = ti[2 * tx + 1] + ti[2 * tx + 2]
            for tx in range(p.tw):
                v[(4 * i + 2) * stride + ty * p.tw + tx] = ti[2 * tx + 2] - ti[2 * tx + 1]
            for tx in range(p.tw):
                v[(4 * i + 3) * stride + ty * p.tw + tx] = ti[2 * tx + 1] - ti[2 * tx + 3]


cdef void _output_tiles(const real* mt, Py_ssize_t stride, const Plan* p, real* out,
                        real* t) noexcept nogil:
    """One output plane from its tiles' 16 products m[k] = mt[k * stride + ty * tw + tx]:
    A^T m A per tile, two rows of tiles' outputs at a time through `t` (rows and columns
    past the plane's edge dropped)."""
    cdef Py_ssize_t ty, tx, j, q, wt = 2 * p.tw
    cdef const real* m
    cdef real s0[4]
    cdef real s1[4]
    for ty in range(p.th):
        m = mt + ty * p.tw
        for tx in range(p.tw):
            for j in range(4):   # A^T m
                s0[j] = m[j * stride + tx] + m[(4 + j) * stride + tx] + m[(8 + j) * stride + tx]
                s1[j] = (m[(4 + j) * stride + tx] - m[(8 + j) * stride + tx]
                         - m[(12 + j) * stride + tx])
            t[2 * tx] = s0[0] + s0[1] + s0[2]
            t[2 * tx + 1] = s0[1] - s0[2] - s0[3]
            t[wt + 2 * tx] = s1[0] + s1[1] + s1[2]
            t[wt + 2 * tx + 1] = s1[1] - s1[2] - s1[3]
        for q in range(p.wo):
            out[2 * ty * p.wo + q] = t[q]
        if 2 * ty + 1 < p.ho:
            for q in range(p.wo):
                out[(2 * ty + 1) * p.wo + q] = t[wt + q]


cdef void _filters(const real* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t mc,
                   real* u) noexcept nogil:
    """u[k * mc + i] = (G g G^T)[k] for the 3x3 filters g = f[9 i : 9 i + 9], i in [lo, hi)."""
    cdef Py_ssize_t i, a, j
    cdef real gg[4][3]
    cdef const real* g
    for i in range(lo, hi):
        g = f + 9 * i
        for j in range(3):   # G g
            gg[0][j] = g[j]
            gg[1][j] = (g[j] + g[3 + j] + g[6 + j]) * <real>0.5
            gg[2][j] = (g[j] - g[3 + j] + g[6 + j]) * <real>0.5
            gg[3][j] = g[6 + j]
        for a in range(4):   # (G g) G^T
            u[(4 * a) * mc + i] = gg[a][0]
            u[(4 * a + 1) * mc + i] = (gg[a][0] + gg[a][1] + gg[a][2]) * <real>0.5
            u[(4 * a + 2) * mc + i] = (gg[a][0] - gg[a][1] + gg[a][2]) * <real>0.5
            u[(4 * a + 3) * mc + i] = gg[a][2]


cdef void _part(const Plan* p, int part, const real* x, const real* u, real* out, real* v,
                real* mt, real* scratch) noexcept nogil:
    """Images [part * per_part, ...) a chunk of `step` at a time: the input tiles
    transformed into v [16, C, tiles], 16 GEMMs into mt [16, M, tiles], the output tiles."""
    cdef int s, nb, k, c, o, n, stop = min((part + 1) * p.per_part, p.n)
    cdef Py_ssize_t cols, plane_in = <Py_ssize_t>p.h * p.w
    cdef Py_ssize_t plane_out = <Py_ssize_t>p.ho * p.wo
    cdef real* t = scratch + (2 * p.th + 2) * (2 * p.tw + 2)
    s = part * p.per_part
    while s < stop:
        nb = min(p.step, stop - s)
        cols = nb * p.tiles
        for c in range(p.c):
            for n in range(nb):
                _input_tiles(x + ((s + n) * p.c + c) * plane_in, p,
                             v + c * cols + n * p.tiles, p.c * cols, scratch, t)
        for k in range(16):
            if real is float:
                sgemm(False, False, p.m, cols, p.c, 1, u + k * p.m * p.c, p.c,
                      v + k * p.c * cols, cols, 0, mt + k * p.m * cols, cols)
            else:
                dgemm(False, False, p.m, cols, p.c, 1, u + k * p.m * p.c, p.c,
                      v + k * p.c * cols, cols, 0, mt + k * p.m * cols, cols)
        for o in range(p.m):
            for n in range(nb):
                _output_tiles(mt + o * cols + n * p.tiles, p.m * cols, p,
                              out + ((s + n) * p.m + o) * plane_out, scratch)
        s += nb


# Tiles per chunk: the GEMMs' columns. Fewer leave the GEMMs short (ResNet-18's 4x4 layer:
# 1 image's 4 tiles per chunk ran 2x slower than 16 images'); more only grow the buffers
# out of the caches (its 32x32 layer: 256 tiles 36 ms, 512 tiles 39 ms).
_CHUNK_TILES = 256


# Output tiles per image below which im2col keeps the convolution: ResNet-18's 4x4 layer (4
# tiles) ran no faster by Winograd (its 16 GEMMs short, its transformed 512x512 filters 16 MB
# against the filters' 9), and its buffers raised the step's peak memory by 16 MB.
_MIN_TILES = 16


def applies(x_shape, f_shape, strides, dilations, groups, pads):
    """Whether conv3x3 takes this convolution: 3x3 filter, stride 1, no dilation, one group,
    padding at most 2 a side (the input gradient's flipped padding 2 - p stays >= 0), and
    enough channels both ways and tiles per image for the 16 GEMMs to be worth their
    transforms."""
    ho, wo = x_shape[2] + pads[0] + pads[1] - 2, x_shape[3] + pads[2] + pads[3] - 2
    return (tuple(f_shape[2:]) == (3, 3) and tuple(strides) == (1, 1)
            and tuple(dilations) == (1, 1) and groups == 1 and max(pads) <= 2
            and x_shape[1] >= 16 and f_shape[0] >= 16 and ho >= 1 and wo >= 1
            and ((ho + 1) // 2) * ((wo + 1) // 2) >= _MIN_TILES)


def conv3x3(x, f, pads):
    """The cross-correlation of NCHW `x` with [M, C, 3, 3] `f`, padded by
    pads = (top, bottom, left, right) zeros: conv2d's forward for applies()."""
    x = np.ascontiguousarray(x)
    g = np.ascontiguousarray(f, dtype=x.dtype)
    cdef Plan p
    p.n, p.c, p.h, p.w, p.m = x.shape[0], x.shape[1], x.shape[2], x.shape[3], g.shape[0]
    p.pt, p.pl = pads[0], pads[2]
    p.ho, p.wo = p.h + pads[0] + pads[1] - 2, p.w + pads[2] + pads[3] - 2
    p.th, p.tw = (p.ho + 1) // 2, (p.wo + 1) // 2
    p.tiles = p.th * p.tw
    cdef Team team = gemm_team(<double>p.n * p.tiles * 16 * p.m * p.c, p.n)
    p.per_part = (p.n + team.parts - 1) // team.parts
    p.step = max(1, min(p.per_part, -(-_CHUNK_TILES // p.tiles)))
    try:
        if x.dtype == np.float32:
            return _run[float](x, g, p, team)
        return _run[double](x, g, p, team)
    finally:
        release_team()


cdef _run(real[:, :, :, ::1] x, real[:, :, :, ::1] g, Plan p, Team team):
    dtype = np.float32 if real is float else np.float64
    out = np.empty((p.n, p.m, p.ho, p.wo), dtype)
    u = np.empty((16, p.m, p.c), dtype)   # the transformed filters: the GEMMs' left operands
    v = np.empty((team.parts, 16 * p.c * p.step * p.tiles), dtype)
    mt = np.empty((team.parts, 16 * p.m * p.step * p.tiles), dtype)
    scratch = np.empty((team.parts, (2 * p.th + 6) * (2 * p.tw + 2)), dtype)
    cdef real[:, :, :, ::1] out_v = out
    cdef real[:, :, ::1] u_v = u
    cdef real[:, ::1] v_v = v, mt_v = mt, scratch_v = scratch
    cdef Py_ssize_t mc = <Py_ssize_t>p.m * p.c
    cdef int part
    if p.n == 0:
        return out
    for part in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _filters(&g[0, 0, 0, 0], cut(mc, part, team.parts), cut(mc, part + 1, team.parts), mc,
                 &u_v[0, 0, 0])
    for part in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _part(&p, part, &x[0, 0, 0, 0], &u_v[0, 0, 0], &out_v[0, 0, 0, 0], &v_v[part, 0],
              &mt_v[part, 0], &scratch_v[part, 0])
    return out
