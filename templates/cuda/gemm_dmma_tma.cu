/* gemm_dmma_tma.cu - fp64 GEMM on Hopper's fp64 tensor cores (mma.sync m16n8k8 / m16n8k16)
 * fed by the tensor memory accelerator (TMA), the template of
 * search_spaces/cuda_gemm_dmma_tma.yaml. sm_90a only.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major doubles, any M N K; A and B 16-byte
 *                                             aligned with row pitches a multiple of 16
 *                                             bytes (TMA); every orientation.
 *
 * Why a second fp64 template: at the tensor cores' fp64 rate (128 fused multiply-adds a
 * clock an SM) the cp.async copies of gemm_dmma.cu share the issue slots with the mma, and
 * their registers with the accumulators. Here thread 0 has the TMA fill a ring of STAGES
 * stages (a full barrier per stage counts the bytes in, an empty barrier counts the warps
 * out; thread 0 refills a stage once every warp has left it), so the warps only load
 * fragments and multiply: each mma step runs while the next step's fragments load, the
 * last step of a stage loading the first of the next (STAGES >= 3: that stage was issued
 * a turn before). With CLUSTER = 2 two blocks of neighbouring tiles along n share the
 * mma's A operand: each loads half of it and the TMA multicasts it into both. With KH = 2
 * a stage holds 32 k: one barrier wait per 32 k.
 *
 * Slots: the mma's A operand (rows g and g + 8 of one k side by side in a fragment) is one
 * stored contiguous along its rows' dimension (M-major), read a double at a time, where
 * there is one; its B operand (two k of one column side by side) is the K-major one where
 * there is one, read 16 bytes at a time. So NN computes C^T = B^T A^T (B^T in the A slot, A
 * in the B slot, C written transposed), TT computes C = A B as stored, TN has both operands
 * M/N-major, and NT both K-major: its A slot is read a double at a time too, with its rows
 * spread as the K-major B slot's columns are. Below, M and N are the tile's (C^T's under SWAP).
 *
 * Shared memory: a stage holds KH pieces of 16 k; in each the A slot is BM / 16 boxes of 16
 * k rows x 16 doubles (128 bytes a row), or BM rows of 16 k (K-major), and the B slot BN
 * rows of 16 k (K-major) or BN / 16 such boxes, all in the TMA's 128-byte swizzle (the
 * 16-byte chunk c of row r at c ^ (r % 8)). The k an mma
 * step takes is a free choice as long as both slots agree: lane t's k slots t, t + 4, t + 8,
 * t + 12 are the stage's k 2t, 2t + 1, 2t + 8, 2t + 9, so a K-major B column gives two of
 * them in one 16-byte load, and the eight k rows a half warp reads of the A slot fall in
 * eight different chunks. A K-major B slot gives the mma's column g the tile column
 * rho(g) = 4 (g % 2) + g / 2, so the two rows a quarter warp reads lie half a row apart
 * in the swizzle; a K-major A slot gives its row g the tile row rho(g) likewise. The TMA
 * zero-fills what lies outside the matrices: edges need no code.
 *
 * Launch (the space's launch section): grid (CLUSTER * ceil(M / BM) * ceil(N / (CLUSTER BN)),
 * 1, SPLITK), tiles in GROUP_M-row groups of cluster tiles (mmt_grid.h), block 32 * WARPS_M *
 * WARPS_N, dynamic shared memory SMEM bytes; the backend passes the tensor maps of A and B
 * (boxes tma_a and tma_b, 128-byte swizzle) after the parameters. With SPLITK > 1 (few
 * tiles over a long K) each z is a slice of K and a tile's slices are one cluster: each
 * leaves its partial sums in its own shared memory, and each sums a share of the tile's rows
 * over the slices, in the order of K, reading the others' through distributed shared memory
 * (no workspace, no pass before, the same bits every run). BLAS rules: beta == 0 -> C is
 * not read; alpha == 0 or K == 0 -> A and B are not read.
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17, sm_90a). */

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
#define BM 64 /* block tile rows (the mma's M) */
#endif
#ifndef BN
#define BN 128 /* block tile columns (the mma's N) */
#endif
#ifndef WARPS_M
#define WARPS_M 2 /* warps along M */
#endif
#ifndef WARPS_N
#define WARPS_N 4 /* warps along N */
#endif
#ifndef STAGES
#define STAGES 4 /* TMA ring depth */
#endif
#ifndef MMA_K
#define MMA_K 8 /* the instruction: 8 mma.m16n8k8, 16 mma.m16n8k16 */
#endif
#ifndef GROUP_M
#define GROUP_M 8 /* tile rows swept together (L2 reuse) */
#endif
#ifndef CLUSTER
#define CLUSTER 1 /* blocks per cluster along n, sharing the A slot through TMA multicast (1 or 2) */
#endif
#ifndef KH
#define KH 1 /* pieces of 16 k a stage holds (1 or 2): fewer barrier waits */
#endif
#ifndef SPLITK
#define SPLITK 0 /* slices of K (the grid's z), a cluster a tile, summed in the order of K; 0: K whole */
#endif

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_MODE != 1
#error "gemm_dmma_tma.cu serves f64 (MMT_MODE 1) only"
#endif
#define SWAP_ (!OP_A && !OP_B)  /* NN: C^T = B^T A^T */
#define B_KMAJ_ (OP_B || !OP_A) /* the B slot is K-major: A under SWAP, B stored N x K for TT and NT */
#define A_KMAJ (!OP_A && OP_B)  /* the A slot is K-major: A stored M x K for NT */
#ifndef SWAP
#define SWAP SWAP_
#endif
#ifndef B_KMAJ
#define B_KMAJ B_KMAJ_
#endif
#if SWAP != SWAP_ || B_KMAJ != B_KMAJ_ /* the space passes its derived SWAP and B_KMAJ */
#error "SWAP and B_KMAJ do not match the orientation of this instance"
#endif
#define CWARPS (WARPS_M * WARPS_N)
#define THREADS_ (32 * CWARPS)
#ifdef THREADS /* the space passes its derived THREADS: it must agree */
#if THREADS != THREADS_
#error "THREADS does not match 32 * WARPS_M * WARPS_N"
#endif
#else
#define THREADS THREADS_
#endif
#define WTM (BM / WARPS_M) /* warp tile */
#define WTN (BN / WARPS_N)
#define MI (WTM / 16) /* m16 x n8 accumulator tiles per warp tile */
#define NI (WTN / 8)
#define KS (MMA_K / 4)  /* k slots of four per mma */
#define LINE 128        /* bytes of a row of the swizzle: 16 doubles */
#define KL 16           /* K of a piece: one 128-byte row of doubles */
#define BK (KL * KH)    /* K of a stage */
#define BOX 2048        /* bytes of an M/N-major box: 16 k rows */
#define A_PIECE (BM * LINE) /* bytes of a piece of the A slot, of the B slot */
#define B_PIECE (BN * LINE)
#define A_STAGE (KH * A_PIECE) /* bytes */
#define B_STAGE (KH * B_PIECE)
#define SMEM_ (1024 + STAGES * (A_STAGE + B_STAGE) + 16 * STAGES)
#if defined(SMEM) && SMEM != SMEM_ /* the space's SMEM is what the launch gives */
#error "SMEM does not match the stages of this instance"
#endif
#if SPLITK == 0 /* mmt_grid.h counts the slices: one */
#undef SPLITK
#define SPLITK 1
#endif
#define RP (BN + 1) /* doubles a row of the partial sums in shared memory (odd: a column's reads miss no bank) */

