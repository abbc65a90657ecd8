/* epilogue.cu - a GEMM's epilogue on CUDA (src/epilogue.h): C = act(C + bias) over C as
 * stored, after the GEMM, on the same stream. A thread per 16-byte unit of a line: a line's
 * elements from its first 16-byte boundary on go in whole units (one load and one store
 * each), the few before it and after the last whole unit by the thread after the units';
 * a block covers 256 units of a line (blockIdx.x) and the grid's y strides over the lines
 * (gridDim.y <= 65535), as strassen_add.cu does. (A thread per element, 2 bytes at a time,
 * moved bf16 C at a quarter of the memory's speed.) The sum and the activation in fp32 (fp64 for f64 C),
 * rounded once into C. Compiled by NVRTC with -DMMT_C_TYPE=0|1|2|3|4|5 (C's type: f32, f64,
 * bf16, f16, e4m3, e5m2) and -DMMT_BIAS_C=0|1 (the bias in fp32, or in C's type). The entry,
 * and its use of mmt_gemm_params:
 *   mmt_epilogue  c, ldc: C; m: its lines (rows where row-major, columns where
 *                 column-major), n: the elements of a line; a: the bias, NULL for none;
 *                 trans_a: 1 where the bias is indexed by the line, 0 by the element;
 *                 trans_b: the activation (mmt_activation: 0 none, 1 ReLU, 2 GELU's tanh
 *                 form); FP8 C also: b, ldb: the GEMM's fp32 result S, in C's layout;
 *                 beta: C's weight; alpha: the scale. FP8 C = sat(alpha act(S + beta C +
 *                 bias)), a thread per element (the path of the calls before a kernel's
 *                 variant with the epilogue in its store is built), C rounded once. */
#ifndef MMT_C_TYPE
#define MMT_C_TYPE 0
#endif
#ifndef MMT_BIAS_C
#define MMT_BIAS_C 0
#endif
#if MMT_C_TYPE < 0 || MMT_C_TYPE > 5 || (MMT_C_TYPE >= 4 && MMT_BIAS_C)
#error "MMT_C_TYPE must be 0 (f32), 1 (f64), 2 (bf16), 3 (f16), 4 (e4m3) or 5 (e5m2, its bias fp32)"
#endif

typedef long long i64;

#include "mmt_params.h"

#if MMT_C_TYPE == 1
typedef double TC;
typedef double TA; /* the arithmetic's type */
#elif MMT_C_TYPE == 0
typedef float TC;
typedef float TA;
#elif MMT_C_TYPE <= 3
typedef unsigned short TC; /* bf16 or f16 bits */
typedef float TA;
#else
typedef unsigned char TC; /* FP8 bits */
typedef float TA;
#if MMT_C_TYPE == 4
#define C_F8 "e4m3"
#else
#define C_F8 "e5m2"
#endif
#include "mmt_fp8.h"
#endif
#if MMT_BIAS_C
typedef TC TB;
#else
typedef float TB;
#endif

__device__ __forceinline__ TA widen(TC v)
{
#if MMT_C_TYPE == 2
    return __uint_as_float((unsigned)v << 16);
#elif MMT_C_TYPE == 3
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(v));
    return f;
#else
    return v;
#endif
}

__device__ __forceinline__ TC narrow(TA v)
{
#if MMT_C_TYPE == 2
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#elif MMT_C_TYPE == 3
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#else
    return v;
#endif
}

__device__ __forceinline__ TA bias_value(TB b)
{
#if MMT_BIAS_C
    return widen(b);
#else
    return (TA)b;
#endif
}

/* GELU as a template's store computes it (mmt_fuse.h, in its names for C's type): by the
 * hardware's tanh for 16-bit C, by the fast exponential and division for fp32 C (the precise
 * division's slow path, taken by every large negative x whose exponential overflows, cost
 * more than the pass's memory traffic), in double precision for f64 C. */
#define MMT_OUT (MMT_C_TYPE == 1 ? 0 : MMT_C_TYPE)
#define MMT_DTYPE_F64 (MMT_C_TYPE == 1)
#define FUSE_T TA
#include "mmt_fuse.h"

__device__ __forceinline__ TA activate(int act, TA x)
{
    if (act == 1) return x < 0 ? (TA)0 : x; /* NaN stays NaN */
    return act == 2 ? gelu(x) : x;
}

#if MMT_C_TYPE <= 3
#define V (16 / (int)sizeof(TC)) /* elements of a 16-byte unit */

/* An element x of C made act(x + bias[at]) (bias NULL: none). */
__device__ __forceinline__ TC one(TC x, const TB *bias, i64 at, int act)
{
    TA v = widen(x);
    if (bias) v += bias_value(bias[at]);
    return narrow(activate(act, v));
}

extern "C" __global__ void mmt_epilogue(mmt_gemm_params p)
{
    TC *c = (TC *)p.c;
    const TB *bias = (const TB *)p.a;
    const int by_line = p.trans_a, act = p.trans_b;
    const i64 u = (i64)blockIdx.x * blockDim.x + threadIdx.x; /* this thread's unit of each line */
    for (i64 l = blockIdx.y; l < p.m; l += gridDim.y) {
        TC *const row = c + l * p.ldc;
        /* the elements before the line's first 16-byte boundary (C's elements are aligned to
         * their size), its whole units after them, the rest */
        const i64 to16 = (i64)((16 - (reinterpret_cast<unsigned long long>(row) & 15)) & 15) / (i64)sizeof(TC),
                  head = to16 < p.n ? to16 : p.n, units = (p.n - head) / V;
        if (u < units) {
            const i64 e0 = head + u * V;
            union {
                uint4 q;
                TC e[V];
            } x;
            x.q = *reinterpret_cast<const uint4 *>(row + e0);
#pragma unroll
            for (int i = 0; i < V; i++) x.e[i] = one(x.e[i], bias, by_line ? l : e0 + i, act);
            *reinterpret_cast<uint4 *>(row + e0) = x.q;
        } else if (u == units) {
            for (i64 e = 0; e < head; e++) row[e] = one(row[e], bias, by_line ? l : e, act);
            for (i64 e = head + units * V; e < p.n; e++) row[e] = one(row[e], bias, by_line ? l : e, act);
        }
    }
}
#else
extern "C" __global__ void mmt_epilogue(mmt_gemm_params p)
{
    TC *c = (TC *)p.c;
    const float *s = (const float *)p.b, *bias = (const float *)p.a;
    const float beta = (float)p.beta, scale = (float)p.alpha;
    const int by_line = p.trans_a, act = p.trans_b;
    const i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.n) return;
    for (i64 l = blockIdx.y; l < p.m; l += gridDim.y) {
        float v = s[l * p.ldb + e];
        if (beta != 0.0f) v = fmaf(beta, fp8_to_f32(c[l * p.ldc + e]), v); /* beta == 0: C is not read */
        if (bias) v += bias[by_line ? l : e];
        c[l * p.ldc + e] = (TC)fp8_pair(scale * activate(act, v), 0.0f);
    }
}
#endif
