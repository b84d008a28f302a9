# cython: language_level=3
"""numpy's own BLAS GEMM, callable from C loops without the GIL, and the thread team that
the compiled kernels share.

Why: on a small machine the GEMMs and the loops around them (im2col, col2im, the layout
copies) must share one set of threads. numpy's OpenBLAS keeps its own workers, which spin
for a while after each GEMM; OpenMP loops started beside them fight them for the cores
(a conv forward measured 0.63 -> 15.8 ms). So a kernel that parallelizes takes the team
(`acquire_team`): OpenBLAS is held at one thread until the kernel ends, and the kernel
splits its work, GEMMs included, over one OpenMP team that calls BLAS once per thread.

The GEMM is the cblas_?gemm of the OpenBLAS that numpy loaded (the ILP64 build that numpy's
wheels ship). Where it cannot be found (numpy built against MKL or Accelerate), the kernels
that need it (conv2d, mul, matmul_v2: `require_gemm()` at import) fall back to their numpy
references with a warning; the loops still share the team.
"""
import ctypes
import glob
import os

import numpy as np

cimport numpy as cnp
from cython.parallel cimport prange
from openmp cimport omp_get_max_threads
from libc.stdint cimport int64_t, uintptr_t

cdef enum:
    ROW_MAJOR = 101
    NO_TRANS = 111
    TRANS = 112

ctypedef void (*sgemm_t)(int, int, int, int64_t, int64_t, int64_t, float, const float*,
                         int64_t, const float*, int64_t, float, float*, int64_t) noexcept nogil
ctypedef void (*dgemm_t)(int, int, int, int64_t, int64_t, int64_t, double, const double*,
                         int64_t, const double*, int64_t, double, double*, int64_t) noexcept nogil
ctypedef int (*get_threads_t)() noexcept nogil
ctypedef void (*set_threads_t)(int) noexcept nogil

cdef sgemm_t _sgemm = NULL
cdef dgemm_t _dgemm = NULL
cdef get_threads_t _get_threads = NULL
cdef set_threads_t _set_threads = NULL


def _find_openblas():
    """The ILP64 OpenBLAS of numpy's wheel in numpy.libs beside the package, and the prefix
    of its symbols: scipy-openblas (numpy >= 2) names them scipy_cblas_sgemm64_ and so on,
    the older openblas64_ builds (numpy 1.2x) cblas_sgemm64_."""
    import numpy
    libs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__))),
                        "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "lib*openblas64*"))):
        lib = ctypes.CDLL(path)   # already loaded by numpy: the same library instance
        for prefix in ("scipy_", ""):
            if hasattr(lib, prefix + "cblas_sgemm64_"):
                return lib, prefix
    raise ImportError("no ILP64 OpenBLAS with cblas_sgemm64_ under %s (numpy built against "
                      "another BLAS); the compiled GEMM kernels are off" % libs)


cdef uintptr_t _address(lib, name) except 0:
    try:
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except AttributeError:
        raise ImportError("numpy's OpenBLAS has no %s" % name)


def _bind():
    global _sgemm, _dgemm, _get_threads, _set_threads, _unbound
    try:
        lib, prefix = _find_openblas()
    except ImportError as e:
        _unbound = str(e)
        return
    _sgemm = <sgemm_t>_address(lib, prefix + "cblas_sgemm64_")
    _dgemm = <dgemm_t>_address(lib, prefix + "cblas_dgemm64_")
    _get_threads = <get_threads_t>_address(lib, prefix + "openblas_get_num_threads64_")
    _set_threads = <set_threads_t>_address(lib, prefix + "openblas_set_num_threads64_")


_unbound = None   # why the GEMM could not be bound, if it could not
_bind()
cnp.import_array()


def require_gemm():
    """Raise ImportError (which turns a kernel module off) when no BLAS GEMM was bound."""
    if _unbound is not None:
        raise ImportError(_unbound)


cdef void sgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                float alpha, const float* a, Py_ssize_t lda, const float* b, Py_ssize_t ldb,
                float beta, float* c, Py_ssize_t ldc) noexcept nogil:
    """c[m, n] = alpha * op(a) @ op(b) + beta * c, row-major with leading dimensions."""
    _sgemm(ROW_MAJOR, TRANS if trans_a else NO_TRANS, TRANS if trans_b else NO_TRANS,
           m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)


cdef void dgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                double alpha, const double* a, Py_ssize_t lda, const double* b,
                Py_ssize_t ldb, double beta, double* c, Py_ssize_t ldc) noexcept nogil:
    _dgemm(ROW_MAJOR, TRANS if trans_a else NO_TRANS, TRANS if trans_b else NO_TRANS,
           m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)


