/* gemm_mma.cu - GEMM on tensor cores with warp-level mma.sync, the template of
 * search_spaces/cuda_gemm_mma.yaml.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major, any M N K, any lda ldb ldc
 *                                             (the space keeps VEC within their alignment),
 *                                             the transposes the instance was built for.
 *
 * Precision modes (MMT_MODE, src/problem.h's mmt_mode), fp32 accumulation in all of them:
 *   2 bf16, 3 f16   16-bit inputs, mma.m16n8k16;
 *   4 tf32          fp32 inputs rounded to tf32 (cvt.rna), mma.m16n8k8;
 *   5 f32x3         fp32 inputs split into a tf32 part and a tf32 residual, x = hi + lo;
 *                   acc += (lo_a hi_b + hi_a lo_b + hi_a hi_b) per mma step, the bracket from
 *                   zero (the lo lo term, 2^-22 relative, is dropped): fp32-level accuracy
 *                   from three tf32 products.
 * C is fp32 or the input type (MMT_OUT, src/problem.h's mmt_dtype). BLAS rules: beta == 0
 * -> C is not read; alpha == 0 or K == 0 -> A and B are not read.
 *
 * Structure: a block computes a BM x BN tile of C with WARPS_M x WARPS_N warps, each a
 * (BM / WARPS_M) x (BN / WARPS_N) warp tile of 16 x 8 mma tiles. K is walked in steps of
 * BK through a ring of STAGES shared-memory stages filled by cp.async (VEC elements per
 * copy, zero-filled past the edges), so tiles t+1 .. t+STAGES-1 are in flight while tile t
 * is multiplied. Each operand keeps its global orientation in shared memory (rows of
 * contiguous elements); fragments are read with ldmatrix (.trans where the operand is
 * contiguous along m or n; 32-bit operands contiguous along m or n are read element by
 * element). SWIZZLE XORs each 16-byte chunk's column with its row so that the eight rows an
 * ldmatrix phase reads fall in distinct banks; without it rows are padded by 16 bytes.
 * 16-bit operands whose rows are only 2-byte aligned (VEC * 2 < 4: no cp.async that small)
 * are fetched into registers before the multiply of the current tile and stored after it.
 * With PACK, a first pass (mmt_gemm_pre) copies A and B into the workspace with row pitches
 * rounded up to 16 bytes, so operands of any alignment are multiplied with 16-byte copies
 * (for an odd K that pass costs a read and a write of A and B, a fraction of the multiply).
 *
 * Launch (the space's launch section): grid (ceil(M/BM) * ceil(N/BN), 1, SPLITK), block
 * (32 * WARPS_M * WARPS_N, 1, 1), dynamic shared memory SMEM bytes, with PACK a workspace
 * of the packed operands' bytes. With SPLITK > 1 (fp32 C only) or PACK the module also
 * exports mmt_gemm_pre, launched first (any 1-D grid: it strides) to pack the operands and,
 * for split-K, to apply C = beta * C, after which the slices add alpha * partial into C with
 * atomicAdd (SERIAL = 0: the order of the additions varies from run to run), or to zero a
 * flag per tile after the packed operands, by which the slices of a tile add into C one
 * after another in the order of K (SERIAL = 1: the same bits on every run).
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17, sm_80+). */

