# cython: language_level=3
"""pool2d forward/backward in C loops (GIL released): drop-ins for refimpl.ops.pool2d.
Windows are computed exactly as the reference does (padding, ceil_mode, adaptive, global);
max-pool gradients go to the first maximum of each window, row-major. A ceil_mode window
past the input is empty: max -FLT_MAX, avg NaN (0/0), no gradient (as in Paddle). The 2x2
max pool's loops split their planes over the kernels' thread team."""
import numpy as np
from cython.parallel cimport prange
from libc.float cimport FLT_MAX
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl.geometry import flat_pads, pool_geometry

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


cdef void _max2x2_forward_planes(const real[:, :, ::1] x, real[:, :, ::1] out,
                                 real[:, :, ::1] winner) noexcept nogil:
    """The usual 2x2, stride 2, unpadded max pool over [planes, H, W]: same result as
    _forward, without the per-cell window arithmetic. `winner` gets each window's cell for
    the backward: the first (row-major) equal to the maximum, 0 if none is (all NaN or
    -inf). Kept as a float of `real`'s width so that gcc vectorizes the loop (a byte code
    measured 3x slower)."""
    cdef Py_ssize_t c, i, j, w = x.shape[2], ho = out.shape[1], wo = out.shape[2]
    cdef const real* top
    cdef const real* bottom
    cdef real* o
    cdef real* at
    cdef real best, v0, v1, v2, v3, cell
    for c in range(x.shape[0]):
        for i in range(ho):
            top = &x[c, 2 * i, 0]
            bottom = top + w
            o = &out[c, i, 0]
            at = &winner[c, i, 0]
            for j in range(wo):
                v0, v1 = top[2 * j], top[2 * j + 1]
                v2, v3 = bottom[2 * j], bottom[2 * j + 1]
                best = -FLT_MAX   # Paddle's initial value, as in _forward
                best = v0 if v0 > best else best
                best = v1 if v1 > best else best
                best = v2 if v2 > best else best
                best = v3 if v3 > best else best
                o[j] = best
                cell = 0
                cell = 3 if v3 == best else cell
                cell = 2 if v2 == best else cell
                cell = 1 if v1 == best else cell
                at[j] = 0 if v0 == best else cell


cdef void _max2x2_backward_planes(const real[:, :, ::1] winner, const real[:, :, ::1] dout,
                                  real[:, :, ::1] dx) noexcept nogil:
    """Backward of _max2x2_forward_planes: each window's four cells zeroed, then its
    gradient written at its winner's computed address (cells outside every window are left
    alone)."""
    cdef Py_ssize_t c, i, j, w = dx.shape[2], ho = dout.shape[1], wo = dout.shape[2]
    cdef real* dtop
    cdef const real* at
    cdef const real* g
    cdef int cell
    for c in range(dx.shape[0]):
        for i in range(ho):
            dtop = &dx[c, 2 * i, 0]
            at = &winner[c, i, 0]
            g = &dout[c, i, 0]
            for j in range(2 * wo):
                dtop[j] = 0
                dtop[w + j] = 0
            for j in range(wo):
                cell = <int>at[j]
                dtop[(cell >> 1) * w + 2 * j + (cell & 1)] = g[j]


def _max2x2_forward(const real[:, :, ::1] x, real[:, :, ::1] out, real[:, :, ::1] winner):
    """_max2x2_forward_planes with the planes split over the kernels' thread team."""
    cdef Py_ssize_t planes = x.shape[0], lo, hi
    cdef Team team = loop_team(x.shape[0] * x.shape[1] * x.shape[2])
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _max2x2_forward_planes(x, out, winner)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(planes, p, team.parts), cut(planes, p + 1, team.parts)
            _max2x2_forward_planes(x[lo:hi], out[lo:hi], winner[lo:hi])
    release_team()