#if BM % (16 * WARPS_M) || BN % (8 * WARPS_N) || (!B_KMAJ && WTN % 16)
#error "warp tiles are multiples of 16 x 8 (16 x 16 with an N-major B slot)"
#endif
#if BM > 256 || BN > 256
#error "a TMA box has at most 256 rows"
#endif
#if STAGES < 3 || STAGES > 8 /* the next tile's fragments load before the one refilled after this */
#error "STAGES is 3 to 8"
#endif
#if MMA_K != 8 && MMA_K != 16
#error "MMA_K is 8 or 16"
#endif
#if CLUSTER != 1 && CLUSTER != 2
#error "CLUSTER is 1 or 2"
#endif
#if KH != 1 && KH != 2
#error "KH is 1 or 2"
#endif
#if CLUSTER * SPLITK > 8
#error "a cluster (CLUSTER blocks along n times SPLITK slices) has at most 8 blocks"
#endif
#if SPLITK > 1 && (BM % SPLITK || BM * RP * 8 > STAGES * (A_STAGE + B_STAGE))
#error "with slices of K the stages hold the tile's partial sums, and each slice sums whole rows"
#endif
#if CLUSTER > 1 && BM / 16 < CLUSTER
#error "with multicast each block of a cluster loads a box of the A slot"
#endif

