/* mmt_fuse.h - a GEMM's epilogue in a template's store (src/fused.h), and GELU for
 * epilogue.cu's kernel after the GEMM, spliced in where included: the bias of C's element
 * (row, col) of a C of rows x cols and the activation, for the template's EPI_BIAS (1 a bias
 * per row, 2 per column), EPI_ACT (1 ReLU, 2 GELU's tanh form), BIAS_C (the bias in C's
 * type: MMT_OUT 2 bf16, 3 f16, or with MMT_DTYPE_F64 double; else fp32), in FUSE_T (fp32
 * unless the template says; C is rounded once, after). The bias's index is clamped into it:
 * a value past C's edge is not stored, and loads free of conditions go out together rather
 * than one latency after another; in 32 bits (C's sides are). GELU, 0.5 x (1 + tanh(u)),
 * u = sqrt(2/pi) (x + 0.044715 x^3): into 16-bit C by the hardware's tanh (relative error
 * about 2^-11, below C's rounding); into fp32 C as x sigmoid(2 u) by the fast exponential
 * and division (about 2^-21); into f64 C the same in double precision. */
#ifndef FUSE_T
#define FUSE_T float
#endif
__device__ __forceinline__ FUSE_T bias_at(const void *bias, long long row, long long col, long long rows,
                                          long long cols)
{
#if EPI_BIAS
    const int i = EPI_BIAS == 1 ? min((int)row, (int)rows - 1) : min((int)col, (int)cols - 1);
#if BIAS_C && MMT_OUT == 2
    return __uint_as_float((unsigned)__ldg(static_cast<const unsigned short *>(bias) + i) << 16);
#elif BIAS_C && MMT_OUT == 3
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(__ldg(static_cast<const unsigned short *>(bias) + i)));
    return f;
#elif BIAS_C
    return __ldg(static_cast<const FUSE_T *>(bias) + i);
#else
    return __ldg(static_cast<const float *>(bias) + i);
#endif
#else
    (void)bias, (void)row, (void)col, (void)rows, (void)cols;
    return 0;
#endif
}

__device__ __forceinline__ FUSE_T gelu(FUSE_T v)
{
#if MMT_DTYPE_F64
    return v / (1 + exp(-1.5957691216057308 * (v + 0.044715 * v * v * v))); /* x / inf = -0 */
#elif MMT_OUT == 0
    return __fdividef(v, 1.0f + __expf(-1.5957691216057308f * (v + 0.044715f * v * v * v)));
#else
    float t;
    asm("tanh.approx.f32 %0, %1;\n" : "=f"(t) : "f"(v * fmaf(0.035677408136300125f, v * v, 0.7978845608028654f)));
    const float h = 0.5f * v;
    return fmaf(h, t, h);
#endif
}

__device__ __forceinline__ FUSE_T activate(FUSE_T v)
{
#if EPI_ACT == 1
    v = v < 0 ? (FUSE_T)0 : v; /* NaN stays NaN */
#elif EPI_ACT == 2
    v = gelu(v);
#endif
    return v;
}

__device__ __forceinline__ FUSE_T fuse(FUSE_T v, const void *bias, long long row, long long col, long long rows,
                                       long long cols)
{
    return activate(v + bias_at(bias, row, col, rows, cols));
}
