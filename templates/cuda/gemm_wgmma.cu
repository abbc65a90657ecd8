/* gemm_wgmma.cu - GEMM on Hopper's warpgroup tensor cores (wgmma) fed by the tensor memory
 * accelerator (TMA), the template of search_spaces/cuda_gemm_wgmma.yaml. sm_90a only.
 *
 *   C = alpha * op(A) * op(B) + beta * C      row-major, any M N K; A and B 16-byte aligned
 *                                             with row pitches a multiple of 16 bytes (TMA),
 *                                             the transposes the instance was built for.
 *
 * Precision modes (MMT_MODE, src/problem.h's mmt_mode), fp32 accumulation in all of them:
 *   2 bf16, 3 f16   16-bit inputs, wgmma k16, either operand K-major or M/N-major;
 *   4 tf32          fp32 inputs rounded to tf32 by the TMA as it copies them (the space's
 *                   tma_tf32: tf32 tensor maps; the tensor cores would drop the low 13
 *                   bits instead, which biases every product towards zero), wgmma k8; the
 *                   hardware reads both operands K-major only (A not transposed, B transposed), so
 *                   the other orientations are served with PACK, which copies the operand
 *                   that is not K-major into that layout first, or (NN) with SWAP;
 *   5 f32x3         the same orientation, fp32-level accuracy from three tf32 products:
 *                   x = hi + lo, lo rounded to tf32; the consumers split A in their
 *                   registers (wgmma reads A from there, hi rounded), the producer's other
 *                   warps write B's lo into a second set of B stages (B's hi is B as the
 *                   TMA wrote it, which the tensor cores truncate to tf32); a consumer
 *                   sums each stage's lo_a hi_b + hi_a lo_b + hi_a hi_b from zero before
 *                   one rounded fp32 add into the accumulators (the tensor cores truncate
 *                   what they add into a running sum).
 *   6 e4m3, 7 e5m2  8-bit floating-point inputs (FP8), wgmma k32, both operands K-major as
 *                   for tf32 (the others packed K-major); the scales per tensor are folded
 *                   into alpha by the host. The tensor cores keep about 14 bits of the sum
 *                   an FP8 product is added into: with PROMOTE a consumer sums each stage's
 *                   products (128 of K) from zero and adds them to its fp32 accumulators, as
 *                   f32x3 does (DeepGEMM's promotion; cuBLASLt's unless fast accumulation);
 *                   PROMOTE 2 adds one stage's while the tensor cores sum the next's.
 * C is fp32 or the input type (MMT_OUT); FP8 writes fp32, bf16, f16 or FP8 (rounded to nearest,
 * saturated at the largest finite value: cvt's satfinite). BLAS rules: beta == 0
 * -> C is not read; alpha == 0 or K == 0 -> A and B are not read.
 *
 * Structure (warp specialisation): a block is one producer warpgroup and CONSUMERS consumer
 * warpgroups. One producer thread walks the K tiles and has the TMA copy each BM x BK tile
 * of A and BK x BN tile of B into a ring of STAGES shared-memory stages; a full barrier per
 * stage counts the bytes in, an empty barrier per stage counts the consumers out. The
 * consumers split the BM rows (BM / CONSUMERS = 64 or 128 each, one or two m64 wgmma
 * rows) and issue wgmma m64 x BN x k on the stage from shared memory descriptors, keeping
 * one group of wgmmas in flight while they wait for the next stage. The producer gives
 * its registers to the consumers (setmaxnreg) when there are two of them.
 *
 * Shared memory: each stage row is one 128-byte line of K (BK = 128 bytes / element) in
 * the 128-byte swizzle that TMA writes and wgmma reads; an operand contiguous along m or n
 * is kept as 128-byte columns of BK lines instead (wgmma's M/N-major layout, 16-bit only).
 * TMA zero-fills what lies outside the matrices, so edges need no code.
 *
 * Tiles: the grid walks tiles of CLUSTER x (BM x BN) in GROUP_M-row groups (L2 reuse); a
 * persistent grid (fewer blocks than tiles) strides over them, so the producer loads the
 * next tile while the consumers write the last one. With CLUSTER = 2 the two blocks of a
 * cluster compute neighbouring tiles along n and share A: each loads half of it and the
 * TMA multicasts it into both.
 *
 * Operands whose rows are not 16-byte aligned (odd K in 16-bit, say), which the TMA cannot
 * read, are served with PACK (1: A, 2: B, 3: both): a first pass (mmt_gemm_pre) copies them
 * into the workspace with row pitches rounded up to 16 bytes, A first, then B (backend.h's
 * packed layout), and the tensor maps describe those copies. 32-bit operands are packed
 * K-major (A as m x k, B as n x k, transposed through shared memory where stored
 * otherwise), which is how tf32 and f32x3 serve every orientation (backend.h: tma_packed).
 *
 * SWAP (tf32 and f32x3, A and B not transposed) computes C^T = B^T A^T without a first
 * pass: A^T takes B's place (A is K-major as stored) and B^T takes A's, which wgmma reads
 * from registers, so the consumers load its fragments from the M-major columns the TMA
 * wrote (any layout will do there); the tile's rows are C's columns, and C is written
 * transposed (EPI 0 or 1). The kernel's M and N are the problem's N and M.
 *
 * Split-K (SPLITK > 1, persistent grids): a work unit is one slice of K of one tile, the
 * slices of a tile consecutive units. A slice waits for the one before it (a flag per tile
 * in the workspace, zeroed by mmt_gemm_pre), adds its sum to theirs in an fp32 tile of the
 * workspace and passes on; the last one adds the rest to its accumulators and writes C.
 * The sum is taken in the order of K whatever the timing, so results are reproducible bit
 * for bit; the chain cannot deadlock because every unit waits only for a lower one and a
 * persistent grid's blocks are all resident (one cluster of one block per SM: SPLITK > 1
 * needs CLUSTER == 1).
 *
 * Launch (the space's launch section): grid CLUSTER * (tiles or fewer), block 128 *
 * (CONSUMERS + 1), dynamic shared memory SMEM bytes; the backend passes tensor maps of A,
 * B and C (boxes tma_a, tma_b and tma_c of the launch section, 128-byte swizzle) after the
 * parameters; C's only for EPI 2 where beta == 0 and C is 16-byte aligned with a 16-byte row
 * pitch (the TMA's terms), zeros otherwise, and EPI 2 then writes C as EPI 1 does.
 *
 * Every knob has a default, so the file compiles by itself (nvrtc, -std=c++17, sm_90a). */

/* ---- knobs ------------------------------------------------------------------------ */
#ifndef MMT_MODE
/* 2 bf16, 3 f16, 4 tf32, 5 f32x3, 6 e4m3, 7 e5m2, 8 e4m3 and 9 e5m2 with block scales, 10 A e4m3 and B
 * e5m2, 11 the reverse */
#define MMT_MODE 2
#endif
#ifndef MMT_OUT
#define MMT_OUT 0 /* type of C: 0 f32, 2 bf16, 3 f16 (16-bit: the input type's, or FP8's choice), 4 e4m3, 5 e5m2 */
#endif
#ifndef OP_A
#define OP_A 0 /* 1: A is transposed (stored K x M, contiguous along m) */
#endif
#ifndef OP_B
#define OP_B 0 /* 1: B is transposed (stored N x K, contiguous along k) */
#endif
#ifndef BM
#define BM 128 /* block tile rows (M): 64 or 128 per consumer warpgroup */
#endif
#ifndef BN
#define BN 128 /* block tile columns (N): the wgmma width, 64 to 256 */
#endif
#ifndef STAGES
#define STAGES 4 /* shared-memory stages of the TMA ring */
#endif
#ifndef CONSUMERS
#define CONSUMERS 2 /* consumer warpgroups */
#endif
#ifndef GROUP_M
#define GROUP_M 8 /* tile rows swept together (L2 reuse) */
#endif
#ifndef CLUSTER
#define CLUSTER 1 /* blocks per cluster along n, sharing A through TMA multicast (1 or 2) */
#endif
#ifndef EPI
#define EPI 0 /* C: 0 straight from the registers (pairs); 1 through shared memory (16-byte rows); 2 TMA stores */
#endif
#ifndef PACK
#define PACK 0 /* operands first copied to the workspace at 16-byte row pitches (TMA reads those): 1 A, 2 B, 3 both */
#endif
#ifndef SPLITK
#define SPLITK 1 /* slices of K per tile, summed in K order through the workspace (persistent grids) */
#endif
#ifndef SWAP
#define SWAP 0 /* 32-bit NN: C^T = B^T A^T, B^T read by wgmma from registers, C written transposed */
#endif
#ifndef PROMOTE
#define PROMOTE 0 /* FP8: each stage's products summed apart, then added to the fp32 accumulators (2: two
                   * stages' sums in flight, one added while the tensor cores make the next) */
#endif
#ifndef GROUPED
#define GROUPED 0 /* not a knob: 1 for a grouped GEMM's instance (groups of rows of A and C, a B each), one
                   * launch for all groups (mmt_grouped_params) */
#endif