#include "mmt_params.h"

/* The TMA reads A and B in place at 16-byte addresses and pitches: for the host */
MMT_NEEDS(8, 16, 16, OP_A, OP_B, 0, 0);

#include "mmt_tma.h"

/* ---- shared-memory layout --------------------------------------------------------------- */

/* Byte offset of (k, x) in an M/N-major stage: box x / 16, row k, the TMA's swizzle. */
__host__ __device__ constexpr int mn_at(int k, int x)
{
    return x / 16 * BOX + k * LINE + (((x / 2 % 8) ^ (k % 8)) << 4) + x % 2 * 8;
}
/* Byte offset of (x, k) in a K-major stage: row x. */
__host__ __device__ constexpr int kmaj_at(int x, int k) { return x * LINE + (((k / 2 % 8) ^ (x % 8)) << 4) + k % 2 * 8; }
/* The stage's k of lane t's k slot t + 4 s. */
__host__ __device__ constexpr int phys_k(int t, int s) { return 2 * t + s % 2 + 8 * (s / 2); }
/* rho(x) = 4 (x % 2) + x / 2 within eight: the two lines a quarter warp reads of a K-major
 * slot lie half a line apart in the swizzle. The tile column of the mma's column c (a
 * K-major B slot spreads them), and the tile row of its row g (a K-major A slot likewise). */
__host__ __device__ constexpr int rho(int x) { return x % 2 * 4 + x / 2; }
__host__ __device__ constexpr int col_of(int c) { return B_KMAJ ? rho(c) : c; }
__host__ __device__ constexpr int row_of(int g) { return A_KMAJ ? rho(g) : g; }

/* Where lane 4 g + t reads its fragments in a stage, as a few bases plus immediates. The A
 * slot's element (tile i, row half e, slot s) is at mn_at(phys_k(t, s), w0 + 16 i + 8 e + g)
 * or kmaj_at(w0 + 16 i + 8 e + row_of(g), phys_k(t, s)); the B slot's (tile j, slot s) at
 * kmaj_at(w0 + 8 j + col_of(g), phys_k(t, s)) or mn_at(phys_k(t, s), w0 + 8 j + g). exact():
 * so for every lane and warp, checked at compile time. */
struct frag_bases {
    int a[2][2]; /* [e][s % 2]; K-major: [e][s / 2], the even slot's */
    int b[2][2]; /* K-major: [s / 2][0]; N-major: [j % 2][s % 2] */
    /* K-major: [e][s / 2], the odd slot's, 8 bytes on. A base of its own, opaque to the
     * compiler, keeps the two slots' loads apart: merged into one 16-byte load, a0 and a2
     * of the mma's operand came side by side and ptxas moved every pair into place (NT at
     * 64 x 256 on 2 x 4 warps: 255 registers and 56 bytes spilled; now 255 and none, as TT).
     * The price: a half warp's 8-byte loads meet two to a bank. */
    int a_odd[2][2];

