/* gemv.cu - thin GEMM (one side of C at most 16 wide: GEMV and its few-column kin) on CUDA
 * cores at memory bandwidth, the template of search_spaces/cuda_gemv.yaml.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major, M <= SN (SIDE 1) or N <= SN (SIDE 0),
 *                                             any K, any lda ldb ldc, the transposes the
 *                                             instance was built for, every precision mode.
 *
 * The large operand X is streamed once; the thin one Y (K x S, S <= SN) is small and read
 * through L1. SIDE 0: N is thin, X = op(A) (M x K), Y = op(B); SIDE 1: M is thin, X = op(B)^T
 * (N x K), Y = op(A)^T, and C is written transposed. R is X's row count, the long side of C.
 *
 * Two ways through X, by its orientation (fixed per instance):
 *   X_KC = 1, X contiguous along k ("dot"): each warp takes RW rows, its lanes walk k in
 *     loads of VL elements; the lanes' sums are added by a butterfly of shuffles;
 *   X_KC = 0, X contiguous along its rows ("axpy"): each thread takes VL consecutive rows
 *     and walks k, each step one load of its rows and the S elements of Y's row k (the same
 *     for the whole warp: one broadcast).
 * VEC = 1 loads VL = 16 / element size elements at a time where the pointer and the row pitch
 * of X allow it (checked once per launch), else one at a time. Products are summed in fp32
 * (fp64 for f64): bf16 and f16 are widened exactly; tf32 and f32x3 problems get plain fp32
 * products, at least as accurate as those modes promise. BLAS rules: beta == 0 -> C is not
 * read; alpha == 0 or K == 0 -> A and B are not read.
 *
 * Split-K (SPLITK > 1, the grid's z): SERIAL = 0 adds alpha * partial into C atomically
 * after mmt_gemm_pre applied beta (32- and 64-bit C only); SERIAL = 1 writes each slice's
 * partial sums to the workspace, and the last slice of a block to finish (a counter per
 * block, zeroed by mmt_gemm_pre) adds them in the order of K and writes C: the same bits on
 * every run, and no slice ever waits.
 *
 * Launch (the space's launch section): grid (ceil(R / RB), 1, SPLITK), block (32 * WARPS, 1,
 * 1), no shared memory; RB = WARPS * RW rows (X_KC) or 32 * WARPS * VL (not X_KC).
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17, sm_70+). */

/* ---- knobs ------------------------------------------------------------------------ */
#ifndef MMT_MODE
#define MMT_MODE 0 /* 0 f32, 1 f64, 2 bf16, 3 f16, 4 tf32, 5 f32x3 (src/problem.h's mmt_mode) */
#endif
#ifndef MMT_OUT
#define MMT_OUT (MMT_MODE == 1 ? 1 : 0) /* type of C: 0 f32, 1 f64, 2 bf16, 3 f16 */
#endif
#ifndef OP_A
#define OP_A 0 /* 1: A is transposed (stored K x M) */
#endif
#ifndef OP_B
#define OP_B 0 /* 1: B is transposed (stored N x K) */
#endif
#ifndef SIDE
#define SIDE 0 /* 0: N is the thin side; 1: M is */
#endif
#ifndef SN
#define SN 4 /* the thin side's largest size this instance serves (accumulators per row) */
#endif
#ifndef WARPS
#define WARPS 4 /* warps per block */
#endif
#ifndef RW
#define RW 1 /* X_KC: rows of X per warp */
#endif
#ifndef VEC
#define VEC 1 /* 1: 16-byte loads of X where its pointer and row pitch allow */
#endif
#ifndef SPLITK
#define SPLITK 1 /* slices of K (gridDim.z) */
#endif
#ifndef SERIAL
#define SERIAL 0 /* split-K: 0 atomicAdd into C, 1 summed in the order of K by the last slice */
#endif

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_MODE == 1
typedef double TS; /* A and B as stored */
typedef double TA; /* accumulation */
#define ELEM 8
#elif MMT_MODE == 2 || MMT_MODE == 3
typedef unsigned short TS; /* bf16 / f16 bit patterns */
typedef float TA;
#define ELEM 2
#elif MMT_MODE == 0 || MMT_MODE == 4 || MMT_MODE == 5
typedef float TS;
typedef float TA;
#define ELEM 4
#else
#error "MMT_MODE is 0 to 5"
#endif
#if MMT_OUT == 0
typedef float TC;
#elif MMT_OUT == 1 && MMT_MODE == 1
typedef double TC;
#elif (MMT_OUT == 2 || MMT_OUT == 3) && MMT_OUT == MMT_MODE
typedef unsigned short TC;
#else
#error "MMT_OUT is f32, f64 for f64 inputs, or the 16-bit input type"
#endif