/* ---- derived ------------------------------------------------------------------------ */
#if MMT_MODE == 2 || MMT_MODE == 3
#define ELEM 2
#define WG_K "16"
#elif MMT_MODE == 4 || MMT_MODE == 5
#define ELEM 4
#define WG_K "8"
#define WG_TYPES "f32.tf32.tf32"
#if !SWAP && ((OP_A && !(PACK & 1)) || (!OP_B && !(PACK & 2)))
#error "tf32 wgmma reads both operands K-major: A not transposed, B transposed, or the other packed K-major"
#endif
#elif MMT_MODE >= 6 && MMT_MODE <= 11
#define ELEM 1
#define WG_K "32"
#if MMT_MODE == 6 || MMT_MODE == 8
#define WG_TYPES "f32.e4m3.e4m3"
#elif MMT_MODE == 7 || MMT_MODE == 9
#define WG_TYPES "f32.e5m2.e5m2"
#elif MMT_MODE == 10
#define WG_TYPES "f32.e4m3.e5m2"
#else
#define WG_TYPES "f32.e5m2.e4m3"
#endif
#if (OP_A && !(PACK & 1)) || (!OP_B && !(PACK & 2))
#error "FP8 wgmma reads both operands K-major: A not transposed, B transposed, or the other packed K-major"
#endif
#else
#error "MMT_MODE must be 2 (bf16), 3 (f16), 4 (tf32), 5 (f32x3), 6 to 11 (FP8)"
#endif
/* FP8 with a scale per 128 of K of each row of A, per 128 x 128 block of B */
#define BLOCK_SCALED (MMT_MODE == 8 || MMT_MODE == 9)
#define SPLIT (MMT_MODE == 5) /* f32x3: stages split into hi and lo */
#if MMT_MODE == 2
#define WG_TYPES "f32.bf16.bf16"
#elif MMT_MODE == 3
#define WG_TYPES "f32.f16.f16"
#endif
#if MMT_OUT == 0
typedef float TC;
#elif (MMT_OUT == 2 || MMT_OUT == 3) && (MMT_OUT == MMT_MODE || ELEM == 1)
typedef unsigned short TC;
#elif (MMT_OUT == 4 || MMT_OUT == 5) && ELEM == 1
typedef unsigned char TC; /* FP8 bits */
#if MMT_OUT == 4
#define C_F8 "e4m3"
#else
#define C_F8 "e5m2"
#endif
#include "mmt_fp8.h"
#else
#error "MMT_OUT is 0 (f32), the 16-bit input type, or for FP8 bf16, f16, e4m3 or e5m2"
#endif

#define STR_(x) #x
#define XSTR(x) STR_(x)
/* the operands' layouts in shared memory: 1 where contiguous along m (A) or n (B); packed
 * 32-bit and 8-bit operands are K-major whatever their orientation in memory */
#define PACK_A (PACK & 1)
#define PACK_B (PACK / 2)
#if OP_A && !(PACK_A && ELEM != 2)
#define A_MN_ 1
#else
#define A_MN_ 0
#endif
#if !OP_B && !(PACK_B && ELEM != 2)
#define B_MN_ 1
#else
#define B_MN_ 0
#endif
#ifndef A_MN /* the space passes its derived A_MN and B_MN: they must agree */
#define A_MN A_MN_
#elif A_MN != A_MN_
#error "A_MN does not match the orientation of this instance"
#endif
#ifndef B_MN
#define B_MN B_MN_
#elif B_MN != B_MN_
#error "B_MN does not match the orientation of this instance"
#endif
#if ELEM == 2 /* scale-a, scale-b, then the transposes (16-bit types only; A from registers has none) */
#define WG_TAIL ", 1, 1, " XSTR(A_MN) ", " XSTR(B_MN)
#define WG_TAIL_RS ", 1, 1, " XSTR(B_MN)
#else
#define WG_TAIL ", 1, 1"
#define WG_TAIL_RS ", 1, 1"
#endif

#define LINE 128              /* bytes of a swizzle line */
#define BK (LINE / ELEM)      /* K of a stage: one line (128 8-bit, 64 16-bit or 32 32-bit elements) */
#define KSTEP (32 / ELEM)     /* K of one wgmma (32, 16 or 8): 32 bytes of the line */
#define WM (BM / CONSUMERS)   /* rows per consumer warpgroup */
#define MI (WM / 64)          /* m64 wgmmas per consumer */
#define THREADS_ (128 * (CONSUMERS + 1))
#ifdef THREADS /* the space passes its derived THREADS: it must agree */
#if THREADS != THREADS_
#error "THREADS does not match 128 * (CONSUMERS + 1)"
#endif
#else
#define THREADS THREADS_
#endif
#define A_STAGE (BM * LINE) /* bytes */
#define B_STAGE (BN * LINE)
/* EPI 1: each consumer stages 64 x EPI_COLS of alpha * acc as fp32, rows padded by 8 words
 * (the fragment stores of a warp then hit each bank at most twice) */
#define EPI_COLS 64
#define EPI_PITCH (EPI_COLS + 8)
#define EPI_BYTES (EPI ? CONSUMERS * 64 * EPI_PITCH * 4 : 0)
/* EPI 2: each consumer's staging holds two boxes of 64 rows x one 128-byte line of C in the
 * 128-byte swizzle, stored by the TMA while the other is filled (1024-byte aligned: every
 * stage and EPI_PITCH * 256 bytes are multiples of 1024) */
#define BOX_C (LINE / (int)sizeof(TC)) /* columns of C per box */
static_assert(EPI != 2 || BN % BOX_C == 0, "EPI 2 stores whole boxes: BN a multiple of 128 bytes of C");
#define BOX_BYTES (64 * LINE)
#define LO_OFF (STAGES * B_STAGE) /* f32x3: B's lo stages follow its hi ones (A is split in registers) */
#define SPLITTERS 96 /* f32x3: the producer's warps 1-3 split B */
#define SMEM_ (1024 + STAGES * (A_STAGE + B_STAGE * (SPLIT ? 2 : 1)) + EPI_BYTES + (SPLIT ? 24 : 16) * STAGES) /* + alignment, barriers */
#if defined(SMEM) && SMEM != SMEM_
#error "SMEM does not match the shared-memory stages of this instance"
#endif
#define A_HALF (BM / CLUSTER) /* rows of A each block of a cluster loads (K-major A) */

#if CONSUMERS < 1 || CONSUMERS > 2 || BM % CONSUMERS || (WM != 64 && WM != 128)
#error "each consumer warpgroup takes 64 or 128 rows of the tile"
#endif
#if BN != 64 && BN != 128 && BN != 192 && BN != 256
#error "BN is 64, 128, 192 or 256"
#endif
#if STAGES < 2 || STAGES > 8
#error "STAGES is 2 to 8"
#endif
#if CLUSTER != 1 && CLUSTER != 2
#error "CLUSTER is 1 or 2"
#endif
#if CLUSTER > 1 && (A_MN || SWAP) && BM / BK < CLUSTER
#error "with multicast an M-major A needs a column of BK per block of the cluster"
#endif
#if GROUP_M < 1
#error "GROUP_M is >= 1"
#endif
#if SPLITK < 1 || SPLITK > 16 || (SPLITK > 1 && CLUSTER > 1)
#error "SPLITK is 1 to 16, and 1 with clusters (the chain of slices needs every block resident)"
#endif
#if EPI < 0 || EPI > 2
#error "EPI is 0, 1 or 2"
#endif
#if PACK < 0 || PACK > 3
#error "PACK is 0 to 3"
#endif
#if SWAP && (ELEM != 4 || OP_A || OP_B || PACK || EPI == 2)
#error "SWAP serves 32-bit NN operands unpacked, with EPI 0 or 1"
#endif
#if PROMOTE && (ELEM != 1 || A_MN || B_MN)
#error "PROMOTE serves FP8, whose operands are K-major"
#endif
#if BLOCK_SCALED && !PROMOTE
#error "block scales multiply a stage's sums as they are promoted: PROMOTE 1 or 2"
#endif
#if SWAP && EPI_COLS != 64
#error "SWAP stages C^T's pieces transposed in place: they must be square (64 x 64)"
#endif

#if GROUPED && (A_MN || B_MN || SWAP || SPLITK > 1 || CLUSTER > 1 || EPI == 2 || PACK || BLOCK_SCALED || SPLIT)
#error "a grouped instance reads K-major A and B in place, a block a tile at a time, C stored by its threads"
#endif

#include "mmt_params.h"
#include "mmt_fused_params.h" /* an epilogue in the store: EPI_BIAS, EPI_ACT, BIAS_C */

#if FUSED && (GROUPED || BLOCK_SCALED)
#error "a grouped instance, or one with block scales, has no epilogue"
#endif

/* The TMA reads an operand in place at 16-byte addresses and pitches, a packed one from the
 * workspace (its pass reads the caller's 2 bytes at a time): for the host (mmt_params.h) */
MMT_NEEDS(ELEM, PACK_A ? 1 : 16, PACK_B ? 1 : 16, OP_A, OP_B, 0, 0);

#include "mmt_tma.h"

/* A shared-memory matrix descriptor (PTX ISA: wgmma matrix descriptor): start address,
 * leading and stride byte offsets (16-byte units), 128-byte swizzle. */
