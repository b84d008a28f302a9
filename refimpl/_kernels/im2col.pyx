# cython: language_level=3
"""conv2d forward/backward: im2col / col2im in C loops (GIL released; no OpenMP, whose
spinning threads starve BLAS on small machines) and one BLAS GEMM per group through numpy.
Drop-ins for refimpl.ops.conv2d (NCHW; NHWC is transposed in and out)."""
import numpy as np

from refimpl._kernels.geometry import normalize_padding

ctypedef fused real:
    float
    double


cdef inline void _valid_span(int off, int wo, int w, int sw, int* lo,
                             int* hi) noexcept nogil:
    """[lo, hi): the output columns ox whose input column ox*sw + off is inside [0, w)."""
    lo[0] = 0 if off >= 0 else min((-off + sw - 1) // sw, wo)
    hi[0] = max(min((w - off + sw - 1) // sw, wo), lo[0])


cdef inline bint _unpadded_unit_stride(int h, int w, int kh, int kw, int sh, int sw, int ph,
                                      int pw, int dh, int dw, int ho, int wo) noexcept nogil:
    """No window reaches into the padding (none on any side), and columns step by 1."""
    return (ph == 0 and pw == 0 and sw == 1 and (ho - 1) * sh + (kh - 1) * dh < h
            and wo - 1 + (kw - 1) * dw < w)


def _im2col(real[:, :, :, ::1] x, real[:, ::1] col, int kh, int kw, int sh, int sw, int ph,
            int pw, int dh, int dw, int ho, int wo):
    """col[(c*kh + i)*kw + j, (n*ho + oy)*wo + ox] = x[n, c, oy*sh - ph + i*dh, ox*sw - pw + j*dw]
    (0 in the padding). The in-bounds span of each output row is found once per (i, j), so
    the copy loop has no bounds checks and, for stride 1, vectorizes."""
    cdef int n_img = x.shape[0], channels = x.shape[1], h = x.shape[2], w = x.shape[3]
    cdef int row, c, i, j, n, oy, ox, iy, lo, hi, off
    cdef real* dst
    cdef const real* src
    cdef Py_ssize_t step = sh * w
    if _unpadded_unit_stride(h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo):
        # every window inside the input: whole output rows copy without span arithmetic
        with nogil:
            for row in range(channels * kh * kw):
                c, i, j = row // (kh * kw), (row // kw) % kh, row % kw
                dst = &col[row, 0]
                for n in range(n_img):
                    src = &x[n, c, i * dh, j * dw]
                    for oy in range(ho):
                        for ox in range(wo):
                            dst[ox] = src[ox]
                        dst += wo
                        src += step
        return
    with nogil:
        for row in range(channels * kh * kw):
            c, i, j = row // (kh * kw), (row // kw) % kh, row % kw
            off = j * dw - pw
            _valid_span(off, wo, w, sw, &lo, &hi)
            for n in range(n_img):
                for oy in range(ho):
                    iy = oy * sh - ph + i * dh
                    dst = &col[row, (n * ho + oy) * wo]
                    if iy < 0 or iy >= h:
                        for ox in range(wo):
                            dst[ox] = 0
                        continue
                    for ox in range(lo):
                        dst[ox] = 0
                    for ox in range(hi, wo):
                        dst[ox] = 0
                    src = &x[n, c, iy, lo * sw + off]   # first in-bounds input column
                    dst = dst + lo
                    if sw == 1:
                        for ox in range(hi - lo):
                            dst[ox] = src[ox]
                    else:
                        for ox in range(hi - lo):
                            dst[ox] = src[ox * sw]


def _col2im(real[:, ::1] col, real[:, :, :, ::1] dx, int kh, int kw, int sh, int sw, int ph,
            int pw, int dh, int dw, int ho, int wo):
    """dx += the adjoint of _im2col (what fell on padding is dropped)."""
    cdef int n_img = dx.shape[0], channels = dx.shape[1], h = dx.shape[2], w = dx.shape[3]
    cdef int row, c, i, j, n, oy, ox, iy, lo, hi, off
    cdef const real* src
    cdef real* dst
    cdef Py_ssize_t step = sh * w
    if _unpadded_unit_stride(h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo):
        with nogil:
            for row in range(channels * kh * kw):
                c, i, j = row // (kh * kw), (row // kw) % kh, row % kw
                src = &col[row, 0]
                for n in range(n_img):
                    dst = &dx[n, c, i * dh, j * dw]
                    for oy in range(ho):
                        for ox in range(wo):
                            dst[ox] += src[ox]
                        src += wo
                        dst += step
        return
    with nogil:
        for row in range(channels * kh * kw):
            c, i, j = row // (kh * kw), (row // kw) % kh, row % kw
            off = j * dw - pw
            _valid_span(off, wo, w, sw, &lo, &hi)
            for n in range(n_img):
                for oy in range(ho):
                    iy = oy * sh - ph + i * dh
                    if iy < 0 or iy >= h:
                        continue
                    src = &col[row, (n * ho + oy) * wo]
                    dst = &dx[n, c, iy, lo * sw + off]
                    src = src + lo
                    if sw == 1:
                        for ox in range(hi - lo):
                            dst[ox] += src[ox]
                    else:
                        for ox in range(hi - lo):
                            dst[ox * sw] += src[ox]


def _geometry(x, f, strides, paddings, padding_algorithm, dilations):
    pads = normalize_padding(paddings, padding_algorithm, x.shape[2:], f.shape[2:], strides, dilations)
    kh, kw = f.shape[2], f.shape[3]
    ho = (x.shape[2] + pads[0] + pads[1] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
    wo = (x.shape[3] + pads[2] + pads[3] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
    return pads, kh, kw, ho, wo


def _columns(x, kh, kw, strides, pads, dilations, ho, wo):
    col = np.empty((x.shape[1] * kh * kw, x.shape[0] * ho * wo), x.dtype)
    _im2col(x, col, kh, kw, strides[0], strides[1], pads[0], pads[2], dilations[0],
            dilations[1], ho, wo)
    return col


def _per_group(product, groups):
    """Stack one GEMM per group along rows (no copy for the usual groups == 1)."""
    return product(0) if groups == 1 else np.concatenate([product(g) for g in range(groups)])


def _filter_grad(dy, col):
    """dy @ col.T over the long N*Ho*Wo axis. BLAS shares the output's rows among its
    threads, so with few filters (LeNet's conv2: 50 rows against col's 500) computing the
    transposed product col @ dy.T is faster (measured 1.36 -> 0.98 ms); with rows of similar
    counts (conv1: 20 and 25) the direct order is (0.42 against 0.54 ms)."""
    if col.shape[0] >= 2 * dy.shape[0]:
        return (col @ dy.T).T
    return dy @ col.T


# Column matrices above twice this size are built a slice of images at a time, so that each
# slice stays in cache from im2col through its GEMMs and col2im (LeNet's conv2, 8 MB whole:
# forward + backward 4.76 -> 4.29 ms with other work evicting the caches between steps).
# Smaller ones are built whole and handed to the backward (SavedForGrad). Slicing needs
# deep GEMMs to stay efficient (conv1's 25 column rows measured slower sliced).
_CHUNK_BYTES = 2 << 20
_MIN_CHUNKED_ROWS = 64


def _images_per_chunk(n, rows, ho, wo, itemsize):
    """Images per column slice: all n (one matrix, which the forward saves), unless the
    whole matrix exceeds 2 * _CHUNK_BYTES and has at least _MIN_CHUNKED_ROWS rows."""
    per_image = rows * ho * wo * itemsize
    if rows < _MIN_CHUNKED_ROWS or n * per_image <= 2 * _CHUNK_BYTES:
        return max(n, 1)
    return max(1, _CHUNK_BYTES // per_image)


def _setup(x, f, strides, paddings, padding_algorithm, groups, dilations, data_format):
    """NCHW input, geometry (pads, kh, kw, ho, wo), groups and images per column slice,
    shared by forward and backward."""
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    x = np.ascontiguousarray(x)
    groups = groups or 1
    geometry = _geometry(x, f, strides, paddings, padding_algorithm, dilations)
    _, kh, kw, ho, wo = geometry
    step = _images_per_chunk(x.shape[0], x.shape[1] * kh * kw, ho, wo, x.itemsize)
    return x, geometry, groups, step


def conv2d_forward(x, f, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                   groups=1, dilations=(1, 1), data_format="NCHW", use_cudnn=False, saved=None):
    given = x
    x, (pads, kh, kw, ho, wo), groups, step = _setup(
        x, f, strides, paddings, padding_algorithm, groups, dilations, data_format)
    m, n = f.shape[0], x.shape[0]
    mg, w2 = m // groups, f.reshape(m, -1)
    out = np.empty((n, m, ho, wo), x.dtype)
    for s in range(0, n, step):
        col = _columns(x[s:s + step], kh, kw, strides, pads, dilations, ho, wo)
        rows = col.shape[0] // groups
        part = _per_group(lambda g: w2[g * mg:(g + 1) * mg] @ col[g * rows:(g + 1) * rows],
                          groups)
        out[s:s + step] = part.reshape(m, -1, ho, wo).transpose(1, 0, 2, 3)
    if saved is not None and step >= n > 0:   # the grad op's im2col is this one
        saved.put(given, col)
    if data_format == "NHWC":
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1))
    return out


def conv2d_backward(x, f, dy, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                    groups=1, dilations=(1, 1), data_format="NCHW", use_cudnn=False,
                    need=(True, True), saved=None):
    col = saved.take(x) if saved is not None else None
    x, (pads, kh, kw, ho, wo), groups, step = _setup(
        x, f, strides, paddings, padding_algorithm, groups, dilations, data_format)
    if data_format == "NHWC":
        dy = dy.transpose(0, 3, 1, 2)
    m, n = f.shape[0], x.shape[0]
    mg, w2 = m // groups, f.reshape(m, -1)
    df = np.zeros(w2.shape, x.dtype)
    dx = np.zeros_like(x) if need[0] else None   # no dx when the input is data
    for s in range(0, n, step):
        if col is None or step < n:
            col = _columns(x[s:s + step], kh, kw, strides, pads, dilations, ho, wo)
        rows = col.shape[0] // groups
        dy2 = np.ascontiguousarray(dy[s:s + step].transpose(1, 0, 2, 3)).reshape(m, -1)
        df += _per_group(lambda g: _filter_grad(dy2[g * mg:(g + 1) * mg],
                                                col[g * rows:(g + 1) * rows]), groups)
        if dx is not None:
            dcol = _per_group(lambda g: w2[g * mg:(g + 1) * mg].T @ dy2[g * mg:(g + 1) * mg],
                              groups)
            _col2im(dcol, dx[s:s + step], kh, kw, strides[0], strides[1], pads[0], pads[2],
                    dilations[0], dilations[1], ho, wo)
    if dx is not None and data_format == "NHWC":
        dx = np.ascontiguousarray(dx.transpose(0, 2, 3, 1))
    return dx, df.reshape(f.shape)