    __host__ __device__ constexpr int a_at(int i, int e, int s) const
    {
        return A_KMAJ ? (s % 2 ? a_odd[e][s / 2] : a[e][s / 2]) + i * 16 * LINE
                      : a[e][s % 2] + i * BOX + s / 2 * 8 * LINE;
    }
    /* the slots' elements as exact() reads them from the layout */
    static __host__ __device__ constexpr int a_ref(int m, int t, int g, int s)
    {
        return A_KMAJ ? kmaj_at(m + row_of(g), phys_k(t, s)) : mn_at(phys_k(t, s), m + g);
    }
    static __host__ __device__ constexpr int b_ref(int n, int t, int g, int s)
    {
        return B_KMAJ ? kmaj_at(n + col_of(g), phys_k(t, s)) : mn_at(phys_k(t, s), n + g);
    }
    __host__ __device__ constexpr int b_at(int j, int s) const
    {
        return B_KMAJ ? b[s / 2][0] + j * 8 * LINE + s % 2 * 8 : b[j % 2][s % 2] + j / 2 * BOX + s / 2 * 8 * LINE;
    }
    __host__ __device__ constexpr void init(int wm0, int wn0, int lane)
    {
        const int g = lane / 4, t = lane % 4;
        for (int e = 0; e < 2; e++)
            for (int p = 0; p < 2; p++) {
                a[e][p] = a_ref(wm0 + 8 * e, t, g, A_KMAJ ? 2 * p : p);
                if (A_KMAJ) a_odd[e][p] = a[e][p] + 8;
                b[e][p] = B_KMAJ ? b_ref(wn0, t, g, 2 * e) : b_ref(wn0 + 8 * e, t, g, p);
            }
    }
    static __host__ __device__ constexpr bool exact()
    {
        for (int w = 0; w < CWARPS; w++)
            for (int lane = 0; lane < 32; lane++) {
                const int wm0 = w / WARPS_N * WTM, wn0 = w % WARPS_N * WTN, g = lane / 4, t = lane % 4;
                frag_bases f{};
                f.init(wm0, wn0, lane);
                for (int s = 0; s < 4; s++) {
                    for (int i = 0; i < MI; i++)
                        for (int e = 0; e < 2; e++)
                            if (f.a_at(i, e, s) != a_ref(wm0 + 16 * i + 8 * e, t, g, s)) return false;
                    for (int j = 0; j < NI; j++)
                        if (f.b_at(j, s) != b_ref(wn0 + 8 * j, t, g, s)) return false;
                }
            }
        return true;
    }
};

/* ---- mma -------------------------------------------------------------------------------- */

/* d (16 x 8: d[0], d[1] row g, columns 2t, 2t + 1; d[2], d[3] row g + 8) += a b, a[v] row
 * g + 8 (v % 2) at k slot t + 4 (v / 2), b[v] k slot t + 4 v. */
__device__ __forceinline__ void mma(double (&d)[4], const double (&a)[2 * KS], const double (&b)[KS])
{
#if MMA_K == 8
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

/* One mma step's fragments: k slots s0 .. s0 + KS - 1 of a piece (four slots of four k). */
struct frags {
    double a[MI][2 * KS], b[NI][KS];
};
#define STEPS (KH * 4 / KS) /* mma steps a stage */

/* x = step q's fragments of the stage at As, Bs (generic pointers into shared memory). */
__device__ __forceinline__ void load_step(frags &x, const unsigned char *As, const unsigned char *Bs,
                                          const frag_bases &f, int q)
{
    const int s0 = q % (4 / KS) * KS, h = q / (4 / KS);
    As += h * A_PIECE, Bs += h * B_PIECE;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int v = 0; v < 2 * KS; v++)
            x.a[i][v] = *reinterpret_cast<const double *>(As + f.a_at(i, v % 2, s0 + v / 2));
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
        for (int s = 0; s < KS; s++) {
            if (B_KMAJ) { /* slots s and s + 1: two k side by side */
                if (s % 2) continue;
                const double2 v = *reinterpret_cast<const double2 *>(Bs + f.b_at(j, s0 + s));
                x.b[j][s] = v.x, x.b[j][s + 1] = v.y;
            } else {
                x.b[j][s] = *reinterpret_cast<const double *>(Bs + f.b_at(j, s0 + s));
            }
        }
}