__device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (unsigned long long)(lbo >> 4) << 16 |
           (unsigned long long)(sbo >> 4) << 32 | 1ull << 62;
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving reads or writes of the accumulators across a wgmma
 * fence or wait: the tensor cores write them asynchronously. */
template <int R> __device__ __forceinline__ void fence_regs(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* Keeps registers that an asynchronous wgmma reads (A from registers) from being reused
 * before the wait that ends it. */
template <int X, int Y, int Z> __device__ __forceinline__ void keep_regs(unsigned (&r)[X][Y][Z])
{
#pragma unroll
    for (int i = 0; i < X; i++)
#pragma unroll
        for (int j = 0; j < Y; j++)
#pragma unroll
            for (int k = 0; k < Z; k++) asm volatile("" : "+r"(r[i][j][k])::"memory");
}

/* ---- wgmma, one function per width N (generated: scripts/gen_wgmma_asm.py) ----------------- */
/* generated: begin */
__device__ __forceinline__ void wgmma_n64(float (&d)[32], unsigned long long a, unsigned long long b,
                                          int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p" WG_TAIL ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_n128(float (&d)[64], unsigned long long a, unsigned long long b,
                                           int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p" WG_TAIL ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_n192(float (&d)[96], unsigned long long a, unsigned long long b,
                                           int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
                 "}, %96, %97, p" WG_TAIL ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_n256(float (&d)[128], unsigned long long a, unsigned long long b,
                                           int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                 "}, %128, %129, p" WG_TAIL ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(a), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_rs_n64(float (&d)[32], const unsigned (&a)[4], unsigned long long b,
                                             int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, {%32, %33, %34, %35}, %36, p" WG_TAIL_RS ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_rs_n128(float (&d)[64], const unsigned (&a)[4], unsigned long long b,
                                              int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, {%64, %65, %66, %67}, %68, p" WG_TAIL_RS ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_rs_n192(float (&d)[96], const unsigned (&a)[4], unsigned long long b,
                                              int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
                 "}, {%96, %97, %98, %99}, %100, p" WG_TAIL_RS ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_rs_n256(float (&d)[128], const unsigned (&a)[4], unsigned long long b,
                                              int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k" WG_K "." WG_TYPES " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                 "}, {%128, %129, %130, %131}, %132, p" WG_TAIL_RS ";\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}
/* generated: end */

template <int N>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], unsigned long long a, unsigned long long b, int scale_d = 1)
{
    if constexpr (N == 64) wgmma_n64(d, a, b, scale_d);
    else if constexpr (N == 128) wgmma_n128(d, a, b, scale_d);
    else if constexpr (N == 192) wgmma_n192(d, a, b, scale_d);
    else wgmma_n256(d, a, b, scale_d);
}

/* A from registers (wgmma's fragment of m64 x k8 for 32-bit types: warp w of the warpgroup
 * holds rows 16 w .. 16 w + 15, lane 4 g + t rows g and g + 8 and columns t and t + 4). */
template <int N>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long b,
                                         int scale_d = 1)
{
    if constexpr (N == 64) wgmma_rs_n64(d, a, b, scale_d);
    else if constexpr (N == 128) wgmma_rs_n128(d, a, b, scale_d);
    else if constexpr (N == 192) wgmma_rs_n192(d, a, b, scale_d);
    else wgmma_rs_n256(d, a, b, scale_d);
}

/* A stage's products, summed from zero in part by the tensor cores (waited for), added to
 * the fp32 accumulators in one rounding each (f32x3, and FP8 with PROMOTE). */
__device__ __forceinline__ void add_part(float (&acc)[MI][BN / 2], float (&part)[MI][BN / 2])
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++) {
        fence_regs(part[mi]);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[mi][i] += part[mi][i];
    }
}

#if PROMOTE
/* FP8 with PROMOTE: stage it's products (128 of K) summed from zero into part by the tensor
 * cores once the stage has landed, committed as one group (bars: the kernel's barriers,
 * FULL(s) at bars + 8 s). */
__device__ __forceinline__ void promote_issue(float (&part)[MI][BN / 2], unsigned As, unsigned Bs, unsigned bars,
                                              unsigned c, unsigned it)
{
    const unsigned s = it % STAGES, a = As + s * A_STAGE, b = Bs + s * B_STAGE;
    mbar_wait(bars + 8 * s, (it / STAGES) & 1);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BK / KSTEP; kk++) {
        const unsigned long long db = desc(b + kk * 32, 16, 8 * LINE);
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
            wgmma<BN>(part[mi], desc(a + (c * WM + mi * 64) * LINE + kk * 32, 16, 8 * LINE), db, kk > 0);
    }
    wg_commit();
}

/* Gives stage it back to the producer, its sums added (EMPTY(s) at bars + 8 (STAGES + s)). */
__device__ __forceinline__ void promote_release(unsigned bars, unsigned it)
{
    if (threadIdx.x % 128 == 0)
        for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(bars + 8 * (STAGES + it % STAGES), r);
}
#endif

/* The launch parameters with what follows mmt_gemm_params in src/backend.h: the scales'
 * pointers (the other templates read the first 112 bytes alone). */
struct mmt_scaled_params {
    mmt_gemm_params p;
    const float *scale_a, *scale_b;
};
static_assert(sizeof(mmt_scaled_params) == 128, "mmt_scaled_params must match src/backend.h");

#if BLOCK_SCALED
/* Block scales (DeepGEMM's layout, K in blocks of 128, one a stage): A's per row and block,
 * scale_a[kb * M + row]; B's per 128 x 128 block, scale_b[(col / 128) * KBLOCKS + kb]. A
 * consumer thread's accumulators lie on two rows per 64 (row0 + 16 w + g and 8 below) and
 * on columns 8 j + 2 q (+1) of the tile, so a stage needs two of A's scales per 64 rows and
 * B's of the one or two column blocks the tile meets: the tile's columns from `split` on
 * lie in the second. */
struct block_scales {
    const float *a, *b; /* scale_a, scale_b */
    int row[MI][2];     /* this thread's rows of A (clamped into M) */
    unsigned b0, b1;    /* where the tile's column blocks start in scale_b (clamped into N) */
    int m;              /* scale_a's stride from one block of K to the next */
    int split;          /* the tile's first column in the second block */
    int last;           /* the last stage of K this block sums (loads ahead of it read it again) */
};

__device__ __forceinline__ block_scales block_scales_of(const mmt_scaled_params &sp, long long row0, long long col0,
                                                        long long M, long long N, long long K, int last)
{
    block_scales bs;
    const int t = threadIdx.x % 128, w = t / 32, g = (t % 32) / 4;
    bs.a = sp.scale_a, bs.b = sp.scale_b;
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const long long r = row0 + mi * 64 + 16 * w + g + 8 * h;
            bs.row[mi][h] = (int)(r < M ? r : M - 1);
        }
    const long long kblocks = (K + 127) / 128, nb = (N + 127) / 128, jb = col0 / 128;
    bs.b0 = (unsigned)((jb < nb ? jb : nb - 1) * kblocks);
    bs.b1 = (unsigned)((jb + 1 < nb ? jb + 1 : nb - 1) * kblocks);
    bs.m = (int)M;
    bs.split = (int)(128 - col0 % 128);
    bs.last = last > 0 ? last : 0;
    return bs;
}

/* A stage's scales as loaded: A's of this thread's rows, B's of the tile's column blocks.
 * They are loaded PROMOTE stages before their sums are added, so that the loads' latency
 * passes while the tensor cores work, not in the add (where a load just issued stalled it). */
struct stage_scales {
    float a[MI][2], b[2];
};

__device__ __forceinline__ void scales_load(const block_scales &bs, int kt, stage_scales &r)
{
    kt = kt < bs.last ? kt : bs.last;
    r.b[0] = __ldg(bs.b + bs.b0 + kt), r.b[1] = __ldg(bs.b + bs.b1 + kt);
    const float *const a = bs.a + (long long)kt * bs.m;
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) r.a[mi][h] = __ldg(a + bs.row[mi][h]);
}

/* The products of a stage's scales for each of this thread's rows and column blocks:
 * scale_a * scale_b. */
__device__ __forceinline__ void scales_product(const stage_scales &r, float (&f)[MI][2][2])
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) f[mi][h][0] = r.a[mi][h] * r.b[0], f[mi][h][1] = r.a[mi][h] * r.b[1];
}

/* add_part with each sum multiplied by its scales first (one rounding: an fma); the tile's
 * columns from SPLIT_COL on take the second block's. A tile starts on a multiple of 64
 * columns, so SPLIT_COL is 64 or 128: known when compiled, it costs no select an element
 * (a select of each sum's scale was a quarter of the instructions with 192 columns). */
template <int SPLIT_COL>
__device__ __forceinline__ void add_part_scaled(float (&acc)[MI][BN / 2], float (&part)[MI][BN / 2],
                                                const float (&f)[MI][2][2])
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++) {
        fence_regs(part[mi]);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) /* element i: column 8 (i / 4) + .., row half (i / 2) % 2 */
            acc[mi][i] = fmaf(part[mi][i], f[mi][(i / 2) % 2][8 * (i / 4) >= SPLIT_COL], acc[mi][i]);
    }
}
#endif

