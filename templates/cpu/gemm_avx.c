/* gemm_avx.c - fp32 / fp64 packed GEMM for x86 CPUs (the Goto / BLIS scheme), one
 * template for scalar C, AVX2+FMA and AVX-512.
 *
 * C = alpha op(A) op(B) + beta C on the row-major problem, op = transpose when
 * trans_a / trans_b; any M N K (0 included), any leading dimensions. BLAS rules: beta == 0
 * means C is not read (NaN in C does not propagate); alpha == 0 or K == 0 means A and B
 * are not read.
 *
 * Loops, outermost first (BLIS names):
 *   jc  over N in NC columns          B block KC x NC packed into NR-column panels (L3)
 *   pc  over K in KC                  A block MC x KC packed into MR-row panels (L2)
 *   ic  over M in MC rows
 *   jr  over NC in NR                 one B micro-panel KC x NR stays in L1
 *   ir  over MC in MR                 micro-kernel: MR x NR tile of C in registers
 * Transposes are absorbed by the packing; edge tiles are zero-padded in the packed
 * buffers and written back through a partial store, so the micro-kernel has one shape.
 * PAR=3 (small problems) leaves the loops and the packing out where B is not transposed:
 * the whole register blocks read A and B in place over all of K, the edge ones are packed
 * (with a transposed B it runs as PAR=1).
 *
 * Compiled by the CPU backend: cc -O3 -march=native -fPIC -shared -fopenmp -std=gnu11
 * -DNAME=VALUE ... (every knob below plus MMT_DTYPE_F64). Entry: mmt_gemm. */
#include <dlfcn.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* ---- knobs ------------------------------------------------------------------------- */
#ifndef MMT_DTYPE_F64
#define MMT_DTYPE_F64 0 // 1: double, 0: float
#endif
#ifndef ISA
#define ISA 1 // instruction set of the micro-kernel: 0 scalar C, 1 AVX2+FMA, 2 AVX-512F
#endif
#ifndef MR
#define MR 6 // rows of the register block (micro-tile height)
#endif
#ifndef NV
#define NV 2 // SIMD vectors across the register block: NR = NV * VW columns
#endif
#ifndef MC
#define MC 96 // rows of the packed A block (kept in L2); a multiple of MR
#endif
#ifndef KC
#define KC 256 // depth of the packed A and B blocks (a B micro-panel KC x NR in L1)
#endif
#ifndef NC
#define NC 4096 // columns of the packed B block (kept in L3); used rounded down to NR
#endif
#ifndef PAR
#define PAR 1 // parallel loop: 0 = split M (ic loop, B block packed by all threads together),
              //                1 = split N (jc loop, each thread packs its own A and B),
              //                2 = split both (a grid of threads, each packing its own A and B),
              //                3 = in place (small problems: no packing where B is not
              //                    transposed, row blocks split; else as 1)
#endif
#ifndef THREADS
#define THREADS 0 // 0: omp_get_max_threads(), n > 0: at most n threads
#endif
#ifndef EPI_BIAS
#define EPI_BIAS 0 // not a knob: a bias added to C's values before the activation (mmt_fused_params): 1 one
                   // per row of C, 2 one per column
#endif
#ifndef EPI_ACT
#define EPI_ACT 0 // not a knob: the activation of C's values: 1 ReLU, 2 GELU's tanh form
#endif
#ifndef BIAS_C
#define BIAS_C 0 // not a knob: the bias in C's type (f64 C), else fp32
#endif
#define FUSED (EPI_BIAS || EPI_ACT) // an epilogue in the store (mmt_gemm_epilogue)

/* ---- derived ----------------------------------------------------------------------- */
#if MMT_DTYPE_F64
typedef double T;
#else
typedef float T;
#endif
#define ELEM_BYTES ((int)sizeof(T))
/* the element size as a literal, for the preprocessor checks below */
#if MMT_DTYPE_F64
#define ELEM_BYTES_PP 8
#else
#define ELEM_BYTES_PP 4
#endif

#if ISA == 2
#if !defined(__AVX512F__)
#error "ISA=2 (AVX-512) but the compiler does not target AVX-512F (-march)"
#endif
#define VW_ISA (64 / ELEM_BYTES_PP) // elements per vector
#elif ISA == 1
#if !defined(__AVX2__) || !defined(__FMA__)
#error "ISA=1 (AVX2+FMA) but the compiler does not target AVX2 and FMA (-march)"
#endif
#define VW_ISA (32 / ELEM_BYTES_PP)
#elif ISA == 0
#define VW_ISA 1
#else
#error "ISA must be 0 (scalar), 1 (AVX2) or 2 (AVX-512)"
#endif