__device__ __forceinline__ void mma_step(double (&acc)[MI][NI][4], const frags &x)
{
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) mma(acc[i][j], x.a[i], x.b[j]);
}

/* ---- the kernel ----------------------------------------------------------------------- */

#include "mmt_grid.h"

#if CLUSTER > 1 || SPLITK > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, SPLITK)
#else
#define CLUSTER_DIMS
#endif

/* This block's place along n in its cluster (the blocks that share the A slot). */
__device__ __forceinline__ unsigned pair_rank()
{
#if CLUSTER > 1 && SPLITK == 1
    return cluster_rank();
#elif CLUSTER > 1
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;\n" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

/* Every thread of every block of the cluster: what each wrote to shared memory before is
 * visible to all after. */
__device__ __forceinline__ void cluster_barrier()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/* The shared address addr of this block as block `cta` of the cluster has it, and a double
 * read there. */
__device__ __forceinline__ unsigned cluster_map(unsigned addr, unsigned cta)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(cta));
    return r;
}
__device__ __forceinline__ double cluster_ld(unsigned addr)
{
    double v;
    asm volatile("ld.shared::cluster.f64 %0, [%1];\n" : "=d"(v) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) CLUSTER_DIMS
    mmt_gemm(mmt_gemm_params p, const __grid_constant__ mmt_tmap tma_a, const __grid_constant__ mmt_tmap tma_b,
             const __grid_constant__ mmt_tmap tma_c)
{
    (void)tma_c;
    /* An instance is built for one pair of transposes: anything else is a caller's bug. */
    if (p.trans_a != OP_A || p.trans_b != OP_B) __trap();

    extern __shared__ unsigned char mmt_smem[];
    /* the swizzle pattern repeats every 1024 bytes: stages start on such a boundary */
    const unsigned raw = smem_u32(mmt_smem), base = (raw + 1023) & ~1023u;
    const unsigned As = base, Bs = As + STAGES * A_STAGE, bars = Bs + STAGES * B_STAGE;
#define FULL(s) (bars + 8 * (s))
#define EMPTY(s) (bars + 8 * (STAGES + (s)))

    const long long M = SWAP ? p.n : p.m, N = SWAP ? p.m : p.n, K = p.k;
    const long long tiles_m = (M + BM - 1) / BM, ctiles_n = (N + (long long)CLUSTER * BN - 1) / (CLUSTER * BN);
    long long tm, tn;
    mmt_place_tile(blockIdx.x / CLUSTER, tiles_m, ctiles_n, tm, tn);
    /* rank along n; the cluster's blocks are ranked x first, so this slice's pair starts at
     * pair0 */
    const unsigned rank = pair_rank(), pair0 = SPLITK > 1 ? blockIdx.z * CLUSTER : 0;
    const long long m0 = tm * BM, n0 = (tn * CLUSTER + rank) * BN;
    /* This slice's K range (an empty one still counts itself in); alpha == 0 or K == 0:
     * C = beta C, A and B are not read */
    long long kbeg = 0, kend = K;
#if SPLITK > 1
    mmt_slice_range(K, blockIdx.z, kbeg, kend);
    if (kbeg > kend) kbeg = kend;
#endif
    const int ktiles = p.alpha == 0.0 ? 0 : (int)((kend - kbeg + BK - 1) / BK);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(FULL(s), 1);
            mbar_init(EMPTY(s), CWARPS * CLUSTER);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_sync();

    /* Thread 0 has the TMA fill stage kt % STAGES with K tile kt. The A slot is B^T (B's
     * map, boxes along n) under SWAP, else A^T (A's map, boxes along m; K-major rows for
     * NT, a share of them a block of a cluster); the B slot is A (K-major) under SWAP, else
     * B (K-major rows for TT and NT, boxes along n for TN). */
    const mmt_tmap *const map_a = SWAP ? &tma_b : &tma_a, *const map_b = SWAP ? &tma_a : &tma_b;
    const auto load = [&](int kt) {
        const unsigned s = kt % STAGES, a = As + s * A_STAGE, b = Bs + s * B_STAGE;
        const unsigned short all = (unsigned short)(((1u << CLUSTER) - 1) << pair0);
        mbar_expect_tx(FULL(s), A_STAGE + B_STAGE);
        for (int h = 0; h < KH; h++) {
            const int k0 = (int)kbeg + kt * BK + h * KL;
            const unsigned ah = a + h * A_PIECE, bh = b + h * B_PIECE;
            if (A_KMAJ)
                tma_load(ah + rank * (BM / CLUSTER) * LINE, map_a, k0, (int)m0 + (int)rank * (BM / CLUSTER), FULL(s),
                         CLUSTER > 1 ? all : 0);
            else
                for (int j = (int)rank; j < BM / 16; j += CLUSTER)
                    tma_load(ah + j * BOX, map_a, (int)m0 + 16 * j, k0, FULL(s), CLUSTER > 1 ? all : 0);
            if (B_KMAJ)
                tma_load(bh, map_b, k0, (int)n0, FULL(s), 0);
            else
                for (int j = 0; j < BN / 16; j++) tma_load(bh + j * BOX, map_b, (int)n0 + 16 * j, k0, FULL(s), 0);
        }
    };
    if (threadIdx.x == 0)
        for (int kt = 0; kt < STAGES && kt < ktiles; kt++) load(kt);

    const int wm0 = warp / WARPS_N * WTM, wn0 = warp % WARPS_N * WTN;
    frag_bases f{};
    static_assert(frag_bases::exact(), "fragment offsets disagree with the swizzle");
    f.init(wm0, wn0, lane);
    double acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int v = 0; v < 4; v++) acc[i][j][v] = 0.0;
    const unsigned char *const smem = mmt_smem - raw; /* + a shared address */
    /* Each step's mma run while the next step's fragments load (two sets, F[q % 2]); the
     * last step of a stage loads the first of the next, once it has arrived, so no step
     * waits for its own loads. */
    unsigned s = 0, phase = 0; /* kt's stage and the parity of its use */
    frags F[2];
    if (ktiles > 0) {
        mbar_wait(FULL(0), 0);
        load_step(F[0], smem + As, smem + Bs, f, 0);
    }
    for (int kt = 0; kt < ktiles; kt++) {
        /* opaque to the compiler: ptxas had recomputed the bases from the thread index at
         * every K step (about 50 instructions beside 32 mma) to spare their registers */
        for (int e = 0; e < 2; e++)
            for (int q = 0; q < 2; q++) {
                asm volatile("" : "+r"(f.a[e][q]), "+r"(f.b[e][q]));
                if (A_KMAJ) asm volatile("" : "+r"(f.a_odd[e][q]));
            }
        const unsigned sn = s + 1 == STAGES ? 0 : s + 1, pn = sn ? phase : phase ^ 1;
#pragma unroll
        for (int q = 0; q < STEPS; q++) {
            if (q + 1 < STEPS) {
                load_step(F[(q + 1) % 2], smem + As + s * A_STAGE, smem + Bs + s * B_STAGE, f, q + 1);
            } else if (kt + 1 < ktiles) {
                mbar_wait(FULL(sn), pn);
                load_step(F[(q + 1) % 2], smem + As + sn * A_STAGE, smem + Bs + sn * B_STAGE, f, 0);
            }
            mma_step(acc, F[q % 2]);
        }
        if (STEPS % 2) F[0] = F[1]; /* the next stage's first step is in F[1] */
        __syncwarp();
        if (lane == 0)
            for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY(s), pair0 + r);
        /* The stage before this one is refilled once every warp of the cluster has read
         * it (the TMA writes the A slot into both blocks): by now they mostly have, where
         * this stage's own readers would keep thread 0 waiting for the slowest warp. */
        if (threadIdx.x == 0 && kt >= 1 && kt - 1 + STAGES < ktiles) {
            mbar_wait(EMPTY((kt - 1) % STAGES), ((kt - 1) / STAGES) & 1);
            load(kt - 1 + STAGES);
        }
        if (++s == STAGES) s = 0, phase ^= 1;
    }

    /* Epilogue: acc[i][j][v] is the tile's row wm0 + 16 i + row_of(g) + 8 (v / 2), column
     * wn0 + 8 j + col_of(2 t + v % 2). C = alpha * acc + beta * C (beta == 0: C is not read). */
    double *const C = static_cast<double *>(p.c);
    const long long ldc = p.ldc;
    const double alpha = p.alpha, beta = p.beta;
    const int g = lane / 4, t = lane % 4;