/* ---- C ----------------------------------------------------------------------------------- */

#include "mmt_opaque.h"

__device__ __forceinline__ float c_load(const TC *p)
{
#if MMT_OUT == 0
    return *p;
#elif MMT_OUT == 2
    return __uint_as_float((unsigned)*p << 16);
#elif MMT_OUT == 3
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(*p));
    return f;
#else
    return fp8_to_f32(*p);
#endif
}

#include "mmt_fuse.h"

#if MMT_OUT >= 4
/* two elements of FP8 C by one conversion: v0 in the low byte (the lower address) */
__device__ __forceinline__ unsigned short c_from_pair(float v0, float v1) { return fp8_pair(v0, v1); }
#endif

__device__ __forceinline__ TC c_from(float v)
{
#if MMT_OUT == 0
    return v;
#elif MMT_OUT >= 4
    return (TC)c_from_pair(v, 0.0f);
#else
    unsigned short h;
#if MMT_OUT == 2
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
#else
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(v));
#endif
    return h;
#endif
}

#include "mmt_c_pair.h"

/* FP8 C's scale (mmt_fused_params's), multiplied in after the activation */
#if FUSED && MMT_OUT >= 4
#define SCALED(x) ((x) * scale)
#else
#define SCALED(x) (x)
#endif

/* Writes one consumer's m64 x BN accumulators (wgmma's layout: warp w of the warpgroup
 * holds rows 16 w .. 16 w + 15; lane 4 g + t holds rows g and g + 8 and columns 2 t, 2 t + 1
 * of every 8-column group) to C at (row0, col0), alpha * acc + beta * c with one rounding
 * fewer (beta == 0: C is not read); pairs go out as one store where C allows. SWAP: the
 * tile is C^T's, so element (row, col) goes to C[col][row] (eight lanes of a warp write 32
 * contiguous bytes). NVRTC's time went mostly to copies of the stores, one per way through
 * the branches before them (on beta, on cvec, on a row), so: the values are made in place
 * first, in one pass per case of beta; the stores after them are predicated on edge checks
 * in 32 bits, with no branch, and cvec is folded into a number NVRTC cannot see through. */
__device__ __forceinline__ void store_tile(float (&d)[BN / 2], TC *C, long long ldc, long long M, long long N,
                                           long long row0, long long col0, float alpha, float beta, bool cvec,
                                           const void *bias, float scale)
{
    const int t = threadIdx.x % 128, w = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
    /* element j e of row h (from this thread's first) is in C if 8 j + e < cols[h], and pair
     * j goes out as one store if 8 j + 1 < pairs[h] (both 0 where the row is out) */
    const int in_n = (int)(N - col0 - 2 * q < BN ? N - col0 - 2 * q : BN), in_pairs = opaque(cvec ? in_n : 0);
    int cols[2], pairs[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const bool in = row0 + 16 * w + g + 8 * h < M;
        cols[h] = in ? in_n : 0;
        pairs[h] = in ? in_pairs : 0;
    }
    /* its address, from an offset that each pass takes afresh: NVRTC would otherwise keep
     * the addresses from the first pass to the second (spilled beside 128 accumulators).
     * SWAP: C^T's rows are C's columns, 8 ldc apart. */
    const long long ld8 = 8 * ldc;
#if SWAP
    const long long c00 = (col0 + 2 * q) * ldc + row0 + 16 * w + g;
#define EPI0_AT(h, j, e) (cq + (j) * ld8 + (e) * ldc + 8 * (h))
#else
    const long long c00 = (row0 + 16 * w + g) * ldc + col0 + 2 * q;
#define EPI0_AT(h, j, e) (cq + (h) * ld8 + 8 * (j) + (e))
#endif
    if (beta == 0.0f) {
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] *= alpha;
    } else {
        TC *const cq = C + opaque(c00);
#pragma unroll
        for (int j = 0; j < BN / 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    if (8 * j + e < cols[h]) {
                        float &x = d[4 * j + 2 * h + e];
                        x = fmaf(alpha, x, beta * c_load(EPI0_AT(h, j, e)));
                    }
    }
#if FUSED /* in a pass of its own: the stores below would keep the bias's loads apart */
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) { /* C's element: SWAP's tile is C^T's */
                const long long tr = row0 + 16 * w + g + 8 * h, tc = col0 + 8 * j + 2 * q + e;
                float &x = d[4 * j + 2 * h + e];
                x = SCALED(fuse(x, bias, SWAP ? tc : tr, SWAP ? tr : tc, SWAP ? N : M, SWAP ? M : N));
            }
#endif
    TC *const cq = C + opaque(c00);
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            TC *const cp = EPI0_AT(h, j, 0);
            const float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
            const bool in0 = 8 * j < cols[h], in1 = 8 * j + 1 < cols[h];
#if SWAP
            (void)pairs;
            if (in0) *cp = c_from(v0);
            if (in1) *EPI0_AT(h, j, 1) = c_from(v1);
#else
            store_pair(cp, v0, v1, 8 * j + 1 < pairs[h], in0, in1);
#endif
        }
#undef EPI0_AT
}

/* alpha * acc of piece `piece` of a consumer's MI x m64 x BN accumulators (64 rows x
 * EPI_COLS, row-major over the pieces) into its staging buffer S: registers are indexed by
 * constants only, so the piece is found by a chain of tests rather than by indexing. */
#define PIECES_N (BN / EPI_COLS) /* pieces along a row of the tile */
template <int P = 0>
__device__ __forceinline__ void stage_piece(const float (&d)[MI][BN / 2], float *S, int piece, float alpha)
{
    if (piece == P) {
        const int t = threadIdx.x % 128, w = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
#pragma unroll
        for (int j = 0; j < EPI_COLS / 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int jj = P % PIECES_N * EPI_COLS / 8 + j;
#if SWAP /* the piece of C^T staged as C's: S's rows are the tile's columns */
                S[(8 * j + 2 * q) * EPI_PITCH + 16 * w + g + 8 * h] = alpha * d[P / PIECES_N][4 * jj + 2 * h];
                S[(8 * j + 2 * q + 1) * EPI_PITCH + 16 * w + g + 8 * h] = alpha * d[P / PIECES_N][4 * jj + 2 * h + 1];
#else
                *reinterpret_cast<float2 *>(S + (16 * w + g + 8 * h) * EPI_PITCH + 8 * j + 2 * q) =
                    make_float2(alpha * d[P / PIECES_N][4 * jj + 2 * h], alpha * d[P / PIECES_N][4 * jj + 2 * h + 1]);
#endif
            }
    } else if constexpr (P + 1 < MI * PIECES_N) {
        stage_piece<P + 1>(d, S, piece, alpha);
    }
}

/* The same through shared memory (EPI 1) for all MI x m64 x BN, 64 x 64 at a time: the
 * warpgroup writes alpha * acc of a piece into its staging buffer S (fp32), then each
 * thread takes 16-byte units of C (4 or 8 elements) along the rows, so a warp writes whole
 * 128-byte lines; beta is applied and C rounded once on the way out. A piece that the right
 * edge of C cuts, or a C not 16-byte aligned, goes out one element per thread and step
 * instead. The loop over the pieces is not unrolled: the way out of S, with its edge cases,
 * is compiled once rather than once per piece (NVRTC's time went mostly to those copies).
 * Named barrier 1 + c keeps the consumer's four warps together. */
__device__ __forceinline__ void store_tile_smem(const float (&d)[MI][BN / 2], float *S, int c, TC *C, long long ldc,
                                                long long M, long long N, long long row0, long long col0, float alpha,
                                                float beta, bool cvec16, const void *bias, float scale)
{
    constexpr int V = 16 / sizeof(TC);          /* elements of C per unit */
    constexpr int UNITS = 64 * EPI_COLS / V;    /* units of a piece */
    const int t = threadIdx.x % 128;
#pragma unroll 1
    for (int piece = 0; piece < MI * PIECES_N; piece++) {
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + c) : "memory"); /* the last piece is out */
        stage_piece(d, S, piece, alpha);
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + c) : "memory");
        /* the piece's rows and columns inside C, in 32 bits (few registers: every accumulator is live) */
#if SWAP /* C's rows are the tile's columns (pieces are square) */
        const long long row = col0 + piece % PIECES_N * EPI_COLS, col = row0 + piece / PIECES_N * 64;
        const int rows = (int)(N - row < 64 ? N - row : 64), cols = (int)(M - col < EPI_COLS ? M - col : EPI_COLS);
#else
        const long long row = row0 + piece / PIECES_N * 64, col = col0 + piece % PIECES_N * EPI_COLS;
        const int rows = (int)(M - row < 64 ? M - row : 64), cols = (int)(N - col < EPI_COLS ? N - col : EPI_COLS);