/* The search space passes its derived VW and NR too; they must agree. */
#ifndef VW
#define VW VW_ISA // elements per SIMD vector
#elif VW != VW_ISA
#error "VW does not match ISA and the element size"
#endif
#ifndef NR
#define NR (NV * VW) // columns of the register block
#elif NR != NV * VW
#error "NR must be NV * VW"
#endif

#if MR < 1 || NV < 1
#error "MR and NV must be at least 1"
#endif
#if ISA == 2 && MR * NV + NV + 1 > 32
#error "MR x NV accumulators, NV B vectors and a broadcast do not fit in 32 zmm registers"
#endif
#if ISA == 1 && MR * NV + NV + 1 > 16
#error "MR x NV accumulators, NV B vectors and a broadcast do not fit in 16 ymm registers"
#endif
#if MC < MR || MC % MR != 0
#error "MC must be a positive multiple of MR"
#endif
#if KC < 1
#error "KC must be positive"
#endif
#if NC < NR
#error "NC must be at least NR"
#endif
#define NCB (NC / NR * NR) // NC as used: whole NR panels
#if EPI_BIAS < 0 || EPI_BIAS > 2 || EPI_ACT < 0 || EPI_ACT > 2 || (BIAS_C && !MMT_DTYPE_F64)
#error "EPI_BIAS and EPI_ACT are 0 to 2; BIAS_C 1 takes an f64 C (an f32 C's bias is fp32)"
#endif
#if PAR != 0 && PAR != 1 && PAR != 2 && PAR != 3
#error "PAR must be 0 (split M), 1 (split N), 2 (split both) or 3 (in place)"
#endif
#if THREADS < 0
#error "THREADS must be 0 (all) or a positive count"
#endif

#define ALIGN 64                      // packed buffers: cache-line (and zmm) aligned
#define MIN_WORK_PER_THREAD (1 << 18) // M*N*K below which one more thread does not pay (in step
                                      // with src/backend.h's MMT_CPU_ONE_THREAD_MNK)

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

/* An instance with the epilogue in its store: the bias after the 128 bytes of src/backend.h's
 * mmt_gemm_params (the scales' pointers, which this template does not read; src/epilogue.h). */
typedef struct mmt_fused_params {
    mmt_gemm_params p;
    const void *scale_a, *scale_b;
    const void *bias; /* EPI_BIAS's values (NULL without) */
    int64_t pad;
} mmt_fused_params;
_Static_assert(sizeof(mmt_fused_params) == 144, "mmt_fused_params must match src/epilogue.h");

/* ---- vector operations per ISA and dtype ------------------------------------------ */
#if ISA == 2 && MMT_DTYPE_F64
typedef __m512d V;
#define V_ZERO() _mm512_setzero_pd()
#define V_LOAD(p) _mm512_load_pd(p)
#define V_LOADU(p) _mm512_loadu_pd(p)
#define V_STOREU(p, v) _mm512_storeu_pd(p, v)
#define V_SET1(x) _mm512_set1_pd(x)
#define V_MUL(a, b) _mm512_mul_pd(a, b)
#define V_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#elif ISA == 2
typedef __m512 V;
#define V_ZERO() _mm512_setzero_ps()
#define V_LOAD(p) _mm512_load_ps(p)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_SET1(x) _mm512_set1_ps(x)
#define V_MUL(a, b) _mm512_mul_ps(a, b)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#elif ISA == 1 && MMT_DTYPE_F64
typedef __m256d V;
#define V_ZERO() _mm256_setzero_pd()
#define V_LOAD(p) _mm256_load_pd(p)
#define V_LOADU(p) _mm256_loadu_pd(p)
#define V_STOREU(p, v) _mm256_storeu_pd(p, v)
#define V_SET1(x) _mm256_set1_pd(x)
#define V_MUL(a, b) _mm256_mul_pd(a, b)
#define V_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#elif ISA == 1
typedef __m256 V;
#define V_ZERO() _mm256_setzero_ps()
#define V_LOAD(p) _mm256_load_ps(p)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_SET1(x) _mm256_set1_ps(x)
#define V_MUL(a, b) _mm256_mul_ps(a, b)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#else /* scalar: a "vector" of one element; the compiler is free to do what it can */
typedef T V;
#define V_ZERO() ((T)0)
#define V_LOAD(p) (*(p))
#define V_LOADU(p) (*(p))
#define V_STOREU(p, v) (*(p) = (v))
#define V_SET1(x) ((T)(x))
#define V_MUL(a, b) ((a) * (b))
#define V_FMA(a, b, c) ((a) * (b) + (c))
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define ROUND_UP(a, b) (CEIL_DIV(a, b) * (b))

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch((p), 0, 3)
#define PREFETCHW(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH(p) ((void)0)
#define PREFETCHW(p) ((void)0)
#endif

