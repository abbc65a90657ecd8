/* gemm_check.h - what the GEMM tests share: random matrices of any element type (bf16, f16
 * and FP8 as their bit patterns, through src/half.h), a plain reference in long double that
 * follows the BLAS rules literally (beta == 0: C is not read; alpha == 0: A and B are not
 * read), and the relative Frobenius error with the per-mode bound of the tuner. The
 * gc_*_t functions take element types; the older ones take an f64 flag (f32 otherwise). */
#ifndef MMT_GEMM_CHECK_H
#define MMT_GEMM_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "half.h"
#include "problem.h"

static uint64_t gc_state = 88172645463325252ull;

static double gc_random(void)
{
    gc_state ^= gc_state << 13;
    gc_state ^= gc_state >> 7;
    gc_state ^= gc_state << 17;
    return (double)(gc_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static inline mmt_dtype gc_type(int f64) { return f64 ? MMT_F64 : MMT_F32; }

/* Element (r, c) of a stored matrix of type t, exactly. */
static inline double gc_get_t(const void *x, mmt_dtype t, int col_major, int64_t ld, int64_t r, int64_t c)
{
    int64_t i = col_major ? c * ld + r : r * ld + c;
    switch (t) {
    case MMT_F64: return ((const double *)x)[i];
    case MMT_BF16: return mmt_bf16_to_double(((const uint16_t *)x)[i]);
    case MMT_F16: return mmt_f16_to_double(((const uint16_t *)x)[i]);
    case MMT_E4M3: return mmt_e4m3_to_double(((const uint8_t *)x)[i]);
    case MMT_E5M2: return mmt_e5m2_to_double(((const uint8_t *)x)[i]);
    default: return ((const float *)x)[i];
    }
}

static inline double gc_get(const void *x, int f64, int col_major, int64_t ld, int64_t r, int64_t c)
{
    return gc_get_t(x, gc_type(f64), col_major, ld, r, c);
}

/* A reference of m x n: the values, then the scale of each element (gc_reference). */
static double *gc_ref_alloc(int64_t m, int64_t n) { return malloc(sizeof(double) * (2 * m * n + 1)); }

/* ref = alpha op(A) op(B) + beta C0 for any layout, A of type ab and B of bt, C0 of ct;
 * m x n, row-major, dense; then, at ref + m n, the scale |alpha| |op(A)| |op(B)| +
 * |beta| |C0| of each element: rounding errors are proportional to it, not to the result
 * (which may nearly cancel). */
static inline void gc_reference_ab(mmt_dtype ab, mmt_dtype bt, mmt_dtype ct, int col_major, int ta, int tb, int64_t m,
                                   int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                                   int64_t ldb, double beta, const void *c0, int64_t ldc, double *ref)
{
#pragma omp parallel for schedule(dynamic) /* the tests link OpenMP: long double is slow */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0, sa = 0;
            if (alpha != 0)
                for (int64_t l = 0; l < k; l++) {
                    long double x = ta ? gc_get_t(a, ab, col_major, lda, l, i) : gc_get_t(a, ab, col_major, lda, i, l);
                    long double y = tb ? gc_get_t(b, bt, col_major, ldb, j, l) : gc_get_t(b, bt, col_major, ldb, l, j);
                    s += x * y;
                    sa += fabsl(x * y);
                }
            long double v = (long double)alpha * s, scale = fabsl((long double)alpha) * sa;
            if (beta != 0) {
                long double c = gc_get_t(c0, ct, col_major, ldc, i, j);
                v += (long double)beta * c;
                scale += fabsl((long double)beta * c);
            }
            ref[i * n + j] = (double)v;
            ref[m * n + i * n + j] = (double)scale;
        }
}

/* gc_reference_ab with B of A's type. */
static inline void gc_reference_t(mmt_dtype ab, mmt_dtype ct, int col_major, int ta, int tb, int64_t m, int64_t n,
                                  int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                                  double beta, const void *c0, int64_t ldc, double *ref)
{
    gc_reference_ab(ab, ab, ct, col_major, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc, ref);
}

static inline void gc_reference(int f64, int col_major, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                                const void *c0, int64_t ldc, double *ref)
{
    gc_reference_t(gc_type(f64), gc_type(f64), col_major, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc, ref);
}

/* Frobenius error of C (type ct) against ref relative to the scale (NaN if C holds NaN). */
static inline double gc_rel_error_t(mmt_dtype ct, int col_major, int64_t m, int64_t n, const void *c, int64_t ldc,
                                    const double *ref)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double d = gc_get_t(c, ct, col_major, ldc, i, j) - ref[i * n + j];
            num += d * d;
            den += ref[m * n + i * n + j] * ref[m * n + i * n + j];
        }
    return sqrt(num) / (den > 0 ? sqrt(den) : 1.0);
}