/* ---- knobs ------------------------------------------------------------------------ */
#ifndef MMT_MODE
#define MMT_MODE 2 /* 2 bf16, 3 f16, 4 tf32, 5 f32x3 */
#endif
#ifndef MMT_OUT
#define MMT_OUT 0 /* type of C: 0 f32, 2 bf16, 3 f16 */
#endif
#ifndef OP_A
#define OP_A 0 /* 1: A is transposed (stored K x M, contiguous along m) */
#endif
#ifndef OP_B
#define OP_B 0 /* 1: B is transposed (stored N x K, contiguous along k) */
#endif
#ifndef BM
#define BM 64 /* block tile rows (M) */
#endif
#ifndef BN
#define BN 64 /* block tile columns (N) */
#endif
#ifndef BK
#define BK 32 /* K step held in a shared-memory stage (elements) */
#endif
#ifndef WARPS_M
#define WARPS_M 2 /* warps along M */
#endif
#ifndef WARPS_N
#define WARPS_N 2 /* warps along N */
#endif
#ifndef STAGES
#define STAGES 3 /* shared-memory stages of the cp.async ring (2..5) */
#endif
#ifndef SWIZZLE
#define SWIZZLE 1 /* 1: XOR-swizzled 16-byte chunks; 0: rows padded by 16 bytes */
#endif
#ifndef VEC
#define VEC 1 /* elements per global copy: VEC * element size is 2 (registers), 4, 8 or 16 bytes */
#endif
#ifndef SPLITK
#define SPLITK 1 /* slices of K (gridDim.z), added into an fp32 C after mmt_gemm_pre */
#endif
#ifndef SERIAL
#define SERIAL 0 /* split-K: 0 atomicAdd into C, 1 in the order of K through a flag per tile */
#endif
#ifndef GROUP_M
#define GROUP_M 1 /* block rasterisation: GROUP_M row tiles are swept together (L2 reuse) */
#endif
#ifndef PACK
#define PACK 0 /* 1: A and B are first copied to the workspace with 16-byte row pitches */
#endif

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_MODE == 2 || MMT_MODE == 3
typedef unsigned short TS; /* stored A and B: 16-bit patterns */
#define ELEM 2
#define KSTEP 16 /* K of one mma */
#elif MMT_MODE == 4 || MMT_MODE == 5
typedef float TS;
#define ELEM 4
#define KSTEP 8
#else
#error "MMT_MODE must be 2 (bf16), 3 (f16), 4 (tf32) or 5 (f32x3)"
#endif
#if MMT_OUT == 0
typedef float TC;
#elif (MMT_OUT == 2 || MMT_OUT == 3) && MMT_OUT == MMT_MODE
typedef unsigned short TC;
#else
#error "MMT_OUT is 0 (f32) or the 16-bit input type"
#endif

#define THREADS_ (32 * WARPS_M * WARPS_N)
#ifdef THREADS /* the space passes its derived THREADS: it must agree */
#if THREADS != THREADS_
#error "THREADS does not match 32 * WARPS_M * WARPS_N"
#endif
#else
#define THREADS THREADS_
#endif
#define WTM (BM / WARPS_M) /* warp tile */
#define WTN (BN / WARPS_N)
#define MI (WTM / 16)      /* mma tiles per warp tile */
#define NI (WTN / 8)
#define CH (16 / ELEM)     /* elements per 16-byte chunk */
/* each operand's stage: ROWS x COLS, COLS contiguous as in global memory */
#define A_ROWS (OP_A ? BK : BM)
#define A_COLS (OP_A ? BM : BK)
#define B_ROWS (OP_B ? BN : BK)
#define B_COLS (OP_B ? BK : BN)
/* Row layouts (smem_at): ldmatrix reads eight rows at one 16-byte column, so its operands
 * are swizzled (SWIZZLE) or padded by 16 bytes; a 32-bit operand contiguous along m or n is
 * read element by element (rows k = t, columns g of a quad), which only a pitch of 8 words
 * past a multiple of 32 banks keeps conflict-free. */
#define LAYOUT_PAD16 0
#define LAYOUT_SWIZZLE 1
#define LAYOUT_PAD32 2
#define LAYOUT_A (ELEM == 4 && OP_A ? LAYOUT_PAD32 : SWIZZLE ? LAYOUT_SWIZZLE : LAYOUT_PAD16)
#define LAYOUT_B (ELEM == 4 && !OP_B ? LAYOUT_PAD32 : SWIZZLE ? LAYOUT_SWIZZLE : LAYOUT_PAD16)
#define PAD_OF(layout) ((layout) == LAYOUT_PAD32 ? 32 / ELEM : (layout) == LAYOUT_PAD16 ? CH : 0)
#define A_STAGE (A_ROWS * (A_COLS + PAD_OF(LAYOUT_A)))
#define B_STAGE (B_ROWS * (B_COLS + PAD_OF(LAYOUT_B)))
#define SMEM_ (STAGES * (A_STAGE + B_STAGE) * ELEM)
#if defined(SMEM) && SMEM != SMEM_ /* the space's SMEM is what the launch gives */
#error "SMEM does not match the shared-memory stages of this instance"
#endif
#define SYNC_COPY (VEC * ELEM < 4) /* 2-byte copies: through registers */

#if WTM % 16 || WTN % 16 || BM % WARPS_M || BN % WARPS_N
#error "warp tiles must be multiples of 16 x 16"
#endif
#if BK % KSTEP || BK * ELEM < 32 || BK * ELEM > 128
#error "BK must be a multiple of the mma K, 32 to 128 bytes"
#endif
#if VEC * ELEM > 16 || CH % VEC || VEC < 1
#error "VEC * element size must be 2, 4, 8 or 16 bytes"
#endif
#if THREADS % (A_COLS / VEC) || THREADS % (B_COLS / VEC)
#error "THREADS must be a multiple of the copy units per row of A and B"
#endif
#if STAGES < 2 || STAGES > 5
#error "STAGES is 2 to 5"
#endif
#if SPLITK > 1 && MMT_OUT != 0
#error "split-K adds into C atomically: fp32 C only"
#endif
#if SPLITK < 1 || GROUP_M < 1 || (SERIAL != 0 && SERIAL != 1)
#error "SPLITK and GROUP_M are >= 1, SERIAL 0 or 1"
#endif
#if PACK && VEC * ELEM != 16
#error "packed operands are copied 16 bytes at a time"
#endif