# Below these sizes a kernel runs on its calling thread alone: waking the team (about 5 us)
# costs more than it saves. Work is counted in multiply-adds for GEMM-bound kernels and in
# elements for memory-bound loops (measured break-even for sgd, relu and the bias add on 2
# cores: 128K float32 elements).
MIN_SPLIT_WORK = 1 << 20
MIN_SPLIT_ITEMS = 1 << 17
# OpenBLAS runs a GEMM below 2^18 multiply-adds on one thread of its own accord, so
# gemm_into leaves those to numpy's matmul, which is cheaper to call (about 1 us less).
NUMPY_GEMM_WORK = 1 << 18


cdef int _holders = 0
cdef int _saved_threads = 1


cdef Team _take_team(int parts) noexcept:
    """`parts` (the caller's split) and the threads to run them: the team, or only the
    calling thread while another kernel holds the team. Either way BLAS runs one thread per
    call until release_team(). Called with the GIL, which makes the count atomic."""
    global _holders, _saved_threads
    cdef Team team
    team.parts, team.threads = parts, 1
    _holders += 1
    if _holders == 1:
        if _get_threads != NULL:
            _saved_threads = _get_threads()
            _set_threads(1)
        team.threads = min(team_size(), parts)
    return team


cdef Team gemm_team(double multiply_adds, Py_ssize_t most) noexcept:
    """The team for a GEMM-bound kernel: its work is split into the team's size in parts
    (at most `most`), or 1 part when small. The split depends on the work alone, never on
    which threads are free, so results do not depend on the machine's load."""
    return _take_team(max(1, min(team_size(), most)) if multiply_adds >= MIN_SPLIT_WORK else 1)


cdef Team loop_team(Py_ssize_t items) noexcept:
    """The team for a memory-bound loop over `items` elements (see gemm_team)."""
    return _take_team(team_size() if items >= MIN_SPLIT_ITEMS else 1)


cdef void release_team() noexcept:
    global _holders
    _holders -= 1
    if _holders == 0 and _set_threads != NULL:
        _set_threads(_saved_threads)


def blas_threads():
    """The thread count numpy's OpenBLAS is set to (kernels restore it when they end)."""
    require_gemm()
    return _get_threads()


cpdef int team_size() noexcept:
    """Threads in the kernels' OpenMP team (OMP_NUM_THREADS, else the machine's cores)."""
    return omp_get_max_threads()


cdef void gemm_block(const Gemm* g, int part, int parts, Py_ssize_t* rows,
                     Py_ssize_t* cols) noexcept nogil:
    """The block of out that part `part` of `parts` computes: rows [rows[0], rows[1]) and
    columns [cols[0], cols[1]): a slice of the rows when out is taller than wide, else of
    the columns (both slice op(a) or op(b) without copying)."""
    rows[0], rows[1], cols[0], cols[1] = 0, g.m, 0, g.n
    if g.m >= g.n:
        rows[0], rows[1] = cut(g.m, part, parts), cut(g.m, part + 1, parts)
    else:
        cols[0], cols[1] = cut(g.n, part, parts), cut(g.n, part + 1, parts)


cdef void gemm_part(const Gemm* g, int part, int parts) noexcept nogil:
    """Part `part` of `parts` of the product: the block gemm_block gives."""
    cdef Py_ssize_t rows[2]
    cdef Py_ssize_t cols[2]
    gemm_block(g, part, parts, rows, cols)
    cdef Py_ssize_t m = rows[1] - rows[0], n = cols[1] - cols[0]
    cdef Py_ssize_t a_off = rows[0] if g.trans_a else rows[0] * g.lda   # rows of op(a)
    cdef Py_ssize_t b_off = cols[0] * g.ldb if g.trans_b else cols[0]   # columns of op(b)
    cdef Py_ssize_t c_off = rows[0] * g.ldc + cols[0]
    if m <= 0 or n <= 0:
        return
    if g.single:
        sgemm(g.trans_a, g.trans_b, m, n, g.k, <float>g.alpha, <const float*>g.a + a_off,
              g.lda, <const float*>g.b + b_off, g.ldb, <float>g.beta, <float*>g.c + c_off,
              g.ldc)
    else:
        dgemm(g.trans_a, g.trans_b, m, n, g.k, g.alpha, <const double*>g.a + a_off, g.lda,
              <const double*>g.b + b_off, g.ldb, g.beta, <double*>g.c + c_off, g.ldc)


