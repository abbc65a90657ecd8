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
 *     loads of VL elements, in rounds of KC = 32 * VL * UK steps: each lane issues its UK * RW
 *     loads of X, the block stages Y's KC x S slice in shared memory (transposed: a lane
 *     reads its VL steps of a column in one 16-byte load, where it read VL * S elements
 *     through L1 before, which held 8192x16x8192 to 0.05x cuBLAS), then multiplies; the
 *     lanes' sums are added by a butterfly of shuffles;
 *   X_KC = 0, X contiguous along its rows ("axpy"): each thread takes VL consecutive rows
 *     (a warp 32 * VL, one 512-byte run of each row of X it reads); the block's K range is
 *     split among KW of its warps, UK steps of k at a time, all UK loads of X (and of Y's rows,
 *     the same for the whole warp: broadcasts) issued before the first product, so UK * 16
 *     bytes per thread are in flight; the KW warps' sums are added in shared memory in a
 *     fixed order. (One load in flight per thread and four warps per SM held the first
 *     version to a quarter of the bandwidth.)
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
 * 1), static shared memory only; RB = WARPS * RW rows (X_KC) or 32 * WARPS / KW * VL (not X_KC).
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
#ifndef KW
#define KW 1 /* not X_KC: warps of a block along K (their sums added in shared memory) */
#endif
#ifndef UK
#define UK 4 /* steps of k whose loads of X each thread issues before it multiplies */
#endif
#ifndef YSH
#define YSH 0 /* not X_KC: Y's rows read from shared memory, staged a round at a time (X_KC: always) */
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
#define RB_ (X_KC ? WARPS * RW : WARPS / KW * 32 * VL) /* rows of X per block */
#if defined(RB) && RB != RB_
#error "RB does not match the rows this instance gives a block"
#endif
#undef RB
#define RB RB_
#define KQ (X_KC ? 32 * VL : KW * UK) /* slices of K start at multiples of this */

#if SN < 1 || SN > 16 || RW < 1 || WARPS < 1 || WARPS > 32 || (VEC != 0 && VEC != 1) || (YSH != 0 && YSH != 1)
#error "SN is 1 to 16, RW and WARPS at least 1 (WARPS at most 32), VEC and YSH 0 or 1"
#endif
#if !X_KC && RW != 1
#error "RW is 1 where X runs along its rows"
#endif
#if KW < 1 || WARPS % KW != 0 || (X_KC && KW != 1) || UK < 1 || UK > 16
#error "KW divides WARPS (1 where X runs along K), UK is 1 to 16"
#endif
#if X_KC && SN * (32 * VL * UK + VL) * ELEM > 48 * 1024
#error "Y's staged slice (SN x 32 * VL * UK elements) exceeds 48 KiB of static shared memory"
#endif
#if SPLITK < 1 || (SERIAL != 0 && SERIAL != 1) || (SPLITK > 1 && !SERIAL && MMT_OUT >= 2)
#error "SPLITK >= 1, SERIAL 0 or 1; atomic split-K needs a 32- or 64-bit C"
#endif

#include "mmt_params.h"

/* mmt_gemm's check, for the host (mmt_params.h); VEC's 16-byte loads of X are taken where
 * a launch's X allows them, so they ask nothing */
#if SIDE == 0
MMT_NEEDS(ELEM, 1, 1, OP_A, OP_B, 0, SN);
#else
MMT_NEEDS(ELEM, 1, 1, OP_A, OP_B, SN, 0);
#endif

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

/* n elements as stored (n even for 16-bit types), widened: 16-bit ones a 32-bit word at a
 * time (for f16 one conversion of each half where a conversion of each element first
 * unpacked it into registers of its own, which spilled f16 16 wide along K). */