#include "mmt_params.h"
#include "mmt_fused_params.h" /* an epilogue in the store: EPI_BIAS, EPI_ACT, BIAS_C */
typedef MMT_OWN_OR_FUSED(mmt_gemm_params) mmt_launch_params;

/* ---- shared-memory layout ------------------------------------------------------------- */

/* Element offset of (r, c) in a stage of rows of COLS elements laid out as LAYOUT. The
 * swizzle permutes the 16-byte chunks of each 128-byte line by the line's row group, so
 * eight consecutive rows at one chunk column (what an ldmatrix phase reads) land in eight
 * distinct bank groups. */
template <int COLS, int LAYOUT> __device__ __forceinline__ int smem_at(int r, int c)
{
    if constexpr (LAYOUT == LAYOUT_SWIZZLE) {
        constexpr int R = COLS / CH;          /* chunks per row */
        constexpr int D = R >= 8 ? 1 : 8 / R; /* rows per 128-byte line */
        constexpr int W = R >= 8 ? 8 : R;     /* chunks permuted */
        return r * COLS + (((c / CH) ^ ((r / D) % W)) * CH) + c % CH;
    } else {
        return r * (COLS + PAD_OF(LAYOUT)) + c;
    }
}
#define AT_A(r, c) smem_at<A_COLS, LAYOUT_A>(r, c)
#define AT_B(r, c) smem_at<B_COLS, LAYOUT_B>(r, c)

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

#include "mmt_opaque.h"

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

/* ---- global -> shared copies ------------------------------------------------------------ */

/* cp.async of BYTES (4, 8 or 16) from global src to shared dst: the first src_bytes are
 * copied, the rest zero-filled (0: src is not read). */
template <int BYTES> __device__ __forceinline__ void cp_async(void *dst, const void *src, int src_bytes)
{
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                     "r"(src_bytes)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_u32(dst)), "l"(src), "n"(BYTES),
                     "r"(src_bytes)
                     : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* One operand's copies of a ROWS x COLS tile (COLS contiguous, row pitch ld in global
 * memory), one tile after another along k. K_ROWS: the rows run along k (the columns along
 * m or n), else the reverse. Each thread copies the units of VEC elements at column c0 of
 * rows r0, r0 + RP, ... (THREADS is a multiple of the units per row), so its addresses
 * differ by constant steps and its bounds checks compare l * RP with one number per tile:
 * few registers stay live across the K loop. */