def _check_gemm(a, b, out, trans_a, trans_b):
    """BLAS reads raw memory: a wrong shape would read out of bounds, not raise."""
    require_gemm()
    arrays = (a, b, out)
    if not all(isinstance(v, np.ndarray) and v.ndim == 2 and v.flags.c_contiguous
               and v.dtype == a.dtype for v in arrays) or a.dtype not in (np.float32, np.float64):
        raise ValueError("gemm_into needs C-contiguous 2-D arrays of one dtype, float32 or "
                         "float64; got %s" % ", ".join("%s %s" % (getattr(v, "dtype", type(v)),
                                                                  getattr(v, "shape", ""))
                                                       for v in arrays))
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if k != kb or out.shape != (m, n) or not out.flags.writeable:
        raise ValueError("gemm_into: op(a) %s @ op(b) %s does not give out %s"
                         % ((m, k), (kb, n), out.shape))


cdef bint small_gemm(a, b, out, bint trans_a, double alpha, double beta):
    """Whether gemm_into leaves this product to numpy's matmul (see NUMPY_GEMM_WORK)."""
    return alpha == 1 and beta == 0 and \
        <double>out.shape[0] * out.shape[1] * a.shape[0 if trans_a else 1] < NUMPY_GEMM_WORK


cdef int fill_gemm(Gemm* g, a, b, out, bint trans_a, bint trans_b, double alpha,
                   double beta) except -1:
    """Checks the operands as gemm_into does and describes the product in `g`."""
    _check_gemm(a, b, out, trans_a, trans_b)
    cdef cnp.ndarray aa = a, bb = b, cc = out
    g.single = aa.dtype == np.float32
    g.trans_a, g.trans_b = trans_a, trans_b
    g.alpha, g.beta = alpha, beta
    g.m, g.n = cc.shape[0], cc.shape[1]
    g.k = aa.shape[0] if trans_a else aa.shape[1]
    g.lda, g.ldb, g.ldc = aa.shape[1], bb.shape[1], cc.shape[1]
    g.a, g.b, g.c = <const char*>aa.data, <const char*>bb.data, cc.data
    return 0


def gemm_into(a, b, out, bint trans_a=False, bint trans_b=False, double alpha=1,
              double beta=0):
    """out[...] = alpha * op(a) @ op(b) + beta * out for C-contiguous 2-D float32/float64
    arrays of one dtype (op transposes where asked; beta 0 ignores out's values, NaN
    included, as BLAS does), split over the team when the work is large enough. alpha and
    beta are rounded to the arrays' dtype."""
    if small_gemm(a, b, out, trans_a, alpha, beta):
        return np.matmul(a.T if trans_a else a, b.T if trans_b else b, out=out)
    cdef Gemm g
    fill_gemm(&g, a, b, out, trans_a, trans_b, alpha, beta)
    if g.m == 0 or g.n == 0:
        return out
    if g.k == 0:   # op(a) @ op(b) is zeros
        if beta == 0:
            out[...] = 0
        else:
            out *= out.dtype.type(beta)
        return out
    cdef Team team = gemm_team(<double>g.m * g.n * g.k, max(g.m, g.n))
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        gemm_part(&g, p, team.parts)
    release_team()
    return out


cdef _as_operand(a):
    """(a C-contiguous array, whether it is the transpose of `a`): `a` itself, the array
    that `a` transposes (a view), or a copy."""
    if a.flags.c_contiguous:
        return a, False
    if a.T.flags.c_contiguous:
        return a.T, True
    return np.ascontiguousarray(a), False


def matmul(a, b):
    """a @ b by gemm_into, for 2-D float32/float64 arrays of one dtype (others: numpy's @).
    Kernels that run numpy code take it for their large products: numpy's matmul wakes
    OpenBLAS's own worker threads, which spin for up to ~0.1 s after the call and fight the
    team of the kernels that follow for the cores (issue 21: the LM's projection GEMM after
    the rnn op ran at half speed). An operand that is the transpose of a C-contiguous array
    is read in place."""
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim == 2
            and a.dtype == b.dtype and a.dtype in (np.float32, np.float64)
            and a.shape[1] == b.shape[0]):
        return a @ b
    a2, trans_a = _as_operand(a)
    b2, trans_b = _as_operand(b)
    return gemm_into(a2, b2, np.empty((a.shape[0], b.shape[1]), a.dtype), trans_a, trans_b)


def single_threaded(fn):
    """`fn` run with numpy's OpenBLAS on one thread per call, as inside the kernels' team
    (or while another kernel holds it): for numpy code whose GEMMs are small and many, where
    waking OpenBLAS's workers for each costs more than it saves (the rnn op's steps)."""
    def run(*args, **kwargs):
        _take_team(1)
        try:
            return fn(*args, **kwargs)
        finally:
            release_team()
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run