#if SPLITK > 1
    /* Slices of K: each block's partial sums go to its stages (every warp is done with
     * them, and every TMA write into them has landed), then block z sums rows z of SPLITK
     * shares of the tile over the slices 0, 1, ... (the others' through distributed shared
     * memory) and writes them: consecutive threads along C's contiguous dimension. */
    __syncthreads();
    double *const part = reinterpret_cast<double *>(mmt_smem + (base - raw));
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
                for (int v = 0; v < 2; v++) {
                    const int r = wm0 + 16 * i + 8 * h + row_of(g), c = wn0 + 8 * j + col_of(2 * t + v);
                    part[r * RP + c] = acc[i][j][2 * h + v];
                }
    cluster_barrier();
    unsigned peer[SPLITK];
#pragma unroll
    for (int z = 0; z < SPLITK; z++) peer[z] = cluster_map(base, rank + z * CLUSTER);
    constexpr int ROWS = BM / SPLITK;
    const int r0 = blockIdx.z * ROWS;
    for (int e = threadIdx.x; e < ROWS * BN; e += THREADS) {
        const int r = r0 + (SWAP ? e % ROWS : e / BN), c = SWAP ? e / ROWS : e % BN;
        const long long row = m0 + r, col = n0 + c;
        if (row >= M || col >= N) continue;
        const unsigned at = (unsigned)(r * RP + c) * 8;
        double sum = cluster_ld(peer[0] + at);
#pragma unroll
        for (int z = 1; z < SPLITK; z++) sum += cluster_ld(peer[z] + at);
        double *const cp = SWAP ? C + col * ldc + row : C + row * ldc + col;
        *cp = beta == 0.0 ? alpha * sum : fma(beta, *cp, alpha * sum);
    }
    cluster_barrier(); /* no block leaves while another reads its shared memory */