template <int ROWS, int COLS, int LAYOUT, bool K_ROWS> struct tile_copy {
    static constexpr int UPR = COLS / VEC;         /* units per row */
    static constexpr int RP = THREADS / UPR;       /* rows per pass */
    static constexpr int P = (ROWS + RP - 1) / RP; /* passes */
    static constexpr int PITCH = COLS + PAD_OF(LAYOUT);
    const TS *p;          /* this thread's first unit of the next tile */
    long long step, kstep; /* RP rows on; one tile on along k */
    int r0, c0, x_left;   /* x_left: rows (columns if K_ROWS) left along m or n from r0 (c0) */

    __device__ __forceinline__ void init(const TS *base, long long ld, long long x0, long long xn, long long kbeg)
    {
        r0 = (int)threadIdx.x / UPR;
        c0 = ((int)threadIdx.x % UPR) * VEC;
        p = K_ROWS ? base + (kbeg + r0) * ld + x0 + c0 : base + (x0 + r0) * ld + kbeg + c0;
        step = RP * ld;
        kstep = K_ROWS ? BK * ld : BK;
        const long long left = xn - x0 - (K_ROWS ? c0 : r0);
        x_left = left < 0 ? 0 : left > (1 << 30) ? (1 << 30) : (int)left;
    }

    /* Elements of unit l inside the matrix; k_left: rows (columns) left along k from r0 (c0). */
    __device__ __forceinline__ int count(int l, int k_left) const
    {
        const int along = K_ROWS ? x_left : k_left, across = K_ROWS ? k_left : x_left;
        return l * RP >= across || along <= 0 ? 0 : along >= VEC ? VEC : along;
    }

    __device__ __forceinline__ bool in_tile(int l) const { return ROWS % RP == 0 || r0 + l * RP < ROWS; }

    /* Shared-memory offset of unit l: a constant step when the swizzle repeats every RP rows. */
    __device__ __forceinline__ int soff(int l) const
    {
        if constexpr (LAYOUT != LAYOUT_SWIZZLE || RP % 8 == 0) return smem_at<COLS, LAYOUT>(r0, c0) + l * RP * PITCH;
        else return smem_at<COLS, LAYOUT>(r0 + l * RP, c0);
    }

    __device__ __forceinline__ int k_left(long long k0, long long kend) const
    {
        const long long left = kend - k0 - (K_ROWS ? r0 : c0);
        return left < 0 ? 0 : left > BK ? BK : (int)left;
    }

    /* The next tile (at k0) into stage S with cp.async; safe: a valid address never read. */
    __device__ __forceinline__ void async_copy(TS *S, long long k0, long long kend, const TS *safe)
    {
        const int kl = k_left(k0, kend);
        const TS *q = p;
#pragma unroll
        for (int l = 0; l < P; l++, q += step)
            if (in_tile(l)) {
                const int n = count(l, kl);
                cp_async<VEC * ELEM>(S + soff(l), n ? q : safe, n * ELEM);
            }
        p += kstep;
    }

    /* Element by element (VEC == 1): the next tile into registers, and from there into S. */
    __device__ __forceinline__ void fetch(TS (&v)[P], long long k0, long long kend)
    {
        const int kl = k_left(k0, kend);
        const TS *q = p;
#pragma unroll
        for (int l = 0; l < P; l++, q += step) v[l] = in_tile(l) && count(l, kl) ? *q : TS(0);
        p += kstep;
    }

    __device__ __forceinline__ void store(TS *S, const TS (&v)[P]) const
    {
#pragma unroll
        for (int l = 0; l < P; l++)
            if (in_tile(l)) S[soff(l)] = v[l];
    }
};

/* ---- fragments and mma ---------------------------------------------------------------- */

__device__ __forceinline__ unsigned to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* d += a b for one 16 x 8 tile (a: 4 registers, b: 2; K = KSTEP). */
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
#if MMT_MODE == 2
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif MMT_MODE == 3
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* The A fragments of step kk for this warp's MI tiles (PTX ISA's m16n8k16 / m16n8k8
 * layouts: lane = 4 g + t holds rows g and g + 8, columns 2t, 2t + 1 (+ 8), or t (+ 4)). */
__device__ __forceinline__ void load_a(unsigned (&a)[MI][4], const TS *As, int kk, int wm0, int lane)
{
    const int g = lane / 4, t = lane % 4, j = lane / 8;
    (void)g, (void)t, (void)j;
#pragma unroll
    for (int mi = 0; mi < MI; mi++) {
        const int m = wm0 + mi * 16;
#if ELEM == 2 && !OP_A /* [m][k]: matrices (rows 0-7 | 8-15) x (k 0-7 | 8-15) */
        ldsm_x4(a[mi], As + AT_A(m + lane % 16, kk * 16 + (lane / 16) * 8));
#elif ELEM == 2 /* [k][m], transposed by ldmatrix */
        ldsm_x4_trans(a[mi], As + AT_A(kk * 16 + (j / 2) * 8 + lane % 8, m + (j % 2) * 8));
#elif !OP_A /* 32-bit [m][k]: an 8 x 8 b16 matrix is 8 rows of 4 words */
        ldsm_x4(a[mi], As + AT_A(m + lane % 16, kk * 8 + (lane / 16) * 4));
#else /* 32-bit [k][m]: element by element */
        const int k = kk * 8 + t;
        a[mi][0] = __float_as_uint(As[AT_A(k, m + g)]);
        a[mi][1] = __float_as_uint(As[AT_A(k, m + g + 8)]);
        a[mi][2] = __float_as_uint(As[AT_A(k + 4, m + g)]);
        a[mi][3] = __float_as_uint(As[AT_A(k + 4, m + g + 8)]);
#endif
    }
}

/* The B fragments of step kk for this warp's NI tiles (k 2t, 2t + 1 (+ 8) or t (+ 4),
 * column g); ldmatrix reads two n tiles at once. */