template <int N>
__device__ __forceinline__ void widen_all(TA (&out)[N], const TS (&in)[N])
{
#if MMT_MODE == 2 || MMT_MODE == 3
    static_assert(N % 2 == 0, "16-bit elements are widened in pairs");
    union {
        TS e[N];
        unsigned w[N / 2];
    } u;
#pragma unroll
    for (int i = 0; i < N; i++) u.e[i] = in[i];
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
#if MMT_MODE == 2
        out[2 * i] = __uint_as_float(u.w[i] << 16), out[2 * i + 1] = __uint_as_float(u.w[i] & 0xffff0000u);
#else
        asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %2;\ncvt.f32.f16 %0, lo;\ncvt.f32.f16 %1, hi;\n}"
            : "=f"(out[2 * i]), "=f"(out[2 * i + 1])
            : "r"(u.w[i]));
#endif
    }
#else
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = in[i];
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

/* ---- C ----------------------------------------------------------------------------------- */

__device__ __forceinline__ void c_write(const mmt_gemm_params &p, TC *cp, TA sum)
{
    const TA alpha = (TA)p.alpha, beta = (TA)p.beta;
    *cp = c_from(beta == TA(0) ? alpha * sum : fma(alpha, sum, beta * c_load(cp)));
}

#if SPLITK > 1 && SERIAL
/* The workspace: a counter per block (16-byte aligned), then each slice's partial sums,
 * [slice][block][s][row of the block]. */
__device__ __forceinline__ int *sk_counters(const mmt_gemm_params &p) { return static_cast<int *>(p.workspace); }
__device__ __forceinline__ TA *sk_part(const mmt_gemm_params &p, long long blocks)
{
    return reinterpret_cast<TA *>(static_cast<char *>(p.workspace) + (blocks + 3) / 4 * 16);
}
#endif

/* The block's sum for row r0 + rl of X and column s of Y (both inside the problem): written
 * into C, added into it atomically (split-K), or handed to the last slice (SERIAL). */
__device__ __forceinline__ void put_c(const mmt_gemm_params &p, const thin &t, TA sum, int rl, int s)
{
#if SPLITK > 1 && SERIAL
    (void)t;
    __stcg(sk_part(p, gridDim.x) + ((long long)blockIdx.z * gridDim.x + blockIdx.x) * (RB * SN) + s * RB + rl, sum);
#else
    TC *const cp = t.c + ((long long)blockIdx.x * RB + rl) * t.cr + s * t.cs;
#if SPLITK > 1
    atomicAdd(cp, (TA)p.alpha * sum);
#else
    c_write(p, cp, sum);
#endif
#endif
}

/* After the block's last put_c, every thread: for SERIAL split-K the last slice of the block
 * to arrive (a counter per block, zeroed by mmt_gemm_pre) adds the slices' sums in the order
 * of K and writes C, so no slice ever waits and every run gives the same bits. */
__device__ __forceinline__ void finish_block(const mmt_gemm_params &p, const thin &t)
{
#if SPLITK > 1 && SERIAL
    __threadfence();
    __syncthreads();
    __shared__ int last;
    if (threadIdx.x == 0) last = atomicAdd(sk_counters(p) + blockIdx.x, 1) == SPLITK - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const long long r0 = (long long)blockIdx.x * RB, stride = (long long)gridDim.x * RB * SN;
    const TA *const part = sk_part(p, gridDim.x) + (long long)blockIdx.x * RB * SN;
    for (int q = threadIdx.x; q < RB * SN; q += THREADS) {
        const int s = q / RB, rl = q % RB;
        if (s >= t.S || r0 + rl >= t.R) continue;
        TA sum = 0;
        for (int z = 0; z < SPLITK; z++) sum += __ldcg(part + z * stride + q);
        c_write(p, t.c + (r0 + rl) * t.cr + s * t.cs, sum);
    }
#else
    (void)p, (void)t;
#endif
}

/* ---- Y staged in shared memory ---------------------------------------------------------- */

/* Y(c + kk, s) for the NK steps of k from c (zero past kend and S) into ys[s * LD + kk] (T:
 * transposed) or ys[kk * SN + s]. Thread kk reads row kk of Y (consecutive threads consecutive
 * k: where Y runs along k its rows are read whole, and transposed stores meet no bank
 * conflict), up to 16 loads in flight before the stores (one at a time, each waited for, they
 * took most of a round). */
