/* gemm_simt.cu - fp32 / fp64 GEMM on CUDA cores (SIMT), the template of
 * search_spaces/cuda_gemm_simt.yaml.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major, any M N K (odd ones too),
 *                                             any lda ldb ldc, both transposes.
 *
 * BLAS rules: beta == 0 -> C is not read (NaN in C does not propagate); alpha == 0 or
 * K == 0 -> A and B are not read.
 *
 * Structure: a block computes a BM x BN tile of C, walking K in steps of BK through shared
 * memory (A stored k-major as As[BK][BM+PAD], B as Bs[BK][BN+PAD], so the inner loop reads
 * both operands along their contiguous dimension). The block's warps tile it in WM x WN
 * warp tiles; each lane owns TM x TN accumulators, split into chunks of up to 16 bytes
 * spread across the warp tile (lanes read neighbouring 128-bit words of shared memory:
 * no bank conflicts, full-width LDS). The next K tile is fetched from global memory into
 * registers while the current one is multiplied; with ASYNC, cp.async copies the next
 * STAGES - 1 tiles straight into a ring of shared-memory stages instead (no register
 * staging; operands contiguous along k are transposed one element per copy).
 *
 * Launch (the space's launch section): grid (ceil(M/BM) * ceil(N/BN), 1, SPLITK),
 * block (THREADS, 1, 1), dynamic shared memory SMEM bytes. With SPLITK > 1 the module
 * also exports mmt_gemm_pre, which the backend launches first (any 1-D grid: it strides):
 * for SERIAL = 0 it applies C = beta * C, after which the slices add alpha * partial into C
 * with atomicAdd (in an order that varies from run to run); for SERIAL = 1 it zeroes a
 * counter per tile in the workspace, each slice leaves its partial sum in a slot of the
 * workspace, and the tile's last slice to arrive adds them in the order of K and writes C (no
 * slice waits for another; the same bits on every run). With STREAMK
 * the grid is persistent instead, SK_GRID blocks (STREAMK an SM) that take whole tiles in
 * full waves and share the rest of the work out evenly along K (mmt_stream_k.h); a block's
 * partial sum of a tile it does not finish goes to its slot of the workspace, and the
 * tile's owner adds the slots in block order (the same bits on every run). mmt_gemm_pre
 * then zeroes the blocks' flags.
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17). */

/* ---- knobs ------------------------------------------------------------------------ */
#ifndef MMT_DTYPE_F64
#define MMT_DTYPE_F64 0 /* 1: double, 0: float */
#endif
#ifndef BM
#define BM 64 /* block tile rows (M) */
#endif
#ifndef BN
#define BN 64 /* block tile columns (N) */
#endif
#ifndef BK
#define BK 8 /* K step held in shared memory */
#endif
#ifndef WM
#define WM 32 /* warp tile rows */
#endif
#ifndef WN
#define WN 16 /* warp tile columns */
#endif
#ifndef TM
#define TM 4 /* thread tile rows: accumulators per lane = TM * TN */
#endif
#ifndef TN
#define TN 4 /* thread tile columns */
#endif
#ifndef VEC
#define VEC 1 /* 1: 128-bit global loads of the operands aligned for them (VEC_A, VEC_B) */
#endif
/* VEC_A, VEC_B: A's, B's pointer and row pitch are 16-byte aligned (the space derives them
 * from the call's ALIGN_A, ALIGN_B), so its copies are 16 bytes wide, decided at compile
 * time: a check per copy kept both kinds of copy in the K loop. A launch on an operand
 * less aligned than its instance says traps. */
#ifndef VEC_A
#define VEC_A VEC
#endif
#ifndef VEC_B
#define VEC_B VEC
#endif
#ifndef STAGES
#define STAGES 1 /* shared-memory buffers: 1 (two barriers per K step) or 2 (one barrier); with ASYNC 2-4 */
#endif
#ifndef ASYNC
#define ASYNC 0 /* 1: cp.async global -> shared memory (no register staging), STAGES-deep ring */
#endif
#ifndef REGCAP
#define REGCAP 0 /* registers per thread: 0 the compiler's choice, 1 up to 255 (a launch bound of one block), 2 at most 128 */
#endif
#ifndef PIPE
#define PIPE 0 /* 1: fragments double-buffered in registers across k-steps and K tiles, the barrier in a tile's last k-step (STAGES >= 2) */
#endif
#ifndef PAD
#define PAD 0 /* elements of padding per shared-memory row (bank conflicts of the transposing stores) */
#endif
#ifndef SPLITK
#define SPLITK 1 /* slices of K (gridDim.z), added into C after mmt_gemm_pre */
#endif
#ifndef SERIAL
#define SERIAL 0 /* split-K: 0 atomicAdd into C, 1 in the order of K, summed by the last slice */
#endif
#ifndef STREAMK
#define STREAMK 0 /* >= 1: a persistent grid of SK_GRID blocks, STREAMK an SM, stream-K (0: a block a tile) */
#endif
#ifndef SK_GRID
#define SK_GRID (STREAMK * 132) /* the persistent grid: STREAMK times the device's SM count */
#endif
#ifndef GROUP_M
#define GROUP_M 1 /* block rasterisation: GROUP_M row tiles are swept together (L2 reuse of B) */
#endif
#ifndef EVEN
#define EVEN 0 /* 1: M % BM == 0, N % BN == 0, K % (BK * SPLITK) == 0: no bounds checks */
#endif
#ifndef KC
#define KC 0 /* 1: an operand contiguous along k stays so in shared memory (needs OP_A, OP_B) */
#endif
/* OP_A, OP_B: the operands' orientation fixed per instance (the space derives them from
 * TRANS_A, TRANS_B; a call of the other orientation traps). Left undefined, the kernel reads
 * the orientation from its parameters at run time and carries the code of both. */

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_DTYPE_F64
typedef double T;
#define VW 2 /* elements per 16 bytes */
#else
typedef float T;
#define VW 4
#endif