#endif
        TC *const Cp = C + row * ldc + col;
        if (cvec16 && cols == EPI_COLS) {
#if EPI_BIAS == 2 /* a thread's units of the piece lie on the same columns (128 units apart) */
            float bc[V];
#pragma unroll
            for (int i = 0; i < V; i++)
                bc[i] = bias_at(bias, 0, col + t % (EPI_COLS / V) * V + i, SWAP ? N : M, SWAP ? M : N);
#endif
#pragma unroll 4 /* every unit of 16-bit C; fully unrolled fp32 C spilled beside 128 accumulators */
            for (int u = t; u < UNITS; u += 128) {
                const int r = u / (EPI_COLS / V), cu = u % (EPI_COLS / V) * V;
                if (r >= rows) continue;
#if EPI_BIAS == 1
                const float br = bias_at(bias, row + r, 0, SWAP ? N : M, SWAP ? M : N);
#endif
                union {
                    TC e[V];
                    uint4 u;
                } o;
                TC *const cp = Cp + r * ldc + cu;
                if (beta != 0.0f) o.u = *reinterpret_cast<const uint4 *>(cp);
#pragma unroll
                for (int e = 0; e < V; e += 4) {
                    const float4 x = *reinterpret_cast<const float4 *>(S + r * EPI_PITCH + cu + e);
                    const float v[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        float x = beta == 0.0f ? v[i] : fmaf(beta, c_load(&o.e[e + i]), v[i]);
#if EPI_BIAS == 1
                        x += br;
#elif EPI_BIAS == 2
                        x += bc[e + i];
#endif
                        if (FUSED) x = SCALED(activate(x));
                        o.e[e + i] = c_from(x);
                    }
                }
                *reinterpret_cast<uint4 *>(cp) = o.u;
            }
        } else {
#pragma unroll 4
            for (int i = t; i < 64 * EPI_COLS; i += 128) {
                const int r = i / EPI_COLS, cc = i % EPI_COLS;
                if (r >= rows || cc >= cols) continue;
                TC *const cp = Cp + r * ldc + cc;
                const float x = S[r * EPI_PITCH + cc];
                const float y = beta == 0.0f ? x : fmaf(beta, c_load(cp), x);
                *cp = c_from(FUSED ? SCALED(fuse(y, bias, row + r, col + cc, SWAP ? N : M, SWAP ? M : N)) : y);
            }
        }
    }
}

/* The same by TMA stores (EPI 2, where beta == 0 and C is 16-byte aligned with a 16-byte
 * row pitch): the warpgroup writes alpha * acc, rounded to C's type, one box of 64 rows x
 * BOX_C columns at a time into the staging buffer in the 128-byte swizzle (the chunk of 16
 * bytes j of row r at j ^ (r % 8): a warp's fragment stores hit every bank evenly), and one
 * thread has the TMA store it; the two buffers alternate (*box counts the boxes), so the
 * warpgroup fills one while the other goes out, and leaves the tile without waiting. */
__device__ __forceinline__ void store_tile_tma(const float (&d)[BN / 2], unsigned S, int c, const mmt_tmap *tm,
                                               long long M, long long N, long long row0, long long col0, float alpha,
                                               unsigned &box, const void *bias, float scale)
{
    const int t = threadIdx.x % 128, w = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
#if EPI_BIAS == 1 /* this thread's two rows' */
    const float br[2] = {bias_at(bias, row0 + 16 * w + g, 0, M, N), bias_at(bias, row0 + 16 * w + g + 8, 0, M, N)};
#endif
#pragma unroll
    for (int j0 = 0; j0 < BN; j0 += BOX_C, box++) {
        const unsigned buf = S + (box & 1) * BOX_BYTES;
#if EPI_BIAS == 2 /* the box's columns', loaded first: the compiler keeps no load across the stores below */
        float bc[BOX_C / 8][2];
#pragma unroll
        for (int j = 0; j < BOX_C / 8; j++)
#pragma unroll
            for (int e = 0; e < 2; e++) bc[j][e] = bias_at(bias, 0, col0 + j0 + 8 * j + 2 * q + e, M, N);
#endif
        if (t == 0) asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory"); /* buf's last box is read */
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + c) : "memory");
#pragma unroll
        for (int j = 0; j < BOX_C / 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int jj = j0 / 8 + j, r = 16 * w + g + 8 * h, byte = (8 * j + 2 * q) * (int)sizeof(TC);
                const unsigned at = buf + r * LINE + (((byte >> 4) ^ (r & 7)) << 4) + (byte & 15);
                float v0 = alpha * d[4 * jj + 2 * h], v1 = alpha * d[4 * jj + 2 * h + 1];
#if EPI_BIAS == 1
                v0 += br[h], v1 += br[h];
#elif EPI_BIAS == 2
                v0 += bc[j][0], v1 += bc[j][1];
#endif
                if (FUSED) v0 = SCALED(activate(v0)), v1 = SCALED(activate(v1));
#if MMT_OUT == 0
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at), "f"(v0), "f"(v1) : "memory");
#elif MMT_OUT >= 4
                asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(at), "h"(c_from_pair(v0, v1)) : "memory");
#else
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"((unsigned)c_from(v0) | (unsigned)c_from(v1) << 16)
                             : "memory");
#endif
            }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* the TMA reads what the threads wrote */
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + c) : "memory");
        if (t == 0) tma_store(tm, buf, (int)(col0 + j0), (int)row0);
    }
}

/* ---- f32x3 ------------------------------------------------------------------------------ */

__device__ __forceinline__ float to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}

/* Writes the tf32 residuals of bytes of shared memory at p LO_OFF bytes further; each of n
 * threads (this one is tc) takes 16-byte units, four loaded before any is written. The high
 * parts stay as the TMA wrote them: the tensor cores read an fp32 as tf32 by dropping its low
 * 13 bits, so the residual is x less that truncation, rounded to tf32. The writes are ordinary
 * stores that wgmma reads next: each thread fences them into the async proxy before it
 * arrives on the barrier that says the stage is split. */
__device__ __forceinline__ float residual(float x)
{
    return to_tf32(x - __uint_as_float(__float_as_uint(x) & 0xffffe000u));
}

__device__ __forceinline__ void split_stage(unsigned char *p, int bytes, int tc, int n)
{
    for (int o = tc * 16; o < bytes; o += 4 * n * 16) {
        float4 v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (o + j * n * 16 < bytes) v[j] = *reinterpret_cast<const float4 *>(p + o + j * n * 16);
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (o + j * n * 16 < bytes)
                *reinterpret_cast<float4 *>(p + o + j * n * 16 + LO_OFF) =
                    make_float4(residual(v[j].x), residual(v[j].y), residual(v[j].z), residual(v[j].w));
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* ---- the workspace ----------------------------------------------------------------------- */

/* Bytes of the packed operands at the start of the workspace (0 without PACK): A, then B,
 * those packed, rows at their byte length rounded up to 16; 32-bit operands K-major (m x k
 * and n x k). */
__device__ __forceinline__ long long packed_bytes(const mmt_gemm_params &p, long long *a_bytes)
{
    const long long a_rows = A_MN ? p.k : p.m, a_cols = A_MN ? p.m : p.k;
    const long long b_rows = B_MN ? p.k : p.n, b_cols = B_MN ? p.n : p.k;
    const long long a = a_rows * ((a_cols * ELEM + 15) / 16 * 16), b = b_rows * ((b_cols * ELEM + 15) / 16 * 16);
    if (a_bytes) *a_bytes = PACK_A ? a : 0;
    return (PACK_A ? a : 0) + (PACK_B ? b : 0);
}

/* Split-K's part of the workspace, after the packed operands: a flag per block tile (16
 * bytes each), then an fp32 tile of partial sums per block tile. */
#define SK_FLAG(ws, slot) (reinterpret_cast<int *>(ws) + 4 * (slot))
#define SK_PART(ws, slots, slot) (reinterpret_cast<float *>(ws) + 4 * (slots) + (long long)(slot) * BM * BN)

/* The consumers of this block wait until the flag says `value` (one thread polls, with
 * acquire; the named barrier passes what it saw to the others). */
__device__ __forceinline__ void sk_wait(const int *flag, int value)
{
    if (threadIdx.x == 128) {
        int v;
        do asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
        while (v != value);
    }
    asm volatile("bar.sync 4, %0;\n" ::"n"(CONSUMERS * 128) : "memory");
}

/* Every consumer's writes of the partial tile are done (the barrier), then one thread
 * publishes them at GPU scope and sets the flag. */
__device__ __forceinline__ void sk_signal(int *flag, int value)
{
    asm volatile("bar.sync 4, %0;\n" ::"n"(CONSUMERS * 128) : "memory");
    if (threadIdx.x == 128)
        asm volatile("fence.acq_rel.gpu;\nst.relaxed.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

/* This consumer's 32-bit fragment r of A for k step kk of a stage, for m64 row block mi
 * (rows g, g + 8 and columns q, q + 4 of the step, wgmma's register layout), as a byte
 * offset into the stage. K-major A: row's line of K, 16-byte unit j at j ^ (row % 8) (row
 * % 8 is g: 32 banks across a warp). SWAP's B^T: columns of BK lines of 32 rows, the line
 * of column k holding unit j at j ^ (k % 8) (16 banks across a warp, two lanes each). */
__device__ __forceinline__ int a_frag_at(int c, int mi, int kk, int r)
{
    const int t = threadIdx.x % 128, w = t / 32, g = t % 32 / 4, q = t % 4;
    const int row = c * WM + mi * 64 + 16 * w + g + 8 * (r & 1), k = kk * KSTEP + 4 * (r >> 1) + q;
#if SWAP
    return (row / 32 * BK + k) * LINE + ((row % 32 / 4) ^ (k % 8)) * 16 + row % 4 * 4;
#else
    return row * LINE + ((k / 4) ^ (row % 8)) * 16 + q * 4;
#endif
}

/* This consumer's fragments of A for one stage, split into tf32 high parts and residuals. */
__device__ __forceinline__ void load_a_split(const unsigned char *stage, int c, unsigned (&hi)[MI][BK / KSTEP][4],
                                             unsigned (&lo)[MI][BK / KSTEP][4])
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int kk = 0; kk < BK / KSTEP; kk++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const float x = *reinterpret_cast<const float *>(stage + a_frag_at(c, mi, kk, r));
                const float h = to_tf32(x);
                hi[mi][kk][r] = __float_as_uint(h);
                lo[mi][kk][r] = __float_as_uint(to_tf32(x - h));
            }
}

/* SWAP, tf32: this consumer's fragments of B^T for one stage, as stored (the tensor cores
 * read tf32's bits of an fp32, as from shared memory). */
__device__ __forceinline__ void load_a(const unsigned char *stage, int c, unsigned (&a)[MI][BK / KSTEP][4])
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int kk = 0; kk < BK / KSTEP; kk++)
#pragma unroll
            for (int r = 0; r < 4; r++) a[mi][kk][r] = *reinterpret_cast<const unsigned *>(stage + a_frag_at(c, mi, kk, r));
}

