/* gemm_check.h - what the GEMM tests share: random matrices, a plain reference in long
 * double that follows the BLAS rules literally (beta == 0: C is not read; alpha == 0: A
 * and B are not read), and the relative Frobenius error with the bound of the tuner. */
#ifndef MMT_GEMM_CHECK_H
#define MMT_GEMM_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t gc_state = 88172645463325252ull;

static double gc_random(void)
{
    gc_state ^= gc_state << 13;
    gc_state ^= gc_state >> 7;
    gc_state ^= gc_state << 17;
    return (double)(gc_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Element (r, c) of a stored matrix. */
static double gc_get(const void *x, int f64, int col_major, int64_t ld, int64_t r, int64_t c)
{
    int64_t i = col_major ? c * ld + r : r * ld + c;
    return f64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

/* A reference of m x n: the values, then the scale of each element (gc_reference). */
static double *gc_ref_alloc(int64_t m, int64_t n) { return malloc(sizeof(double) * (2 * m * n + 1)); }

/* ref = alpha op(A) op(B) + beta C0 for any layout; m x n, row-major, dense; then, at
 * ref + m n, the scale |alpha| |op(A)| |op(B)| + |beta| |C0| of each element: rounding
 * errors are proportional to it, not to the result (which may nearly cancel). */
static void gc_reference(int f64, int col_major, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha,
                         const void *a, int64_t lda, const void *b, int64_t ldb, double beta, const void *c0,
                         int64_t ldc, double *ref)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0, sa = 0;
            if (alpha != 0)
                for (int64_t l = 0; l < k; l++) {
                    long double x = ta ? gc_get(a, f64, col_major, lda, l, i) : gc_get(a, f64, col_major, lda, i, l);
                    long double y = tb ? gc_get(b, f64, col_major, ldb, j, l) : gc_get(b, f64, col_major, ldb, l, j);
                    s += x * y;
                    sa += fabsl(x * y);
                }
            long double v = (long double)alpha * s, scale = fabsl((long double)alpha) * sa;
            if (beta != 0) {
                long double c = gc_get(c0, f64, col_major, ldc, i, j);
                v += (long double)beta * c;
                scale += fabsl((long double)beta * c);
            }
            ref[i * n + j] = (double)v;
            ref[m * n + i * n + j] = (double)scale;
        }
}

/* Frobenius error of C against ref relative to the scale (NaN if C holds NaN). */
static double gc_rel_error(int f64, int col_major, int64_t m, int64_t n, const void *c, int64_t ldc, const double *ref)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double d = gc_get(c, f64, col_major, ldc, i, j) - ref[i * n + j];
            num += d * d;
            den += ref[m * n + i * n + j] * ref[m * n + i * n + j];
        }
    return sqrt(num) / (den > 0 ? sqrt(den) : 1.0);
}

static double gc_bound(int f64, int64_t k)
{
    return 8.0 * sqrt((double)(k > 1 ? k : 1)) * (f64 ? ldexp(1.0, -53) : ldexp(1.0, -24));
}

/* A stored matrix of rows x cols with leading dimension ld, random (or value v if not NaN
 * requested: fill_nan). */
static void *gc_matrix(int f64, int col_major, int64_t rows, int64_t cols, int64_t ld, int fill_nan)
{
    int64_t count = (col_major ? cols : rows) * ld;
    size_t es = f64 ? 8 : 4;
    void *x = malloc(es * (count ? count : 1));
    for (int64_t i = 0; i < count; i++) {
        double v = fill_nan ? NAN : gc_random();
        if (f64) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
    return x;
}

#endif
