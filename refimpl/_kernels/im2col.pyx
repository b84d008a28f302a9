# cython: language_level=3
"""conv2d forward/backward: im2col / col2im in C loops and BLAS GEMMs, the whole op split
over the kernels' thread team by images (refimpl._kernels.blas: one team for the loops and
the GEMMs, BLAS one thread per call); depthwise convolutions by direct stencils per
channel plane instead. Drop-ins for refimpl.ops.conv2d (NCHW; NHWC is transposed in and
out)."""
import numpy as np

from cython.parallel cimport prange
from refimpl._kernels.blas cimport (Team, sgemm, dgemm, gemm_team, loop_team,
                                    release_team)
from refimpl.geometry import conv_dilations, explicit_pads, flat_pads
from refimpl._kernels.blas import require_gemm
from refimpl._kernels import winograd

require_gemm()

ctypedef fused real:
    float
    double


cdef struct Geometry:
    int c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo


cdef inline void _gemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                       const real* a, Py_ssize_t lda, const real* b, Py_ssize_t ldb,
                       real beta, real* c, Py_ssize_t ldc) noexcept nogil:
    """c = op(a) @ op(b) + beta * c (row-major)."""
    if real is float:
        sgemm(trans_a, trans_b, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
    else:
        dgemm(trans_a, trans_b, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)


cdef inline void _valid_span(int off, int wo, int w, int sw, int* lo,
                             int* hi) noexcept nogil:
    """[lo, hi): the output columns ox whose input column ox*sw + off is inside [0, w)."""
    lo[0] = 0 if off >= 0 else min((-off + sw - 1) // sw, wo)
    hi[0] = max(min((w - off + sw - 1) // sw, wo), lo[0])


cdef inline bint _unpadded_unit_stride(const Geometry* g) noexcept nogil:
    """No window reaches into the padding (none on any side), and columns step by 1."""
    return (g.ph == 0 and g.pw == 0 and g.sw == 1
            and (g.ho - 1) * g.sh + (g.kh - 1) * g.dh < g.h
            and g.wo - 1 + (g.kw - 1) * g.dw < g.w)


cdef inline void _move_row(real* col, real* img, int n, int stride,
                           bint to_image) noexcept nogil:
    """col[k] = img[k*stride] for k < n, or, to_image, img[k*stride] += col[k]."""
    cdef int k
    if to_image:
        if stride == 1:
            for k in range(n):
                img[k] += col[k]
        else:
            for k in range(n):
                img[k * stride] += col[k]
    elif stride == 1:
        for k in range(n):
            col[k] = img[k]
    else:
        for k in range(n):
            col[k] = img[k * stride]


cdef inline void _windows(real* col, Py_ssize_t ld, real* x, int n_img, const Geometry* g,
                          bint to_image) noexcept nogil:
    """Between col (rows `ld` apart) and the images x: col[(c*kh + i)*kw + j, (n*ho + oy)*wo
    + ox] is x[n, c, oy*sh - ph + i*dh, ox*sw - pw + j*dw]. im2col copies it into col (0 in
    the padding); to_image, col2im adds it to x (what fell on padding is dropped). The
    in-bounds span of each output row is found once per (i, j), so the row loops have no
    bounds checks and, for stride 1, vectorize; each caller passes a constant to_image, so
    the branches on it fold away."""
    cdef int row, c, i, j, n, oy, ox, iy, lo, hi, off
    cdef int kk = g.kh * g.kw, ho = g.ho, wo = g.wo, h = g.h, w = g.w, sw = g.sw
    cdef Py_ssize_t image = <Py_ssize_t>g.c * h * w, step = <Py_ssize_t>g.sh * w
    cdef real* col_row
    cdef real* img_row
    if _unpadded_unit_stride(g):
        # every window inside the input: whole output rows move without span arithmetic
        for row in range(g.c * kk):
            c, i, j = row // kk, (row // g.kw) % g.kh, row % g.kw
            col_row = col + row * ld
            for n in range(n_img):
                img_row = x + n * image + (c * h + i * g.dh) * w + j * g.dw
                for oy in range(ho):
                    _move_row(col_row, img_row, wo, 1, to_image)
                    col_row += wo
                    img_row += step
        return
    for row in range(g.c * kk):
        c, i, j = row // kk, (row // g.kw) % g.kh, row % g.kw
        off = j * g.dw - g.pw
        _valid_span(off, wo, w, sw, &lo, &hi)
        for n in range(n_img):
            for oy in range(ho):
                iy = oy * g.sh - g.ph + i * g.dh
                col_row = col + row * ld + (n * ho + oy) * wo
                if iy < 0 or iy >= h:
                    if not to_image:
                        for ox in range(wo):
                            col_row[ox] = 0
                    continue
                if not to_image:
                    for ox in range(lo):
                        col_row[ox] = 0
                    for ox in range(hi, wo):
                        col_row[ox] = 0
                img_row = x + n * image + (c * h + iy) * w + lo * sw + off   # first in bounds
                _move_row(col_row + lo, img_row, hi - lo, sw, to_image)


cdef void _im2col(const real* x, int n_img, const Geometry* g, real* col,
                  Py_ssize_t ld) noexcept nogil:
    """col = the windows of x (_windows), x untouched."""
    _windows(col, ld, <real*>x, n_img, g, False)


cdef void _col2im(const real* col, Py_ssize_t ld, int n_img, const Geometry* g,
                  real* dx) noexcept nogil:
    """dx += the adjoint of _im2col (what fell on padding is dropped); col untouched."""
    _windows(<real*>col, ld, dx, n_img, g, True)


cdef void _to_images(const real* src, int n_img, int m, Py_ssize_t plane,
                     real* out) noexcept nogil:
    """out[n, m, :] = src[m, n*plane:(n+1)*plane]: a GEMM's [M, images*plane] result laid
    out as NCHW images (and, swapping the roles, back)."""
    cdef int n, o
    cdef Py_ssize_t p
    for n in range(n_img):
        for o in range(m):
            for p in range(plane):
                out[(n * m + o) * plane + p] = src[(o * n_img + n) * plane + p]


cdef void _from_images(const real* images, int n_img, int m, Py_ssize_t plane,
                       real* dst) noexcept nogil:
    """dst[m, n*plane:(n+1)*plane] = images[n, m, :] (the inverse of _to_images)."""
    cdef int n, o
    cdef Py_ssize_t p
    for n in range(n_img):
        for o in range(m):
            for p in range(plane):
                dst[(o * n_img + n) * plane + p] = images[(n * m + o) * plane + p]


cdef struct Conv:
    # one conv2d call: geometry, groups, the images per column slice and per part
    Geometry g
    int n, m, groups, mg, kg, step, per_part
    Py_ssize_t plane
    bint whole   # the column matrix is built whole (and handed to the backward)


cdef void _forward_part(const Conv* cv, int part, const real* x, const real* f, real* out,
                        real* col, Py_ssize_t col_ld, real* col_part, real* tmp) noexcept nogil:
    """Images [part * per_part, ...) of the forward: per slice of `step` images, im2col
    (into the whole matrix `col` when it is kept for the backward, else into this part's
    `col_part`), one GEMM per group into `tmp`, then out's NCHW images. A slice of one
    image is already [M, plane], out's layout: its GEMMs write out directly."""
    cdef int s, nb, grp, stop = min((part + 1) * cv.per_part, cv.n)
    cdef Py_ssize_t ld, cols, image = <Py_ssize_t>cv.g.c * cv.g.h * cv.g.w
    cdef real* slice_col
    cdef real* dst
    s = part * cv.per_part
    while s < stop:
        nb = min(cv.step, stop - s)
        cols = nb * cv.plane
        if col != NULL:
            slice_col, ld = col + s * cv.plane, col_ld
        else:
            slice_col, ld = col_part, cols
        _im2col(x + s * image, nb, &cv.g, slice_col, ld)
        dst = out + s * cv.m * cv.plane if nb == 1 else tmp
        for grp in range(cv.groups):
            _gemm(False, False, cv.mg, cols, cv.kg, f + grp * cv.mg * cv.kg, cv.kg,
                  slice_col + grp * cv.kg * ld, ld, 0, dst + grp * cv.mg * cols, cols)
        if nb > 1:
            _to_images(tmp, nb, cv.m, cv.plane, out + s * cv.m * cv.plane)
        s += nb


cdef void _backward_part(const Conv* cv, int part, const real* x, const real* f,
                         const real* dy, real* dx, real* df_part, const real* col,
                         Py_ssize_t col_ld, real* col_part, real* dy_part,
                         real* dcol_part) noexcept nogil:
    """Images [part * per_part, ...) of the backward: per slice, the columns (the forward's
    when handed over, else im2col again), dy gathered as [M, images*plane], this part's
    filter gradient accumulated in `df_part`, and dx's images by col2im (parts write
    disjoint images). A slice of one image reads dy's image as it is."""
    cdef int s, nb, grp, stop = min((part + 1) * cv.per_part, cv.n)
    cdef Py_ssize_t ld, cols, image = <Py_ssize_t>cv.g.c * cv.g.h * cv.g.w
    cdef const real* slice_col
    cdef const real* dy_slice
    s = part * cv.per_part
    while s < stop:
        nb = min(cv.step, stop - s)
        cols = nb * cv.plane
        if col != NULL:
            slice_col, ld = col + s * cv.plane, col_ld
        else:
            _im2col(x + s * image, nb, &cv.g, col_part, cols)
            slice_col, ld = col_part, cols
        if nb == 1:
            dy_slice = dy + s * cv.m * cv.plane
        else:
            _from_images(dy + s * cv.m * cv.plane, nb, cv.m, cv.plane, dy_part)
            dy_slice = dy_part
        for grp in range(cv.groups):
            _gemm(False, True, cv.mg, cv.kg, cols, dy_slice + grp * cv.mg * cols, cols,
                  slice_col + grp * cv.kg * ld, ld, 1, df_part + grp * cv.mg * cv.kg, cv.kg)
        if dx != NULL:
            for grp in range(cv.groups):
                _gemm(True, False, cv.kg, cols, cv.mg, f + grp * cv.mg * cv.kg, cv.kg,
                      dy_slice + grp * cv.mg * cols, cols, 0, dcol_part + grp * cv.kg * cols,
                      cols)
            _col2im(dcol_part, cols, nb, &cv.g, dx + s * image)
        s += nb


# Column matrices above twice this size are built a slice of images at a time, so that each
# slice stays in a core's L2 from im2col through its GEMMs and col2im; smaller ones are built
# whole and handed to the backward (SavedForGrad). LeNet's conv2 at 64 images (3.8 MB of
# columns) was built whole and saved under the earlier 2 MB slices: sliced at 512 KB its
# forward + backward took 3.3 against 3.9 ms, the eager LeNet step 5.7 against 6.1 (a 1 MB
# L2 a core, one thread). A slice holds at least _MIN_CHUNK_COLUMNS output pixels, since
# slicing needs wide GEMMs to stay efficient (ResNet-18's 4x4 layer would get one image,
# 16 columns, a slice), and only deep column matrices are sliced (conv1's 25 column rows
# measured slower sliced).
_CHUNK_BYTES = 512 << 10
_MIN_CHUNK_COLUMNS = 128
_MIN_CHUNKED_ROWS = 64


def _images_per_chunk(n, rows, ho, wo, itemsize):
    """Images per column slice: all n (one matrix, which the forward saves), unless the
    whole matrix exceeds 2 * _CHUNK_BYTES and has at least _MIN_CHUNKED_ROWS rows."""
    per_image = rows * ho * wo * itemsize
    if rows < _MIN_CHUNKED_ROWS or n * per_image <= 2 * _CHUNK_BYTES:
        return max(n, 1)
    return max(1, _CHUNK_BYTES // per_image, -(-_MIN_CHUNK_COLUMNS // (ho * wo)))


def _geometry(x, f, strides, paddings, padding_algorithm, dilations, data_format):
    """(NCHW contiguous input, contiguous filter, dilations, pads (top, bottom, left,
    right))."""
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    x, f = np.ascontiguousarray(x), np.ascontiguousarray(f)
    dilations = conv_dilations(padding_algorithm, dilations)
    pads = flat_pads(explicit_pads(paddings, padding_algorithm, x.shape[2:], f.shape[2:],
                                   strides, dilations))
    return x, f, dilations, pads


cdef Geometry _plane_geometry(x, f, strides, pads, dilations):
    """The Geometry of NCHW `x` and filter `f` from _geometry."""
    cdef Geometry g
    g.c, g.h, g.w = x.shape[1], x.shape[2], x.shape[3]
    g.kh, g.kw = f.shape[2], f.shape[3]
    g.sh, g.sw, g.dh, g.dw = strides[0], strides[1], dilations[0], dilations[1]
    g.ph, g.pw = pads[0], pads[2]
    g.ho = (g.h + pads[0] + pads[1] - (g.dh * (g.kh - 1) + 1)) // g.sh + 1
    g.wo = (g.w + pads[2] + pads[3] - (g.dw * (g.kw - 1) + 1)) // g.sw + 1
    return g


cdef _setup(x, f, strides, pads, groups, dilations, Team* team):
    """(the Conv of NCHW `x` and filter `f` from _geometry) shared by forward and backward,
    and the team taken, the images split into its parts (release_team() when done)."""
    groups = groups or 1
    cdef Conv cv
    cv.n, cv.m, cv.groups = x.shape[0], f.shape[0], groups
    cv.g = _plane_geometry(x, f, strides, pads, dilations)
    cv.plane = cv.g.ho * cv.g.wo
    cv.mg, cv.kg = cv.m // groups, cv.g.c // groups * cv.g.kh * cv.g.kw
    team[0] = gemm_team(<double>cv.n * cv.plane * cv.m * cv.kg, cv.n)
    cv.per_part = (cv.n + team.parts - 1) // team.parts   # C division: no -(-a // b)
    cv.step = _images_per_chunk(cv.n, cv.kg * groups, cv.g.ho, cv.g.wo, x.itemsize)
    cv.whole = cv.step >= cv.n
    cv.step = min(cv.step, cv.per_part)
    return cv


def conv2d_forward(x, f, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                   groups=1, dilations=(1, 1), data_format="NCHW", use_cudnn=False, saved=None):
    given = x
    cdef Team team
    x, f, dilations, pads = _geometry(x, f, strides, paddings, padding_algorithm, dilations,
                                      data_format)
    if winograd.applies(x.shape, f.shape, strides, dilations, groups or 1, pads):
        out = winograd.conv3x3(x, f, pads)
    elif depthwise(x.shape, f.shape, groups or 1):
        out = _depthwise_forward(x, f, strides, pads, dilations)
    else:
        conv = _setup(x, f, strides, pads, groups, dilations, &team)
        try:
            if x.dtype == np.float32:
                out = _forward[float](x, f, conv, team, given, saved)
            else:
                out = _forward[double](x, f, conv, team, given, saved)
        finally:
            release_team()
    if data_format == "NHWC":
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1))
    return out


cdef _forward(real[:, :, :, ::1] x, real[:, :, :, ::1] f, Conv cv, Team team, given,
              saved):
    dtype = np.float32 if real is float else np.float64
    out = np.empty((cv.n, cv.m, cv.g.ho, cv.g.wo), dtype)
    cdef real[:, :, :, ::1] out_v = out
    cdef Py_ssize_t cols = cv.step * cv.plane, rows = cv.kg * cv.groups
    whole = cv.whole
    col = np.empty((rows, cv.n * cv.plane), dtype) if whole else None
    col_part = None if whole else np.empty((team.parts, rows, cols), dtype)
    tmp = np.empty((team.parts, cv.m, cols), dtype)
    cdef real[:, ::1] col_v = col
    cdef real[:, :, ::1] col_part_v = col_part, tmp_v = tmp
    cdef real* col_p = &col_v[0, 0] if whole else NULL
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _forward_part(&cv, p, &x[0, 0, 0, 0], &f[0, 0, 0, 0], &out_v[0, 0, 0, 0], col_p,
                      cv.n * cv.plane, NULL if whole else &col_part_v[p, 0, 0], &tmp_v[p, 0, 0])
    if saved is not None and whole:   # the grad op's im2col is this one
        saved.put(given, col)
    return out


def conv2d_backward(x, f, dy, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                    groups=1, dilations=(1, 1), data_format="NCHW", use_cudnn=False,
                    need=(True, True), saved=None):
    col = saved.take(x) if saved is not None else None
    if data_format == "NHWC":
        dy = dy.transpose(0, 3, 1, 2)
    dy = np.ascontiguousarray(dy, x.dtype)
    cdef Team team
    x, f, dilations, pads = _geometry(x, f, strides, paddings, padding_algorithm, dilations,
                                      data_format)
    # the input gradient of a Winograd case: dy correlated with the flipped, transposed
    # filter, padded by 2 - p (the rows and columns whose windows reached x)
    flipped = need[0] and winograd.applies(x.shape, f.shape, strides, dilations, groups or 1,
                                           pads)
    if depthwise(x.shape, f.shape, groups or 1):
        dx, df = _depthwise_backward(x, f, dy, strides, pads, dilations, need[0])
    else:
        conv = _setup(x, f, strides, pads, groups, dilations, &team)
        try:
            if x.dtype == np.float32:
                dx, df = _backward[float](x, f, dy, conv, team, need[0] and not flipped, col)
            else:
                dx, df = _backward[double](x, f, dy, conv, team, need[0] and not flipped, col)
        finally:
            release_team()
    if flipped:
        dx = winograd.conv3x3(dy, f[:, :, ::-1, ::-1].transpose(1, 0, 2, 3),
                              [2 - p for p in pads])
    if dx is not None and data_format == "NHWC":
        dx = np.ascontiguousarray(dx.transpose(0, 2, 3, 1))
    return dx, df.reshape(f.shape)


cdef _backward(real[:, :, :, ::1] x, real[:, :, :, ::1] f, real[:, :, :, ::1] dy, Conv cv,
               Team team, bint need_dx, col):
    dtype = np.float32 if real is float else np.float64
    cdef Py_ssize_t cols = cv.step * cv.plane, rows = cv.kg * cv.groups
    dx = np.zeros((cv.n, cv.g.c, cv.g.h, cv.g.w), dtype) if need_dx else None
    # part 0's filter gradient is df, the others' are added to it after (no separate sum:
    # for a large filter with a small image, as in ResNet's last layers, that buffer was
    # the step's memory peak)
    df = np.zeros((cv.m, cv.kg), dtype)
    others = np.zeros((team.parts - 1, cv.m, cv.kg), dtype)
    col_part = np.empty((team.parts, rows, cols), dtype) if col is None else None
    dy_part = np.empty((team.parts, cv.m, cols), dtype)
    dcol_part = np.empty((team.parts, rows, cols), dtype) if need_dx else None
    cdef real[:, :, :, ::1] dx_v = dx
    cdef real[:, ::1] col_v = col
    cdef real[:, ::1] df_v = df
    cdef real[:, :, ::1] others_v = others, col_part_v = col_part, dy_part_v = dy_part
    cdef real[:, :, ::1] dcol_part_v = dcol_part
    cdef real* dx_p = &dx_v[0, 0, 0, 0] if need_dx else NULL
    cdef const real* col_p = &col_v[0, 0] if col is not None else NULL
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _backward_part(&cv, p, &x[0, 0, 0, 0], &f[0, 0, 0, 0], &dy[0, 0, 0, 0], dx_p,
                       &df_v[0, 0] if p == 0 else &others_v[p - 1, 0, 0], col_p,
                       cv.n * cv.plane,
                       NULL if col is not None else &col_part_v[p, 0, 0],
                       &dy_part_v[p, 0, 0], NULL if not need_dx else &dcol_part_v[p, 0, 0])
    for other in others:   # in part order, as a sum over the parts would add them
        np.add(df, other, out=df)
    return dx, df


# -- depthwise: one input channel per group ---------------------------------------------------
# Each group's GEMM would be one filter row by kh*kw deep over a copied column matrix: a
# direct stencil per channel plane reads the input in place (MobileNet's 3x3 layer, N=12,
# C=256, 28x28, one thread: forward + backward 63 -> 39 ms CPU). Every plane's sums run in
# a fixed order on one thread, so the results do not depend on the team's size.

def depthwise(x_shape, f_shape, groups):
    """Whether the depthwise stencils take this conv2d: one input channel per group, more
    than one group (a one-channel conv with groups=1 is a GEMM with M rows)."""
    return groups > 1 and x_shape[1] == groups and f_shape[1] == 1


cdef void _stencil(const Geometry* g, real tap, int i, int j, const real* x,
                   real* out) noexcept nogil:
    """out[oy, ox] += tap * x[oy*sh - ph + i*dh, ox*sw - pw + j*dw] over one plane, where
    that pixel is inside x (the padding adds nothing)."""
    cdef int oy, ox, iy, lo, hi, off = j * g.dw - g.pw
    cdef real* dst
    cdef const real* src
    _valid_span(off, g.wo, g.w, g.sw, &lo, &hi)
    for oy in range(g.ho):
        iy = oy * g.sh - g.ph + i * g.dh
        if iy < 0 or iy >= g.h:
            continue
        dst = out + oy * g.wo + lo
        src = x + iy * g.w + lo * g.sw + off   # first in bounds
        if g.sw == 1:
            for ox in range(hi - lo):
                dst[ox] += tap * src[ox]
        else:
            for ox in range(hi - lo):
                dst[ox] += tap * src[ox * g.sw]


cdef void _stencil_adjoint(const Geometry* g, real tap, int i, int j, const real* dy,
                           real* dx) noexcept nogil:
    """dx[window] += tap * dy: the adjoint of _stencil in its input."""
    cdef int oy, ox, iy, lo, hi, off = j * g.dw - g.pw
    cdef real* dst
    cdef const real* src
    _valid_span(off, g.wo, g.w, g.sw, &lo, &hi)
    for oy in range(g.ho):
        iy = oy * g.sh - g.ph + i * g.dh
        if iy < 0 or iy >= g.h:
            continue
        src = dy + oy * g.wo + lo
        dst = dx + iy * g.w + lo * g.sw + off
        if g.sw == 1:
            for ox in range(hi - lo):
                dst[ox] += tap * src[ox]
        else:
            for ox in range(hi - lo):
                dst[ox * g.sw] += tap * src[ox]


cdef real _stencil_dot(const Geometry* g, int i, int j, const real* x, const real* dy,
                       real* lanes) noexcept nogil:
    """sum over one plane of dy[oy, ox] * x[window]: the tap's filter gradient. Summed per
    output column in `lanes` (wo scratch) first: one running sum would be a chain of
    dependent adds, which the compiler may not reorder into vectors."""
    cdef int oy, ox, iy, lo, hi, off = j * g.dw - g.pw
    cdef real acc = 0
    cdef const real* src
    cdef const real* row
    _valid_span(off, g.wo, g.w, g.sw, &lo, &hi)
    for ox in range(hi - lo):
        lanes[ox] = 0
    for oy in range(g.ho):
        iy = oy * g.sh - g.ph + i * g.dh
        if iy < 0 or iy >= g.h:
            continue
        row = dy + oy * g.wo + lo
        src = x + iy * g.w + lo * g.sw + off
        if g.sw == 1:
            for ox in range(hi - lo):
                lanes[ox] += row[ox] * src[ox]
        else:
            for ox in range(hi - lo):
                lanes[ox] += row[ox] * src[ox * g.sw]
    for ox in range(hi - lo):
        acc = acc + lanes[ox]
    return acc


def _depthwise_forward(x, f, strides, pads, dilations):
    cdef Geometry g = _plane_geometry(x, f, strides, pads, dilations)
    out = np.zeros((x.shape[0], f.shape[0], g.ho, g.wo), x.dtype)
    cdef Team team = loop_team(out.size * g.kh * g.kw)
    try:
        if x.dtype == np.float32:
            _depthwise_forward_planes[float](x, f, out, &g, team)
        else:
            _depthwise_forward_planes[double](x, f, out, &g, team)
    finally:
        release_team()
    return out


cdef void _depthwise_forward_planes(real[:, :, :, ::1] x, real[:, :, :, ::1] f,
                                    real[:, :, :, ::1] out, const Geometry* g,
                                    Team team) noexcept:
    """out[n, o] = the stencil of filter o over input channel o // (M / C), plane by plane."""
    cdef int p, i, j, n, o, m = f.shape[0], mult = f.shape[0] // x.shape[1]
    for p in prange(out.shape[0] * m, nogil=True, num_threads=team.threads,
                    schedule="static"):
        n, o = p // m, p % m
        for i in range(g.kh):
            for j in range(g.kw):
                _stencil(g, f[o, 0, i, j], i, j, &x[n, o // mult, 0, 0], &out[n, o, 0, 0])


def _depthwise_backward(x, f, dy, strides, pads, dilations, need_dx):
    cdef Geometry g = _plane_geometry(x, f, strides, pads, dilations)
    dx = np.zeros(x.shape, x.dtype) if need_dx else None
    df = np.zeros(f.shape, x.dtype)
    lanes = np.empty((f.shape[0], g.wo), x.dtype)
    cdef Team team = loop_team(dy.size * g.kh * g.kw)
    try:
        if x.dtype == np.float32:
            _depthwise_backward_planes[float](x, f, dy, dx, df, lanes, &g, team)
        else:
            _depthwise_backward_planes[double](x, f, dy, dx, df, lanes, &g, team)
    finally:
        release_team()
    return dx, df


cdef void _depthwise_backward_planes(real[:, :, :, ::1] x, real[:, :, :, ::1] f,
                                     real[:, :, :, ::1] dy, real[:, :, :, ::1] dx,
                                     real[:, :, :, ::1] df, real[:, ::1] lanes,
                                     const Geometry* g, Team team) noexcept:
    """dx plane by input plane (its M / C filters in order), df filter by filter (the images
    in order; `lanes` [M, wo] the filters' scratch)."""
    cdef int p, i, j, n, c, o, k, m = f.shape[0], channels = x.shape[1]
    cdef int mult = m // channels, images = x.shape[0]
    if dx is not None:
        for p in prange(images * channels, nogil=True, num_threads=team.threads,
                        schedule="static"):
            n, c = p // channels, p % channels
            for k in range(mult):
                o = c * mult + k
                for i in range(g.kh):
                    for j in range(g.kw):
                        _stencil_adjoint(g, f[o, 0, i, j], i, j, &dy[n, o, 0, 0],
                                         &dx[n, c, 0, 0])
    for o in prange(m, nogil=True, num_threads=team.threads, schedule="static"):
        for n in range(images):
            for i in range(g.kh):
                for j in range(g.kw):
                    df[o, 0, i, j] += _stencil_dot(g, i, j, &x[n, o // mult, 0, 0],
                                                   &dy[n, o, 0, 0], &lanes[o, 0])
