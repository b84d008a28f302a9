/* REFIMPL_SIMD_CLONES: a function built twice, for the baseline x86-64 and for AVX2, the
   copy picked when the module loads (GCC's target_clones; the wheel-less build targets
   the baseline). Loops that must vectorize carry `#pragma omp simd`: without -ffast-math
   GCC does not reorder float sums, nor if-convert every select, unless told. */
#ifndef REFIMPL_SIMD_H
#define REFIMPL_SIMD_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define REFIMPL_SIMD_CLONES __attribute__((target_clones("avx2", "default"), unused))
#else
#define REFIMPL_SIMD_CLONES __attribute__((unused))
#endif

#endif
