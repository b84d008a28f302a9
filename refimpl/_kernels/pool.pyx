# cython: language_level=3
"""pool2d forward/backward in C loops (GIL released): drop-ins for refimpl.ops.pool2d.
Windows are computed exactly as the reference does (padding, ceil_mode, adaptive, global);
max-pool gradients go to the first maximum of each window, row-major. A ceil_mode window
past the input is empty: max -FLT_MAX, avg NaN (0/0), no gradient (as in Paddle)."""
import numpy as np
from libc.float cimport FLT_MAX

from refimpl._kernels.geometry import pool_geometry

ctypedef fused real:
    float
    double


cdef inline void _window(int o, int out_size, int size, int k, int s, int pad_lo, int pad_hi,
                         bint adaptive, int* lo, int* hi, int* full) noexcept nogil:
    """[lo, hi) clipped to the input, and the size clipped to the padded input (the
    non-exclusive divisor); both empty (hi == lo, 0) for a window past the input."""
    cdef int a, b
    if adaptive:
        a = (o * size) // out_size
        b = ((o + 1) * size + out_size - 1) // out_size   # ceil, for non-negative ints
    else:
        a = o * s - pad_lo
        b = min(a + k, size + pad_hi)
    full[0] = max(b - a, 0)
    lo[0] = max(a, 0)
    hi[0] = max(min(b, size), lo[0])


def _forward(real[:, :, :, ::1] x, real[:, :, :, ::1] out, int kh, int kw, int sh, int sw,
             int pt, int pb, int pl, int pr, bint is_max, bint exclusive, bint adaptive):
    cdef int n, c, i, j, r, q, r0, r1, c0, c1, fh, fw
    cdef int h = x.shape[2], w = x.shape[3], ho = out.shape[2], wo = out.shape[3]
    cdef double acc
    cdef real best
    with nogil:
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                for i in range(ho):
                    _window(i, ho, h, kh, sh, pt, pb, adaptive, &r0, &r1, &fh)
                    for j in range(wo):
                        _window(j, wo, w, kw, sw, pl, pr, adaptive, &c0, &c1, &fw)
                        if is_max:
                            best = -FLT_MAX   # Paddle's initial value: an empty window keeps it
                            for r in range(r0, r1):
                                for q in range(c0, c1):
                                    if x[n, c, r, q] > best:
                                        best = x[n, c, r, q]
                            out[n, c, i, j] = best
                        else:
                            acc = 0
                            for r in range(r0, r1):
                                for q in range(c0, c1):
                                    acc = acc + x[n, c, r, q]
                            if exclusive or adaptive:
                                out[n, c, i, j] = <real>(acc / ((r1 - r0) * (c1 - c0)))
                            else:
                                out[n, c, i, j] = <real>(acc / (fh * fw))


def _backward(real[:, :, :, ::1] x, real[:, :, :, ::1] dout, real[:, :, :, ::1] dx, int kh,
              int kw, int sh, int sw, int pt, int pb, int pl, int pr, bint is_max,
              bint exclusive, bint adaptive):
    cdef int n, c, i, j, r, q, r0, r1, c0, c1, fh, fw, br, bq
    cdef int h = x.shape[2], w = x.shape[3], ho = dout.shape[2], wo = dout.shape[3]
    cdef real best, g, v
    cdef int better
    with nogil:
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                for i in range(ho):
                    _window(i, ho, h, kh, sh, pt, pb, adaptive, &r0, &r1, &fh)
                    for j in range(wo):
                        _window(j, wo, w, kw, sw, pl, pr, adaptive, &c0, &c1, &fw)
                        g = dout[n, c, i, j]
                        if r0 == r1 or c0 == c1:
                            continue
                        if is_max:
                            br, bq = r0, c0
                            best = x[n, c, r0, c0]
                            for r in range(r0, r1):
                                for q in range(c0, c1):
                                    # branch-free arithmetic: on random data an `if` here
                                    # mispredicts about half of the time (3x slower)
                                    v = x[n, c, r, q]
                                    better = v > best
                                    best = max(v, best)
                                    br += (r - br) * better
                                    bq += (q - bq) * better
                            dx[n, c, br, bq] += g
                        else:
                            if exclusive or adaptive:
                                g = <real>(g / ((r1 - r0) * (c1 - c0)))
                            else:
                                g = <real>(g / (fh * fw))
                            for r in range(r0, r1):
                                for q in range(c0, c1):
                                    dx[n, c, r, q] += g