/* ---- packing ----------------------------------------------------------------------- */

/* op(A)[i0 : i0+mc, p0 : p0+kc] into MR-row panels: panel r holds, for each k, MR
 * consecutive rows. Rows past mc are zeros. */
static void pack_a(int64_t mc, int64_t kc, const T *A, int64_t lda, int ta, int64_t i0, int64_t p0, T *restrict dst)
{
    for (int64_t ir = 0; ir < mc; ir += MR) {
        int64_t mr = MIN(MR, mc - ir);
        if (!ta) { /* row i of op(A) is a row of A: MR strided streams, each read in order */
            const T *src = A + (i0 + ir) * lda + p0;
            if (mr == MR) {
                for (int64_t k = 0; k < kc; k++)
#pragma GCC unroll 16
                    for (int i = 0; i < MR; i++) dst[k * MR + i] = src[i * lda + k];
            } else {
                for (int64_t k = 0; k < kc; k++) {
                    for (int64_t i = 0; i < mr; i++) dst[k * MR + i] = src[i * lda + k];
                    for (int64_t i = mr; i < MR; i++) dst[k * MR + i] = 0;
                }
            }
        } else { /* op(A)[i][k] = A[k][i]: MR contiguous elements per k */
            const T *src = A + p0 * lda + i0 + ir;
            for (int64_t k = 0; k < kc; k++) {
                if (mr == MR) {
#pragma GCC unroll 16
                    for (int i = 0; i < MR; i++) dst[k * MR + i] = src[k * lda + i];
                } else {
                    for (int64_t i = 0; i < mr; i++) dst[k * MR + i] = src[k * lda + i];
                    for (int64_t i = mr; i < MR; i++) dst[k * MR + i] = 0;
                }
            }
        }
        dst += MR * kc;
    }
}

/* One NR-column panel of op(B)[p0 : p0+kc, j0 : j0+nr]: for each k, NR consecutive
 * columns; columns past nr are zeros. */
static void pack_b_panel(int64_t nr, int64_t kc, const T *B, int64_t ldb, int tb, int64_t p0, int64_t j0,
                         T *restrict dst)
{
    if (!tb) { /* row k of op(B) is a row of B: NR contiguous elements per k */
        const T *src = B + p0 * ldb + j0;
        if (nr == NR) {
            for (int64_t k = 0; k < kc; k++)
#pragma GCC unroll 4
                for (int v = 0; v < NV; v++) V_STOREU(dst + k * NR + v * VW, V_LOADU(src + k * ldb + v * VW));
        } else {
            for (int64_t k = 0; k < kc; k++) {
                for (int64_t j = 0; j < nr; j++) dst[k * NR + j] = src[k * ldb + j];
                for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0;
            }
        }
    } else { /* op(B)[k][j] = B[j][k]: NR strided streams, each read in order */
        const T *src = B + j0 * ldb + p0;
        if (nr == NR) {
            for (int64_t k = 0; k < kc; k++)
#pragma GCC unroll 16
                for (int j = 0; j < NR; j++) dst[k * NR + j] = src[j * ldb + k];
        } else {
            for (int64_t k = 0; k < kc; k++) {
                for (int64_t j = 0; j < nr; j++) dst[k * NR + j] = src[j * ldb + k];
                for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0;
            }
        }
    }
}

/* ---- micro-kernel ------------------------------------------------------------------ */

/* acc = 0, the register block's accumulators. */
static inline __attribute__((always_inline)) void zero_block(V acc[MR][NV])
{
#pragma GCC unroll 32
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) acc[r][v] = V_ZERO();
}

/* acc += one step of K: op(A)'s MR values at a[r * a_step] times op(B)'s NV vectors b. */
static inline __attribute__((always_inline)) void rank1(V acc[MR][NV], const T *a, int64_t a_step, const V b[NV])
{
#pragma GCC unroll 32
    for (int r = 0; r < MR; r++) {
        V x = V_SET1(a[r * a_step]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) acc[r][v] = V_FMA(x, b[v], acc[r][v]);
    }
}

