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


cdef struct Gemm:
    # out[m, n] = alpha * op(a) @ op(b) + beta * out, row-major with leading dimensions;
    # double when not single
    bint single, trans_a, trans_b
    Py_ssize_t m, n, k, lda, ldb, ldc
    double alpha, beta
    const char* a
    const char* b
    char* c

# gemm_into's pieces, for kernels that work on each part's block of the product as it is
# made (matmul.mul_bias_forward: the fc bias and relu)
cdef bint small_gemm(a, b, out, bint trans_a, double alpha, double beta)
cdef int fill_gemm(Gemm* g, a, b, out, bint trans_a, bint trans_b, double alpha,
                   double beta) except -1
cdef void gemm_block(const Gemm* g, int part, int parts, Py_ssize_t* rows,
                     Py_ssize_t* cols) noexcept nogil
cdef void gemm_part(const Gemm* g, int part, int parts) noexcept nogil


cdef inline Py_ssize_t cut(Py_ssize_t n, int part, int parts) noexcept nogil:
    """Where part `part` of [0, n), cut into `parts` consecutive ranges, starts."""
    return n * part // parts