template <int NK, int LD, bool T>
__device__ __forceinline__ void stage_y(TS *ys, const thin &t, long long c, long long kend)
{
    constexpr int A = (NK + THREADS - 1) / THREADS, G = 16 / (SN * (ELEM == 8 ? 2 : 1)); /* rows: 16 registers */
    constexpr int AG = A < G ? A : G > 1 ? G : 1;
    constexpr bool WIDE = !T && SN * ELEM % 16 == 0; /* a row stored in 16-byte pieces */
#pragma unroll 1
    for (int a0 = 0; a0 < A; a0 += AG) {
        union {
            TS e[SN];
            uint4 v[(SN * ELEM + 15) / 16];
        } y[AG];
#pragma unroll
        for (int a = 0; a < AG; a++) {
            const int kk = threadIdx.x + (a0 + a) * THREADS;
            const bool in = a0 + a < A && kk < NK && c + kk < kend;
            const TS *yp = t.y + (c + kk) * t.yk; /* one of t.yk and t.ys is 1 */
#pragma unroll
            for (int s = 0; s < SN; s++) y[a].e[s] = in && s < t.S ? __ldg(yp + s * t.ys) : TS(0);
        }
#pragma unroll
        for (int a = 0; a < AG; a++) {
            const int kk = threadIdx.x + (a0 + a) * THREADS;
            if (a0 + a < A && kk < NK) {
                if (WIDE)
#pragma unroll
                    for (int w = 0; w < SN * ELEM / 16; w++) reinterpret_cast<uint4 *>(ys + kk * SN)[w] = y[a].v[w];
                else
#pragma unroll
                    for (int s = 0; s < SN; s++) ys[T ? s * LD + kk : kk * SN + s] = y[a].e[s];
            }
        }
    }
}

/* ---- X along K ------------------------------------------------------------------------ */

#if X_KC
#define KC (32 * VL * UK)          /* k per round: each lane UK loads of X's rows in flight */
#define KCP (KC + VL) /* a row of the staged Y, 16-byte aligned */

/* Step u's VL elements of each of the RW rows from k on: in one load (V: inside K, 16 bytes
 * where VEC), else element by element, zero past kend. */
template <bool V>
__device__ __forceinline__ void dot_load(TS (&x)[RW][VL], const TS *const (&xr)[RW], long long k, long long kend)
{
#pragma unroll
    for (int i = 0; i < RW; i++) {
        if (V && VEC) {
            union {
                uint4 v;
                TS e[VL];
            } w;
            w.v = __ldg(reinterpret_cast<const uint4 *>(xr[i] + k));
#pragma unroll
            for (int v = 0; v < VL; v++) x[i][v] = w.e[v];
        } else
#pragma unroll
            for (int v = 0; v < VL; v++) x[i][v] = V || k + v < kend ? __ldg(xr[i] + k + v) : TS(0);
    }
}

/* Step u's products: k = (u * 32 + lane) * VL + v of the round. */
__device__ __forceinline__ void dot_step(TA (&acc)[RW][SN], const TS (&x)[RW][VL], const TS (&ys)[SN][KCP], int u, int lane)
{
    TA xw[RW][VL];
#pragma unroll
    for (int i = 0; i < RW; i++) {
        if constexpr (VEC) widen_all(xw[i], x[i]);
        else xw[i][0] = widen(x[i][0]);
    }
    const int kk = (u * 32 + lane) * VL;
#pragma unroll
    for (int s = 0; s < SN; s++) { /* all SN: Y is zero past S, and no branch holds back the loads */
        union {
            uint4 v;
            TS e[VL];
        } y;
        TA yw[VL];
        if constexpr (VEC) y.v = *reinterpret_cast<const uint4 *>(&ys[s][kk]), widen_all(yw, y.e);
        else yw[0] = widen(ys[s][kk]);
#pragma unroll
        for (int v = 0; v < VL; v++)
#pragma unroll
            for (int i = 0; i < RW; i++) acc[i][s] = fma(xw[i][v], yw[v], acc[i][s]);
    }
}
#endif