#define THREADS_ ((BM / TM) * (BN / TN))
#ifdef THREADS /* the space passes its derived THREADS: it must agree */
#if THREADS != THREADS_
#error "THREADS does not match (BM / TM) * (BN / TN)"
#endif
#else
#define THREADS THREADS_
#endif
#define WTM (WM / TM)           /* lanes along a warp tile's rows */
#define WTN (WN / TN)           /* lanes along its columns */
/* KA / KB: A / B is contiguous along k and KC keeps it so in shared memory, [BM][BK + VW]
 * ([BN][BK + VW]): 16-byte copies in, 16-byte fragment loads of VW k-steps of one row out
 * (a row stride of an odd number of 16-byte units: the rows the lanes read fall on distinct
 * banks). A lane's rows (columns) of such an operand are then interleaved across the warp
 * tile, one at a time, instead of chunks of VW. The others are stored k-major. */
#if KC
#if !defined(OP_A) || !defined(OP_B)
#error "KC needs the orientation fixed: OP_A and OP_B"
#endif
#define KA (!OP_A)
#define KB (OP_B)
#else
#define KA 0
#define KB 0
#endif
#define KW (KA || KB ? VW : 1)  /* k-steps per fragment load */
#define RM (KA ? 1 : TM < VW ? TM : VW)  /* contiguous rows of a thread's chunk */
#define RN (KB ? 1 : TN < VW ? TN : VW)  /* contiguous columns of a chunk */
#define VL (VEC ? VW : 1)       /* elements per global load */
#define AS_LD (KA ? BK + VW : BM + PAD) /* shared-memory row strides (elements) */
#define BS_LD (KB ? BK + VW : BN + PAD)
#define A_STAGE ((KA ? BM : BK) * AS_LD)
#define B_STAGE ((KB ? BN : BK) * BS_LD)
#define A_UNITS (BM * BK / VL)  /* global loads per tile */
#define B_UNITS (BN * BK / VL)
#define A_LOADS ((A_UNITS + THREADS - 1) / THREADS) /* per thread */
#define B_LOADS ((B_UNITS + THREADS - 1) / THREADS)
#define SMEM_ ((STAGES) * (A_STAGE + B_STAGE) * (int)sizeof(T))
#ifdef SMEM /* the launch's dynamic shared memory, as the space derives it */
static_assert(SMEM == SMEM_, "SMEM does not match the template's shared-memory layout");
#endif

#if WTM * WTN != 32
#error "a warp tile must hold 32 lanes: (WM / TM) * (WN / TN) == 32"
#endif
#if BM % WM || BN % WN || WM % TM || WN % TN
#error "BM % WM, BN % WN, WM % TM and WN % TN must be 0"
#endif
#if TM % RM || TN % RN
#error "TM and TN must be 1, 2 or multiples of the 16-byte vector width"
#endif
#if BK % VL || BM % VL || BN % VL
#error "BK, BM and BN must be multiples of the global load width"
#endif
#if PAD % VW
#error "PAD must keep shared-memory rows 16-byte aligned"
#endif
#if ASYNC
#if STAGES < 2 || STAGES > 4
#error "with ASYNC, STAGES is 2, 3 or 4"
#endif
#elif STAGES != 1 && STAGES != 2
#error "STAGES is 1 or 2"
#endif
#if PIPE != 0 && PIPE != 1
#error "PIPE is 0 or 1"
#endif
#if PIPE && STAGES < 2
#error "PIPE needs STAGES >= 2 (the next tile lands in another stage while this one is read)"
#endif
#if defined(OP_A) != defined(OP_B)
#error "OP_A and OP_B come together"
#endif
#if KC != 0 && KC != 1
#error "KC is 0 or 1"
#endif
#if REGCAP < 0 || REGCAP > 2
#error "REGCAP is 0, 1 or 2"
#endif
#if SPLITK < 1 || GROUP_M < 1 || (SERIAL != 0 && SERIAL != 1)
#error "SPLITK and GROUP_M are >= 1, SERIAL 0 or 1"
#endif
#if STREAMK < 0 || (STREAMK && (SPLITK != 1 || REGCAP != 0 || SK_GRID < 1))
#error "STREAMK is >= 0; with it SPLITK is 1 and REGCAP 0 (its launch bound is STREAMK blocks an SM), SK_GRID >= 1"
#endif

#include "mmt_params.h"
#include "mmt_fused_params.h" /* an epilogue in the store: EPI_BIAS, EPI_ACT, BIAS_C */
typedef MMT_OWN_OR_FUSED(mmt_gemm_params) mmt_launch_params;
#define FUSE_T T /* the epilogue's arithmetic: C's precision */
#include "mmt_fuse.h"

/* R contiguous elements, with one 8- or 16-byte access where R allows it; both pointers
 * must then be aligned to R * sizeof(T) (the callers guarantee it). */
template <int R> __device__ __forceinline__ void copy_r(T *d, const T *s)
{
#if MMT_DTYPE_F64
    if constexpr (R == 2) {
        double2 v = *reinterpret_cast<const double2 *>(s);
        d[0] = v.x, d[1] = v.y;
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) d[r] = s[r];
    }
#else
    if constexpr (R == 4) {
        float4 v = *reinterpret_cast<const float4 *>(s);
        d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
    } else if constexpr (R == 2) {
        float2 v = *reinterpret_cast<const float2 *>(s);
        d[0] = v.x, d[1] = v.y;
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) d[r] = s[r];
    }
#endif
}

template <int R> __device__ __forceinline__ void store_r(T *d, const T *s)
{
#if MMT_DTYPE_F64
    if constexpr (R == 2) {
        *reinterpret_cast<double2 *>(d) = make_double2(s[0], s[1]);
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) d[r] = s[r];
    }
#else
    if constexpr (R == 4) {
        *reinterpret_cast<float4 *>(d) = make_float4(s[0], s[1], s[2], s[3]);
    } else if constexpr (R == 2) {
        *reinterpret_cast<float2 *>(d) = make_float2(s[0], s[1]);
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) d[r] = s[r];
    }
#endif
}

