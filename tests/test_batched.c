/* test_batched.c - mmt_gemm_strided_batched on the CPU (api.c), with nothing tuned, on a
 * context where the vendor library serves (where there is one) and on one where the CPU
 * template does (the vendor off). Batches that run one GEMM after another (GEMMs over 2^18
 * multiply-adds, a batch of one) and batches of small GEMMs spread over the host's threads
 * (odd sizes; rows and matrices with gaps; dense rows whose alignment moves from GEMM to
 * GEMM with the strides; packed matrices; exactly 2^18 multiply-adds each): every C_i bit
 * for bit what mmt_gemm_ex computes for that matrix alone, and right against a long double
 * reference, for both layouts, every transpose, a shared A or B (stride 0), beta = 0 on NaN
 * C (never read), beta != 0 and alpha = 0; nothing written between the C matrices. The
 * batches refused whole leave C as it was (batched_check.h), a large spread one too, and so
 * does a batch of a mode the CPU has no template for. */
#include <stdlib.h>

#include "batched_check.h"

/* Batches of small GEMMs with work enough for two threads and more (BATCH_THREAD_WORK in
 * api.c), and their neighbours that run one by one. */
static const struct spread_shape {
    int64_t m, n, k, batch;
    int shared_a, shared_b, dense, packed;
} spread_shapes[] = {
    {7, 5, 3, 20000, 0, 0, 0, 0},  /* tiny and odd: every alignment class the same key */
    {33, 17, 30, 600, 0, 1, 0, 0}, /* one B for all */
    {16, 40, 8, 1000, 1, 0, 1, 0}, /* one A for all; dense rows, so the strides move the alignment */
    {12, 8, 16, 2000, 0, 0, 1, 1}, /* packed: every GEMM the key of the first */
    {64, 64, 64, 40, 0, 0, 1, 1},  /* 2^18 multiply-adds each: still one thread each */
    {65, 64, 64, 16, 0, 0, 1, 1},  /* just over: one by one, each on the cores */
};
#define SPREAD_SHAPES (sizeof spread_shapes / sizeof spread_shapes[0])

static batch_case spread_case(int f64, size_t si, int col, int t)
{
    const struct spread_shape *s = &spread_shapes[si];
    const double *sc = bc_scales[(si + (size_t)t + (size_t)col) % 3];
    const mmt_dtype ty = gc_type(f64);
    return (batch_case){.ab = ty, .c = ty, .compute = MMT_COMPUTE_NATIVE, .mode = f64 ? MMT_MODE_F64 : MMT_MODE_F32,
                        .col = col, .ta = t & 1, .tb = t >> 1, .m = s->m, .n = s->n, .k = s->k, .batch = s->batch,
                        .shared_a = s->shared_a, .shared_b = s->shared_b, .alpha = sc[0], .beta = sc[1],
                        .dense = s->dense, .packed = s->packed};
}

/* bc's batch on ctx against mmt_gemm_ex on each of its matrices in turn, from the same C:
 * 1 where both succeed and leave every byte of C the same. */
static int same_as_alone(mmt_ctx *ctx, const batch_case *bc)
{
    batch_data d = bc_data(bc);
    const size_t es = (size_t)mmt_dtype_size(bc->ab), cs = (size_t)mmt_dtype_size(bc->c), bytes = cs * (size_t)d.nc;
    char *alone = malloc(bytes);
    memcpy(alone, d.c0, bytes);
    const mmt_gemm_desc desc = {bc->ab, bc->c, bc->compute, bc->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                                bc->ta ? MMT_TRANS : MMT_NO_TRANS, bc->tb ? MMT_TRANS : MMT_NO_TRANS};
    int same = mmt_gemm_strided_batched(ctx, &desc, bc->m, bc->n, bc->k, bc->alpha, d.a, d.lda, d.stride_a, d.b,
                                        d.ldb, d.stride_b, bc->beta, d.c, d.ldc, d.stride_c, bc->batch) == MMT_OK;
    for (int64_t i = 0; same && i < bc->batch; i++)
        same = mmt_gemm_ex(ctx, &desc, bc->m, bc->n, bc->k, bc->alpha,
                           (const char *)d.a + es * (size_t)(i * d.stride_a), d.lda,
                           (const char *)d.b + es * (size_t)(i * d.stride_b), d.ldb, bc->beta,
                           alone + cs * (size_t)(i * d.stride_c), d.ldc) == MMT_OK;
    same = same && memcmp(d.c, alone, bytes) == 0;
    free(alone);
    bc_free(&d);
    return same;
}