__device__ __forceinline__ void load_b(unsigned (&b)[NI][2], const TS *Bs, int kk, int wn0, int lane)
{
    const int g = lane / 4, t = lane % 4, j = lane / 8;
    (void)g, (void)t, (void)j;
#if ELEM == 4 && !OP_B /* 32-bit [k][n]: element by element */
#pragma unroll
    for (int ni = 0; ni < NI; ni++) {
        const int k = kk * 8 + t, n = wn0 + ni * 8 + g;
        b[ni][0] = __float_as_uint(Bs[AT_B(k, n)]);
        b[ni][1] = __float_as_uint(Bs[AT_B(k + 4, n)]);
    }
#else
#pragma unroll
    for (int np = 0; np < NI / 2; np++) {
        const int n = wn0 + np * 16;
        unsigned x[4];
#if ELEM == 2 && !OP_B /* [k][n]: matrices (k 0-7, 8-15) x (n 0-7, 8-15), transposed */
        ldsm_x4_trans(x, Bs + AT_B(kk * 16 + (j % 2) * 8 + lane % 8, n + (j / 2) * 8));
#elif ELEM == 2 /* [n][k] */
        ldsm_x4(x, Bs + AT_B(n + (j / 2) * 8 + lane % 8, kk * 16 + (j % 2) * 8));
#else /* 32-bit [n][k] */
        ldsm_x4(x, Bs + AT_B(n + (j / 2) * 8 + lane % 8, kk * 8 + (j % 2) * 4));
#endif
        b[2 * np][0] = x[0], b[2 * np][1] = x[1], b[2 * np + 1][0] = x[2], b[2 * np + 1][1] = x[3];
    }
#endif
}

/* acc += the BK step held in stage (As, Bs). */
__device__ __forceinline__ void multiply(const TS *As, const TS *Bs, int wm0, int wn0, int lane,
                                         float (&acc)[MI][NI][4])
{
#pragma unroll
    for (int kk = 0; kk < BK / KSTEP; kk++) {
        unsigned a[MI][4], b[NI][2];
        load_a(a, As, kk, wm0, lane);
        load_b(b, Bs, kk, wn0, lane);
#if MMT_MODE == 4
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int r = 0; r < 4; r++) a[mi][r] = to_tf32(__uint_as_float(a[mi][r]));
#pragma unroll
        for (int ni = 0; ni < NI; ni++)
#pragma unroll
            for (int r = 0; r < 2; r++) b[ni][r] = to_tf32(__uint_as_float(b[ni][r]));
#endif
#if MMT_MODE == 5
        unsigned al[MI][4], bl[NI][2]; /* the residuals; a and b keep the high parts */
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const float x = __uint_as_float(a[mi][r]);
                a[mi][r] = to_tf32(x);
                al[mi][r] = to_tf32(x - __uint_as_float(a[mi][r]));
            }
#pragma unroll
        for (int ni = 0; ni < NI; ni++)
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const float x = __uint_as_float(b[ni][r]);
                b[ni][r] = to_tf32(x);
                bl[ni][r] = to_tf32(x - __uint_as_float(b[ni][r]));
            }
        /* The tensor cores add into their accumulator with truncation, so every mma into
         * the running sum loses up to an ulp of it: the three products of this step are
         * summed from zero (the small terms first) and added to the sum with one rounded
         * fp32 add, which keeps the error near plain fp32's. */
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int ni = 0; ni < NI; ni++) {
                float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                mma(t, al[mi], b[ni]);
                mma(t, a[mi], bl[ni]);
                mma(t, a[mi], b[ni]);
#pragma unroll
                for (int r = 0; r < 4; r++) acc[mi][ni][r] += t[r];
            }
#else
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int ni = 0; ni < NI; ni++) mma(acc[mi][ni], a[mi], b[ni]);
#endif
    }
}

/* ---- C ----------------------------------------------------------------------------------- */

__device__ __forceinline__ float c_load(const TC *p)
{
#if MMT_OUT == 0 && SPLITK > 1 && SERIAL
    return __ldcg(p); /* slices add in turn: the flag's acquire orders L2, not L1's copy */
#elif MMT_OUT == 0
    return *p;
#elif MMT_OUT == 2
    return __uint_as_float((unsigned)*p << 16);
#else
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(*p));
    return f;
#endif
}

__device__ __forceinline__ TC c_from(float v)
{
#if MMT_OUT == 0
    return v;
#elif MMT_OUT == 2
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#else
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
    return h;
#endif
}

#include "mmt_c_pair.h"
#include "mmt_fuse.h"

/* The operands the main loop reads: the caller's, or their packed copies in the workspace
 * (rows of cols elements at a pitch rounded up to 16 bytes; B after A; then serial split-K's
 * flags). */
struct operands {
    const TS *a, *b;
    long long lda, ldb;
    int *flags; /* serial split-K: a flag per block tile */
};

__device__ __forceinline__ long long packed_pitch(long long cols) { return (cols + CH - 1) / CH * CH; }