/* ---- the kernel ----------------------------------------------------------------------- */

/* Tile t of the cluster tiles (CLUSTER x BM x BN), GROUP_M rows swept column by column. */
__device__ __forceinline__ void tile_of(long long t, long long tiles_m, long long ctiles_n, long long &tm,
                                        long long &tn)
{
    const long long group = (long long)GROUP_M * ctiles_n;
    const long long first = t / group * GROUP_M;
    const long long rows = tiles_m - first < GROUP_M ? tiles_m - first : GROUP_M;
    tm = first + (t % group) % rows;
    tn = (t % group) / rows;
}

#if GROUPED
/* The groups of one launch, after the launch parameters (src/grouped.h): group g's rows of A
 * and C run from first_row[g] to first_row[g + 1], its tiles (BM x BN, row by row) are
 * numbered from first_tile[g] on (first_tile[groups]: all of them); its B is b_rows rows of
 * B's map on from g * b_rows (0: every group reads the same B); n: the columns of C. */
#define MMT_MAX_GROUPS 128
struct mmt_grouped_params {
    mmt_scaled_params s;
    int groups, n, b_rows, pad;
    int first_row[MMT_MAX_GROUPS + 1], first_tile[MMT_MAX_GROUPS + 1];
};
static_assert(sizeof(mmt_grouped_params) == 128 + 16 + 8 * (MMT_MAX_GROUPS + 1), "must match src/grouped.h");
typedef mmt_grouped_params mmt_launch_params;
#else
typedef MMT_OWN_OR_FUSED(mmt_scaled_params) mmt_launch_params;
#endif

/* Where unit u's tile lies: its first row of A and C, the row C's rows end before (the
 * problem's, or the group's), its first column of C and its first row of B's map. g: the
 * group of the unit before (a block's units only increase). */
struct tile_at {
    long long m0, m_end;
    int n0, b0;
};

__device__ __forceinline__ tile_at unit_tile(const mmt_launch_params &lp, long long u, long long tiles_m,
                                             long long ctiles_n, long long M, unsigned rank, int &g)
{
    tile_at t;
#if GROUPED
    while (g + 1 < lp.groups && u >= lp.first_tile[g + 1]) g++;
    const long long local = u - lp.first_tile[g], tn = local % ctiles_n;
    t.m0 = lp.first_row[g] + local / ctiles_n * BM, t.m_end = lp.first_row[g + 1];
    t.n0 = (int)(tn * BN), t.b0 = g * lp.b_rows + t.n0;
    (void)tiles_m, (void)M, (void)rank;
#else
    long long tm, tn;
    tile_of(u / SPLITK, tiles_m, ctiles_n, tm, tn);
    t.m0 = tm * BM, t.m_end = M;
    t.n0 = (int)((tn * CLUSTER + rank) * BN), t.b0 = t.n0;
    (void)lp, (void)g;
#endif
    return t;
}

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