/* What a block needs to fetch tiles: the problem, its place, its K range. */
struct tile_src {
    const T *a, *b;
    long long lda, ldb, m, n, m0, n0, kend;
    int skip_m, skip_n; /* the tile's first rows and columns that its block does not write (see inside) */
    bool ta, tb, va, vb; /* transposes; 128-bit loads allowed */
};

/* A tile's origin along one dimension: a tile that would run past the matrix's end (extent)
 * is moved back to end with it, where the matrix is that large and a 16-byte copy along the
 * dimension (vec) stays aligned, so its K loop copies without bounds checks, as an interior
 * tile's does. It overlaps its neighbour; the epilogue writes only from the unmoved origin. */
__device__ __forceinline__ long long inside(long long x0, long long X, long long extent, bool vec)
{
    return x0 + X > extent && extent >= X && (!vec || extent % VL == 0) ? extent - X : x0;
}

/* The tile at (tile_m, tile_n), moved inside the matrix where it can be. */
__device__ __forceinline__ void place_src(tile_src &s, long long tile_m, long long tile_n)
{
    const long long m0 = tile_m * BM, n0 = tile_n * BN;
    s.m0 = EVEN ? m0 : inside(m0, BM, s.m, s.ta && s.va); /* A's copies run along m when transposed */
    s.n0 = EVEN ? n0 : inside(n0, BN, s.n, !s.tb && s.vb);
    s.skip_m = (int)(m0 - s.m0), s.skip_n = (int)(n0 - s.n0);
}

/* Loads VL elements starting at src into r. `full`: all VL are in bounds; otherwise
 * element v is in bounds iff v < avail. `vec`: src is 16-byte aligned. CHECK: 0 where the
 * caller knows the whole tile is in bounds (the bounds are not looked at). */
template <bool CHECK> __device__ __forceinline__ void fetch_unit(T *r, const T *src, bool full, long long avail, bool vec)
{
    if (!CHECK || full) {
        if (VL > 1 && vec) {
            copy_r<VL>(r, src);
        } else {
#pragma unroll
            for (int v = 0; v < VL; v++) r[v] = src[v];
        }
    } else {
#pragma unroll
        for (int v = 0; v < VL; v++) r[v] = v < avail ? src[v] : T(0);
    }
}

/* Global -> registers: the A and B tiles at k0 (CHECK: as fetch_unit). */
template <bool CHECK>
__device__ __forceinline__ void fetch_tiles(const tile_src &s, long long k0, T (&ra)[A_LOADS][VL],
                                            T (&rb)[B_LOADS][VL])
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int u = tid + l * THREADS;
        if (A_UNITS % THREADS == 0 || u < A_UNITS) {
            if (!s.ta) { /* A[i * lda + kk]: contiguous along k */
                const int r = u / (BK / VL), c = (u % (BK / VL)) * VL;
                const long long gi = s.m0 + r, gk = k0 + c;
                const long long avail = gi < s.m ? s.kend - gk : 0;
                fetch_unit<CHECK>(ra[l], s.a + gi * s.lda + gk, gi < s.m && gk + VL <= s.kend, avail, s.va);
            } else { /* A[kk * lda + i]: contiguous along m */
                const int r = u / (BM / VL), c = (u % (BM / VL)) * VL;
                const long long gk = k0 + r, gi = s.m0 + c;
                const long long avail = gk < s.kend ? s.m - gi : 0;
                fetch_unit<CHECK>(ra[l], s.a + gk * s.lda + gi, gk < s.kend && gi + VL <= s.m, avail, s.va);
            }
        }
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int u = tid + l * THREADS;
        if (B_UNITS % THREADS == 0 || u < B_UNITS) {
            if (!s.tb) { /* B[kk * ldb + j]: contiguous along n */
                const int r = u / (BN / VL), c = (u % (BN / VL)) * VL;
                const long long gk = k0 + r, gj = s.n0 + c;
                const long long avail = gk < s.kend ? s.n - gj : 0;
                fetch_unit<CHECK>(rb[l], s.b + gk * s.ldb + gj, gk < s.kend && gj + VL <= s.n, avail, s.vb);
            } else { /* B[j * ldb + kk]: contiguous along k */
                const int r = u / (BK / VL), c = (u % (BK / VL)) * VL;
                const long long gj = s.n0 + r, gk = k0 + c;
                const long long avail = gj < s.n ? s.kend - gk : 0;
                fetch_unit<CHECK>(rb[l], s.b + gj * s.ldb + gk, gj < s.n && gk + VL <= s.kend, avail, s.vb);
            }
        }
    }
}

/* Registers -> shared memory: k-major, or k-contiguous rows for KA / KB (no transposing). */
__device__ __forceinline__ void store_tiles(bool ta, bool tb, T *As, T *Bs, const T (&ra)[A_LOADS][VL],
                                            const T (&rb)[B_LOADS][VL])
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int u = tid + l * THREADS;
        if (A_UNITS % THREADS == 0 || u < A_UNITS) {
            if (!ta) {
                const int r = u / (BK / VL), c = (u % (BK / VL)) * VL;
                if (KA) {
                    store_r<VL>(As + r * AS_LD + c, ra[l]);
                } else {
#pragma unroll
                    for (int v = 0; v < VL; v++) As[(c + v) * AS_LD + r] = ra[l][v];
                }
            } else {
                const int r = u / (BM / VL), c = (u % (BM / VL)) * VL;
                store_r<VL>(As + r * AS_LD + c, ra[l]);
            }
        }
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int u = tid + l * THREADS;
        if (B_UNITS % THREADS == 0 || u < B_UNITS) {
            if (!tb) {
                const int r = u / (BN / VL), c = (u % (BN / VL)) * VL;
                store_r<VL>(Bs + r * BS_LD + c, rb[l]);
            } else {
                const int r = u / (BK / VL), c = (u % (BK / VL)) * VL;
                if (KB) {
                    store_r<VL>(Bs + r * BS_LD + c, rb[l]);
                } else {
#pragma unroll
                    for (int v = 0; v < VL; v++) Bs[(c + v) * BS_LD + r] = rb[l][v];
                }
            }
        }
    }
}