/* C[0:MR, 0:NR] = alpha acc + beta C, a whole register block (beta == 0: C is not read). */
static inline __attribute__((always_inline)) void store_block(V acc[MR][NV], T *restrict C, int64_t ldc, T alpha,
                                                              T beta)
{
    V va = V_SET1(alpha);
    if (beta == 0) {
#pragma GCC unroll 32
        for (int r = 0; r < MR; r++)
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++) V_STOREU(C + r * ldc + v * VW, V_MUL(va, acc[r][v]));
    } else {
        V vb = V_SET1(beta);
#pragma GCC unroll 32
        for (int r = 0; r < MR; r++)
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++) {
                T *c = C + r * ldc + v * VW;
                V_STOREU(c, V_FMA(vb, V_LOADU(c), V_MUL(va, acc[r][v])));
            }
    }
}

/* C[0:mr, 0:nr] = alpha * Ap Bp + beta * C over kc steps; Ap is one MR-row panel, Bp one
 * NR-column panel. beta == 0: C is not read. mr < MR or nr < NR: partial store. */
static inline void micro_kernel(int64_t kc, const T *restrict Ap, const T *restrict Bp, T *restrict C,
                                int64_t ldc, T alpha, T beta, int64_t mr, int64_t nr)
{
    V acc[MR][NV];
    zero_block(acc);

    /* the C tile is needed at the end; start bringing it in now */
#pragma GCC unroll 32
    for (int r = 0; r < MR; r++) {
        PREFETCHW(C + r * ldc);
        PREFETCHW(C + r * ldc + NR - 1);
    }

#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; k++) {
        V b[NV];
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) b[v] = V_LOAD(Bp + v * VW);
        rank1(acc, Ap, 1, b);
        Ap += MR;
        Bp += NR;
    }

    if (mr == MR && nr == NR) {
        store_block(acc, C, ldc, alpha, beta);
    } else { /* edge tile: through a buffer, only the valid part reaches C */
        V va = V_SET1(alpha);
        _Alignas(ALIGN) T tile[MR * NR];
#pragma GCC unroll 32
        for (int r = 0; r < MR; r++)
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++) V_STOREU(tile + r * NR + v * VW, V_MUL(va, acc[r][v]));
        for (int64_t r = 0; r < mr; r++)
            for (int64_t j = 0; j < nr; j++)
                C[r * ldc + j] = beta == 0 ? tile[r * NR + j] : tile[r * NR + j] + beta * C[r * ldc + j];
    }
}

#if PAR == 3
/* The register block of C[0:MR, 0:NR] = alpha op(A) op(B) + beta C over all K, read in place:
 * op(A)[r][k] at A[r * a_row + k * a_k], op(B) row k at B + k * ldb (NR contiguous
 * elements). Whole blocks only. */
static inline void micro_kernel_direct(int64_t K, const T *restrict A, int64_t a_row, int64_t a_k,
                                       const T *restrict B, int64_t ldb, T *restrict C, int64_t ldc, T alpha, T beta)
{
    V acc[MR][NV];
    zero_block(acc);
#pragma GCC unroll 4
    for (int64_t k = 0; k < K; k++) {
        V b[NV];
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) b[v] = V_LOADU(B + k * ldb + v * VW);
        rank1(acc, A + k * a_k, a_row, b);
    }
    store_block(acc, C, ldc, alpha, beta);
}
#endif

/* The problem as the blocked loops see it. */
typedef struct gemm_args {
    const T *A, *B;
    T *C;
    int64_t lda, ldb, ldc;
    int ta, tb;
    T alpha;
    const void *bias; /* FUSED: the epilogue's */
} gemm_args;

#if FUSED
#include "mmt_gelu.h"

/* The epilogue over C[i0 : i0+mr, j0 : j0+nr] (at C), its final values just stored (still
 * in L1): the bias, then the activation, in C's precision. */