#define THREADS_ (32 * WARPS)
#ifdef THREADS /* the space passes its derived THREADS: it must agree */
#if THREADS != THREADS_
#error "THREADS does not match 32 * WARPS"
#endif
#else
#define THREADS THREADS_
#endif
#define X_KC_ (SIDE ? OP_B : !OP_A) /* X contiguous along k */
#ifdef X_KC
#if X_KC != X_KC_
#error "X_KC does not match SIDE and the transposes"
#endif
#else
#define X_KC X_KC_
#endif
#define VL (VEC ? 16 / ELEM : 1) /* elements of X per load */
#define RB_ (X_KC ? WARPS * RW : THREADS * VL) /* rows of X per block */
#if defined(RB) && RB != RB_
#error "RB does not match the rows this instance gives a block"
#endif
#undef RB
#define RB RB_
#define KQ (X_KC ? 32 * VL : 8) /* slices of K start at multiples of this */

#if SN < 1 || SN > 16 || RW < 1 || WARPS < 1 || WARPS > 32 || (VEC != 0 && VEC != 1)
#error "SN is 1 to 16, RW and WARPS at least 1 (WARPS at most 32), VEC 0 or 1"
#endif
#if !X_KC && RW != 1
#error "RW is 1 where X runs along its rows"
#endif
#if SPLITK < 1 || (SERIAL != 0 && SERIAL != 1) || (SPLITK > 1 && !SERIAL && MMT_OUT >= 2)
#error "SPLITK >= 1, SERIAL 0 or 1; atomic split-K needs a 32- or 64-bit C"
#endif

/* The launch parameters; the same layout as mmt_gemm_params in src/backend.h. */
struct mmt_gemm_params {
    long long m, n, k;
    long long lda, ldb, ldc;
    int trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace;
    long long workspace_size;
};
static_assert(sizeof(mmt_gemm_params) == 112, "mmt_gemm_params must match src/backend.h");

/* ---- element types ----------------------------------------------------------------------- */

__device__ __forceinline__ TA widen(TS x)
{
#if MMT_MODE == 2
    return __uint_as_float((unsigned)x << 16);
#elif MMT_MODE == 3
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(x));
    return f;
#else
    return x;
#endif
}

__device__ __forceinline__ TA c_load(const TC *p)
{
#if MMT_OUT == 2
    return __uint_as_float((unsigned)*p << 16);
#elif MMT_OUT == 3
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(*p));
    return f;
#else
    return *p;
#endif
}

__device__ __forceinline__ TC c_from(TA v)
{
#if MMT_OUT == 2
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#elif MMT_OUT == 3
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#else
    return v;
#endif
}

/* VL elements of X from p (16-byte aligned where vec), widened; n of them inside (VL: all). */
__device__ __forceinline__ void load_x(TA (&x)[VL], const TS *p, bool vec, int n)
{
    if (VEC && vec && n == VL) {
        union {
            uint4 v;
            TS e[VL];
        } u;
        u.v = __ldg(reinterpret_cast<const uint4 *>(p));
#pragma unroll
        for (int v = 0; v < VL; v++) x[v] = widen(u.e[v]);
    } else {
#pragma unroll
        for (int v = 0; v < VL; v++) x[v] = v < n ? widen(__ldg(p + v)) : TA(0);
    }
}

/* ---- the problem as X, Y and the output -------------------------------------------------- */

struct thin {
    const TS *x, *y;
    TC *c;
    long long R, K, xld;   /* X(r, k) = x[X_KC ? r * xld + k : k * xld + r] */
    long long yk, ys;      /* Y(k, s) = y[k * yk + s * ys] */
    long long cr, cs;      /* out(r, s) = c[r * cr + s * cs] */
    int S;
    bool vec; /* 16-byte loads of X allowed */
};

__device__ __forceinline__ thin thin_of(const mmt_gemm_params &p)
{
    thin t;
    const TS *a = static_cast<const TS *>(p.a), *b = static_cast<const TS *>(p.b);
    t.c = static_cast<TC *>(p.c);
    t.K = p.k;
#if SIDE == 0
    t.R = p.m, t.S = (int)p.n;
    t.x = a, t.xld = p.lda;
    t.y = b, t.yk = OP_B ? 1 : p.ldb, t.ys = OP_B ? p.ldb : 1;
    t.cr = p.ldc, t.cs = 1;
#else
    t.R = p.n, t.S = (int)p.m;
    t.x = b, t.xld = p.ldb;
    t.y = a, t.yk = OP_A ? p.lda : 1, t.ys = OP_A ? 1 : p.lda;
    t.cr = 1, t.cs = p.ldc;
#endif
    t.vec = ((reinterpret_cast<unsigned long long>(t.x) | (unsigned long long)t.xld * sizeof(TS)) % 16) == 0;
    return t;
}

/* ---- split-K ----------------------------------------------------------------------------- */

