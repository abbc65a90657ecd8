/* gemm_ref.cu - the naive reference GEMM that verification trusts (after BLIS's
 * ref_kernels and SGEMM_CUDA's 1_naive.cuh): obviously correct, not fast.
 *
 *   workspace[i * n + j] = sum_l op(A)[i][l] * op(B)[l][j]      (double, dense m x n)
 *
 * No alpha and no beta: the tuner applies them on the host in double. A and B are of the
 * type MMT_AB names (the mmt_dtype numbers: 0 float, 1 double, 2 bf16 bits, 3 f16 bits,
 * 4 e4m3 and 5 e5m2 bytes; MMT_B, B's where it is FP8 of the other kind;
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
 * With MMT_SCALED=1 (block-scaled FP8, mmtuned.h's mmt_gemm_scaled) each block of 128 along
 * K is summed so, then multiplied by its scales (exact in double: a product of two floats)
 * and added to the total in double-double; the scales' pointers follow mmt_gemm_params.
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

/* B's type where it differs from A's: FP8 of the other kind (the mmt_dtype numbers) */
#ifndef MMT_B
#define MMT_B MMT_AB
#endif
#if MMT_B != MMT_AB && !((MMT_AB == 4 || MMT_AB == 5) && (MMT_B == 4 || MMT_B == 5))
#error "MMT_B differs from MMT_AB for FP8 alone"
#endif

/* An FP8 code as a double, exactly: e4m3 (4 exponent bits, bias 7, 3 mantissa bits, no
 * infinities, S.1111.111 is NaN) or e5m2 (5 exponent bits, bias 15, 2 mantissa bits, IEEE's
 * infinities and NaNs). */
__device__ __forceinline__ double fp8_widen(unsigned char x, bool e5m2)
{
    if (e5m2) {
        const int e = (x >> 2) & 31, m = x & 3;
        const double v = e == 31 ? __longlong_as_double(m ? 0x7ff8000000000000LL : 0x7ff0000000000000LL)
                         : e     ? ldexp((double)(4 + m), e - 17)
                                 : ldexp((double)m, -16);
        return x & 0x80 ? -v : v;
    }
    const int e = (x >> 3) & 15, m = x & 7;
    const double v = e == 15 && m == 7 ? __longlong_as_double(0x7ff8000000000000LL)
                     : e                ? ldexp((double)(8 + m), e - 10)
                                        : ldexp((double)m, -9);
    return x & 0x80 ? -v : v;
}

/* One stored element of A (of B: widen_b) as a double, exactly. */
__device__ __forceinline__ double widen(T x)
{
#if MMT_AB == 2
    return (double)__uint_as_float((unsigned)x << 16);
#elif MMT_AB == 3
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x)); /* exact: f32 holds every f16 */
    return (double)f;
#elif MMT_AB == 4 || MMT_AB == 5
    return fp8_widen(x, MMT_AB == 5);
#else
    return (double)x;
#endif
}

__device__ __forceinline__ double widen_b(T x)
{
#if MMT_B != MMT_AB
    return fp8_widen(x, MMT_B == 5);
#else
    return widen(x);
#endif
}

/* hi + lo += x * y, exactly but for lo's rounding: TwoProduct and TwoSum (explicit _rn
 * intrinsics: the compiler must not contract these into other fmas). */
__device__ __forceinline__ void add_product(double &hi, double &lo, double x, double y)
{
    const double prod = __dmul_rn(x, y);
    const double prod_err = fma(x, y, -prod);
    const double s = __dadd_rn(hi, prod);
    const double bb = __dsub_rn(s, hi);
    const double sum_err = __dadd_rn(__dsub_rn(hi, __dsub_rn(s, bb)), __dsub_rn(prod, bb));
    hi = s;
    lo = __dadd_rn(lo, __dadd_rn(sum_err, prod_err));
}

#ifndef MMT_SCALED
#define MMT_SCALED 0
#endif
#if MMT_SCALED
struct mmt_ref_params {
    mmt_gemm_params p;
    const float *scale_a, *scale_b; /* scale_a[kb * m + i], scale_b[(j / 128) * ceil(k / 128) + kb] */
};
extern "C" __global__ void mmt_gemm_ref64(mmt_ref_params rp)
{
    const mmt_gemm_params &p = rp.p;
#else
extern "C" __global__ void mmt_gemm_ref64(mmt_gemm_params p)
{
#endif
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= p.m || j >= p.n) return;
    const T *a = static_cast<const T *>(p.a);
    const T *b = static_cast<const T *>(p.b);
    double hi = 0.0, lo = 0.0;
#if MMT_SCALED
    const long long kbs = (p.k + 127) / 128;
    for (long long kb = 0; kb < kbs; kb++) {
        double bhi = 0.0, blo = 0.0;
        for (long long l = kb * 128; l < p.k && l < kb * 128 + 128; l++)
            add_product(bhi, blo, widen(p.trans_a ? a[l * p.lda + i] : a[i * p.lda + l]),
                        widen_b(p.trans_b ? b[j * p.ldb + l] : b[l * p.ldb + j]));
        const double f = __dmul_rn((double)rp.scale_a[kb * p.m + i], (double)rp.scale_b[(j / 128) * kbs + kb]);
        add_product(hi, lo, f, bhi);
        lo = fma(f, blo, lo);
    }
#else
    for (long long l = 0; l < p.k; l++)
        add_product(hi, lo, widen(p.trans_a ? a[l * p.lda + i] : a[i * p.lda + l]),
                    widen_b(p.trans_b ? b[j * p.ldb + l] : b[l * p.ldb + j]));
#endif
    static_cast<double *>(p.workspace)[i * p.n + j] = __dadd_rn(hi, lo);
}