static void fuse_tile(const void *bias, T *C, int64_t ldc, int64_t i0, int64_t j0, int64_t mr, int64_t nr)
{
#if BIAS_C
    const T *b = bias;
#else
    const float *b = bias;
#endif
    for (int64_t r = 0; r < mr; r++) {
        T *restrict c = C + r * ldc;
        if (EPI_BIAS == 1) {
            const T br = b[i0 + r];
            for (int64_t j = 0; j < nr; j++) c[j] += br;
        } else if (EPI_BIAS == 2) {
            for (int64_t j = 0; j < nr; j++) c[j] += b[j0 + j];
        }
        if (EPI_ACT == 1)
            for (int64_t j = 0; j < nr; j++) c[j] = c[j] < 0 ? 0 : c[j]; /* NaN stays NaN */
        else if (EPI_ACT == 2)
            for (int64_t j = 0; j < nr; j++) c[j] = MMT_DTYPE_F64 ? mmt_gelu_f64(c[j]) : mmt_gelu_f32(c[j]);
    }
}
#else
static inline void fuse_tile(const void *bias, T *C, int64_t ldc, int64_t i0, int64_t j0, int64_t mr, int64_t nr)
{
    (void)bias, (void)C, (void)ldc, (void)i0, (void)j0, (void)mr, (void)nr;
}
#endif

/* The jr / ir loops for NR panels jp0..jp1 of one B block (kc x nc at pc, jc) against one
 * packed A block (mc x kc at ic). pack_b: each B panel is packed just before its first
 * use (while it is still in L1), rather than in a separate pass over the block. last: the
 * block is K's last, so each register block's values are final (the epilogue's, FUSED). */
static void macro_kernel(const gemm_args *g, int64_t ic, int64_t mc, int64_t jc, int64_t nc, int64_t pc, int64_t kc,
                         int64_t jp0, int64_t jp1, const T *Ap, T *Bp, T beta, int pack_b, int last)
{
    T *C = g->C + ic * g->ldc + jc;
    for (int64_t jp = jp0; jp < jp1; jp++) {
        const int64_t jr = jp * NR, nr = MIN(NR, nc - jr);
        if (pack_b) pack_b_panel(nr, kc, g->B, g->ldb, g->tb, pc, jc + jr, Bp + jr * kc);
        for (int64_t ir = 0; ir < mc; ir += MR) {
            micro_kernel(kc, Ap + ir * kc, Bp + jr * kc, C + ir * g->ldc + jr, g->ldc, g->alpha, beta,
                         MIN(MR, mc - ir), nr);
            if (FUSED && last) fuse_tile(g->bias, C + ir * g->ldc + jr, g->ldc, ic + ir, jc + jr, MIN(MR, mc - ir), nr);
        }
    }
}

/* ---- scratch ------------------------------------------------------------------------- */

/* Packing buffers are kept between calls (a tuner calls an instance many times), one for
 * each of a few concurrent callers (an application's threads); a call that finds them all
 * in use allocates its own. */
#define SCRATCH_SLOTS 16
static struct {
    void *buf;
    size_t size;
    atomic_flag busy;
} scratch_cache[SCRATCH_SLOTS]; /* zeroed: every flag clear */

static void *scratch_alloc(size_t size)
{
    size = ROUND_UP(size, (size_t)4096);
    void *p = aligned_alloc(4096, size);
#ifdef MADV_HUGEPAGE
    if (p && size >= (2u << 20)) madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

/* A buffer of size bytes or NULL; *slot: the cache slot it came from, -1: allocated. */
static void *scratch_get(size_t size, int *slot)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        if (atomic_flag_test_and_set_explicit(&scratch_cache[i].busy, memory_order_acquire)) continue;
        if (scratch_cache[i].size < size) {
            free(scratch_cache[i].buf);
            scratch_cache[i].buf = scratch_alloc(size);
            scratch_cache[i].size = scratch_cache[i].buf ? size : 0;
        }
        if (scratch_cache[i].buf) {
            *slot = i;
            return scratch_cache[i].buf;
        }
        atomic_flag_clear_explicit(&scratch_cache[i].busy, memory_order_release);
        break; /* out of memory: the allocation below fails too, or finds what was freed */
    }
    *slot = -1;
    return scratch_alloc(size);
}

static void scratch_put(void *p, int slot)
{
    if (slot >= 0) atomic_flag_clear_explicit(&scratch_cache[slot].busy, memory_order_release);
    else free(p);
}

/* At unload, after each flag (its acquire orders the last user's writes before the free, as
 * ThreadSanitizer sees it too: the loader's own lock between two threads' dlclose is not
 * visible to it); a cache still in use (a caller inside at process exit) is left alone. */
__attribute__((destructor)) static void scratch_release(void)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++)
        if (!atomic_flag_test_and_set_explicit(&scratch_cache[i].busy, memory_order_acquire))
            free(scratch_cache[i].buf);
}

/* The OpenMP runtime may come in with this instance (a host program that uses no OpenMP
 * itself); its idle worker threads outlive our calls, so unloading it with the instance
 * (dlclose) would pull the code from under them. Pin it: RTLD_NODELETE on a loaded
 * library keeps it for the life of the process. */