__device__ __forceinline__ operands operands_of(const mmt_gemm_params &p)
{
    operands o;
#if PACK
    o.lda = packed_pitch(OP_A ? p.m : p.k);
    o.ldb = packed_pitch(OP_B ? p.k : p.n);
    o.a = static_cast<const TS *>(p.workspace);
    o.b = o.a + (OP_A ? p.k : p.m) * o.lda;
    /* the space's workspace expression sizes this layout: a smaller one is a caller's bug */
    if (p.workspace_size < ((OP_A ? p.k : p.m) * o.lda + (OP_B ? p.n : p.k) * o.ldb) * ELEM) __trap();
    o.flags = const_cast<int *>(reinterpret_cast<const int *>(o.b + (OP_B ? p.n : p.k) * o.ldb));
#else
    o.a = static_cast<const TS *>(p.a), o.b = static_cast<const TS *>(p.b);
    o.lda = p.lda, o.ldb = p.ldb;
    o.flags = static_cast<int *>(p.workspace);
#endif
    return o;
}

#include "mmt_grid.h"
#include "mmt_serial_splitk.h"

/* A pointer or row pitch not aligned to one copy unit. */
#define MISALIGNED(ptr, ld) ((reinterpret_cast<unsigned long long>(ptr) | (unsigned long long)(ld) * ELEM) % (VEC * ELEM))
/* mmt_gemm's check below, for the host (mmt_params.h): packed operands are read from the
 * workspace, the caller's in the pass before, element by element */
MMT_NEEDS(ELEM, PACK ? 1 : VEC * ELEM, PACK ? 1 : VEC * ELEM, OP_A, OP_B, 0, 0);

