# BLAS GEMM callable without the GIL, and the thread team that shares one BLAS: see blas.pyx.

cdef void sgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                float alpha, const float* a, Py_ssize_t lda, const float* b, Py_ssize_t ldb,
                float beta, float* c, Py_ssize_t ldc) noexcept nogil
cdef void dgemm(bint trans_a, bint trans_b, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                double alpha, const double* a, Py_ssize_t lda, const double* b,
                Py_ssize_t ldb, double beta, double* c, Py_ssize_t ldc) noexcept nogil
cdef int parts_for(double work)
cdef int acquire_team() noexcept
cdef void release_team() noexcept