#else
    /* Under SWAP the tile is C^T's, written a double at a time (eight lanes write 64
     * contiguous bytes); an N-major B slot keeps a lane's two columns side by side, which go
     * out as one 16-byte access where C allows it. */
    const bool cvec = !B_KMAJ && reinterpret_cast<unsigned long long>(C) % 16 == 0 && ldc % 2 == 0;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const long long row = m0 + wm0 + 16 * i + 8 * h + row_of(g);
            if (row >= M) continue;
#pragma unroll
            for (int j = 0; j < NI; j++) {
                const long long c0 = n0 + wn0 + 8 * j + col_of(2 * t), c1 = n0 + wn0 + 8 * j + col_of(2 * t + 1);
                const double x0 = alpha * acc[i][j][2 * h], x1 = alpha * acc[i][j][2 * h + 1];
                double *const p0 = SWAP ? C + c0 * ldc + row : C + row * ldc + c0;
                double *const p1 = SWAP ? C + c1 * ldc + row : C + row * ldc + c1;
                if (cvec && c1 < N) {
                    double2 v = make_double2(x0, x1);
                    if (beta != 0.0) {
                        const double2 c = *reinterpret_cast<const double2 *>(p0);
                        v.x = fma(beta, c.x, x0), v.y = fma(beta, c.y, x1);
                    }
                    *reinterpret_cast<double2 *>(p0) = v;
                } else {
                    if (c0 < N) *p0 = beta == 0.0 ? x0 : fma(beta, *p0, x0);
                    if (c1 < N) *p1 = beta == 0.0 ? x1 : fma(beta, *p1, x1);
                }
            }
        }
    /* no block of a cluster leaves while the other may still write into its shared memory
     * or arrive on its barriers */
    if (CLUSTER > 1) cluster_sync();
#endif
}