extern "C" __global__ void __launch_bounds__(THREADS) mmt_gemm(mmt_launch_params lp)
{
#if FUSED
    const mmt_gemm_params &p = lp.p;
#else
    const mmt_gemm_params &p = lp;
#endif
    /* An instance is built for one pair of transposes and for operands aligned to VEC
     * elements (the space's ALIGN_A / ALIGN_B), with the workspace its launch asked for:
     * anything else is a caller's bug, and a trap says so louder than a wrong answer. */
    const operands op = operands_of(p);
    if (p.trans_a != OP_A || p.trans_b != OP_B || MISALIGNED(op.a, op.lda) || MISALIGNED(op.b, op.ldb)) __trap();

    extern __shared__ __align__(128) unsigned char mmt_smem[];
    TS *const As = reinterpret_cast<TS *>(mmt_smem);
    TS *const Bs = As + STAGES * A_STAGE;

    const long long M = p.m, N = p.n, K = p.k;
    const float alpha = (float)p.alpha, beta = (float)p.beta;

    /* which tile (GROUP_M tile rows swept together, mmt_grid.h) */
    const long long tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    long long tile_m, tile_n;
    mmt_place_tile(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
    if (tile_m >= tiles_m || tile_n >= tiles_n) return;
    const long long m0 = tile_m * BM, n0 = tile_n * BN;

    /* This slice's K range; alpha == 0 reads neither A nor B. */
    long long kbeg = 0, kend = K;
#if SPLITK > 1
    mmt_slice_range(K, blockIdx.z, kbeg, kend);
#if SERIAL
    if (kbeg > kend) kbeg = kend; /* an empty slice still passes the flag on */
#else
    if (kbeg >= kend || alpha == 0.0f) return; /* adds nothing; mmt_gemm_pre did beta * C */
#endif
#endif
    if (alpha == 0.0f) kend = kbeg;

    const TS *const a = op.a, *const b = op.b;
    tile_copy<A_ROWS, A_COLS, LAYOUT_A, OP_A == 1> ca;
    tile_copy<B_ROWS, B_COLS, LAYOUT_B, OP_B == 0> cb;
    ca.init(a, op.lda, m0, M, kbeg);
    cb.init(b, op.ldb, n0, N, kbeg);

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm0 = (warp / WARPS_N) * WTM, wn0 = (warp % WARPS_N) * WTN;

    float acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int ni = 0; ni < NI; ni++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[mi][ni][r] = 0.0f;

    const long long ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    int rd = 0, wr = STAGES - 1; /* the stage multiplied, the stage filled next */
#if SYNC_COPY
    /* Tile t + STAGES - 1 is fetched into registers before tile t is multiplied and stored
     * after it: its stage held tile t - 1, which every warp finished before the barrier
     * that ended the last step. */
    TS ra[decltype(ca)::P], rb[decltype(cb)::P];
    for (int st = 0; st < STAGES - 1; st++)
        if (st < ntiles) {
            ca.fetch(ra, kbeg + (long long)st * BK, kend);
            cb.fetch(rb, kbeg + (long long)st * BK, kend);
            ca.store(As + st * A_STAGE, ra);
            cb.store(Bs + st * B_STAGE, rb);
        }
    __syncthreads();
    for (long long t = 0; t < ntiles; t++) {
        const bool more = t + STAGES - 1 < ntiles;
        if (more) {
            ca.fetch(ra, kbeg + (t + STAGES - 1) * BK, kend);
            cb.fetch(rb, kbeg + (t + STAGES - 1) * BK, kend);
        }
        multiply(As + rd * A_STAGE, Bs + rd * B_STAGE, wm0, wn0, lane, acc);
        if (more) {
            ca.store(As + wr * A_STAGE, ra);
            cb.store(Bs + wr * B_STAGE, rb);
        }
        __syncthreads();
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
#else
    /* Tiles t+1 .. t+STAGES-1 are in flight while tile t is multiplied; one barrier per
     * step (it also frees the stage that the next copies overwrite). */
#pragma unroll
    for (int st = 0; st < STAGES - 1; st++) {
        if (st < ntiles) {
            ca.async_copy(As + st * A_STAGE, kbeg + (long long)st * BK, kend, a);
            cb.async_copy(Bs + st * B_STAGE, kbeg + (long long)st * BK, kend, b);
        }
        cp_async_commit(); /* empty groups too: the count stays uniform */
    }
    for (long long t = 0; t < ntiles; t++) {
        cp_async_wait<STAGES - 2>(); /* this thread's copies of tile t have landed */
        __syncthreads();             /* everyone's; and stage wr (tile t - 1) is free */
        if (t + STAGES - 1 < ntiles) {
            ca.async_copy(As + wr * A_STAGE, kbeg + (t + STAGES - 1) * BK, kend, a);
            cb.async_copy(Bs + wr * B_STAGE, kbeg + (t + STAGES - 1) * BK, kend, b);
        }
        cp_async_commit();
        multiply(As + rd * A_STAGE, Bs + rd * B_STAGE, wm0, wn0, lane, acc);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
    cp_async_wait<0>();
#endif

    /* Epilogue: lane 4 g + t holds rows g and g + 8, columns 2t and 2t + 1 of each tile.
     * C = alpha * acc + beta * C with one rounding fewer (beta == 0: C is not read), or for
     * split-K slices C += alpha * acc, atomically or in turn (after the first, which applies
     * beta); pairs go out as one 8- or 4-byte store where C allows it. NVRTC's time went
     * mostly to copies of the stores, one per way through the branches before them (on
     * beta, on cvec, on a row), so: the values are made in place first, in one pass per case
     * of beta; the stores after them are predicated on edge checks in 32 bits, with no
     * branch, and cvec is folded into a number NVRTC cannot see through. */
    TC *const C = static_cast<TC *>(p.c);
    const long long ldc = p.ldc;
    const int g = lane / 4, t4 = lane % 4;
#if SPLITK > 1 && SERIAL
    int *const flag = op.flags + tile_m * tiles_n + tile_n;
    const int slice = (int)blockIdx.z;
    sk_wait(flag, slice);
    const float b_in = slice ? 1.0f : beta; /* later slices add to what the earlier ones wrote */
#else
    const float b_in = beta;
#endif
    /* element ni e of row mi h (from this thread's first) is in C if 16 mi + 8 h < in_m and
     * 8 ni + e < in_n; its address from an offset that each pass takes afresh: NVRTC would
     * otherwise keep every row's address from the first pass to the second */
    const int in_m = (int)(M - m0 - wm0 - g < WTM ? M - m0 - wm0 - g : WTM),
              in_n = (int)(N - n0 - wn0 - 2 * t4 < WTN ? N - n0 - wn0 - 2 * t4 : WTN);
    const long long c00 = (m0 + wm0 + g) * ldc + n0 + wn0 + 2 * t4;
    const long long ld8 = 8 * ldc;
#define C_AT(mi, h, ni) (cq + (2 * (mi) + (h)) * ld8 + 8 * (ni))
#if SPLITK > 1 && !SERIAL
    (void)b_in;
    TC *const cq = C + c00;
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int cols = 16 * mi + 8 * h < in_m ? in_n : 0;
#pragma unroll
            for (int ni = 0; ni < NI; ni++) {
                TC *const cp = C_AT(mi, h, ni);
                if (8 * ni < cols) atomicAdd(cp, alpha * acc[mi][ni][2 * h]);
                if (8 * ni + 1 < cols) atomicAdd(cp + 1, alpha * acc[mi][ni][2 * h + 1]);
            }
        }
#else
    const bool cvec = (reinterpret_cast<unsigned long long>(C) % (2 * sizeof(TC)) == 0) && (ldc % 2 == 0);
    if (b_in == 0.0f) {
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int ni = 0; ni < NI; ni++)
#pragma unroll
                for (int r = 0; r < 4; r++) acc[mi][ni][r] *= alpha;
    } else {
        TC *const cq = C + opaque(c00);
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int cols = 16 * mi + 8 * h < in_m ? in_n : 0;
#pragma unroll
                for (int ni = 0; ni < NI; ni++)
#pragma unroll
                    for (int e = 0; e < 2; e++)
                        if (8 * ni + e < cols) {
                            float &x = acc[mi][ni][2 * h + e];
                            x = fmaf(alpha, x, b_in * c_load(C_AT(mi, h, ni) + e));
                        }
            }
    }
#if FUSED /* in a pass of its own (the stores below would keep the bias's loads apart), by the
           * slice that holds the sum */
#if SPLITK > 1
    if (slice == SPLITK - 1)
#endif
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int ni = 0; ni < NI; ni++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        float &x = acc[mi][ni][2 * h + e];
                        x = fuse(x, lp.bias, m0 + wm0 + 16 * mi + 8 * h + g, n0 + wn0 + 8 * ni + 2 * t4 + e, M, N);
                    }
