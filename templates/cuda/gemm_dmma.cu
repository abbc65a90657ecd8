/* gemm_dmma.cu - fp64 GEMM on the fp64 tensor cores (DMMA) with warp-level mma.sync, the
 * template of search_spaces/cuda_gemm_dmma.yaml.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major doubles, any M N K, any lda ldb ldc
 *                                             (the space keeps VEC within their alignment),
 *                                             the transposes the instance was built for.
 *
 * The products are exact fp64 fused multiply-adds (the tensor cores round like DFMA), so the
 * result has the accuracy of the CUDA-core kernel; only the order of the sums differs. BLAS
 * rules: beta == 0 -> C is not read; alpha == 0 or K == 0 -> A and B are not read.
 *
 * Structure: a block computes a BM x BN tile of C with WARPS_M x WARPS_N warps, each a
 * (BM / WARPS_M) x (BN / WARPS_N) warp tile of 8 x 8 accumulator tiles (two doubles per
 * lane). K is walked in steps of BK through a ring of STAGES shared-memory stages filled by
 * cp.async (VEC doubles per copy, zero-filled past the edges). Each operand keeps its
 * global orientation in shared memory: rows along m or n with k contiguous ("K-major"), or
 * rows along k. MMA_K picks the instruction: 4 is mma.m8n8k4 (sm_80 and later), 8 and 16 are
 * Hopper's mma.m16n8k8 and m16n8k16 (sm_90), which do the work of 4 and 8 m8n8k4 in one.
 *
 * Every shape gives lane 4 g + t the A elements of rows g (+ 8) at k-step columns t + 4 s and
 * the B elements of column g at rows t + 4 s, so the k of step s is a free choice as long as
 * A and B agree: within each group of 16 k, lane t takes k = 4 t + s. Its four k of a row of a
 * K-major operand are then contiguous (two 16-byte loads), and an operand stored along m or n
 * is read one double at a time. Bank conflicts are kept out by XOR-swizzling 16-byte chunks:
 * a K-major row's chunks by the row's parity (the two rows a quarter warp reads), a k row's
 * by its group of four (the four k rows a half warp reads, 4 t + s for t = 0..3).
 *
 * Launch (the space's launch section): grid (ceil(M/BM) * ceil(N/BN), 1, SPLITK), block
 * (32 * WARPS_M * WARPS_N, 1, 1), dynamic shared memory SMEM bytes. With SPLITK > 1 the
 * module also exports mmt_gemm_pre, launched first (any 1-D grid: it strides): for SERIAL = 0
 * it applies C = beta * C, after which the slices add alpha * partial into C with atomicAdd
 * (fast, but the order of the additions varies from run to run); for SERIAL = 1 it zeroes a
 * counter per tile in the workspace, and the tile's last slice to arrive adds the slices'
 * partial sums in the order of K and writes C (mmt_serial_splitk.h), the same bits on every
 * run with no slice waiting for another.
 *
 * SWAP (NN under m16n8k8 and m16n8k16) computes C^T = B^T A^T: B^T takes the mma's A slot
 * and A^T its B slot, so the K-major A lies where its two adjacent k of a 16-byte load are
 * what the fragment wants (b[0], b[1] of one column), and B^T, stored along n, gives the A
 * fragment's rows g and g + 8 one double at a time. As the mma's A, a K-major row's two k
 * are not what the fragment holds side by side (rows g and g + 8 of one k): ptxas moved
 * them apart before nearly every DMMA. The tile's rows are then C's columns (M and N below
 * are C^T's, the grid ceil(N/BM) * ceil(M/BN)), and C is written transposed. Below, A and B
 * name the operands in the mma's slots.
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17, sm_80+; sm_90
 * for MMA_K 8 and 16). */