/* ---- X along its rows ---------------------------------------------------------------------- */

#if !X_KC
/* nk (at most U) rows of X from xp on (VL elements of each, n of them inside: V, all of them
 * in one 16-byte load) times rows of Y from yp on, into acc. Every load of X is issued before
 * the first product: U * 16 bytes in flight per thread; of Y too where it is read from global
 * memory, while a row staged in shared memory (YS: SN elements a row, zero past K) is read
 * when it is used, in 16-byte broadcasts where its rows are whole 16 bytes. */
template <bool V, int U, bool YS>
__device__ __forceinline__ void axpy_step(TA (&acc)[VL][SN], const thin &t, const TS *xp, const TS *yp, int nk, int n)
{
    TS x[U][VL], y[U][SN]; /* as stored: bf16 and f16 widened at their use, in half the registers */
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (V && u < nk) {
            union {
                uint4 v;
                TS e[VL];
            } w;
            w.v = __ldg(reinterpret_cast<const uint4 *>(xp + u * t.xld));
#pragma unroll
            for (int v = 0; v < VL; v++) x[u][v] = w.e[v];
        } else {
#pragma unroll
            for (int v = 0; v < VL; v++) x[u][v] = u < nk && v < n ? __ldg(xp + u * t.xld + v) : TS(0);
        }
        if (!YS)
#pragma unroll
            for (int s = 0; s < SN; s++) y[u][s] = u < nk && s < t.S ? __ldg(yp + u * t.yk + s * t.ys) : TS(0);
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (YS) {
            if (SN * ELEM % 16 == 0)
#pragma unroll
                for (int w = 0; w < SN * ELEM / 16; w++) {
                    union {
                        uint4 v;
                        TS e[16 / ELEM];
                    } r;
                    r.v = reinterpret_cast<const uint4 *>(yp + u * SN)[w];
#pragma unroll
                    for (int e = 0; e < 16 / ELEM; e++) y[u][w * (16 / ELEM) + e] = r.e[e];
                }
            else
#pragma unroll
                for (int s = 0; s < SN; s++) y[u][s] = yp[u * SN + s];
        }
#pragma unroll
        for (int s = 0; s < SN; s++) {
            const TA ys = widen(y[u][s]);
#pragma unroll
            for (int v = 0; v < VL; v++) acc[v][s] = fma(widen(x[u][v]), ys, acc[v][s]);
        }
    }
}

/* This thread's rows rt.. (n of them) over k = k, k + KW * UK, ... below kend, UK at a time:
 * in one batch of loads where they are 16 bytes (V), else in batches of UK / VL steps (UK
 * elements), which keeps the element loads' registers and addresses to the 16-byte path's. */
template <bool V>
__device__ __forceinline__ void axpy_stream(TA (&acc)[VL][SN], const thin &t, long long rt, long long k,
                                            long long kend, int n)
{
    constexpr int U = V ? UK : UK <= VL ? 1 : UK / VL;
    const TS *xp = t.x + k * t.xld + rt, *yp = t.y + k * t.yk;
    const long long xstep = KW * UK * t.xld, ystep = KW * UK * t.yk;
    for (; k + UK <= kend; k += KW * UK, xp += xstep, yp += ystep)
#pragma unroll 1
        for (int j = 0; j < UK; j += U) axpy_step<V, U, false>(acc, t, xp + j * t.xld, yp + j * t.yk, U, n);
#pragma unroll 1
    for (int j = 0; k + j < kend; j += U)
        axpy_step<V, U, false>(acc, t, xp + j * t.xld, yp + j * t.yk, kend - k - j < U ? (int)(kend - k - j) : U, n);
}

#if YSH
/* Rounds of KCA steps of k: the block stages Y's rows for them in shared memory (JR batches
 * of UK steps a warp, at most 16 KiB), then each warp streams its batches of the round as
 * axpy_stream does, Y read from shared memory where it was read through L1 (with every row
 * of Y loaded before use, f32 16 wide took 203 registers: one block an SM). */