def _max2x2_forward(real[:, :, :, ::1] x, real[:, :, :, ::1] out):
    """The usual 2x2, stride 2, unpadded max pool: same result as _forward, without the
    per-cell window arithmetic."""
    cdef Py_ssize_t n, c, i, j, w = x.shape[3], ho = out.shape[2], wo = out.shape[3]
    cdef const real* top
    cdef const real* bottom
    cdef real* o
    cdef real best
    with nogil:
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                for i in range(ho):
                    top = &x[n, c, 2 * i, 0]
                    bottom = top + w
                    o = &out[n, c, i, 0]
                    for j in range(wo):
                        best = -FLT_MAX
                        best = top[2 * j] if top[2 * j] > best else best
                        best = top[2 * j + 1] if top[2 * j + 1] > best else best
                        best = bottom[2 * j] if bottom[2 * j] > best else best
                        best = bottom[2 * j + 1] if bottom[2 * j + 1] > best else best
                        o[j] = best


def _max2x2_backward(real[:, :, :, ::1] x, real[:, :, :, ::1] dout, real[:, :, :, ::1] dx):
    """Backward of _max2x2_forward: each window's gradient to its first maximum (row-major),
    its other three cells set to 0 (cells outside every window are left as they are)."""
    cdef Py_ssize_t n, c, i, j, w = x.shape[3], ho = dout.shape[2], wo = dout.shape[3]
    cdef const real* top
    cdef const real* bottom
    cdef real* dtop
    cdef real* dbottom
    cdef real best
    cdef int at, better
    with nogil:
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                for i in range(ho):
                    top = &x[n, c, 2 * i, 0]
                    bottom = top + w
                    dtop = &dx[n, c, 2 * i, 0]
                    dbottom = dtop + w
                    for j in range(wo):
                        # branch-free (max selects, integer and float arithmetic): on random
                        # data a branch here mispredicts about half of the time
                        best, at = top[2 * j], 0
                        better = top[2 * j + 1] > best
                        best = max(top[2 * j + 1], best)
                        at += (1 - at) * better
                        better = bottom[2 * j] > best
                        best = max(bottom[2 * j], best)
                        at += (2 - at) * better
                        better = bottom[2 * j + 1] > best
                        at += (3 - at) * better
                        # zero the window, then write g at the winner's address (computed,
                        # not selected by a branch)
                        dtop[2 * j] = 0
                        dtop[2 * j + 1] = 0
                        dbottom[2 * j] = 0
                        dbottom[2 * j + 1] = 0
                        dtop[(at >> 1) * w + 2 * j + (at & 1)] = dout[n, c, i, j]


def _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling):
    return (pooling_type == "max" and tuple(k) == (2, 2) and tuple(s) == (2, 2)
            and not any(p) and not adaptive and not global_pooling)


def pool2d_forward(x, pooling_type="max", ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                   global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
                   padding_algorithm="EXPLICIT", data_format="NCHW", use_cudnn=False):
    nhwc = data_format == "NHWC"
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2) if nhwc else x)
    k, s, p, ho, wo = pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode,
                                adaptive, padding_algorithm)
    out = np.empty((x.shape[0], x.shape[1], ho, wo), x.dtype)
    if _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling) \
            and 2 * ho <= x.shape[2] and 2 * wo <= x.shape[3]:
        _max2x2_forward(x, out)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out
    args = (k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], pooling_type == "max", exclusive,
            adaptive and not global_pooling)
    _forward(x, out, *args)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out


def pool2d_backward(x, out, dout, pooling_type="max", ksize=(2, 2), strides=(1, 1),
                    paddings=(0, 0), global_pooling=False, ceil_mode=False, exclusive=True,
                    adaptive=False, padding_algorithm="EXPLICIT", data_format="NCHW",
                    use_cudnn=False):
    nhwc = data_format == "NHWC"
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2) if nhwc else x)
    dout = np.ascontiguousarray(dout.transpose(0, 3, 1, 2) if nhwc else dout)
    k, s, p, ho, wo = pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode,
                                adaptive, padding_algorithm)
    if _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling) \
            and 2 * ho <= x.shape[2] and 2 * wo <= x.shape[3]:
        tiled = 2 * ho == x.shape[2] and 2 * wo == x.shape[3]
        dx = np.empty_like(x) if tiled else np.zeros_like(x)
        _max2x2_backward(x, dout, dx)
        return np.ascontiguousarray(dx.transpose(0, 2, 3, 1)) if nhwc else dx
    dx = np.zeros_like(x)
    args = (k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], pooling_type == "max", exclusive,
            adaptive and not global_pooling)
    _backward(x, dout, dx, *args)
    return np.ascontiguousarray(dx.transpose(0, 2, 3, 1)) if nhwc else dx