/* ---- knobs ------------------------------------------------------------------------ */
#ifndef MMT_MODE
#define MMT_MODE 1 /* f64: the only mode this template serves */
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
#define BK 16 /* K step held in a shared-memory stage (doubles; 16 or 32) */
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
#ifndef VEC
#define VEC 1 /* doubles per global copy: 1 (8 bytes) or 2 (16 bytes: rows 16-byte aligned) */
#endif
#ifndef MMA_K
#define MMA_K 4 /* the instruction: 4 mma.m8n8k4, 8 mma.m16n8k8, 16 mma.m16n8k16 (sm_90) */
#endif
#ifndef SPLITK
#define SPLITK 1 /* slices of K (gridDim.z), added into C after mmt_gemm_pre */
#endif
#ifndef SERIAL
#define SERIAL 0 /* split-K: 0 atomicAdd into C, 1 in the order of K, summed by the last slice */
#endif
#ifndef GROUP_M
#define GROUP_M 1 /* block rasterisation: GROUP_M row tiles are swept together (L2 reuse) */
#endif
#ifndef SWAP
#define SWAP 0 /* 1: C^T = B^T A^T, B^T in the mma's A slot, A^T in its B slot, C written transposed */
#endif

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_MODE != 1
#error "gemm_dmma.cu serves f64 (MMT_MODE 1) only"
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
#define MI (WTM / 8)       /* 8 x 8 accumulator tiles per warp tile */
#define NI (WTN / 8)
#define KS (MMA_K == 16 ? 4 : 2) /* k-steps of 4 whose fragments are loaded at once */
/* the operands in the mma's slots (SWAP: B^T and A^T), 1 where stored contiguous along the
 * tile's rows (A) or columns (B), rows along k; 0 where K-major */
#define A_MN_ (SWAP ? !OP_B : OP_A)
#define B_MN_ (SWAP ? OP_A : !OP_B)
#ifndef A_MN
#define A_MN A_MN_
#endif
#ifndef B_MN
#define B_MN B_MN_
#endif
#if A_MN != A_MN_ || B_MN != B_MN_ /* the space passes its derived A_MN and B_MN */
#error "A_MN and B_MN do not match the orientation of this instance"
#endif
/* each operand's stage: ROWS x COLS doubles, COLS contiguous as in global memory */
#define A_ROWS (A_MN ? BK : BM)
#define A_COLS (A_MN ? BM : BK)
#define B_ROWS (B_MN ? BK : BN)
#define B_COLS (B_MN ? BN : BK)
#define A_STAGE (BM * BK)
#define B_STAGE (BN * BK)
#define SMEM_ (STAGES * (A_STAGE + B_STAGE) * 8)
#if defined(SMEM) && SMEM != SMEM_ /* the space's SMEM is what the launch gives */
#error "SMEM does not match the shared-memory stages of this instance"
#endif

#if BM % WARPS_M || BN % WARPS_N || WTM % 16 || WTN % 8
#error "warp tiles must be multiples of 16 x 8"
#endif
#if BK != 16 && BK != 32
#error "BK is 16 or 32"
#endif
#if BM < 16 || BN < 16
#error "BM and BN are at least 16 (a k row of shared memory holds eight 16-byte chunks)"
#endif
#if VEC != 1 && VEC != 2
#error "VEC is 1 or 2"
#endif
#if THREADS % (A_COLS / VEC) || THREADS % (B_COLS / VEC)
#error "THREADS must be a multiple of the copy units per row of A and B"
#endif
#if STAGES < 2 || STAGES > 5
#error "STAGES is 2 to 5"
#endif
#if MMA_K != 4 && MMA_K != 8 && MMA_K != 16
#error "MMA_K is 4, 8 or 16"
#endif
#if SPLITK < 1 || GROUP_M < 1 || (SERIAL != 0 && SERIAL != 1)
#error "SPLITK and GROUP_M are >= 1, SERIAL 0 or 1"
#endif
#if SWAP != 0 && SWAP != 1
#error "SWAP is 0 or 1"
#endif

#include "mmt_params.h"

/* ---- shared-memory layout ------------------------------------------------------------- */

/* Double offset of (r, c) in a stage of rows of COLS doubles: 16-byte chunks XORed by the
 * row's parity where the rows run along m or n (K_MAJOR), by its group of four where they
 * run along k (see the header). */