#endif
    TC *const cq = C + opaque(c00);
    const int in_pairs = opaque(cvec ? in_n : 0); /* pair ni is one store if 8 ni + 1 < pairs */
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const bool in = 16 * mi + 8 * h < in_m;
            const int cols = in ? in_n : 0, pairs = in ? in_pairs : 0;
#pragma unroll
            for (int ni = 0; ni < NI; ni++) {
                TC *const cp = C_AT(mi, h, ni);
                const float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];
                store_pair(cp, v0, v1, 8 * ni + 1 < pairs, 8 * ni < cols, 8 * ni + 1 < cols);
            }
        }
#endif
#undef C_AT
#if SPLITK > 1 && SERIAL
    sk_signal(flag, slice + 1);
#endif
}

#if SPLITK > 1 || PACK
#if PACK
/* rows x cols elements of src (row pitch ld) to dst (pitch packed_pitch(cols)), 16 bytes per
 * thread and step: any source alignment, aligned stores. */
__device__ __forceinline__ void pack(TS *dst, const TS *src, long long ld, long long rows, long long cols,
                                     long long first, long long stride)
{
    const long long pitch = packed_pitch(cols), units = rows * (pitch / CH);
    for (long long u = first; u < units; u += stride) {
        const long long r = u / (pitch / CH), c0 = u % (pitch / CH) * CH;
        union {
            TS e[CH];
            uint4 v;
        } x;
#pragma unroll
        for (int e = 0; e < CH; e++) x.e[e] = c0 + e < cols ? src[r * ld + c0 + e] : TS(0);
        *reinterpret_cast<uint4 *>(dst + r * pitch + c0) = x.v;
    }
}
#endif

/* Before the kernel: the packed operands (alpha == 0: A and B are not read), and for split-K
 * C = beta * C over the whole of C (beta == 0 writes zeros without reading) or, serial, the
 * flags zeroed. Any 1-D launch: the loops stride over the grid. */
extern "C" __global__ void mmt_gemm_pre(mmt_gemm_params p)
{
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
#if PACK
    if (p.alpha != 0.0 && p.k > 0) {
        const operands o = operands_of(p);
        pack(const_cast<TS *>(o.a), static_cast<const TS *>(p.a), p.lda, OP_A ? p.k : p.m, OP_A ? p.m : p.k, first,
             stride);
        pack(const_cast<TS *>(o.b), static_cast<const TS *>(p.b), p.ldb, OP_B ? p.n : p.k, OP_B ? p.k : p.n, first,
             stride);
    }
#endif
#if SPLITK > 1 && SERIAL
    const long long tiles = (p.m + BM - 1) / BM * ((p.n + BN - 1) / BN);
    int *const flags = operands_of(p).flags;
    /* the space's workspace expression sizes it */
    if ((char *)(flags + tiles) - (char *)p.workspace > p.workspace_size) __trap();
    for (long long i = first; i < tiles; i += stride) flags[i] = 0;
#elif SPLITK > 1
    if (p.beta == 1.0) return;
    float *const C = static_cast<float *>(p.c);
    const float beta = (float)p.beta;
    for (long long x = first; x < p.m * p.n; x += stride) {
        float *const cp = C + (x / p.n) * p.ldc + x % p.n;
        *cp = beta == 0.0f ? 0.0f : beta * *cp;
    }
#endif
}
#endif