#if SPLITK > 1 && SERIAL
/* The workspace: a counter per block (16-byte aligned), then each slice's partial sums,
 * [slice][block][row of the block][s]. */
__device__ __forceinline__ int *sk_counters(const mmt_gemm_params &p) { return static_cast<int *>(p.workspace); }
__device__ __forceinline__ TA *sk_part(const mmt_gemm_params &p, long long blocks)
{
    return reinterpret_cast<TA *>(static_cast<char *>(p.workspace) + (blocks + 3) / 4 * 16);
}
#endif

/* Ends a block's work on its values (row r of X at row rl of the block, column s of Y):
 * writes C, or for split-K adds into it or hands the partial sums on. n values per thread
 * in val, at (rl[i], s[i]); i < n holds where ok[i]. */
template <int N>
__device__ __forceinline__ void finish(const mmt_gemm_params &p, const thin &t, const TA (&val)[N],
                                       const int (&rl)[N], const int (&sv)[N], const bool (&ok)[N])
{
    const long long r0 = (long long)blockIdx.x * RB;
    const TA alpha = (TA)p.alpha, beta = (TA)p.beta;
#if SPLITK > 1 && SERIAL
    /* every slice writes its partial sums; the last to arrive adds them in the order of K */
    const long long blocks = gridDim.x;
    TA *const part = sk_part(p, blocks);
    const long long slot = (long long)blockIdx.x * RB * SN, stride = blocks * RB * SN;
#pragma unroll
    for (int i = 0; i < N; i++)
        if (ok[i]) __stcg(part + blockIdx.z * stride + slot + rl[i] * SN + sv[i], val[i]);
    __threadfence();
    __syncthreads();
    __shared__ int last;
    if (threadIdx.x == 0) last = atomicAdd(sk_counters(p) + blockIdx.x, 1) == SPLITK - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (!ok[i]) continue;
        TA sum = 0;
        for (int z = 0; z < SPLITK; z++) sum += __ldcg(part + z * stride + slot + rl[i] * SN + sv[i]);
        TC *const cp = t.c + (r0 + rl[i]) * t.cr + sv[i] * t.cs;
        *cp = c_from(beta == TA(0) ? alpha * sum : fma(alpha, sum, beta * c_load(cp)));
    }
#else
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (!ok[i]) continue;
        TC *const cp = t.c + (r0 + rl[i]) * t.cr + sv[i] * t.cs;
#if SPLITK > 1
        (void)beta;
        atomicAdd(cp, alpha * val[i]);
#else
        *cp = c_from(beta == TA(0) ? alpha * val[i] : fma(alpha, val[i], beta * c_load(cp)));
#endif
    }
#endif
}

/* Blocks enough for 256 threads per SM at least, which leaves ptxas every register a
 * thread may have: without a minimum it aimed at more blocks and spilled words it then
 * reloaded inside the K loop. */