extern "C" __global__ void __launch_bounds__(THREADS, 1) CLUSTER_DIMS
    mmt_gemm(mmt_launch_params lp, const __grid_constant__ mmt_tmap tma_a, const __grid_constant__ mmt_tmap tma_b,
             const __grid_constant__ mmt_tmap tma_c)
{
#if GROUPED
    const mmt_scaled_params &ps = lp.s;
    const mmt_gemm_params &p = ps.p;
#elif FUSED /* no block scales */
    const mmt_gemm_params &p = lp.p;
#else
    const mmt_scaled_params &ps = lp;
    const mmt_gemm_params &p = ps.p;
#endif
#if FUSED
    const void *const bias = lp.bias;
    const float scale = lp.scale;
#else
    const void *const bias = nullptr;
    const float scale = 1.0f;
#endif
    /* An instance is built for one pair of transposes: anything else is a caller's bug. */
    if (p.trans_a != OP_A || p.trans_b != OP_B) __trap();

    extern __shared__ unsigned char mmt_smem[];
    /* the swizzle pattern repeats every 1024 bytes: stages start on such a boundary */
    const unsigned raw = smem_u32(mmt_smem), base = (raw + 1023) & ~1023u;
    const unsigned As = base, Bs = As + STAGES * A_STAGE, Es = Bs + STAGES * B_STAGE * (SPLIT ? 2 : 1),
                   bars = Es + EPI_BYTES;
#define FULL(s) (bars + 8 * (s))
#define EMPTY(s) (bars + 8 * (STAGES + (s)))
#define SPLIT_DONE(s) (bars + 8 * (2 * STAGES + (s))) /* f32x3: B of the stage is split */

    /* the tiles' (SWAP: C^T's); a grouped launch's p.n is the rows of B's map */
#if GROUPED
    const long long M = p.m, N = lp.n, K = p.k;
#else
    const long long M = SWAP ? p.n : p.m, N = SWAP ? p.m : p.n, K = p.k;
#endif
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    const long long tiles_m = (M + BM - 1) / BM, ctiles_n = (N + (long long)CLUSTER * BN - 1) / (CLUSTER * BN);
#if GROUPED
    const long long tiles = lp.first_tile[lp.groups], units = tiles;
#else
    const long long tiles = tiles_m * ctiles_n, units = tiles * SPLITK;
#endif
    /* alpha == 0 or K == 0: C = beta C, A and B are not read */
    const int ktiles = alpha == 0.0f ? 0 : (int)((K + BK - 1) / BK);
    const unsigned rank = cluster_rank();
    const int wg = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(FULL(s), 1);
            mbar_init(EMPTY(s), CONSUMERS * CLUSTER);
            if (SPLIT) mbar_init(SPLIT_DONE(s), SPLITTERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_sync();

    if (wg == 0) {
        /* The producer: one thread walks the tiles and their K steps. */
#if CONSUMERS == 2
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
#endif
        if (threadIdx.x == 0) {
            const unsigned short all = (unsigned short)((1u << CLUSTER) - 1);
            unsigned it = 0;
            int g = 0;
            for (long long u = blockIdx.x / CLUSTER; u < units; u += gridDim.x / CLUSTER) {
                const tile_at t = unit_tile(lp, u, tiles_m, ctiles_n, M, rank, g);
                const int m0 = (int)t.m0, n0 = t.n0;
                (void)n0; /* K-major B is read at t.b0 */
                const int slice = (int)(u % SPLITK), kb = (int)((long long)ktiles * slice / SPLITK),
                          ke = (int)((long long)ktiles * (slice + 1) / SPLITK);
                for (int kt = kb; kt < ke; kt++, it++) {
                    const unsigned s = it % STAGES, phase = (it / STAGES) & 1;
                    mbar_wait(EMPTY(s), phase ^ 1); /* every consumer of the cluster is done with it */
                    mbar_expect_tx(FULL(s), A_STAGE + B_STAGE);
                    const int k0 = kt * BK;
                    const unsigned a = As + s * A_STAGE, b = Bs + s * B_STAGE;
#if SWAP /* A's place: B^T, columns of BK rows along n from B's map; B's place: A, K-major */
                    for (int j = (int)rank; j < BM / BK; j += CLUSTER)
                        tma_load(a + j * BK * LINE, &tma_b, m0 + j * BK, k0, FULL(s), CLUSTER > 1 ? all : 0);
                    tma_load(b, &tma_a, k0, n0, FULL(s), 0);
#elif A_MN /* columns of BK rows along m; with multicast each block loads every CLUSTER-th */
                    for (int j = (int)rank; j < BM / BK; j += CLUSTER)
                        tma_load(a + j * BK * LINE, &tma_a, m0 + j * BK, k0, FULL(s), CLUSTER > 1 ? all : 0);
#else
                    tma_load(a + rank * A_HALF * LINE, &tma_a, k0, m0 + (int)rank * A_HALF, FULL(s),
                             CLUSTER > 1 ? all : 0);
#endif
#if SWAP
#elif B_MN
                    for (int j = 0; j < BN / BK; j++) tma_load(b + j * BK * LINE, &tma_b, n0 + j * BK, k0, FULL(s), 0);
#else
                    tma_load(b, &tma_b, k0, t.b0, FULL(s), 0);
#endif
                }
            }
        }
#if SPLIT
        else if (threadIdx.x >= 128 - SPLITTERS) {
            /* f32x3: the producer's other warps write the tf32 residuals of each stage's B
             * as soon as the TMA has filled it, off the consumers' path */
            unsigned it = 0;
            for (long long u = blockIdx.x / CLUSTER; u < units; u += gridDim.x / CLUSTER) {
                const int slice = (int)(u % SPLITK), kb = (int)((long long)ktiles * slice / SPLITK),
                          ke = (int)((long long)ktiles * (slice + 1) / SPLITK);
                for (int kt = kb; kt < ke; kt++, it++) {
                    const unsigned s = it % STAGES;
                    mbar_wait(FULL(s), (it / STAGES) & 1);
                    split_stage(mmt_smem + (Bs + s * B_STAGE - raw), B_STAGE, threadIdx.x - (128 - SPLITTERS), SPLITTERS);
                    mbar_arrive_local(SPLIT_DONE(s));
                }
            }
        }
#endif
    } else {
#if CONSUMERS == 2
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#endif
        const int c = wg - 1;
        TC *const C = static_cast<TC *>(p.c);
        const bool cvec = (reinterpret_cast<unsigned long long>(C) % (2 * sizeof(TC)) == 0) && (p.ldc % 2 == 0);
        const bool cvec16 = (reinterpret_cast<unsigned long long>(C) % 16 == 0) && (p.ldc * sizeof(TC) % 16 == 0);
        float *const S = reinterpret_cast<float *>(mmt_smem + (Es - raw)) + c * 64 * EPI_PITCH;
        /* EPI 2: the backend made C's tensor map under the same condition. The TMA does not
         * write a 16-byte unit of C that the end of a row cuts (measured: the last N % 4
         * columns of fp32 C stayed unwritten), so where rows end inside one, the tiles at the
         * right edge go out as EPI 1 does. */
        const bool tma_out = EPI == 2 && p.beta == 0.0 && cvec16,
                   tma_edge = N * (long long)sizeof(TC) % 16 == 0;
#if EPI
        unsigned box = 0; /* EPI 2: the boxes this consumer stored, which picks the buffer */
#endif
        (void)cvec, (void)cvec16, (void)S, (void)tma_out, (void)tma_edge;
        float acc[MI][BN / 2];
        unsigned it = 0;
        int g = 0;
        for (long long u = blockIdx.x / CLUSTER; u < units; u += gridDim.x / CLUSTER) {
            const tile_at t = unit_tile(lp, u, tiles_m, ctiles_n, M, rank, g);
            const int slice = (int)(u % SPLITK), kb = (int)((long long)ktiles * slice / SPLITK),
                      ke = (int)((long long)ktiles * (slice + 1) / SPLITK);
            (void)slice;
#pragma unroll
            for (int mi = 0; mi < MI; mi++)
#pragma unroll
                for (int i = 0; i < BN / 2; i++) acc[mi][i] = 0.0f;
#if SPLIT
            /* per stage: A's fragments split in registers, B split by the producer's warps;
             * the stage's three products summed from zero, added, the stage released. The
             * consumers do not wait for each other: one multiplies while the other adds. */
            float part[MI][BN / 2];
            unsigned ahi[MI][BK / KSTEP][4], alo[MI][BK / KSTEP][4];
            for (int kt = kb; kt < ke; kt++, it++) {
                const unsigned s = it % STAGES, phase = (it / STAGES) & 1;
                const unsigned b = Bs + s * B_STAGE;
                mbar_wait(FULL(s), phase);
                load_a_split(mmt_smem + (As + s * A_STAGE - raw), c, ahi, alo);
                mbar_wait(SPLIT_DONE(s), phase);
                wg_fence();
#pragma unroll
                for (int kk = 0; kk < BK / KSTEP; kk++) {
                    const unsigned long long db = desc(b + kk * 32, 16, 8 * LINE),
                                             dbl = desc(b + LO_OFF + kk * 32, 16, 8 * LINE);
#pragma unroll
                    for (int mi = 0; mi < MI; mi++) {
                        wgmma_rs<BN>(part[mi], alo[mi][kk], db, kk > 0); /* the small terms first */
                        wgmma_rs<BN>(part[mi], ahi[mi][kk], dbl);
                        wgmma_rs<BN>(part[mi], ahi[mi][kk], db);
                    }
                }
                wg_commit();
                wg_wait<0>();
                keep_regs(ahi), keep_regs(alo); /* the tensor cores read them until the wait */
                add_part(acc, part);
                if (threadIdx.x % 128 == 0)
                    for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY(s), r);
            }
#elif PROMOTE
            /* FP8: the tensor cores keep about 14 bits of a sum they add into, so a stage's
             * products (128 of K) are summed from zero and added to the fp32 accumulators
             * before the next stage's; the consumers do not wait for each other: one
             * multiplies while the other adds */
            float part[MI][BN / 2];
#if BLOCK_SCALED
            /* each stage's sums times its scales as they are added (f: part's, fn: next's);
             * r (rn: next's) holds the scales of the stage PROMOTE ahead, loading */
            const block_scales bs =
                block_scales_of(ps, t.m0 + c * WM, t.n0, M, N, K, ke - 1);
            float f[MI][2][2], fn[MI][2][2];
            stage_scales r, rn;
            scales_load(bs, kb, r);
            if (PROMOTE == 2) scales_load(bs, kb + 1, rn);
            (void)fn, (void)rn; /* PROMOTE 2's alone */
#define STAGE_SCALES(into, raw, kt) scales_product(raw, into), scales_load(bs, (kt) + PROMOTE, raw)
#define ADD_SUMS(sums, sc) \
    (bs.split == 64 ? add_part_scaled<64>(acc, sums, sc) : add_part_scaled<128>(acc, sums, sc))
#else
#define STAGE_SCALES(into, raw, kt) ((void)0)
#define ADD_SUMS(sums, sc) add_part(acc, sums)
#endif
#if PROMOTE == 2
            /* a second set: stage kt's sums are added while the tensor cores make kt + 1's
             * (waits of fixed depth, so that ptxas keeps the groups in flight) */
            float next[MI][BN / 2];
            int kt = kb;
            if (kt < ke) promote_issue(part, As, Bs, bars, c, it), STAGE_SCALES(f, r, kt);
            for (; kt + 2 < ke; kt += 2, it += 2) {
                promote_issue(next, As, Bs, bars, c, it + 1), STAGE_SCALES(fn, rn, kt + 1);
                wg_wait<1>();
                ADD_SUMS(part, f), promote_release(bars, it);
                promote_issue(part, As, Bs, bars, c, it + 2), STAGE_SCALES(f, r, kt + 2);
                wg_wait<1>();
                ADD_SUMS(next, fn), promote_release(bars, it + 1);
            }
            if (kt + 1 < ke) { /* two stages left */
                promote_issue(next, As, Bs, bars, c, it + 1), STAGE_SCALES(fn, rn, kt + 1);
                wg_wait<1>();
                ADD_SUMS(part, f), promote_release(bars, it);
                wg_wait<0>();
                ADD_SUMS(next, fn), promote_release(bars, it + 1);
                it += 2;
            } else {
                wg_wait<0>();
                if (kt < ke) ADD_SUMS(part, f), promote_release(bars, it++);
            }
#else
            for (int kt = kb; kt < ke; kt++, it++) {
                promote_issue(part, As, Bs, bars, c, it), STAGE_SCALES(f, r, kt);
                wg_wait<0>();
                ADD_SUMS(part, f), promote_release(bars, it);
            }
#endif
#undef STAGE_SCALES
#undef ADD_SUMS
#elif SWAP
            /* B^T's fragments from registers: a stage's products must have read them before
             * the next stage's are loaded, so one group is in flight at a time (the other
             * consumer's fills the gap) */
            unsigned af[MI][BK / KSTEP][4];
            for (int kt = kb; kt < ke; kt++, it++) {
                const unsigned s = it % STAGES, phase = (it / STAGES) & 1;
                mbar_wait(FULL(s), phase);
                wg_wait<0>();
                keep_regs(af);
                if (kt > kb && threadIdx.x % 128 == 0)
                    for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY((it - 1) % STAGES), r);
                load_a(mmt_smem + (As + s * A_STAGE - raw), c, af);
                const unsigned b = Bs + s * B_STAGE;
#pragma unroll
                for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
                wg_fence();
#pragma unroll
                for (int kk = 0; kk < BK / KSTEP; kk++) {
                    const unsigned long long db = desc(b + kk * 32, 16, 8 * LINE);
#pragma unroll
                    for (int mi = 0; mi < MI; mi++) wgmma_rs<BN>(acc[mi], af[mi][kk], db);
                }
                wg_commit();
#pragma unroll
                for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
            }
            wg_wait<0>();
            keep_regs(af);
#pragma unroll
            for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
            if (ke > kb && threadIdx.x % 128 == 0)
                for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY((it - 1) % STAGES), r);
#else
            for (int kt = kb; kt < ke; kt++, it++) {
                const unsigned s = it % STAGES, phase = (it / STAGES) & 1;
                mbar_wait(FULL(s), phase);
                const unsigned a = As + s * A_STAGE, b = Bs + s * B_STAGE;
#pragma unroll
                for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
                wg_fence();
#pragma unroll
                for (int kk = 0; kk < BK / KSTEP; kk++) {
#if B_MN /* the k step is KSTEP lines down; columns of BK are BK lines apart */
                    const unsigned long long db = desc(b + kk * KSTEP * LINE, BK * LINE, 8 * LINE);
#else /* the k step is 32 bytes along the line; groups of 8 rows are 8 lines apart */
                    const unsigned long long db = desc(b + kk * 32, 16, 8 * LINE);
#endif
#pragma unroll
                    for (int mi = 0; mi < MI; mi++) {
                        const int row = c * WM + mi * 64;
#if A_MN
                        const unsigned long long da = desc(a + row / BK * BK * LINE + kk * KSTEP * LINE, BK * LINE,
                                                           8 * LINE);
#else
                        const unsigned long long da = desc(a + row * LINE + kk * 32, 16, 8 * LINE);
#endif
                        wgmma<BN>(acc[mi], da, db);
                    }
                }
                wg_commit();
#pragma unroll
                for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
                /* the group before this one is done: its stage goes back to the producers */
                wg_wait<1>();
                if (kt > kb && threadIdx.x % 128 == 0)
                    for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY((it - 1) % STAGES), r);
            }
            wg_wait<0>();