#if ASYNC
/* cp.async of BYTES (sizeof(T) or 16) from global src to shared dst; the first src_bytes
 * are copied and the rest zero-filled (0: src is not read). Below sm_80 a plain copy. */
template <int BYTES> __device__ __forceinline__ void cp_async(T *dst, const T *src, int src_bytes)
{
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES),
                     "r"(src_bytes) : "memory");
#else
#pragma unroll
    for (int e = 0; e < BYTES / (int)sizeof(T); e++) dst[e] = (e + 1) * (int)sizeof(T) <= src_bytes ? src[e] : T(0);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* A unit of VL elements from src to dst: with `vec` contiguous, one 16-byte copy where all
 * are in bounds; without, S apart (the units of neighbouring lanes interleave, so each of
 * the VL copies reads whole sectors across the warp), one element a copy. Element e (its
 * offset) is in bounds iff full or e < avail; the others are zero-filled without reading,
 * from the valid address `safe`. */
template <bool CHECK, int S>
__device__ __forceinline__ void async_unit(T *dst, const T *src, bool full, long long avail, bool vec, const T *safe)
{
    if (VL > 1 && vec && (!CHECK || full)) {
        cp_async<16>(dst, src, 16);
    } else {
#pragma unroll
        for (int v = 0; v < VL; v++) {
            const int e = vec ? v : v * S;
            const bool ok = !CHECK || full || e < avail;
            cp_async<(int)sizeof(T)>(dst + e, ok ? src + e : safe, ok ? (int)sizeof(T) : 0);
        }
    }
}

/* The extent along a row of a unit that starts at c: VL elements, or VL of them S apart. */
#define UNIT_SPAN(vec, S) ((vec) ? VL : (VL - 1) * (S) + 1)

/* Global -> shared memory with cp.async, one operand: its tiles land k-major as in
 * store_tiles. An operand contiguous along k is transposed element by element (one element
 * per copy; lanes take neighbouring k of a few rows, so the global reads stay coalesced);
 * the other copies VL-wide units; out of bounds elements are zero-filled. The address
 * arithmetic is out of the K loop: every thread's copies fall on a fixed pattern (THREADS
 * a multiple of the units per row, which the space requires with ASYNC), so they start at
 * p (the next tile to fetch), copy l is RP rows further, and the next tile is BK along k.
 * XB: the tile's extent along m (A) or n (B); XLD its shared-memory row stride; KEEP (KA
 * or KB): an operand contiguous along k is copied VL-wide as it is, into rows along k. */
#if THREADS % BK || THREADS % (BM / VL) || THREADS % (BN / VL)
#error "ASYNC needs THREADS to be a multiple of BK, BM / VL and BN / VL"
#endif
/* Lanes along k of a transposed operand's row: 32 bytes (one sector of f32) or all of BK. */
#define KL (BK < 8 ? BK : 8)
template <int XB, int XLD, bool KEEP> struct async_op {
    const T *p;
    long long ld, x0, xn;
    int r0, c, so; /* so: the first copy's place in a stage (elements) */
    bool kc, vec; /* contiguous along k (transposed element by element); 16-byte copies allowed */

    __device__ __forceinline__ void init(const T *base, long long ld_, long long x0_, long long xn_, long long kbeg,
                                         bool kc_, bool vec_)
    {
        const int tid = threadIdx.x;
        ld = ld_, x0 = x0_, xn = xn_, kc = kc_, vec = vec_;
        if (kc && KEEP) { /* unit (x0 + r0, kbeg + c) */
            r0 = tid / (BK / VL), c = (tid % (BK / VL)) * (vec ? VL : 1);
            p = base + (x0 + r0) * ld + kbeg + c;
            so = r0 * XLD + c;
        } else if (kc) { /* element (x0 + r0, kbeg + c) */
            r0 = tid / KL, c = tid % KL;
            p = base + (x0 + r0) * ld + kbeg + c;
            so = c * XLD + r0;
        } else { /* unit (kbeg + r0, x0 + c) */
            r0 = tid / (XB / VL), c = (tid % (XB / VL)) * (vec ? VL : 1);
            p = base + (kbeg + r0) * ld + x0 + c;
            so = r0 * XLD + c;
        }
    }

    /* The tile at k0 into S, then on to the next tile (CHECK: as fetch_unit). */
    template <bool CHECK> __device__ __forceinline__ void fetch(T *S, long long k0, long long kend, const T *safe)
    {
        T *const d = S + so; /* the copies' places are constant offsets from it */
        if (kc && KEEP) {
            constexpr int RP = THREADS / (BK / VL), P = (XB + RP - 1) / RP;
            const bool kfull = k0 + c + UNIT_SPAN(vec, BK / VL) <= kend;
            const long long avail = kend - k0 - c;
#pragma unroll
            for (int l = 0; l < P; l++) {
                const int r = r0 + l * RP;
                if (XB % RP == 0 || r < XB) {
                    const bool in = x0 + r < xn;
                    async_unit<CHECK, BK / VL>(d + l * RP * XLD, p + (long long)(l * RP) * ld, in && kfull,
                                               in ? avail : 0, vec, safe);
                }
            }
            p += BK;
        } else if (kc) {
            /* KL lanes along a row's k, each copying its BK / KL elements KL apart (constant
             * offsets from one address: one 64-bit address per row, not per copy) */
            constexpr int RP = THREADS / KL, P = (XB + RP - 1) / RP;
#pragma unroll
            for (int l = 0; l < P; l++) {
                const int r = r0 + l * RP;
                if (XB % RP == 0 || r < XB) {
                    const T *const q = p + (long long)(l * RP) * ld;
#pragma unroll
                    for (int j = 0; j < BK / KL; j++) {
                        const bool ok = !CHECK || (k0 + c + j * KL < kend && x0 + r < xn);
                        cp_async<(int)sizeof(T)>(d + j * KL * XLD + l * RP, ok ? q + j * KL : safe,
                                                 ok ? (int)sizeof(T) : 0);
                    }
                }
            }
            p += BK;
        } else {
            constexpr int RP = THREADS / (XB / VL), P = (BK + RP - 1) / RP;
#pragma unroll
            for (int l = 0; l < P; l++) {
                const int r = r0 + l * RP;
                if (BK % RP == 0 || r < BK) {
                    const long long gk = k0 + r;
                    const long long avail = gk < kend ? xn - x0 - c : 0;
                    async_unit<CHECK, XB / VL>(d + l * RP * XLD, p + (long long)(l * RP) * ld,
                                               gk < kend && x0 + c + UNIT_SPAN(vec, XB / VL) <= xn, avail, vec, safe);
                }
            }
            p += BK * ld;
        }
    }
};
#endif