/* One case: right against the reference (bc_run) and the same as alone; 1 where both. */
static int case_right(mmt_ctx *ctx, const char *who, const batch_case *bc)
{
    mmt_choice how;
    char config[512];
    const double e = bc_run(ctx, NULL, NULL, bc, &how, config, sizeof config);
    const int right = e <= gc_bound_mode(bc->mode, bc->c, bc->k) && how != MMT_CHOICE_NONE,
              same = same_as_alone(ctx, bc);
    if (!right || !same)
        fprintf(stderr,
                "%s, %s %lldx%lldx%lld x%lld col=%d ta=%d tb=%d alpha=%g beta=%g dense=%d packed=%d: error %g%s, %s\n",
                who, mmt_mode_name(bc->mode), (long long)bc->m, (long long)bc->n, (long long)bc->k,
                (long long)bc->batch, bc->col, bc->ta, bc->tb, bc->alpha, bc->beta, bc->dense, bc->packed, e,
                same ? "" : ", not what mmt_gemm_ex computes alone", config);
    return right && same;
}

/* A batch too large to check cheaply, refused whole: C as it was. A NULL A (read: alpha and k
 * not 0), C matrices that overlap, and a batch of bf16, which the CPU has no template for. */
static void large_refusals(mmt_ctx *ctx)
{
    const batch_case bc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_MODE_F32, 0, 0, 0, 7, 5, 3, 20000, 0, 0, 1, 0,
                           0, 0};
    batch_data d = bc_data(&bc);
    const size_t bytes = sizeof(float) * (size_t)d.nc;
    const mmt_gemm_desc f32 = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS},
                        bf16 = {MMT_BF16, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &f32, 7, 5, 3, 1, NULL, d.lda, d.stride_a, d.b, d.ldb, d.stride_b, 0,
                                          d.c, d.ldc, d.stride_c, 20000),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &f32, 7, 5, 3, 1, d.a, d.lda, d.stride_a, d.b, d.ldb, d.stride_b, 0,
                                          d.c, d.ldc, 6 * d.ldc, 20000),
                 MMT_INVALID_ARGUMENT);
    /* bf16 operands in the f32 buffers: no kernel runs, for small GEMMs or large */
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &bf16, 7, 5, 3, 1, d.a, d.lda, d.stride_a, d.b, d.ldb, d.stride_b, 0,
                                          d.c, d.ldc, d.stride_c, 20000),
                 MMT_UNSUPPORTED);
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &bf16, 7, 5, 10000, 1, d.a, 10000, 1, d.b, d.ldb, 0, 0, d.c, d.ldc,
                                          d.stride_c, 2000),
                 MMT_UNSUPPORTED);
    CHECK(memcmp(d.c, d.c0, bytes) == 0);
    bc_free(&d);
}

int main(void)
{
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* nothing tuned */
    mmt_ctx *ctx[2] = {NULL, NULL};
    const char *who[2] = {"as served by default", "the vendor off"};
    CHECK_EQ_INT(mmt_open(&ctx[0], "cpu", NULL), MMT_OK);
    setenv("MMTUNE_VENDOR", "off", 1); /* read when a context opens */
    CHECK_EQ_INT(mmt_open(&ctx[1], "cpu", NULL), MMT_OK);
    unsetenv("MMTUNE_VENDOR");
    if (!ctx[0] || !ctx[1]) return check_result();
    for (int x = 0; x < 2; x++) {
        int runs = 0, bad = 0;
        for (int f64 = 0; f64 < 2; f64++)
            for (int col = 0; col < 2; col++)
                for (int t = 0; t < 4; t++) {
                    for (size_t si = 0; si < BC_SHAPES; si++, runs++) {
                        const batch_case bc = bc_case(gc_type(f64), gc_type(f64), MMT_COMPUTE_NATIVE,
                                                      f64 ? MMT_MODE_F64 : MMT_MODE_F32, si, col, t);
                        bad += !case_right(ctx[x], who[x], &bc);
                    }
                    for (size_t si = 0; si < SPREAD_SHAPES; si++, runs++) {
                        const batch_case bc = spread_case(f64, si, col, t);
                        bad += !case_right(ctx[x], who[x], &bc);
                    }
                }
        printf("strided batches on the CPU, %s: %d runs, %d wrong\n", who[x], runs, bad);
        CHECK_EQ_INT(bad, 0);
        bc_refusals(ctx[x], NULL, NULL);
        large_refusals(ctx[x]);
    }
    mmt_close(ctx[0]);
    mmt_close(ctx[1]);
    return check_result();
}
