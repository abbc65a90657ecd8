/* gemm_ref.cu - the naive reference GEMM that verification trusts (after BLIS's
 * ref_kernels and SGEMM_CUDA's 1_naive.cuh): obviously correct, not fast.
 *
 *   workspace[i * n + j] = sum_l op(A)[i][l] * op(B)[l][j]      (double, dense m x n)
 *
 * No alpha and no beta: the tuner applies them on the host in double. A and B are of the
 * type MMT_AB names (the mmt_dtype numbers: 0 float, 1 double, 2 bf16 bits, 3 f16 bits,
 * 4 e4m3 and 5 e5m2 bytes;
 * the older spelling MMT_DTYPE_F64=0|1 still selects float or double), row-major with lda
 * / ldb and the transposes of mmt_gemm_params. Every element is widened to double exactly
 * (a bf16 is the top half of a float; an f16 converts exactly to float), every product is
 * formed exactly (TwoProduct through fma; products of floats and narrower types are
 * already exact in double) and summed in double-double (TwoSum), so the result is
 * faithful to about 2^-100 relative to the sum of |products| whatever K is: far below the
 * error of any kernel. A tf32 or f32x3 problem's reference is that of its f32 inputs as
 * stored: what the kernel loses by rounding them is its own error. p.workspace must hold
 * m * n doubles.
 *
 * Launch: block (16, 16, 1), grid (ceil(n / 16), ceil(m / 16), 1), no shared memory.
 * Entry: extern "C" __global__ void mmt_gemm_ref64(mmt_gemm_params p). There is no search
 * space for it: the tuner compiles it directly. NVRTC, no headers. */

#ifndef MMT_AB
#if defined(MMT_DTYPE_F64) && MMT_DTYPE_F64
#define MMT_AB 1
#else
#define MMT_AB 0
#endif
#endif

#if MMT_AB == 0
typedef float T;
#elif MMT_AB == 1
typedef double T;
#elif MMT_AB == 2 || MMT_AB == 3
typedef unsigned short T; /* the bit pattern */
#elif MMT_AB == 4 || MMT_AB == 5
typedef unsigned char T; /* the bit pattern */
#else
#error "MMT_AB must be 0 (float), 1 (double), 2 (bf16), 3 (f16), 4 (e4m3) or 5 (e5m2)"
#endif

#include "mmt_params.h"

/* One stored element as a double, exactly. */
__device__ __forceinline__ double widen(T x)
{
#if MMT_AB == 2
    return (double)__uint_as_float((unsigned)x << 16);
#elif MMT_AB == 3
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x)); /* exact: f32 holds every f16 */
    return (double)f;
#elif MMT_AB == 4 /* 4 exponent bits (bias 7), 3 mantissa bits; no infinities, S.1111.111 is NaN */
    const int e = (x >> 3) & 15, m = x & 7;
    const double v = e == 15 && m == 7 ? __longlong_as_double(0x7ff8000000000000LL)
                     : e                ? ldexp((double)(8 + m), e - 10)
                                        : ldexp((double)m, -9);
    return x & 0x80 ? -v : v;
#elif MMT_AB == 5 /* 5 exponent bits (bias 15), 2 mantissa bits, IEEE's infinities and NaNs */
    const int e = (x >> 2) & 31, m = x & 3;
    const double v = e == 31 ? __longlong_as_double(m ? 0x7ff8000000000000LL : 0x7ff0000000000000LL)
                     : e     ? ldexp((double)(4 + m), e - 17)
                             : ldexp((double)m, -16);
    return x & 0x80 ? -v : v;
#else
    return (double)x;
#endif
}

extern "C" __global__ void mmt_gemm_ref64(mmt_gemm_params p)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= p.m || j >= p.n) return;
    const T *a = static_cast<const T *>(p.a);
    const T *b = static_cast<const T *>(p.b);
    double hi = 0.0, lo = 0.0;
    for (long long l = 0; l < p.k; l++) {
        const double x = widen(p.trans_a ? a[l * p.lda + i] : a[i * p.lda + l]);
        const double y = widen(p.trans_b ? b[j * p.ldb + l] : b[l * p.ldb + j]);
        /* explicit _rn intrinsics: the compiler must not contract these into other fmas */
        const double prod = __dmul_rn(x, y);
        const double prod_err = fma(x, y, -prod);           /* TwoProduct: x * y == prod + prod_err */
        const double s = __dadd_rn(hi, prod);                /* TwoSum: hi + prod == s + sum_err */
        const double bb = __dsub_rn(s, hi);
        const double sum_err = __dadd_rn(__dsub_rn(hi, __dsub_rn(s, bb)), __dsub_rn(prod, bb));
        hi = s;
        lo = __dadd_rn(lo, __dadd_rn(sum_err, prod_err));
    }
    static_cast<double *>(p.workspace)[i * p.n + j] = __dadd_rn(hi, lo);
}