template <int COLS, bool K_MAJOR> __host__ __device__ constexpr int smem_at(int r, int c)
{
    const int x = K_MAJOR ? (r & 1) : ((r >> 1) & 6);
    return r * COLS + (((c >> 1) ^ x) << 1) + (c & 1);
}
#define A_KMAJ (A_MN == 0)
#define B_KMAJ (B_MN == 0)
#define AT_A(r, c) smem_at<A_COLS, A_KMAJ>(r, c)
#define AT_B(r, c) smem_at<B_COLS, B_KMAJ>(r, c)

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* ---- global -> shared copies ------------------------------------------------------------ */

/* cp.async of BYTES (8 or 16) from global src to shared dst: the first src_bytes are
 * copied, the rest zero-filled (0: src is not read). */
template <int BYTES> __device__ __forceinline__ void cp_async(void *dst, const void *src, int src_bytes)
{
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                     "r"(src_bytes)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                     "r"(src_bytes)
                     : "memory");
}

/* cp.async of BYTES from global src wholly inside the matrix: no zero fill, no byte count. */
template <int BYTES> __device__ __forceinline__ void cp_async_full(void *dst, const void *src)
{
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_u32(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* One operand's copies of a ROWS x COLS tile (COLS contiguous, row pitch ld in global
 * memory), one tile after another along k. K_ROWS: the rows run along k. Each thread copies
 * the units of VEC doubles at column c0 of rows r0, r0 + RP, ... (THREADS is a multiple of
 * the units per row), so its addresses differ by constant steps and few registers stay live
 * across the K loop. */
template <int ROWS, int COLS, bool K_ROWS> struct tile_copy {
    static constexpr int UPR = COLS / VEC;         /* units per row */
    static constexpr int RP = THREADS / UPR;       /* rows per pass */
    static constexpr int P = (ROWS + RP - 1) / RP; /* passes */
    const double *p;       /* this thread's first unit of the next tile */
    long long step, kstep; /* RP rows on; one tile on along k */
    int r0, c0, x_left;    /* x_left: rows (columns if K_ROWS) left along m or n from r0 (c0) */
    int dst[4];            /* unit l's stage offset less l * RP * COLS, by slot(l) */

    /* Unit l's row r0 + l RP swizzles its chunk by the row's parity (K-major rows) or bits 2-3
     * (k rows); with r0 < RP those are r0's plus l RP's without a carry, so one to four
     * offsets serve every unit, each plus an immediate (an offset per unit, hoisted out of the
     * K loop, took P registers). exact(): so for every thread and unit, checked at compile time. */
    static __host__ __device__ constexpr int slot(int l) { return K_ROWS ? (l * RP >> 2) & 3 : (l * RP) & 1; }
    static __host__ __device__ constexpr int dst_of(int r0, int c0, int m)
    {
        const int x = K_ROWS ? 2 * (((r0 >> 2) + m) & 3) : (r0 + m) & 1;
        return r0 * COLS + (((c0 >> 1) ^ x) << 1) + (c0 & 1);
    }
    static constexpr bool exact()
    {
        for (int tid = 0; tid < THREADS; tid++)
            for (int l = 0; l < P; l++) {
                const int r0 = tid / UPR, c0 = tid % UPR * VEC, r = r0 + l * RP;
                if (dst_of(r0, c0, slot(l)) + l * RP * COLS != (K_ROWS ? smem_at<COLS, false>(r, c0) : smem_at<COLS, true>(r, c0)))
                    return false;
            }
        return true;
    }

    __device__ __forceinline__ void init(const double *base, long long ld, long long x0, long long xn,
                                         long long kbeg)
    {
        r0 = (int)threadIdx.x / UPR;
        c0 = ((int)threadIdx.x % UPR) * VEC;
#pragma unroll
        for (int m = 0; m < 4; m++) dst[m] = dst_of(r0, c0, m);
        p = K_ROWS ? base + (kbeg + r0) * ld + x0 + c0 : base + (x0 + r0) * ld + kbeg + c0;
        step = RP * ld;
        kstep = K_ROWS ? BK * ld : BK;
        const long long left = xn - x0 - (K_ROWS ? c0 : r0);
        x_left = left < 0 ? 0 : left > (1 << 30) ? (1 << 30) : (int)left;
    }

    /* Doubles of unit l inside the matrix; k_left: rows (columns) left along k from r0 (c0). */
    __device__ __forceinline__ int count(int l, int k_left) const
    {
        const int along = K_ROWS ? x_left : k_left, across = K_ROWS ? k_left : x_left;
        return l * RP >= across || along <= 0 ? 0 : along >= VEC ? VEC : along;
    }

    __device__ __forceinline__ int k_left(long long k0, long long kend) const
    {
        const long long left = kend - k0 - (K_ROWS ? r0 : c0);
        return left < 0 ? 0 : left > BK ? BK : (int)left;
    }

    /* The next tile (at k0) into stage S with cp.async; safe: a valid address never read. */
    __device__ __forceinline__ void async_copy(double *S, long long k0, long long kend, const double *safe)
    {
        const int kl = k_left(k0, kend);
        const double *q = p;
#pragma unroll
        for (int l = 0; l < P; l++, q += step)
            if (ROWS % RP == 0 || r0 + l * RP < ROWS) {
                const int n = count(l, kl);
                cp_async<VEC * 8>(S + dst[slot(l)] + l * RP * COLS, n ? q : safe, n * 8);
            }
        p += kstep;
    }

    /* The next tile into stage S where it lies wholly inside the matrix (a full K tile of a
     * block inside along m and n): the checked copy's counts, zero fills and safe
     * addresses are most of the K loop's integer work. */
    __device__ __forceinline__ void async_copy_full(double *S)
    {
        const double *q = p;
#pragma unroll
        for (int l = 0; l < P; l++, q += step)
            if (ROWS % RP == 0 || r0 + l * RP < ROWS) cp_async_full<VEC * 8>(S + dst[slot(l)] + l * RP * COLS, q);
        p += kstep;
    }
};

/* ---- fragments and mma ---------------------------------------------------------------- */

/* acc (8 x 8: rows g, columns 2t, 2t + 1) += a (8 x 4: row g, k t) b (4 x 8: k t, column g) */
__device__ __forceinline__ void mma884(double (&d)[2], double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

#if MMA_K == 8
/* Two stacked 8 x 8 tiles (rows g, g + 8) += 16 x 8 A by 8 x 8 B: a[v] row g + 8 (v % 2), k
 * t + 4 (v / 2); b[v] k t + 4 v. */
__device__ __forceinline__ void mma1688(double (&d0)[2], double (&d1)[2], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
#elif MMA_K == 16
__device__ __forceinline__ void mma16816(double (&d0)[2], double (&d1)[2], const double (&a)[8], const double (&b)[4])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

/* The first k of k-group k0 (steps of 4 KS): lane t's k are kgroup(k0) + 4 t + s (KS of 4:
 * two halves of 16). */
__host__ __device__ constexpr int kgroup(int k0) { return k0 / 16 * 16 + k0 % 16 / 4; }

/* Where lane 4 g + t reads its fragments of one operand in a stage: x[i][s] is element
 * (row x0 + 8 i + g, k kgroup + 4 t + s) of a K-major stage, (k ..., column x0 + 8 i + g) of
 * one stored along k; K-major rows give 16-byte loads. The swizzle leaves the lane one bit
 * of the chunk, set by the parity of i (rows along k) or of (k + s) / 2 (K-major), so each
 * fragment is one of two bases plus a constant and the loads take immediate offsets: an
 * address per element, hoisted out of the K loop, is what pushed 128 x 128 tiles past 255
 * registers. exact(): so for every lane, warp, tile and k, checked at compile time. */
template <int COLS, bool K_MAJOR> struct frag_reader {
    int base[2];

    static __host__ __device__ constexpr int offset(int i, int k) { return K_MAJOR ? 8 * i * COLS + k : k * COLS + 8 * i; }
    static __host__ __device__ constexpr int parity(int i, int k) { return K_MAJOR ? (k >> 1) & 1 : i & 1; }
    __host__ __device__ constexpr int at(int i, int k) const { return base[parity(i, k)] + offset(i, k); }

    __host__ __device__ constexpr void init(int x0, int lane)
    {
        const int g = lane / 4, t = lane % 4;
        for (int p = 0; p < 2; p++)
            base[p] = K_MAJOR ? smem_at<COLS, true>(x0 + g, 4 * t + 2 * p) - offset(0, 2 * p)
                              : smem_at<COLS, false>(4 * t, x0 + 8 * p + g) - offset(p, 0);
    }

    /* x[i][s] of k-group kb. */
    template <int N> __device__ __forceinline__ void load(double (&x)[N][KS], const double *S, int kb) const
    {
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int s = 0; s < KS; s++) {
                if constexpr (K_MAJOR) {
                    if (s % 2) continue;
                    const double2 v = *reinterpret_cast<const double2 *>(S + at(i, kb + s));
                    x[i][s] = v.x, x[i][s + 1] = v.y;
                } else {
                    x[i][s] = S[at(i, kb + s)];
                }
            }
    }

    template <int WARPS, int WT> static constexpr bool exact()
    {
        for (int lane = 0; lane < 32; lane++)
            for (int w = 0; w < WARPS; w++) {
                frag_reader f{};
                f.init(w * WT, lane);
                const int g = lane / 4, t = lane % 4;
                for (int i = 0; i < WT / 8; i++)
                    for (int k0 = 0; k0 < BK; k0 += 4 * KS)
                        for (int s = 0; s < KS; s++) {
                            const int r = w * WT + 8 * i + g, k = kgroup(k0) + 4 * t + s;
                            if (f.at(i, kgroup(k0) + s) != (K_MAJOR ? smem_at<COLS, true>(r, k) : smem_at<COLS, false>(k, r)))
                                return false;
                        }
            }
        return true;
    }
};

/* acc += the BK step held in stage (As, Bs). */
__device__ __forceinline__ void multiply(const double *As, const double *Bs, const frag_reader<A_COLS, A_KMAJ> &ra,
                                         const frag_reader<B_COLS, B_KMAJ> &rb, double (&acc)[MI][NI][2])
{
#pragma unroll
    for (int k0 = 0; k0 < BK; k0 += 4 * KS) {
        const int kb = kgroup(k0);
        double a[MI][KS], b[NI][KS];
        ra.load(a, As, kb);
        rb.load(b, Bs, kb);
#if MMA_K == 4
#pragma unroll
        for (int s = 0; s < KS; s++)
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++) mma884(acc[i][j], a[i][s], b[j][s]);
#else
#pragma unroll
        for (int i = 0; i < MI; i += 2)
#pragma unroll
            for (int j = 0; j < NI; j++) {
                double af[2 * KS];
#pragma unroll
                for (int v = 0; v < 2 * KS; v++) af[v] = a[i + v % 2][v / 2];
#if MMA_K == 8
                mma1688(acc[i][j], acc[i + 1][j], af, b[j]);
#else
                mma16816(acc[i][j], acc[i + 1][j], af, b[j]);
#endif
            }
#endif
    }
}

/* ---- split-K in the order of K ----------------------------------------------------------- */

#include "mmt_grid.h"
#include "mmt_serial_splitk.h"

/* A pointer or row pitch not aligned to one copy unit. */
#define MISALIGNED(ptr, ld) ((reinterpret_cast<unsigned long long>(ptr) | (unsigned long long)(ld) * 8) % (VEC * 8))
MMT_NEEDS(8, VEC * 8, VEC * 8, OP_A, OP_B, 0, 0); /* mmt_gemm's check below, for the host (mmt_params.h) */

/* A bound of one block per SM lets ptxas use the registers the tile needs: left to aim for
 * more blocks, it spilled a word outside the K loop for 28 of 768 instances at 4096^3. */
extern "C" __global__ void __launch_bounds__(THREADS, 1) mmt_gemm(mmt_gemm_params p)
{
    /* An instance is built for one pair of transposes and for operands aligned to VEC
     * doubles (the space's ALIGN_A / ALIGN_B): anything else is a caller's bug, and a trap
     * says so louder than a wrong answer. */
    if (p.trans_a != OP_A || p.trans_b != OP_B || MISALIGNED(p.a, p.lda) || MISALIGNED(p.b, p.ldb)) __trap();

    extern __shared__ __align__(128) unsigned char mmt_smem[];
    double *const As = reinterpret_cast<double *>(mmt_smem);
    double *const Bs = As + STAGES * A_STAGE;

    const long long M = SWAP ? p.n : p.m, N = SWAP ? p.m : p.n, K = p.k; /* the tiles' (SWAP: C^T's) */
    const double alpha = p.alpha, beta = p.beta;

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
#if !SERIAL
    if (kbeg >= kend || alpha == 0.0) return; /* adds nothing; mmt_gemm_pre did beta * C */
#else
    if (kbeg > kend) kbeg = kend; /* an empty slice still counts itself in */
#endif
#endif
    if (alpha == 0.0) kend = kbeg;

    const double *const a = static_cast<const double *>(SWAP ? p.b : p.a); /* the mma's A and B */
    const double *const b = static_cast<const double *>(SWAP ? p.a : p.b);
    tile_copy<A_ROWS, A_COLS, A_MN> ca;
    tile_copy<B_ROWS, B_COLS, B_MN> cb;
    static_assert(decltype(ca)::exact() && decltype(cb)::exact(), "copy offsets disagree with the swizzle");
    ca.init(a, SWAP ? p.ldb : p.lda, m0, M, kbeg);
    cb.init(b, SWAP ? p.lda : p.ldb, n0, N, kbeg);

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm0 = (warp / WARPS_N) * WTM, wn0 = (warp % WARPS_N) * WTN;
    frag_reader<A_COLS, A_KMAJ> ra;
    frag_reader<B_COLS, B_KMAJ> rb;
    static_assert(ra.exact<WARPS_M, WTM>() && rb.exact<WARPS_N, WTN>(), "fragment addresses disagree with the swizzle");
    ra.init(wm0, lane);
    rb.init(wn0, lane);

    double acc[MI][NI][2];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) acc[i][j][0] = acc[i][j][1] = 0.0;

    /* Tiles t+1 .. t+STAGES-1 are in flight while tile t is multiplied; one barrier per step
     * (it also frees the stage that the next copies overwrite). The first nfull tiles of a
     * block inside the matrix along m and n lie wholly inside it (a slice's chunk is whole
     * tiles), so the loop copies them without bounds and leaves the checked copies to the
     * rest: the last partial K tile and the blocks on the edges. */
    const long long ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    const long long nfull = m0 + BM <= M && n0 + BN <= N ? (kend - kbeg) / BK : 0;
    int rd = 0, wr = STAGES - 1; /* the stage multiplied, the stage filled next */
#pragma unroll
    for (int st = 0; st < STAGES - 1; st++) {
        if (st < ntiles) {
            ca.async_copy(As + st * A_STAGE, kbeg + (long long)st * BK, kend, a);
            cb.async_copy(Bs + st * B_STAGE, kbeg + (long long)st * BK, kend, b);
        }
        cp_async_commit(); /* empty groups too: the count stays uniform */
    }
    /* Step t: refill stage wr with tile t + STAGES - 1, multiply tile t (full: a constant at
     * each call, so each loop keeps only its own copies). */
    const auto k_step = [&](long long t, bool full) {
        cp_async_wait<STAGES - 2>(); /* this thread's copies of tile t have landed */
        __syncthreads();             /* everyone's; and stage wr (tile t - 1) is free */
        if (full) {
            ca.async_copy_full(As + wr * A_STAGE);
            cb.async_copy_full(Bs + wr * B_STAGE);
        } else if (t + STAGES - 1 < ntiles) {
            ca.async_copy(As + wr * A_STAGE, kbeg + (t + STAGES - 1) * BK, kend, a);
            cb.async_copy(Bs + wr * B_STAGE, kbeg + (t + STAGES - 1) * BK, kend, b);
        }
        cp_async_commit();
        multiply(As + rd * A_STAGE, Bs + rd * B_STAGE, ra, rb, acc);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    };
    long long t = 0;
    for (; t + STAGES - 1 < nfull; t++) k_step(t, true);
    for (; t < ntiles; t++) k_step(t, false);
    cp_async_wait<0>();

    /* Split-K in the order of K: the tile's last slice to arrive sums the slices' partial
     * sums (mmt_serial_splitk.h) and alone writes C. */
#if SPLITK > 1 && SERIAL
    const long long tiles = tiles_m * tiles_n;
    if (p.workspace_size < sk_last_bytes(tiles, BM * BN * 8)) __trap(); /* sized by the space */
    if (!sk_last_sum(p.workspace, tiles, tile_m * tiles_n + tile_n, reinterpret_cast<double (&)[MI * NI * 2]>(acc)))
        return;
#endif

    /* Epilogue: lane 4 g + t holds rows g of each 8 x 8 tile, columns 2t and 2t + 1.
     * C = alpha * acc + beta * C (beta == 0: C is not read); atomic split-K slices add
     * alpha * acc into C; pairs go out as one 16-byte access where C allows it.
     * SWAP: the tile is C^T's, its columns C's rows, so a pair is two rows of C (ldc apart),
     * written a double at a time (eight lanes write 64 contiguous bytes). */
    double *const C = static_cast<double *>(p.c);
    const long long ldc = p.ldc;
    const int g = lane / 4, t4 = lane % 4;
    const double b_in = beta;
#if SPLITK == 1 || SERIAL
    const bool cvec = !SWAP && (reinterpret_cast<unsigned long long>(C) % 16 == 0) && (ldc % 2 == 0);
#endif
#pragma unroll
    for (int i = 0; i < MI; i++) {
        const long long row = m0 + wm0 + i * 8 + g;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < NI; j++) {
            const long long col = n0 + wn0 + j * 8 + 2 * t4;
            double *const cp = SWAP ? C + col * ldc + row : C + row * ldc + col;
            const long long next = SWAP ? ldc : 1; /* the pair's second element */
            const double x0 = alpha * acc[i][j][0], x1 = alpha * acc[i][j][1];
#if SPLITK > 1 && !SERIAL
            if (col < N) atomicAdd(cp, x0);
            if (col + 1 < N) atomicAdd(cp + next, x1);
#else
            if (cvec && col + 1 < N) {
                double2 v = make_double2(x0, x1);
                if (b_in != 0.0) {
                    const double2 c = *reinterpret_cast<const double2 *>(cp);
                    v.x = fma(b_in, c.x, x0), v.y = fma(b_in, c.y, x1);
                }
                *reinterpret_cast<double2 *>(cp) = v;
            } else {
                if (col < N) cp[0] = b_in == 0.0 ? x0 : fma(b_in, cp[0], x0);
                if (col + 1 < N) cp[next] = b_in == 0.0 ? x1 : fma(b_in, cp[next], x1);
            }
#endif
        }
    }
}

#if SPLITK > 1
/* Before the kernel, any 1-D launch (the loops stride over the grid): for atomic split-K
 * C = beta * C over the whole of C (beta == 0 writes zeros without reading), for split-K in
 * the order of K the tiles' counters zeroed (the workspace the space's launch asks for). */
extern "C" __global__ void mmt_gemm_pre(mmt_gemm_params p)
{
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
#if SERIAL
    const long long tiles = ((SWAP ? p.n : p.m) + BM - 1) / BM * (((SWAP ? p.m : p.n) + BN - 1) / BN);
    if (p.workspace_size < sk_last_bytes(tiles, BM * BN * 8)) __trap(); /* the space's workspace expression sizes it */
    for (long long i = first; i < tiles; i += stride) static_cast<int *>(p.workspace)[i] = 0;
#else
    if (p.beta == 1.0) return;
    double *const C = static_cast<double *>(p.c);
    for (long long x = first; x < p.m * p.n; x += stride) {
        double *const cp = C + (x / p.n) * p.ldc + x % p.n;
        *cp = p.beta == 0.0 ? 0.0 : p.beta * *cp;
    }
#endif
}
#endif
