/* grouped.h - a grouped GEMM (mmtuned.h's mmt_gemm_grouped) in one launch on a GPU: the
 * wgmma template built with GROUPED=1 walks the tiles of every group in one persistent grid.
 * Its launch parameters follow (templates/cuda/gemm_wgmma.cu repeats the struct). */
#ifndef MMT_GROUPED_H
#define MMT_GROUPED_H

#include "backend.h"
#include "ctx.h"

/* The most groups one launch takes; a call with more launches again for the rest. */
#define MMT_MAX_GROUPS 128

/* Where the vendor library serves, the most rows its non-empty groups may average for one
 * launch: bf16 MoE layers of groups of 0-512 rows ran 0.99-1.15x the loop of cuBLAS calls in
 * one launch, groups of 0-4096 rows 0.87-0.92x (H200, BENCHMARKS.md). */
#define MMT_GROUPED_LAUNCH_ROWS 256

/* p: the whole call's A and C (p.m their rows in all), B from the launch's first group on
 * (p.n: the rows of B's tensor map, n for each group, or n where the groups share one B);
 * group g's rows from first_row[g] to first_row[g + 1], its tiles (BM x BN, row by row)
 * numbered from first_tile[g] on (first_tile[groups]: all of them), its B at rows g * b_rows
 * of the map (b_rows 0: one B for all); n: C's columns. */
typedef struct mmt_grouped_params {
    mmt_gemm_params p;
    int32_t groups, n, b_rows, pad;
    int32_t first_row[MMT_MAX_GROUPS + 1], first_tile[MMT_MAX_GROUPS + 1];
} mmt_grouped_params;
_Static_assert(sizeof(mmt_grouped_params) == 128 + 16 + 8 * (MMT_MAX_GROUPS + 1),
               "mmt_grouped_params must match templates/cuda/gemm_wgmma.cu");

/* The groups of user's checked problem (operands on the context's GPU; group g of rows[g]
 * rows of A and C, or of user->m where rows is NULL, after the rows of the groups before it;
 * its B at b + g * stride_b elements) in one launch of the wgmma template a MMT_MAX_GROUPS
 * groups, on the context's stream. It takes row-major C = A B^T with A and B K-major in place (trans_a no, trans_b
 * yes), every matrix and row 16-byte aligned, B's one after another (stride_b n * ldb) or
 * one shared (0), bf16 or f16 with C of the same type or FP8 (e4m3, e5m2; the scales per
 * tensor in alpha) with C of f32, bf16 or f16, groups whose average would not fill the GPU
 * with tiles alone; where the vendor library serves, only groups of
 * MMT_GROUPED_LAUNCH_ROWS rows or fewer on average. Tiles of 128 x 256 (FP8: 128 x 192;
 * grouped.c says why) on a persistent grid, one instance a kind (mode and C type) and
 * context, made by the first call that needs it: where the vendor serves, a binary no
 * cache holds is built off the caller's path (the calls before it is ready run their
 * groups one by one), else on that call's; the calls after it only launch.
 * MMT_UNSUPPORTED, nothing launched, where it does not take the call: the caller runs the
 * groups one by one. */
mmt_status mmt_grouped_run(mmt_ctx *ctx, const mmt_problem *user, int64_t groups, const int64_t *rows, double alpha,
                           const void *a, int64_t lda, const void *b, int64_t ldb, int64_t stride_b, double beta,
                           void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err);

/* The defines of the one launch's instance for env's problem (normalised; operands 16-byte
 * aligned) from the wgmma family fam, and its configuration: MMT_UNSUPPORTED where the one
 * launch does not take the problem's mode and C type or its configuration is not valid on
 * env's device. */
mmt_status mmt_grouped_defines(const mmt_family *fam, const mmt_space_env *env, mmt_config *cfg, char *defines,
                               size_t size, mmt_err *err);

/* Frees the context's instances (their modules are the table's): mmt_close, after its
 * builder has stopped. */
void mmt_grouped_free(mmt_ctx *ctx);

#endif