/* One operand's fragments of KW k-steps from k0: f[v][i] is element i (of X) at k0 + v. A
 * k-contiguous tile (KEEP) gives VW k-steps of one row per 16-byte load, row x0 + i * WT;
 * a k-major one X elements of one k-step in chunks of R, chunk i at x0 + i * WT * R. */
template <int X, int R, int WT, int LD, bool KEEP>
__device__ __forceinline__ void fragments(T (&f)[KW][X], const T *S, int k0, int x0)
{
    if constexpr (KEEP) {
#pragma unroll
        for (int i = 0; i < X; i++) {
            T t[KW];
            copy_r<KW>(t, S + (x0 + i * WT) * LD + k0);
#pragma unroll
            for (int v = 0; v < KW; v++) f[v][i] = t[v];
        }
    } else {
#pragma unroll
        for (int v = 0; v < KW; v++)
#pragma unroll
            for (int i = 0; i < X / R; i++) copy_r<R>(f[v] + i * R, S + (k0 + v) * LD + x0 + i * (WT * R));
    }
}

/* A lane's fragments of KW k-steps of both operands. */
struct frag {
    T a[KW][TM], b[KW][TN];
};

/* The fragments at k0 of the tile held in As, Bs. am / bn: this lane's first row / column. */
__device__ __forceinline__ void load_frag(frag &f, const T *As, const T *Bs, int k0, int am, int bn)
{
    fragments<TM, RM, WTM, AS_LD, KA>(f.a, As, k0, am);
    fragments<TN, RN, WTN, BS_LD, KB>(f.b, Bs, k0, bn);
}

__device__ __forceinline__ void ffma_frag(const frag &f, T (&acc)[TM][TN])
{
#pragma unroll
    for (int v = 0; v < KW; v++)
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) acc[i][j] = fma(f.a[v][i], f.b[v][j], acc[i][j]);
}

/* acc += the BK step held in As, Bs. */
__device__ __forceinline__ void multiply(const T *As, const T *Bs, int am, int bn, T (&acc)[TM][TN])
{
#pragma unroll
    for (int k0 = 0; k0 < BK; k0 += KW) {
        frag f;
        load_frag(f, As, Bs, k0, am, bn);
        ffma_frag(f, acc);
    }
}

/* A compile-time choice passed to a generic lambda. */
template <int V> struct knob {
    static constexpr int value = V;
};

/* PIPE: acc += the BK step held in As, Bs, whose first fragments f[0] already holds; each
 * k-step's fragments are read while the previous one's FFMAs issue. In the last k-step,
 * `sync` (the barrier that makes the next tile visible and frees this one) runs, the next
 * tile's first fragments are read into f[0] from the stage it names, and then `refill`
 * (the copies into the freed stage) runs: the fragment loads go first, and the barrier is
 * not followed by FFMAs that wait on shared memory. */
template <typename SYNC, typename REFILL>
__device__ __forceinline__ void multiply_piped(frag (&f)[2], const T *As, const T *Bs, int am, int bn,
                                               T (&acc)[TM][TN], SYNC sync, REFILL refill)
{
#pragma unroll
    for (int k0 = 0; k0 < BK; k0 += KW) {
        const int cur = (k0 / KW) % 2;
        if (k0 + KW < BK) {
            load_frag(f[cur ^ 1], As, Bs, k0 + KW, am, bn);
        } else {
            const T *next_as, *next_bs;
            sync(next_as, next_bs);
            load_frag(f[cur ^ 1], next_as, next_bs, 0, am, bn);
            refill();
        }
        ffma_frag(f[cur], acc);
    }
}
#if PIPE && (BK / KW) % 2
#error "PIPE needs an even number of fragment loads per K tile"
#endif

#include "mmt_serial_splitk.h"

/* A pointer or row pitch not aligned to 16 bytes. */
#define MISALIGNED(ptr, ld) ((reinterpret_cast<unsigned long long>(ptr) | (unsigned long long)(ld) * sizeof(T)) % 16)

/* What mmt_gemm's checks below ask of a launch, for the host to check first (mmt_params.h) */
#ifdef OP_A
MMT_NEEDS(sizeof(T), VEC && VEC_A ? 16 : 1, VEC && VEC_B ? 16 : 1, OP_A != 0, OP_B != 0, 0, 0);
#else
MMT_NEEDS(sizeof(T), VEC && VEC_A ? 16 : 1, VEC && VEC_B ? 16 : 1, -1, -1, 0, 0);
#endif

/* REGCAP: the register budget ptxas works to. The bare bound (0) lets it choose; a bound
 * of one block (1) makes it spend more registers (deeper prefetch of the fragments); 2
 * holds it to 128, two blocks of 256 threads per SM (with ASYNC it would otherwise keep
 * every copy's address live across the K loop, 150-200 registers). STREAMK's persistent
 * grid needs its STREAMK blocks an SM resident: its bound is that. */
#if STREAMK
#define MMT_BOUNDS __launch_bounds__(THREADS, STREAMK)
#elif REGCAP == 0
#define MMT_BOUNDS __launch_bounds__(THREADS)
#elif REGCAP == 1 || THREADS >= 512
#define MMT_BOUNDS __launch_bounds__(THREADS, 1)
#else
#define MMT_BOUNDS __launch_bounds__(THREADS, 512 / THREADS)
#endif

#include "mmt_grid.h"

