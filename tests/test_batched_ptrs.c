/* test_batched_ptrs.c - mmt_gemm_batched (a batch on arrays of pointers) on the CPU, nothing
 * tuned, where the vendor library serves (where there is one) and where the CPU template does
 * (the vendor off): batches of small GEMMs (spread over the host's threads) and of larger ones
 * (one by one), each GEMM's matrices allocated apart, both layouts, every transpose, f32 and
 * f64, beta = 0 on NaN C (never read), beta != 0 and alpha = 0. Each C is bit for bit what
 * mmt_gemm_ex makes of that GEMM alone and right against a long double reference. Calls
 * refused whole leave every C as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "vendor_both.h"

enum { MAX_BATCH = 40 };

static int case_right(mmt_ctx *ctx, int f64, int col, int ta, int tb, int64_t batch, int64_t m, int64_t n,
                      int64_t k, double alpha, double beta)
{
    const mmt_dtype ty = gc_type(f64);
    const size_t es = (size_t)mmt_dtype_size(ty);
    const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int64_t lda = (col ? ar : ac) + 2, ldb = (col ? br : bc) + 1, ldc = (col ? m : n) + 3;
    const size_t c_bytes = es * (size_t)((col ? n : m) * ldc);
    const void *a[MAX_BATCH], *b[MAX_BATCH];
    void *c0[MAX_BATCH], *ours[MAX_BATCH], *alone[MAX_BATCH];
    for (int64_t i = 0; i < batch; i++) {
        a[i] = gc_matrix_t(ty, col, ar, ac, lda, 0), b[i] = gc_matrix_t(ty, col, br, bc, ldb, 0);
        c0[i] = gc_matrix_t(ty, col, m, n, ldc, beta == 0);
        ours[i] = malloc(c_bytes), alone[i] = malloc(c_bytes);
        memcpy(ours[i], c0[i], c_bytes), memcpy(alone[i], c0[i], c_bytes);
    }
    const mmt_gemm_desc d = {ty, ty, MMT_COMPUTE_NATIVE, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_status st = mmt_gemm_batched(ctx, &d, m, n, k, alpha, a, lda, b, ldb, beta, ours, ldc, batch);
    int right = st == MMT_OK;
    double worst = 0;
    for (int64_t i = 0; right && i < batch; i++) {
        right &= mmt_gemm_ex(ctx, &d, m, n, k, alpha, a[i], lda, b[i], ldb, beta, alone[i], ldc) == MMT_OK;
        double *ref = gc_ref_alloc(m, n);
        gc_reference_t(ty, ty, col, ta, tb, m, n, k, alpha, a[i], lda, b[i], ldb, beta, c0[i], ldc, ref);
        const double e = gc_rel_error_t(ty, col, m, n, ours[i], ldc, ref);
        worst = e > worst || e != e ? e : worst;
        right &= e <= gc_bound(f64, k) && memcmp(ours[i], alone[i], c_bytes) == 0;
        free(ref);
    }
    if (!right)
        fprintf(stderr, "%s %s ta=%d tb=%d batch %lld of %lldx%lldx%lld alpha=%g beta=%g: %s error %g\n",
                f64 ? "f64" : "f32", col ? "col" : "row", ta, tb, (long long)batch, (long long)m, (long long)n,
                (long long)k, alpha, beta, st != MMT_OK ? mmt_last_error(ctx) : "", worst);
    for (int64_t i = 0; i < batch; i++)
        free((void *)a[i]), free((void *)b[i]), free(c0[i]), free(ours[i]), free(alone[i]);
    return right;
}

static void test_cases(mmt_ctx *ctx, const char *who)
{
    static const double scales[][2] = {{1, 0}, {0.75, 1.5}, {0, -0.5}};
    static const int64_t shapes[][4] = {{40, 24, 19, 17}, {3, 130, 150, 120}, {1, 21, 9, 300}};
    int cases = 0, right = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int v = 0; v < 8; v++) { /* layout and transposes in turn */
                const double *sc = scales[(s + (size_t)v) % 3];
                right += case_right(ctx, f64, v & 1, (v >> 1) & 1, (v >> 2) & 1, shapes[s][0], shapes[s][1],
                                    shapes[s][2], shapes[s][3], sc[0], sc[1]);
                cases++;
            }
    printf("%s: %d of %d batches right\n", who, right, cases);
    CHECK_EQ_INT(right, cases);
}

/* Calls refused whole: every C as it was. */
static void test_refused(mmt_ctx *ctx)
{
    static float a[2][64], b[2][64], c[2][64], before[2][64];
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 2; j++) a[j][i] = (float)i / 64, b[j][i] = (float)j / 2, c[j][i] = before[j][i] = 7;
    const void *as[2] = {a[0], a[1]}, *bs[2] = {b[0], b[1]}, *no_b[2] = {b[0], NULL};
    void *cs[2] = {c[0], c[1]};
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 1, as, 8, bs, 8, 0, cs, 8, -1), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 1, NULL, 8, bs, 8, 0, cs, 8, 2), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 1, as, 8, no_b, 8, 0, cs, 8, 2), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "GEMM 1 of the batch") != NULL);
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 1, as, 7, bs, 8, 0, cs, 8, 2), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_batched(NULL, &d, 8, 8, 8, 1, as, 8, bs, 8, 0, cs, 8, 2), MMT_INVALID_ARGUMENT);
    CHECK(memcmp(c, before, sizeof c) == 0);
    /* nothing to do: no GEMMs, or alpha 0 and beta 1 (A and B not read) */
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 1, NULL, 8, NULL, 8, 0, NULL, 8, 0), MMT_OK);
    CHECK_EQ_INT(mmt_gemm_batched(ctx, &d, 8, 8, 8, 0, as, 8, no_b, 8, 1, cs, 8, 2), MMT_OK);
    CHECK(memcmp(c, before, sizeof c) == 0);
}

static void cases(mmt_ctx *ctx, const char *who)
{
    test_cases(ctx, who);
    test_refused(ctx);
}

int main(void)
{
    with_vendor_and_without(cases);
    return check_result();
}