def _max2x2_backward(const real[:, :, ::1] winner, const real[:, :, ::1] dout,
                     real[:, :, ::1] dx):
    cdef Py_ssize_t planes = dx.shape[0], lo, hi
    cdef Team team = loop_team(dx.shape[0] * dx.shape[1] * dx.shape[2])
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _max2x2_backward_planes(winner, dout, dx)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(planes, p, team.parts), cut(planes, p + 1, team.parts)
            _max2x2_backward_planes(winner[lo:hi], dout[lo:hi], dx[lo:hi])
    release_team()


def _planes(a):
    """[N, C, H, W] as [N*C, H, W] (a view: the arrays here are contiguous)."""
    return a.reshape(a.shape[0] * a.shape[1], a.shape[2], a.shape[3])


def _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
              padding_algorithm):
    """(ksize, strides, [top, bottom, left, right], (Ho, Wo)) of an NCHW input."""
    k, s, pads, out = pool_geometry(x.shape[2:], ksize, strides, paddings, global_pooling,
                                    ceil_mode, adaptive, padding_algorithm)
    return k, s, flat_pads(pads), out


def _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling, shape, ho, wo):
    """Whether the 2x2 loops apply: unpadded 2x2 / stride 2 max pooling whose windows all
    lie inside the input (ceil_mode may add one past an odd edge)."""
    return (pooling_type == "max" and tuple(k) == (2, 2) and tuple(s) == (2, 2)
            and not any(p) and not adaptive and not global_pooling
            and 2 * ho <= shape[2] and 2 * wo <= shape[3])


def pool2d_forward(x, pooling_type="max", ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                   global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
                   padding_algorithm="EXPLICIT", data_format="NCHW", use_cudnn=False,
                   saved=None):
    given = x
    nhwc = data_format == "NHWC"
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2) if nhwc else x)
    k, s, p, (ho, wo) = _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode,
                                  adaptive, padding_algorithm)
    out = np.empty((x.shape[0], x.shape[1], ho, wo), x.dtype)
    if _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling, x.shape, ho, wo):
        winner = np.empty_like(out)
        _max2x2_forward(_planes(x), _planes(out), _planes(winner))
        if saved is not None:   # the grad op's argmax, one value per window
            saved.put(given, winner)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out
    args = (k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], pooling_type == "max", exclusive,
            adaptive and not global_pooling)
    _forward(x, out, *args)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out


def pool2d_backward(x, out, dout, pooling_type="max", ksize=(2, 2), strides=(1, 1),
                    paddings=(0, 0), global_pooling=False, ceil_mode=False, exclusive=True,
                    adaptive=False, padding_algorithm="EXPLICIT", data_format="NCHW",
                    use_cudnn=False, saved=None):
    winner = saved.take(x) if saved is not None else None
    nhwc = data_format == "NHWC"
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2) if nhwc else x)
    dout = np.ascontiguousarray(dout.transpose(0, 3, 1, 2) if nhwc else dout)
    k, s, p, (ho, wo) = _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode,
                                  adaptive, padding_algorithm)
    if _is_max2x2(pooling_type, k, s, p, adaptive, global_pooling, x.shape, ho, wo):
        if winner is None:   # not handed over by the forward: find the winners again
            winner = np.empty_like(dout)
            _max2x2_forward(_planes(x), _planes(np.empty_like(dout)), _planes(winner))
        tiled = 2 * ho == x.shape[2] and 2 * wo == x.shape[3]
        dx = np.empty_like(x) if tiled else np.zeros_like(x)
        _max2x2_backward(_planes(winner), _planes(dout), _planes(dx))
        return np.ascontiguousarray(dx.transpose(0, 2, 3, 1)) if nhwc else dx
    dx = np.zeros_like(x)
    args = (k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], pooling_type == "max", exclusive,
            adaptive and not global_pooling)
    _backward(x, dout, dx, *args)
    return np.ascontiguousarray(dx.transpose(0, 2, 3, 1)) if nhwc else dx
