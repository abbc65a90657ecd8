/* strassen_add.cu - the additions of a Strassen-Winograd level (src/strassen.h) on CUDA:
 * fused element-wise kernels, each reading its operands once. One thread per element: a
 * block covers 256 columns of a row (blockIdx.x) and the grid's rows stride over the
 * matrix's (blockIdx.y, gridDim.y <= 65535), so no thread divides. Compiled by NVRTC with
 * -DMMT_DTYPE_F64=0|1; the entries and their use of mmt_gemm_params are those of
 * templates/cpu/strassen_add.c:
 *   mmt_strassen_split_a  S1..S4 from op(A)'s quadrants (a, lda, trans_a: the operand as
 *                         stored; m x n: one quadrant of op(X); c: S1, S2, S3, S4 every k
 *                         elements, each dense in the operand's orientation)
 *   mmt_strassen_split_b  T1..T4 from op(B)'s quadrants
 *   mmt_strassen_acc      c += alpha a, and b += alpha a (ld ldc) where b is not NULL
 *   mmt_strassen_u3       C12 = alpha P + beta C12, C21 and C22 = alpha (P + Q) + beta C
 *                         (P = a, Q = b, C's quadrants of m x n from c); beta == 0 reads no C */
#ifndef MMT_DTYPE_F64
#define MMT_DTYPE_F64 0 // 1: double, 0: float
#endif
#if MMT_DTYPE_F64
typedef double T;
#else
typedef float T;
#endif

typedef long long i64;

#include "mmt_params.h"

/* The four quadrants of op(X) as stored blocks of rows x cols (X's own orientation). */
__device__ __forceinline__ void split(const mmt_gemm_params &p, bool b_side)
{
    const T *x = (const T *)p.a;
    const i64 ld = p.lda, m = p.m, n = p.n, stride = p.k;
    const bool tr = p.trans_a != 0;
    const i64 rows = tr ? n : m, cols = tr ? m : n;
    const i64 o12 = tr ? n * ld : n, o21 = tr ? m : m * ld;
    T *out = (T *)p.c;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    for (i64 i = blockIdx.y; i < rows; i += gridDim.y) {
        const T *x11 = x + i * ld + j;
        const T a11 = x11[0], a12 = x11[o12], a21 = x11[o21], a22 = x11[o12 + o21];
        T *r = out + i * cols + j;
        if (!b_side) { /* S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2 */
            const T s1 = a21 + a22, s2 = s1 - a11;
            r[0] = s1;
            r[stride] = s2;
            r[2 * stride] = a11 - a21;
            r[3 * stride] = a12 - s2;
        } else { /* T1 = B12 - B11, T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21 */
            const T t1 = a12 - a11, t2 = a22 - t1;
            r[0] = t1;
            r[stride] = t2;
            r[2 * stride] = a22 - a12;
            r[3 * stride] = t2 - a21;
        }
    }
}

extern "C" __global__ void mmt_strassen_split_a(mmt_gemm_params p) { split(p, false); }

extern "C" __global__ void mmt_strassen_split_b(mmt_gemm_params p) { split(p, true); }

extern "C" __global__ void mmt_strassen_acc(mmt_gemm_params p)
{
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p.n) return;
    const T alpha = (T)p.alpha, *q = (const T *)p.a;
    T *d1 = (T *)p.c, *d2 = (T *)p.b;
    for (i64 i = blockIdx.y; i < p.m; i += gridDim.y) {
        const T v = alpha * q[i * p.lda + j];
        d1[i * p.ldc + j] += v;
        if (d2) d2[i * p.ldc + j] += v;
    }
}

extern "C" __global__ void mmt_strassen_u3(mmt_gemm_params p)
{
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p.n) return;
    const T alpha = (T)p.alpha, beta = (T)p.beta, *pp = (const T *)p.a, *qq = (const T *)p.b;
    T *c12 = (T *)p.c + p.n, *c21 = (T *)p.c + p.m * p.ldc, *c22 = c21 + p.n;
    for (i64 i = blockIdx.y; i < p.m; i += gridDim.y) {
        const T pv = pp[i * p.lda + j], u3 = pv + qq[i * p.ldb + j];
        const i64 at = i * p.ldc + j;
        if (beta == T(0)) {
            c12[at] = alpha * pv;
            c21[at] = alpha * u3;
            c22[at] = alpha * u3;
        } else {
            c12[at] = alpha * pv + beta * c12[at];
            c21[at] = alpha * u3 + beta * c21[at];
            c22[at] = alpha * u3 + beta * c22[at];
        }
    }
}