#pragma unroll
            for (int mi = 0; mi < MI; mi++) fence_regs(acc[mi]);
            if (ke > kb && threadIdx.x % 128 == 0)
                for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive(EMPTY((it - 1) % STAGES), r);

#endif
#if SPLITK > 1
            {
                /* this consumer's share of the block tile's partial sums, in its registers' order */
                unsigned char *const ws = static_cast<unsigned char *>(p.workspace) + packed_bytes(p, nullptr);
                const long long slot = u / SPLITK;
                int *const flag = SK_FLAG(ws, slot);
                float *const part_ws = SK_PART(ws, tiles, slot) + (long long)c * MI * (BN / 2) * 128 + threadIdx.x % 128;
                sk_wait(flag, slice);
                if (slice < SPLITK - 1) { /* add to the slices before, pass on */
#pragma unroll
                    for (int mi = 0; mi < MI; mi++)
#pragma unroll
                        for (int i = 0; i < BN / 2; i++) {
                            float *const q = part_ws + (mi * (BN / 2) + i) * 128;
                            __stcg(q, slice ? __ldcg(q) + acc[mi][i] : acc[mi][i]);
                        }
                    sk_signal(flag, slice + 1);
                    continue;
                }
#pragma unroll
                for (int mi = 0; mi < MI; mi++)
#pragma unroll
                    for (int i = 0; i < BN / 2; i++) acc[mi][i] = __ldcg(part_ws + (mi * (BN / 2) + i) * 128) + acc[mi][i];
            }
#endif
            const long long row0 = t.m0 + c * WM, col0 = t.n0, M_ = t.m_end;
#if EPI
            if (tma_out && (tma_edge || col0 + BN <= N)) {
#pragma unroll
                for (int mi = 0; mi < MI; mi++)
                    store_tile_tma(acc[mi], smem_u32(S), c, &tma_c, M_, N, row0 + mi * 64, col0, alpha, box, bias,
                                   scale);
            } else {
                /* S must be read out by the TMA before it is written again */
                if (tma_out && threadIdx.x % 128 == 0) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
                store_tile_smem(acc, S, c, C, p.ldc, M_, N, row0, col0, alpha, beta, cvec16, bias, scale);
            }
#else
#pragma unroll
            for (int mi = 0; mi < MI; mi++)
                store_tile(acc[mi], C, p.ldc, M_, N, row0 + mi * 64, col0, alpha, beta, cvec, bias, scale);
#endif
        }
        /* the staging buffers live as long as the block: the TMA has read the last boxes */
        if (tma_out && threadIdx.x % 128 == 0) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    }
    /* no block leaves while another of its cluster may still write into its shared memory */
    if (CLUSTER > 1) cluster_sync();
#undef FULL
#undef EMPTY
}

#if PACK || SPLITK > 1
/* ---- the pass before the kernel ---------------------------------------------------------- */

#if ELEM == 1
typedef unsigned char TP; /* copied element by element: a row of odd bytes ends where it ends */
#else
typedef unsigned short TP; /* copied as 16-bit units: any 16- or 32-bit element type */
#endif
#define PU (16 / sizeof(TP))

/* rows x cols elements of src (row pitch ld) to dst at the pitch rounded up to 16 bytes, one
 * 16-byte unit per thread and step: any source alignment, aligned stores. */
__device__ __forceinline__ void pack(unsigned char *dst, const unsigned char *src, long long ld, long long rows,
                                     long long cols, long long first, long long stride)
{
    const long long row_bytes = cols * ELEM, pitch = (row_bytes + 15) / 16 * 16, units = rows * (pitch / 16);
    for (long long u = first; u < units; u += stride) {
        const long long r = u / (pitch / 16), b0 = u % (pitch / 16) * 16;
        union {
            TP e[PU];
            uint4 v;
        } x;
        const TP *const s = reinterpret_cast<const TP *>(src + r * ld * ELEM + b0);
#pragma unroll
        for (int e = 0; e < (int)PU; e++) x.e[e] = b0 + e * (long long)sizeof(TP) < row_bytes ? s[e] : TP(0);
        *reinterpret_cast<uint4 *>(dst + r * pitch + b0) = x.v;
    }
}

/* rows x cols elements of src (row pitch ld; 32-bit or 8-bit: TT) to dst transposed (cols
 * rows of `rows` elements at 16-byte pitches), in 32 x 32 tiles through shared memory so
 * that both the reads and the writes run along rows; a block takes every gridDim.x-th tile. */
#if ELEM == 1
typedef unsigned char TT;
#else
typedef unsigned TT;
#endif
__device__ __forceinline__ void pack_transposed(unsigned char *dst, const unsigned char *src, long long ld,
                                                long long rows, long long cols)
{
    __shared__ TT tile[32][33];
    const TT *const in = reinterpret_cast<const TT *>(src);
    TT *const out = reinterpret_cast<TT *>(dst);
    const long long pitch = (rows * ELEM + 15) / 16 * (16 / ELEM), tiles_c = (cols + 31) / 32,
                    tiles = (rows + 31) / 32 * tiles_c;
    const int x = threadIdx.x % 32, y0 = threadIdx.x / 32, dy = blockDim.x / 32;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long r0 = t / tiles_c * 32, c0 = t % tiles_c * 32;
        for (int y = y0; y < 32; y += dy)
            if (r0 + y < rows && c0 + x < cols) tile[y][x] = in[(r0 + y) * ld + c0 + x];
        __syncthreads();
        for (int y = y0; y < 32; y += dy)
            if (c0 + y < cols && r0 + x < rows) out[(c0 + y) * pitch + r0 + x] = tile[x][y];
        __syncthreads();
    }
}

/* Before the kernel: the packed operands (alpha == 0 or K == 0: A and B are not read) and
 * split-K's flags. Any 1-D launch of whole warps: the loops stride over the grid. */
extern "C" __global__ void mmt_gemm_pre(mmt_gemm_params p)
{
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x, stride = (long long)gridDim.x * blockDim.x;
    unsigned char *const ws = static_cast<unsigned char *>(p.workspace);
    long long a_bytes;
    const long long packed = packed_bytes(p, &a_bytes);
#if SPLITK > 1
    const long long slots = ((SWAP ? p.n : p.m) + BM - 1) / BM * (((SWAP ? p.m : p.n) + BN - 1) / BN);
    if (p.workspace_size < packed + slots * (16 + 4LL * BM * BN)) __trap(); /* the space's workspace expression */
    for (long long i = first; i < slots; i += stride) *SK_FLAG(ws + packed, i) = 0;
#endif
#if PACK
    if (p.workspace_size < packed) __trap(); /* the space's workspace expression sizes this layout */
    if (p.alpha == 0.0 || p.k == 0) return;
    const unsigned char *const a = static_cast<const unsigned char *>(p.a), *const b = static_cast<const unsigned char *>(p.b);
    if (PACK_A && OP_A && !A_MN) pack_transposed(ws, a, p.lda, p.k, p.m);
    else if (PACK_A) pack(ws, a, p.lda, A_MN ? p.k : p.m, A_MN ? p.m : p.k, first, stride);
    if (PACK_B && !OP_B && !B_MN) pack_transposed(ws + a_bytes, b, p.ldb, p.k, p.n);
    else if (PACK_B) pack(ws + a_bytes, b, p.ldb, B_MN ? p.k : p.n, B_MN ? p.n : p.k, first, stride);
#endif
}
#endif