__attribute__((constructor)) static void pin_openmp_runtime(void)
{
    (void)dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* ---- entry ------------------------------------------------------------------------- */

/* C = beta C (alpha == 0 or K == 0): A and B are not read; beta == 0 writes zeros. */
static void scale_c(int64_t m, int64_t n, T *C, int64_t ldc, T beta)
{
    for (int64_t i = 0; i < m; i++) {
        T *c = C + i * ldc;
        if (beta == 0) memset(c, 0, sizeof(T) * n);
        else if (beta != 1)
            for (int64_t j = 0; j < n; j++) c[j] *= beta;
    }
}

#if PAR == 2
/* The grid of nth threads over M x N (*tm rows of *tn): of the factorisations, the one
 * whose blocks are the squarest (the most arithmetic per packed element), without more
 * rows or columns of threads than register blocks. */
static void thread_grid(int nth, int64_t mblocks, int64_t nblocks, int *tm, int *tn)
{
    double best = -1;
    *tm = 1, *tn = nth;
    for (int r = 1; r <= nth; r++) {
        if (nth % r || r > mblocks || nth / r > nblocks) continue;
        const double h = (double)mblocks * MR / r, w = (double)nblocks * NR / (nth / r);
        const double squareness = h < w ? h / w : w / h;
        if (squareness > best) best = squareness, *tm = r, *tn = nth / r;
    }
}
#endif

/* Runs share(arg, tid, nth) on nt threads, one of them the caller's: on one thread with no
 * OpenMP region, which even for one thread costs some 350 ns a call. */
static void on_threads(int nt, void (*share)(const void *arg, int tid, int nth), const void *arg)
{
    if (nt == 1) {
        share(arg, 0, 1);
        return;
    }
#pragma omp parallel num_threads(nt)
    share(arg, omp_get_thread_num(), omp_get_num_threads());
}

#if PAR == 3
/* What the threads of gemm_direct share: its panels in scratch (NULL where there are no edge
 * blocks), each thread's A panel and B panel of panel elements. */
typedef struct direct_args {
    const mmt_gemm_params *p;
    const void *bias; /* FUSED: the epilogue's */
    T *scratch;
    size_t a_panel, panel;
} direct_args;

/* Thread tid of nth's share of gemm_direct: its row blocks. */
static void direct_rows(const void *arg, int tid, int nth)
{
    const direct_args *x = arg;
    const mmt_gemm_params *p = x->p;
    T *const scratch = x->scratch;
    const size_t a_panel = x->a_panel, panel = x->panel;
    const int64_t M = p->m, N = p->n, K = p->k, lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    const T *A = p->a, *B = p->b;
    T *C = p->c;
    const int ta = p->trans_a != 0;
    const T alpha = (T)p->alpha, beta = (T)p->beta;
    const int64_t a_row = ta ? 1 : lda, a_k = ta ? lda : 1;
    const int64_t mblocks = CEIL_DIV(M, MR), nblocks = CEIL_DIV(N, NR);
    T *Ap = scratch ? scratch + panel * tid : NULL, *Bp = scratch ? Ap + a_panel : NULL; /* for edge blocks */
    for (int64_t ib = mblocks * tid / nth; ib < mblocks * (tid + 1) / nth; ib++) {
        const int64_t i0 = ib * MR, mr = MIN(MR, M - i0);
        if (mr < MR) pack_a(mr, K, A, lda, ta, i0, 0, Ap);
        for (int64_t jb = 0; jb < nblocks; jb++) {
            const int64_t j0 = jb * NR, nr = MIN(NR, N - j0);
            if (mr == MR && nr == NR) {
                micro_kernel_direct(K, A + i0 * a_row, a_row, a_k, B + j0, ldb, C + i0 * ldc + j0, ldc, alpha,
                                    beta);
            } else {
                if (mr == MR) pack_a(mr, K, A, lda, ta, i0, 0, Ap);
                pack_b_panel(nr, K, B, ldb, 0, 0, j0, Bp);
                micro_kernel(K, Ap, Bp, C + i0 * ldc + j0, ldc, alpha, beta, mr, nr);
            }
            if (FUSED) fuse_tile(x->bias, C + i0 * ldc + j0, ldc, i0, j0, mr, nr);
        }
    }
}

/* PAR=3: the register blocks over C, their rows split among nt threads (no more than there
 * are row blocks: mmt_gemm's cap), whole blocks read A and B in place, edge blocks (mr < MR
 * or nr < NR) packed into a thread's own panels and run by the packed micro-kernel, which
 * stores them in part. 0, or 1 where those panels could not be allocated (C untouched). */
static int gemm_direct(const mmt_gemm_params *p, const void *bias, int nt)
{
    /* a thread's A panel and B panel, each aligned for the packed micro-kernel's loads */
    const size_t a_panel = ROUND_UP((size_t)MR * (size_t)p->k, ALIGN / sizeof(T));
    const size_t panel = a_panel + ROUND_UP((size_t)NR * (size_t)p->k, ALIGN / sizeof(T));
    /* whole register blocks only (M and N multiples of MR and NR): nothing is packed */
    const int whole = p->m % MR == 0 && p->n % NR == 0;
    int slot = -1;
    T *scratch = whole ? NULL : scratch_get(sizeof(T) * panel * (size_t)nt, &slot);
    if (!whole && !scratch) return 1;
    const direct_args x = {.p = p, .bias = bias, .scratch = scratch, .a_panel = a_panel, .panel = panel};
    on_threads(nt, direct_rows, &x);
    if (!whole) scratch_put(scratch, slot);
    return 0;
}
#endif

/* What the threads of one call share: the problem, the packing buffers, K's blocking. */
typedef struct team_args {
    gemm_args g;
    int64_t M, N, K, kblk;
    T beta;
    T *scratch;
    size_t a_elems, b_elems;
} team_args;

/* Thread tid of nth's share of the loops (PAR 0, 1 and 2); its A block in scratch. */
static void team_share(const void *arg, int tid, int nth)
{
    const team_args *x = arg;
    const gemm_args g = x->g;
    const int64_t M = x->M, N = x->N, K = x->K, kblk = x->kblk, lda = g.lda;
    const T *A = g.A;
    const int ta = g.ta;
    const T beta = x->beta;
    T *const scratch = x->scratch;
    const size_t a_elems = x->a_elems;
    T *Ap = scratch + a_elems * tid;
#if PAR == 0
    const T *B = g.B;
    const int64_t ldb = g.ldb;
    const int tb = g.tb;
    /* split M: this thread's rows (whole MR blocks, spread evenly). The B block is
     * shared: each thread packs a run of its panels while computing its first A block
     * on them, then, once all are packed, the rest. */
    T *Bp = scratch + a_elems * nth;
    const int64_t mblocks = CEIL_DIV(M, MR);
    const int64_t m0 = MIN(M, mblocks * tid / nth * MR), m1 = MIN(M, mblocks * (tid + 1) / nth * MR);
    for (int64_t jc = 0; jc < N; jc += NCB) {
        const int64_t nc = MIN(NCB, N - jc), npanels = CEIL_DIV(nc, NR);
        const int64_t jp0 = npanels * tid / nth, jp1 = npanels * (tid + 1) / nth;
        for (int64_t pc = 0; pc < K; pc += kblk) {
            const int64_t kc = MIN(kblk, K - pc);
            const T beta_k = pc == 0 ? beta : (T)1;
            const int last = pc + kc == K;
            const int64_t mc0 = MIN(MC, m1 - m0);
            if (mc0 > 0) pack_a(mc0, kc, A, lda, ta, m0, pc, Ap);
            if (mc0 > 0) macro_kernel(&g, m0, mc0, jc, nc, pc, kc, jp0, jp1, Ap, Bp, beta_k, 1, last);
            else
                for (int64_t jp = jp0; jp < jp1; jp++)
                    pack_b_panel(MIN(NR, nc - jp * NR), kc, B, ldb, tb, pc, jc + jp * NR, Bp + jp * NR * kc);
#pragma omp barrier
            if (mc0 > 0) {
                macro_kernel(&g, m0, mc0, jc, nc, pc, kc, 0, jp0, Ap, Bp, beta_k, 0, last);
                macro_kernel(&g, m0, mc0, jc, nc, pc, kc, jp1, npanels, Ap, Bp, beta_k, 0, last);
            }
            for (int64_t ic = m0 + mc0; ic < m1; ic += MC) {
                const int64_t mc = MIN(MC, m1 - ic);
                pack_a(mc, kc, A, lda, ta, ic, pc, Ap);
                macro_kernel(&g, ic, mc, jc, nc, pc, kc, 0, npanels, Ap, Bp, beta_k, 0, last);
            }
#pragma omp barrier /* before the B block is packed over */
        }
    }
#else
    /* split N (PAR 1: one row of threads) or both (PAR 2: a grid of them): this thread's
     * rows and columns (whole MR and NR blocks); it packs its own A and B, the B panels
     * while computing the first A block on them */
    T *Bp = scratch + a_elems * nth + x->b_elems * tid;
    const int64_t mblocks = CEIL_DIV(M, MR), nblocks = CEIL_DIV(N, NR);
    int tm = 1, tn = nth;
#if PAR == 2
    thread_grid(nth, mblocks, nblocks, &tm, &tn);
#endif
    const int rt = tid / tn, ct = tid % tn;
    const int64_t m0 = MIN(M, mblocks * rt / tm * MR), m1 = MIN(M, mblocks * (rt + 1) / tm * MR);
    const int64_t n0 = MIN(N, nblocks * ct / tn * NR), n1 = MIN(N, nblocks * (ct + 1) / tn * NR);
    for (int64_t jc = n0; jc < n1; jc += NCB) {
        const int64_t nc = MIN(NCB, n1 - jc), npanels = CEIL_DIV(nc, NR);
        for (int64_t pc = 0; pc < K; pc += kblk) {
            const int64_t kc = MIN(kblk, K - pc);
            const T beta_k = pc == 0 ? beta : (T)1;
            const int last = pc + kc == K;
            for (int64_t ic = m0; ic < m1; ic += MC) {
                const int64_t mc = MIN(MC, m1 - ic);
                pack_a(mc, kc, A, lda, ta, ic, pc, Ap);
                macro_kernel(&g, ic, mc, jc, nc, pc, kc, 0, npanels, Ap, Bp, beta_k, ic == m0, last);
            }
        }
    }
#endif
}

/* 0, or 1 where the packing buffers could not be allocated (C is then untouched). */
int mmt_gemm(const mmt_gemm_params *p)
{
#if FUSED
    const void *const bias = ((const mmt_fused_params *)p)->bias;
#else
    const void *const bias = NULL;
#endif
    const int64_t M = p->m, N = p->n, K = p->k;
    const T *A = p->a, *B = p->b;
    T *C = p->c;
    const int64_t lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    const int ta = p->trans_a != 0, tb = p->trans_b != 0;
    const T alpha = (T)p->alpha, beta = (T)p->beta;
    if (M <= 0 || N <= 0) return 0;
    if (alpha == 0 || K <= 0) {
        scale_c(M, N, C, ldc, beta);
        if (FUSED) fuse_tile(bias, C, ldc, 0, 0, M, N);
        return 0;
    }

    /* threads: the knob's cap, no more than the split loop has register blocks, and
     * none that would get too little work to pay for waking it */
    int nt = THREADS > 0 ? THREADS : omp_get_max_threads();
    int64_t blocks = PAR == 0 || PAR == 3 ? CEIL_DIV(M, MR)
                     : PAR == 1           ? CEIL_DIV(N, NR)
                                          : CEIL_DIV(M, MR) * CEIL_DIV(N, NR);
    const double work = (double)M * N * K / MIN_WORK_PER_THREAD; /* M N K may not fit in 64 bits */
    if (nt > blocks) nt = (int)blocks;
    if (nt > work) nt = work > 1 ? (int)work : 1;
#if PAR == 3
    if (!tb) return gemm_direct(p, bias, nt);
#endif

    /* scratch: per thread one A block; PAR 0 one shared B block, else one per thread */
    const size_t a_elems = ROUND_UP((size_t)MC * KC, ALIGN / sizeof(T));
    const size_t b_elems = ROUND_UP((size_t)KC * NCB, ALIGN / sizeof(T));
    const size_t total = sizeof(T) * (a_elems * nt + b_elems * (PAR == 0 ? 1 : nt));
    int slot;
    T *scratch = scratch_get(total, &slot);
    if (!scratch) return 1; /* out of memory, before C is touched */

    /* K in equal blocks of at most KC: 4097 = 17 x 241, not 16 x 256 + 1 (a block of depth
     * one would cost a full pass over C for a rank-one update) */
    const int64_t kblk = CEIL_DIV(K, CEIL_DIV(K, KC));
    const team_args x = {.g = {.A = A, .B = B, .C = C, .lda = lda, .ldb = ldb, .ldc = ldc, .ta = ta, .tb = tb,
                               .alpha = alpha, .bias = bias},
                         .M = M, .N = N, .K = K, .kblk = kblk, .beta = beta, .scratch = scratch,
                         .a_elems = a_elems, .b_elems = b_elems};
    on_threads(nt, team_share, &x);
    scratch_put(scratch, slot);
    return 0;
}
