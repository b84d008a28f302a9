# BLAS GEMM callable without the GIL, and the thread team that the kernels share: see
# blas.pyx. A kernel takes the team (gemm_team or loop_team, with the GIL), runs
# `prange(team.parts, nogil=True, num_threads=team.threads)` and calls release_team().

cdef struct Team:
    int parts     # how the work is split: fixed by its size, so results never depend on load
    int threads   # how many threads run the parts now

cdef void sgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                float alpha, const float* a, Py_ssize_t lda, const float* b, Py_ssize_t ldb,
                float beta, float* c, Py_ssize_t ldc) noexcept nogil
cdef void dgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                double alpha, const double* a, Py_ssize_t lda, const double* b,
                Py_ssize_t ldb, double beta, double* c, Py_ssize_t ldc) noexcept nogil
cdef Team gemm_team(double multiply_adds, Py_ssize_t most) noexcept
cdef Team loop_team(Py_ssize_t items) noexcept
cdef void release_team() noexcept


cdef inline Py_ssize_t cut(Py_ssize_t n, int part, int parts) noexcept nogil:
    """Where part `part` of [0, n), cut into `parts` consecutive ranges, starts."""
    return n * part // parts