/* acc = the product of the tile at (s.m0, s.n0) over k in [kbeg, s.kend), kbeg a multiple
 * of BK past the start of the block's K range. The block's threads all call it; it leaves
 * no copy in flight, but the last tile's stages may still be read by other warps. */
__device__ __forceinline__ void mainloop(const tile_src &s, T *As, T *Bs, long long kbeg, int am, int bn,
                                         T (&acc)[TM][TN])
{
    const long long M = s.m, N = s.n, kend = s.kend;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = T(0);

    const long long ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    /* Tiles [0, clean) lie wholly inside A and B and are fetched without bounds checks: all
     * of an interior block's but a ragged last one in K, none of an edge block's. */
    const long long clean = EVEN ? ntiles : s.m0 + BM <= M && s.n0 + BN <= N ? (kend - kbeg) / BK : 0;
#if ASYNC
    /* STAGES-deep ring: tiles t+1 .. t+STAGES-1 are in flight while tile t is multiplied;
     * one barrier per K step (it also frees the stage that the next copies overwrite). */
    async_op<BM, AS_LD, KA> oa;
    async_op<BN, BS_LD, KB> ob;
    oa.init(s.a, s.lda, s.m0, M, kbeg, !s.ta, s.va);
    ob.init(s.b, s.ldb, s.n0, N, kbeg, s.tb, s.vb);
    auto fetch = [&](long long t, T *as, T *bs) { /* tile t into a stage */
        const long long k0 = kbeg + t * BK;
        if (EVEN || t < clean) {
            oa.fetch<false>(as, k0, kend, s.a), ob.fetch<false>(bs, k0, kend, s.b);
        } else {
            oa.fetch<true>(as, k0, kend, s.a), ob.fetch<true>(bs, k0, kend, s.b);
        }
    };
#if PIPE
    /* Tile t lives in stage t % STAGES. All STAGES tiles are in flight before the first is
     * read; the barrier in tile t's last k-step (after its last fragment loads) makes tile
     * t + 1 visible and frees stage t % STAGES, which then takes tile t + STAGES: one tile
     * more in flight than below, for the same shared memory. */
#pragma unroll
    for (int st = 0; st < STAGES; st++) {
        if (st < ntiles) fetch(st, As + st * A_STAGE, Bs + st * B_STAGE);
        cp_async_commit(); /* empty groups too: the count stays uniform */
    }
    cp_async_wait<STAGES - 1>();
    __syncthreads();
    frag f[2];
    load_frag(f[0], As, Bs, 0, am, bn);
    int rd = 0;
    /* Tile t, then the fetch of tile t + STAGES into its stage: none (WHEN 0), unchecked
     * (1), or as fetch decides (2); the hot loop's is unchecked, with no branch around it
     * for ptxas to schedule the copies between the FFMAs. */
    auto piped_tile = [&](long long t, auto when) {
        T *const as = As + rd * A_STAGE, *const bs = Bs + rd * B_STAGE;
        auto sync = [&](const T *&next_as, const T *&next_bs) {
            cp_async_wait<STAGES - 2>(); /* this thread's copies of tile t + 1 have landed */
            __syncthreads();             /* everyone's; and no one reads tile t any more */
            rd = rd + 1 == STAGES ? 0 : rd + 1;
            next_as = As + rd * A_STAGE, next_bs = Bs + rd * B_STAGE;
        };
        auto refill = [&]() {
            if constexpr (decltype(when)::value == 1) {
                const long long k0 = kbeg + (t + STAGES) * BK;
                oa.fetch<false>(as, k0, kend, s.a), ob.fetch<false>(bs, k0, kend, s.b);
            } else if constexpr (decltype(when)::value == 2) {
                if (t + STAGES < ntiles) fetch(t + STAGES, as, bs);
            }
            cp_async_commit();
        };
        multiply_piped(f, as, bs, am, bn, acc, sync, refill);
    };
    const long long hot = clean - STAGES; /* tiles whose fetch is unchecked */
    long long t = 0;
    for (; t < hot; t++) piped_tile(t, knob<1>());
    for (; t < ntiles; t++) piped_tile(t, knob<2>());
#else
#pragma unroll
    for (int st = 0; st < STAGES - 1; st++) {
        if (st < ntiles) fetch(st, As + st * A_STAGE, Bs + st * B_STAGE);
        cp_async_commit(); /* empty groups too: the count stays uniform */
    }
    int rd = 0, wr = STAGES - 1;
    for (long long t = 0; t < ntiles; t++) {
        cp_async_wait<STAGES - 2>(); /* this thread's copies of tile t have landed */
        __syncthreads();             /* everyone's; and stage wr (tile t - 1) is free */
        if (t + STAGES - 1 < ntiles) fetch(t + STAGES - 1, As + wr * A_STAGE, Bs + wr * B_STAGE);
        cp_async_commit();
        multiply(As + rd * A_STAGE, Bs + rd * B_STAGE, am, bn, acc);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
#endif
    cp_async_wait<0>();
#else
    T ra[A_LOADS][VL], rb[B_LOADS][VL];
    auto fetch = [&](long long t) { /* tile t into registers */
        if (EVEN || t < clean) fetch_tiles<false>(s, kbeg + t * BK, ra, rb);
        else fetch_tiles<true>(s, kbeg + t * BK, ra, rb);
    };
    if (ntiles > 0) {
        fetch(0);
        store_tiles(s.ta, s.tb, As, Bs, ra, rb);
    }
    __syncthreads();
#if PIPE
    /* Tile t + 1 comes into registers during tile t, goes into the other buffer in the
     * last k-step (whose previous reader, tile t - 1, passed a barrier since), and one
     * barrier later its first fragments are read while tile t's last FFMAs issue. */
    frag f[2];
    load_frag(f[0], As, Bs, 0, am, bn);
    for (long long t = 0; t < ntiles; t++) {
        const bool more = t + 1 < ntiles;
        const int cur = (int)(t & 1);
        if (more) fetch(t + 1);
        auto sync = [&](const T *&next_as, const T *&next_bs) {
            if (more) store_tiles(s.ta, s.tb, As + (cur ^ 1) * A_STAGE, Bs + (cur ^ 1) * B_STAGE, ra, rb);
            __syncthreads();
            next_as = As + (cur ^ 1) * A_STAGE, next_bs = Bs + (cur ^ 1) * B_STAGE;
        };
        multiply_piped(f, As + cur * A_STAGE, Bs + cur * B_STAGE, am, bn, acc, sync, [] {});
    }
#else
    for (long long t = 0; t < ntiles; t++) {
        const bool more = t + 1 < ntiles;
#if STAGES == 2
        const int cur = (int)(t & 1);
        if (more) fetch(t + 1); /* in flight during the multiply */
        multiply(As + cur * A_STAGE, Bs + cur * B_STAGE, am, bn, acc);
        if (more) store_tiles(s.ta, s.tb, As + (cur ^ 1) * A_STAGE, Bs + (cur ^ 1) * B_STAGE, ra, rb);
        __syncthreads();
#else
        if (more) fetch(t + 1);
        multiply(As, Bs, am, bn, acc);
        __syncthreads();
        if (more) {
            store_tiles(s.ta, s.tb, As, Bs, ra, rb);
            __syncthreads();
        }
#endif
    }
#endif
#endif
}

/* C = alpha * acc + beta * C over the tile at (s.m0, s.n0) but its first s.skip_m rows and
 * s.skip_n columns (beta == 0: C is not read), or for atomic split-K slices C += alpha * acc;
 * with the epilogue of a FUSED instance (bias: its values) after. */
__device__ __forceinline__ void epilogue(const mmt_gemm_params &p, const tile_src &s, int am, int bn,
                                         const T (&acc)[TM][TN], const void *bias)
{
    T *const C = static_cast<T *>(p.c);
    const long long ldc = p.ldc, M = s.m, N = s.n;
    const T alpha = (T)p.alpha, beta = (T)p.beta;
#if (SPLITK == 1 || SERIAL) && ASYNC && VEC
    /* 16-byte accesses of C where a chunk is whole and C allows it */
    const bool cvec = RN == VW && (reinterpret_cast<unsigned long long>(p.c) % 16 == 0) && (ldc % VW == 0) &&
                      s.n0 % VW == 0; /* a moved tile's columns may be off the 16-byte grid */
#else
    const bool cvec = false;
#endif
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int li = am + (i / RM) * (WTM * RM) + i % RM;
        const long long gi = s.m0 + li;
        if (!EVEN && (gi >= M || li < s.skip_m)) continue;
#pragma unroll
        for (int jc = 0; jc < TN / RN; jc++) {
            const int lj0 = bn + jc * (WTN * RN);
            const long long gj0 = s.n0 + lj0;
#if SPLITK == 1 || SERIAL
            if (cvec && (EVEN || (gj0 + RN <= N && lj0 >= s.skip_n))) {
                T *const cp = C + gi * ldc + gj0;
                T v[RN];
                if (beta == T(0)) {
#pragma unroll
                    for (int r = 0; r < RN; r++) v[r] = alpha * acc[i][jc * RN + r];
                } else {
                    copy_r<RN>(v, cp);
#pragma unroll
                    for (int r = 0; r < RN; r++) v[r] = fma(alpha, acc[i][jc * RN + r], beta * v[r]);
                }
#pragma unroll
                for (int r = 0; r < RN && FUSED; r++) v[r] = fuse(v[r], bias, gi, gj0 + r, M, N);
                store_r<RN>(cp, v);
                continue;
            }
#endif
#pragma unroll
            for (int r = 0; r < RN; r++) {
                const int j = jc * RN + r;
                const long long gj = gj0 + r;
                if (!EVEN && (gj >= N || lj0 + r < s.skip_n)) continue;
                T *const cp = C + gi * ldc + gj;
#if SPLITK > 1 && !SERIAL
                (void)beta;
                (void)cvec;
                atomicAdd(cp, alpha * acc[i][j]);
#else
                /* one rounding fewer than alpha * acc + beta * c */
                const T v = beta == T(0) ? alpha * acc[i][j] : fma(alpha, acc[i][j], beta * *cp);
                *cp = FUSED ? fuse(v, bias, gi, gj, M, N) : v;
#endif
            }
        }
    }
}