#define JR_ (KW * UK * SN * ELEM * 4 <= 16384 ? 4 : KW * UK * SN * ELEM * 2 <= 16384 ? 2 : 1)
#define KCA (KW * UK * JR_)

/* This warp's batches of the round, k = k0 + j * KW * UK, their rows of Y from ya on. */
template <bool V>
__device__ __forceinline__ void axpy_round(TA (&acc)[VL][SN], const thin &t, long long rt, long long k0,
                                           long long kend, int n, const TS *ya)
{
    constexpr int U = V ? UK : UK <= VL ? 1 : UK / VL;
#pragma unroll 1
    for (int j = 0; j < JR_; j++) {
        const long long k = k0 + j * KW * UK;
        const TS *const xp = t.x + k * t.xld + rt, *const yp = ya + j * KW * UK * SN;
#pragma unroll 1
        for (int i = 0; i < UK && k + i < kend; i += U)
            axpy_step<V, U, true>(acc, t, xp + i * t.xld, yp + i * SN, kend - k - i < U ? (int)(kend - k - i) : U, n);
    }
}
#endif

/* Column s of the shared-memory sums: a power of two no larger than SN, at most 16 KiB a round. */
__device__ constexpr int sums_per_round(int sn) { return sn > 1 && sn * THREADS * VL * (int)sizeof(TA) > 16384 ? sums_per_round(sn / 2) : sn; }
#endif

/* Blocks enough for 256 threads per SM at least, which leaves ptxas every register a
 * thread may have: without a minimum it aimed at more blocks and spilled words it then
 * reloaded inside the K loop. Where Y is staged in shared memory, 512 (128 registers): its
 * rounds wait at a barrier, and another block's loads keep memory busy meanwhile. */
#define MIN_THREADS_PER_SM (X_KC || YSH ? 512 : 256)
extern "C" __global__ void __launch_bounds__(THREADS, (MIN_THREADS_PER_SM + THREADS - 1) / THREADS)
    mmt_gemm(mmt_gemm_params p)
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
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

#if X_KC
    /* rows r0 + warp * RW + i of X (a row past R reads row 0, its sums never written), lanes
     * along k; rounds of KC, Y's slice for them staged in shared memory first */
    __shared__ __align__(16) TS ys[SN][KCP];
    TA acc[RW][SN];
#pragma unroll
    for (int i = 0; i < RW; i++)
#pragma unroll
        for (int s = 0; s < SN; s++) acc[i][s] = 0;
    const TS *xr[RW];