extern "C" __global__ void __launch_bounds__(THREADS, (256 + THREADS - 1) / THREADS) mmt_gemm(mmt_gemm_params p)
{
    /* An instance is built for one pair of transposes and a thin side of at most SN: anything
     * else is a caller's bug, and a trap says so louder than a wrong answer. */
    const thin t = thin_of(p);
    if (p.trans_a != OP_A || p.trans_b != OP_B || t.S > SN) __trap();

    /* This slice's K range; alpha == 0 reads neither A nor B. */
    long long kbeg = 0, kend = t.K;
#if SPLITK > 1
    const long long chunk = ((t.K + SPLITK - 1) / SPLITK + KQ - 1) / KQ * KQ;
    kbeg = blockIdx.z * chunk;
    kend = kbeg + chunk < t.K ? kbeg + chunk : t.K;
    if (kbeg > kend) kbeg = kend;
#if !SERIAL
    if (kbeg == kend || p.alpha == 0.0) return; /* adds nothing; mmt_gemm_pre did beta * C */
#endif
#endif
    if (p.alpha == 0.0) kend = kbeg;
    const long long r0 = (long long)blockIdx.x * RB;

#if X_KC
    /* rows r0 + warp * RW + i of X, lanes along k */
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    TA acc[RW][SN];
#pragma unroll
    for (int i = 0; i < RW; i++)
#pragma unroll
        for (int s = 0; s < SN; s++) acc[i][s] = 0;
    const TS *xr[RW];
    bool rok[RW];
#pragma unroll
    for (int i = 0; i < RW; i++) {
        const long long r = r0 + warp * RW + i;
        rok[i] = r < t.R;
        xr[i] = t.x + (rok[i] ? r : 0) * t.xld;
    }
#pragma unroll 4 /* four loads of each row in flight */
    for (long long k = kbeg + lane * VL; k < kend; k += 32 * VL) {
        const int n = kend - k >= VL ? VL : (int)(kend - k);
        TA x[RW][VL];
#pragma unroll
        for (int i = 0; i < RW; i++) {
            if (rok[i]) load_x(x[i], xr[i] + k, t.vec, n);
            else
#pragma unroll
                for (int v = 0; v < VL; v++) x[i][v] = 0;
        }
#pragma unroll
        for (int v = 0; v < VL; v++) {
            if (v >= n) break;
            const TS *yrow = t.y + (k + v) * t.yk;
#pragma unroll
            for (int s = 0; s < SN; s++) {
                if (s >= t.S) break;
                const TA y = widen(__ldg(yrow + s * t.ys));
#pragma unroll
                for (int i = 0; i < RW; i++) acc[i][s] = fma(x[i][v], y, acc[i][s]);
            }
        }
    }
    /* the lanes' sums, added by a butterfly (every lane ends with the totals) */
#pragma unroll
    for (int i = 0; i < RW; i++)
#pragma unroll
        for (int s = 0; s < SN; s++)
#pragma unroll
            for (int o = 16; o > 0; o /= 2) acc[i][s] += __shfl_xor_sync(0xffffffffu, acc[i][s], o);
    /* lane q writes value q of the warp's RW x SN */
    constexpr int Q = (RW * SN + 31) / 32;
    TA val[Q];
    int rl[Q], sv[Q];
    bool ok[Q];
#pragma unroll
    for (int j = 0; j < Q; j++) {
        const int q = lane + 32 * j, i = q / SN < RW ? q / SN : RW - 1, s = q % SN;
        TA v = 0;
#pragma unroll
        for (int ii = 0; ii < RW; ii++)
#pragma unroll
            for (int ss = 0; ss < SN; ss++)
                if (ii == i && ss == s) v = acc[ii][ss]; /* registers, not a local array */
        val[j] = v, rl[j] = warp * RW + i, sv[j] = s;
        ok[j] = q < RW * SN && s < t.S && r0 + warp * RW + i < t.R;
    }
    finish(p, t, val, rl, sv, ok);
#else
    /* rows r0 + threadIdx.x * VL + v of X, each thread along k */
    TA acc[VL][SN];
#pragma unroll
    for (int v = 0; v < VL; v++)
#pragma unroll
        for (int s = 0; s < SN; s++) acc[v][s] = 0;
    const long long rt = r0 + (long long)threadIdx.x * VL;
    const int n = t.R - rt >= VL ? VL : t.R - rt > 0 ? (int)(t.R - rt) : 0;
    if (n > 0) {
        const TS *xp = t.x + kbeg * t.xld + rt;
        const TS *yrow = t.y + kbeg * t.yk;
#pragma unroll 4
        for (long long k = kbeg; k < kend; k++, xp += t.xld, yrow += t.yk) {
            TA x[VL];
            load_x(x, xp, t.vec, n);
#pragma unroll
            for (int s = 0; s < SN; s++) {
                if (s >= t.S) break;
                const TA y = widen(__ldg(yrow + s * t.ys));
#pragma unroll
                for (int v = 0; v < VL; v++) acc[v][s] = fma(x[v], y, acc[v][s]);
            }
        }
    }
    TA val[VL * SN];
    int rl[VL * SN], sv[VL * SN];
    bool ok[VL * SN];
#pragma unroll
    for (int v = 0; v < VL; v++)
#pragma unroll
        for (int s = 0; s < SN; s++) {
            const int j = s * VL + v; /* consecutive threads' stores of one s are consecutive rows */
            val[j] = acc[v][s], rl[j] = threadIdx.x * VL + v, sv[j] = s;
            ok[j] = v < n && s < t.S;
        }
    finish(p, t, val, rl, sv, ok);
#endif
}

#if SPLITK > 1
/* Before the kernel, any 1-D launch (the loops stride over the grid): for atomic split-K
 * C = beta * C over the output (beta == 0 writes zeros without reading), for the last
 * slice's sum the counters zeroed. */
extern "C" __global__ void mmt_gemm_pre(mmt_gemm_params p)
{
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const thin t = thin_of(p);
#if SERIAL
    const long long blocks = (t.R + RB - 1) / RB;
    if (p.workspace_size < (blocks + 3) / 4 * 16 + (long long)SPLITK * blocks * RB * SN * (long long)sizeof(TA))
        __trap(); /* the space's workspace expression sizes it */
    for (long long i = first; i < blocks; i += stride) sk_counters(p)[i] = 0;
#else
    if (p.beta == 1.0) return;
    for (long long x = first; x < t.R * t.S; x += stride) {
        TC *const cp = t.c + (x / t.S) * t.cr + (x % t.S) * t.cs;
        *cp = p.beta == 0.0 ? TC(0) : (TC)(p.beta * *cp);
    }
#endif
}
#endif