#if STREAMK
#include "mmt_stream_k.h"

/* The workspace: SK_GRID flags (zeroed by mmt_gemm_pre), then a slot a block for the partial
 * sums of the piece of a tile it does not finish (mmt_serial_splitk.h's layout). */
#define SK_BYTES (sk_counter_bytes(SK_GRID) + (long long)SK_GRID * THREADS * TM * TN * (long long)sizeof(T))
__device__ __forceinline__ T *sk_slot(void *ws, int block)
{
    return reinterpret_cast<T *>(static_cast<char *>(ws) + sk_counter_bytes(SK_GRID)) + (long long)block * THREADS * TM * TN;
}
#endif
#if STREAMK || (SPLITK > 1 && SERIAL)
/* A thread's accumulators as one array (the slots' unit of account). */
__device__ __forceinline__ T (&flat(T (&acc)[TM][TN]))[TM * TN] { return reinterpret_cast<T (&)[TM * TN]>(acc); }
#endif

extern "C" __global__ void MMT_BOUNDS mmt_gemm(mmt_launch_params lp)
{
#if FUSED
    const mmt_gemm_params &p = lp.p;
    const void *const bias = lp.bias;
#else
    const mmt_gemm_params &p = lp;
    const void *const bias = nullptr;
#endif
    extern __shared__ __align__(16) unsigned char mmt_smem[];
    T *const As = reinterpret_cast<T *>(mmt_smem);
    T *const Bs = As + STAGES * A_STAGE;

    const long long M = p.m, N = p.n, K = p.k;
    const T alpha = (T)p.alpha;
    const long long tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;

    tile_src s;
    s.a = static_cast<const T *>(p.a);
    s.b = static_cast<const T *>(p.b);
    s.lda = p.lda, s.ldb = p.ldb, s.m = M, s.n = N;
#ifdef OP_A
    if ((p.trans_a != 0) != (OP_A != 0) || (p.trans_b != 0) != (OP_B != 0)) __trap(); /* built for the other */
    s.ta = OP_A != 0, s.tb = OP_B != 0;
#else
    s.ta = p.trans_a != 0, s.tb = p.trans_b != 0;
#endif
    s.va = VEC && VEC_A, s.vb = VEC && VEC_B; /* constants: each copy's width is known at compile time */
    if ((s.va && MISALIGNED(p.a, p.lda)) || (s.vb && MISALIGNED(p.b, p.ldb))) __trap(); /* built for aligned ones */

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int am = wm0 + (lane / WTN) * RM, bn = wn0 + (lane % WTN) * RN;
    T acc[TM][TN];

#if STREAMK
    /* Whole tiles in full waves, then this block's share of the rest along K (alpha == 0:
     * no K, every tile whole: C = beta * C). Near 255 registers (16-wide thread tiles) the
     * schedule's 8 to 24 bytes spill around the K loop, never in it. */
    const long long tiles = tiles_m * tiles_n, iters = alpha == T(0) ? 0 : (K + BK - 1) / BK;
    if (p.workspace_size < SK_BYTES || tiles > 0x7fffffff || iters > 0x7fffffff) __trap(); /* sized by the space */
    const int block = (int)blockIdx.x;
    int *const flags = static_cast<int *>(p.workspace);
    const mmt_sk_plan plan = mmt_sk_make((int)tiles, (int)iters, SK_GRID);
    mmt_sk_cursor cursor = mmt_sk_start(&plan, block);
    mmt_sk_unit u;
    for (bool first = true; mmt_sk_next(&plan, &cursor, &u); first = false) {
        if (!first) __syncthreads(); /* every warp is done with the last piece's stages */
        long long tile_m, tile_n;
        mmt_place_tile(u.tile, tiles_m, tiles_n, tile_m, tile_n);
        place_src(s, tile_m, tile_n);
        s.kend = (long long)u.k1 * BK < K ? (long long)u.k1 * BK : K;
        mainloop(s, As, Bs, (long long)u.k0 * BK, am, bn, acc);
        if (u.k0 > 0) { /* the rest of a tile another block owns: its partial sum */
            sk_put(sk_slot(p.workspace, block), flat(acc));
            sk_signal(flags + block, 1);
            continue;
        }
        if (u.k1 < plan.iters) { /* the rest of this tile is the later blocks' first piece */
            const long long end = mmt_sk_tile_end(&plan, &u);
            long long begin = cursor.end; /* block q's range starts there */
            for (int q = block + 1; q < SK_GRID && begin < end; q++) {
                const long long next = mmt_sk_begin(&plan, q + 1);
                if (begin < next) { /* not empty */
                    sk_wait(flags + q, 1);
                    sk_get<true>(sk_slot(p.workspace, q), flat(acc));
                }
                begin = next;
            }
        }
        epilogue(p, s, am, bn, acc, bias);
    }
#else
    long long tile_m, tile_n;
    mmt_place_tile(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
    if (tile_m >= tiles_m || tile_n >= tiles_n) return;

    /* This slice's K range; alpha == 0 reads neither A nor B. */
    long long kbeg = 0, kend = K;
#if SPLITK > 1
    mmt_slice_range(K, blockIdx.z, kbeg, kend);
#if SERIAL
    if (kbeg > kend) kbeg = kend; /* an empty slice still counts itself in */
#else
    if (kbeg >= kend || alpha == T(0)) return; /* adds nothing; mmt_gemm_pre did beta * C */
#endif
#endif
    if (alpha == T(0)) kend = kbeg;
    place_src(s, tile_m, tile_n);
    s.kend = kend;
    mainloop(s, As, Bs, kbeg, am, bn, acc);

    /* C = alpha * acc + beta * C, or for atomic split-K slices C += alpha * acc; in the order
     * of K, each slice leaves its partial sum in its slot, and the tile's last slice to arrive
     * (a counter per tile) adds the slots in the order of K and writes C: no slice waits, and
     * every run gives the same bits whichever slice is last. */
#if SPLITK > 1 && SERIAL
    const long long tiles = tiles_m * tiles_n;
    if (p.workspace_size < sk_last_bytes(tiles, THREADS * TM * TN * (long long)sizeof(T))) __trap(); /* sized by the space */
    if (!sk_last_sum(p.workspace, tiles, tile_m * tiles_n + tile_n, flat(acc))) return;
#endif
    epilogue(p, s, am, bn, acc, bias);
#endif
}

#if SPLITK > 1 || STREAMK
/* Before the kernel, any 1-D launch (the loops stride over the grid): for atomic split-K
 * C = beta * C over the whole of C (beta == 0 writes zeros without reading), for split-K in
 * the order of K the tiles' counters zeroed, for stream-K the blocks' flags (the workspace
 * the space's launch asks for). */
extern "C" __global__ void mmt_gemm_pre(mmt_gemm_params p)
{
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
#if STREAMK
    if (p.workspace_size < SK_BYTES) __trap();
    for (long long i = first; i < SK_GRID; i += stride) static_cast<int *>(p.workspace)[i] = 0;
#elif SERIAL
    const long long tiles = (p.m + BM - 1) / BM * ((p.n + BN - 1) / BN);
    if (p.workspace_size < sk_last_bytes(tiles, THREADS * TM * TN * (long long)sizeof(T)))
        __trap(); /* the space's workspace expression sizes it */
    for (long long i = first; i < tiles; i += stride) static_cast<int *>(p.workspace)[i] = 0;
#else
    if (p.beta == 1.0) return;
    T *const C = static_cast<T *>(p.c);
    const T beta = (T)p.beta;
    const long long total = p.m * p.n;
    for (long long x = first; x < total; x += stride) {
        T *const cp = C + (x / p.n) * p.ldc + x % p.n;
        *cp = beta == T(0) ? T(0) : beta * *cp;
    }
#endif
}
#endif