#pragma unroll
    for (int i = 0; i < RW; i++) {
        const long long r = r0 + warp * RW + i;
        xr[i] = t.x + (r < t.R ? r : 0) * t.xld;
    }
    /* whole rounds: every load of X issued before Y is staged (the same rounds for the whole block) */
    long long c = kbeg;
    if (!VEC || t.vec)
        for (; c + KC <= kend; c += KC) {
            TS x[UK][RW][VL];
#pragma unroll
            for (int u = 0; u < UK; u++) dot_load<true>(x[u], xr, c + (u * 32 + lane) * VL, kend);
            __syncthreads(); /* the last round's Y is read */
            stage_y<KC, KCP, true>(&ys[0][0], t, c, kend);
            __syncthreads();
#pragma unroll
            for (int u = 0; u < UK; u++) dot_step(acc, x[u], ys, u, lane);
        }
    /* the last part of a round, or X's rows not 16-byte aligned: element loads, a step at a time */
    for (; c < kend; c += KC) {
        __syncthreads();
        stage_y<KC, KCP, true>(&ys[0][0], t, c, kend);
        __syncthreads();
#pragma unroll 1
        for (int u = 0; u < UK; u++) {
            TS x[RW][VL];
            dot_load<false>(x, xr, c + (u * 32 + lane) * VL, kend);
            dot_step(acc, x, ys, u, lane);
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
#pragma unroll
    for (int j = 0; j < (RW * SN + 31) / 32; j++) {
        const int q = lane + 32 * j, i = q / SN < RW ? q / SN : RW - 1, s = q % SN;
        TA v = 0;
#pragma unroll
        for (int ii = 0; ii < RW; ii++)
#pragma unroll
            for (int ss = 0; ss < SN; ss++)
                if (ii == i && ss == s) v = acc[ii][ss]; /* registers, not a local array */
        if (q < RW * SN && s < t.S && r0 + warp * RW + i < t.R) put_c(p, t, v, warp * RW + i, s);
    }
#else
    /* Warp w takes the rows of row group w % RG (VL consecutive rows a thread) and the groups
     * of UK rows of X k = kbeg + (j * KW + w / RG) * UK, j = 0, 1, ...: the KW warps of a row
     * group stream one range of X together, each with UK loads of 16 bytes in flight. */
    constexpr int RG = WARPS / KW;
    const int kw = warp / RG, rl0 = ((warp % RG) * 32 + lane) * VL;
    const long long rt = r0 + rl0;
    const int n = t.R - rt >= VL ? VL : t.R - rt > 0 ? (int)(t.R - rt) : 0;
    TA acc[VL][SN];
#pragma unroll
    for (int v = 0; v < VL; v++)
#pragma unroll
        for (int s = 0; s < SN; s++) acc[v][s] = 0;
#if YSH
    __shared__ __align__(16) TS ya[KCA * SN];
    for (long long c = kbeg; c < kend; c += KCA) { /* the same rounds for the whole block */
        __syncthreads(); /* the last round's Y is read */
        stage_y<KCA, SN, false>(ya, t, c, kend);
        __syncthreads();
        if (n == VL && VEC && t.vec) axpy_round<true>(acc, t, rt, c + kw * UK, kend, n, ya + kw * UK * SN);
        else if (n > 0) axpy_round<false>(acc, t, rt, c + kw * UK, kend, n, ya + kw * UK * SN);
    }
#else
    if (n > 0) {
        if (VEC && t.vec && n == VL) axpy_stream<true>(acc, t, rt, kbeg + kw * UK, kend, n);
        else axpy_stream<false>(acc, t, rt, kbeg + kw * UK, kend, n);
    }
#endif
#if KW == 1
#pragma unroll
    for (int s = 0; s < SN; s++)
#pragma unroll
        for (int v = 0; v < VL; v++)
            if (v < n && s < t.S) put_c(p, t, acc[v][s], rl0 + v, s);
#else
    /* The KW warps' sums of each row, added in shared memory in the order of kw, SR columns
     * of Y a round; consecutive threads then hold consecutive rows. */
    constexpr int SR = sums_per_round(SN);
    __shared__ __align__(16) TA red[KW][SR][RB];
#pragma unroll
    for (int s0 = 0; s0 < SN; s0 += SR) {
        if (s0 >= t.S) break; /* the same for the whole block */
        if (s0) __syncthreads(); /* the last round's sums are read */
#pragma unroll
        for (int s = 0; s < SR; s++) {
            if (s0 + s >= SN) break;
            union {
                TA e[VL];
                uint4 v[(VL * sizeof(TA) + 15) / 16];
            } w;
#pragma unroll
            for (int v = 0; v < VL; v++) w.e[v] = acc[v][s0 + s];
            if ((VL * sizeof(TA)) % 16 == 0) /* whole 16-byte stores: no bank conflicts */
#pragma unroll
                for (int c = 0; c < VL * (int)sizeof(TA) / 16; c++) reinterpret_cast<uint4 *>(&red[kw][s][rl0])[c] = w.v[c];
            else
#pragma unroll
                for (int v = 0; v < VL; v++) red[kw][s][rl0 + v] = w.e[v];
        }
        __syncthreads();
        for (int q = threadIdx.x; q < SR * RB; q += THREADS) {
            const int s = q / RB, rl = q % RB;
            TA sum = 0;
#pragma unroll
            for (int w = 0; w < KW; w++) sum += red[w][s][rl];
            if (s0 + s < t.S && r0 + rl < t.R) put_c(p, t, sum, rl, s0 + s);
        }
    }
#endif
#endif
    finish_block(p, t);
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
