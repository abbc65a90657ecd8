/* strassen_add.c - the additions of a Strassen-Winograd level (src/strassen.h) on the CPU:
 * plain C loops over rows that the compiler vectorises (the backend compiles with -O3
 * -march=native), rows shared among OpenMP threads where a pass is large enough to pay for
 * waking them. Each pass reads its operands once. Compiled with -DMMT_DTYPE_F64=0|1.
 *
 * Every entry takes mmt_gemm_params, used as follows, and returns 0:
 *   mmt_strassen_split_a  S1..S4 from op(A)'s quadrants. a, lda, trans_a: the operand as
 *                         stored; m x n: the size of one quadrant of op(X); c: S1, with S2,
 *                         S3, S4 every k elements after it, each dense in the operand's
 *                         orientation (n x m transposed)
 *   mmt_strassen_split_b  T1..T4 from op(B)'s quadrants, likewise
 *   mmt_strassen_acc      c += alpha a (m x n, lda, ldc), and b += alpha a (ld ldc) where b
 *                         is not NULL
 *   mmt_strassen_u3       with P = a (lda), Q = b (ldb) and C's quadrants of m x n from c
 *                         (ldc): C12 = alpha P + beta C12, C21 = alpha (P + Q) + beta C21,
 *                         C22 = alpha (P + Q) + beta C22; beta == 0 reads no C */
#include <stdint.h>

#ifndef MMT_DTYPE_F64
#define MMT_DTYPE_F64 0 // 1: double, 0: float
#endif
#if MMT_DTYPE_F64
typedef double T;
#else
typedef float T;
#endif

#define PAR_MIN (1 << 16) /* elements below which one thread does a pass */

typedef struct mmt_gemm_params { /* keep in step with src/backend.h */
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int32_t trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace;
    int64_t workspace_size;
} mmt_gemm_params;

/* The four quadrants of op(X) as stored blocks of rows x cols (X's own orientation). */
static void split(const mmt_gemm_params *p, int b_side)
{
    const T *x = p->a;
    const int64_t ld = p->lda, m = p->m, n = p->n, stride = p->k;
    const int tr = p->trans_a != 0;
    const int64_t rows = tr ? n : m, cols = tr ? m : n;
    const T *q11 = x, *q12 = x + (tr ? n * ld : n), *q21 = x + (tr ? m : m * ld), *q22 = x + (tr ? n * ld + m : m * ld + n);
    T *o1 = p->c, *o2 = o1 + stride, *o3 = o2 + stride, *o4 = o3 + stride;
#pragma omp parallel for schedule(static) if (rows * cols >= PAR_MIN)
    for (int64_t i = 0; i < rows; i++) {
        const T *x11 = q11 + i * ld, *x12 = q12 + i * ld, *x21 = q21 + i * ld, *x22 = q22 + i * ld;
        T *r1 = o1 + i * cols, *r2 = o2 + i * cols, *r3 = o3 + i * cols, *r4 = o4 + i * cols;
        if (!b_side) { /* S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2 */
#pragma omp simd
            for (int64_t j = 0; j < cols; j++) {
                const T s1 = x21[j] + x22[j], s2 = s1 - x11[j];
                r1[j] = s1;
                r2[j] = s2;
                r3[j] = x11[j] - x21[j];
                r4[j] = x12[j] - s2;
            }
        } else { /* T1 = B12 - B11, T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21 */
#pragma omp simd
            for (int64_t j = 0; j < cols; j++) {
                const T t1 = x12[j] - x11[j], t2 = x22[j] - t1;
                r1[j] = t1;
                r2[j] = t2;
                r3[j] = x22[j] - x12[j];
                r4[j] = t2 - x21[j];
            }
        }
    }
}

int mmt_strassen_split_a(const mmt_gemm_params *p)
{
    split(p, 0);
    return 0;
}

int mmt_strassen_split_b(const mmt_gemm_params *p)
{
    split(p, 1);
    return 0;
}

int mmt_strassen_acc(const mmt_gemm_params *p)
{
    const int64_t m = p->m, n = p->n, lda = p->lda, ldc = p->ldc;
    const T alpha = (T)p->alpha, *q = p->a;
    T *d1 = p->c, *d2 = (T *)p->b;
#pragma omp parallel for schedule(static) if (m * n >= PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        const T *qi = q + i * lda;
        T *c1 = d1 + i * ldc;
#pragma omp simd
        for (int64_t j = 0; j < n; j++) c1[j] += alpha * qi[j];
        if (d2) {
            T *c2 = d2 + i * ldc;
#pragma omp simd
            for (int64_t j = 0; j < n; j++) c2[j] += alpha * qi[j];
        }
    }
    return 0;
}

int mmt_strassen_u3(const mmt_gemm_params *p)
{
    const int64_t m = p->m, n = p->n, lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    const T alpha = (T)p->alpha, beta = (T)p->beta, *pp = p->a, *qq = p->b;
    T *c12 = (T *)p->c + n, *c21 = (T *)p->c + m * ldc, *c22 = c21 + n;
#pragma omp parallel for schedule(static) if (m * n >= PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        const T *pi = pp + i * lda, *qi = qq + i * ldb;
        T *r12 = c12 + i * ldc, *r21 = c21 + i * ldc, *r22 = c22 + i * ldc;
        if (beta == 0) {
#pragma omp simd
            for (int64_t j = 0; j < n; j++) {
                const T u3 = pi[j] + qi[j];
                r12[j] = alpha * pi[j];
                r21[j] = alpha * u3;
                r22[j] = alpha * u3;
            }
        } else {
#pragma omp simd
            for (int64_t j = 0; j < n; j++) {
                const T u3 = pi[j] + qi[j];
                r12[j] = alpha * pi[j] + beta * r12[j];
                r21[j] = alpha * u3 + beta * r21[j];
                r22[j] = alpha * u3 + beta * r22[j];
            }
        }
    }
    return 0;
}