static inline double gc_rel_error(int f64, int col_major, int64_t m, int64_t n, const void *c, int64_t ldc,
                                  const double *ref)
{
    return gc_rel_error_t(gc_type(f64), col_major, m, n, c, ldc, ref);
}

/* The unit roundoff of rounding to a C narrower than fp32 (bf16 2^-8, f16 2^-11, e4m3 2^-4,
 * e5m2 2^-3), else 0. */
static inline double gc_unit_out(mmt_dtype out)
{
    return out == MMT_BF16 ? ldexp(1.0, -8) : out == MMT_F16 ? ldexp(1.0, -11) : out == MMT_E4M3 ? ldexp(1.0, -4)
         : out == MMT_E5M2 ? ldexp(1.0, -3) : 0.0;
}

/* The tuner's bound for a mode (tuner/measure/bench.c, mmt_bench_error_bound):
 * 8 sqrt(K) u_acc (x2 for f32x3) + 4 u_in + 2 u_out, with u_acc 2^-53 for f64, 2^-14 for
 * FP8 (what its tensor cores keep of a sum) and 2^-24 otherwise, u_in 2^-11 for tf32 (its
 * inputs are rounded) else 0, u_out gc_unit_out's. */
static inline double gc_bound_mode(mmt_mode mode, mmt_dtype out, int64_t k)
{
    const double u_acc = mode == MMT_MODE_F64                                ? ldexp(1.0, -53)
                         : mmt_dtype_fp8(mmt_mode_dtype(mode))             ? ldexp(1.0, -14)
                                                                          : ldexp(1.0, -24);
    const double u_in = mode == MMT_MODE_TF32 ? ldexp(1.0, -11) : 0.0;
    return 8.0 * sqrt((double)(k > 1 ? k : 1)) * u_acc * (mode == MMT_MODE_F32X3 ? 2 : 1) + 4.0 * u_in +
           2.0 * gc_unit_out(out);
}

static inline double gc_bound(int f64, int64_t k)
{
    return gc_bound_mode(f64 ? MMT_MODE_F64 : MMT_MODE_F32, gc_type(f64), k);
}

/* A stored matrix of type t, rows x cols with leading dimension ld: random values in
 * [-1, 1) rounded to t, or t's NaN everywhere (fill_nan). */
static inline void *gc_matrix_t(mmt_dtype t, int col_major, int64_t rows, int64_t cols, int64_t ld, int fill_nan)
{
    int64_t count = (col_major ? cols : rows) * ld;
    size_t es = (size_t)mmt_dtype_size(t);
    void *x = malloc(es * (count ? count : 1));
    for (int64_t i = 0; i < count; i++) {
        double v = fill_nan ? NAN : gc_random();
        switch (t) {
        case MMT_F64: ((double *)x)[i] = v; break;
        case MMT_BF16: ((uint16_t *)x)[i] = mmt_bf16_from_double(v); break;
        case MMT_F16: ((uint16_t *)x)[i] = mmt_f16_from_double(v); break;
        case MMT_E4M3: ((uint8_t *)x)[i] = mmt_e4m3_from_double(v); break;
        case MMT_E5M2: ((uint8_t *)x)[i] = mmt_e5m2_from_double(v); break;
        default: ((float *)x)[i] = (float)v; break;
        }
    }
    return x;
}

static inline void *gc_matrix(int f64, int col_major, int64_t rows, int64_t cols, int64_t ld, int fill_nan)
{
    return gc_matrix_t(gc_type(f64), col_major, rows, cols, ld, fill_nan);
}

#endif
