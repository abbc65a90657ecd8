/* test_grouped.c - mmt_gemm_grouped on the CPU (api.c), with nothing tuned, on a context where
 * the vendor library serves (where there is one) and on one where the CPU template does (the
 * vendor off): groups of small GEMMs spread over the host's threads and groups of larger ones
 * run one by one, empty groups among them, both layouts, every transpose, a B per group or
 * one shared (stride_b 0), beta = 0 on NaN C (never read), beta != 0 and alpha = 0. The
 * whole C, padding included, is bit for bit what mmt_gemm_ex makes of each group's rows
 * alone, and each group is right against a long double reference. Calls refused whole leave
 * C as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "vendor_both.h"

typedef struct group_case {
    int f64, col, ta, tb, shared_b;
    const int64_t *sizes;
    int64_t groups, n, k;
    double alpha, beta;
} group_case;

/* Element offset of op(A)'s (or C's, of_c) row r. */
static int64_t row_at(int col, int trans, int of_c, int64_t ld, int64_t r)
{
    return (of_c || !trans) == !col ? r * ld : r;
}

static int case_right(mmt_ctx *ctx, const group_case *t)
{
    const mmt_dtype ty = gc_type(t->f64);
    const size_t es = (size_t)mmt_dtype_size(ty);
    int64_t sum = 0;
    for (int64_t g = 0; g < t->groups; g++) sum += t->sizes[g];
    const int64_t ar = t->ta ? t->k : sum, ac = t->ta ? sum : t->k, br = t->tb ? t->n : t->k, bc = t->tb ? t->k : t->n;
    const int64_t lda = (t->col ? ar : ac) + 2, ldb = (t->col ? br : bc) + 1, ldc = (t->col ? sum : t->n) + 3;
    const int64_t b_elems = (t->col ? bc : br) * ldb, stride_b = t->shared_b ? 0 : b_elems + 5;
    const int64_t c_lines = t->col ? t->n : sum;
    void *a = gc_matrix_t(ty, t->col, ar, ac, lda, 0);
    /* the groups' B matrices, one after another at stride_b, as one line of random elements */
    const int64_t b_total = (t->groups > 1 ? (t->groups - 1) * stride_b : 0) + b_elems;
    void *b = gc_matrix_t(ty, 0, 1, b_total, b_total, 0);
    void *c0 = gc_matrix_t(ty, t->col, sum > 0 ? sum : 1, t->n, ldc, t->beta == 0);
    const size_t c_bytes = es * (size_t)(c_lines > 0 ? c_lines : 1) * (size_t)ldc;
    char *ours = malloc(c_bytes), *alone = malloc(c_bytes);
    memcpy(ours, c0, c_bytes);
    memcpy(alone, c0, c_bytes);
    const mmt_gemm_desc d = {ty, ty, MMT_COMPUTE_NATIVE, t->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             t->ta ? MMT_TRANS : MMT_NO_TRANS, t->tb ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_status st = mmt_gemm_grouped(ctx, &d, t->groups, t->sizes, t->n, t->k, t->alpha, a, lda, b, ldb,
                                           stride_b, t->beta, ours, ldc);
    int right = st == MMT_OK;
    double worst = 0;
    for (int64_t g = 0, first = 0; right && g < t->groups; first += t->sizes[g], g++) {
        const int64_t m = t->sizes[g];
        if (!m) continue;
        const char *ag = (const char *)a + es * (size_t)row_at(t->col, t->ta, 0, lda, first);
        const char *bg = (const char *)b + es * (size_t)(g * stride_b);
        const size_t c_at = es * (size_t)row_at(t->col, 0, 1, ldc, first);
        right &= mmt_gemm_ex(ctx, &d, m, t->n, t->k, t->alpha, ag, lda, bg, ldb, t->beta, alone + c_at, ldc) == MMT_OK;
        double *ref = gc_ref_alloc(m, t->n);
        gc_reference_t(ty, ty, t->col, t->ta, t->tb, m, t->n, t->k, t->alpha, ag, lda, bg, ldb, t->beta,
                       (const char *)c0 + c_at, ldc, ref);
        const double e = gc_rel_error_t(ty, t->col, m, t->n, ours + c_at, ldc, ref);
        worst = e > worst || e != e ? e : worst;
        right &= e <= gc_bound(t->f64, t->k);
        free(ref);
    }
    const int same = right && memcmp(ours, alone, c_bytes) == 0;
    if (!same)
        fprintf(stderr, "%s %s ta=%d tb=%d %lld groups (%lld rows) n=%lld k=%lld alpha=%g beta=%g%s: %s error %g%s\n",
                t->f64 ? "f64" : "f32", t->col ? "col" : "row", t->ta, t->tb, (long long)t->groups, (long long)sum,
                (long long)t->n, (long long)t->k, t->alpha, t->beta, t->shared_b ? " shared B" : "",
                st != MMT_OK ? mmt_last_error(ctx) : "", worst, right ? ", not mmt_gemm_ex's bits" : "");
    free(a), free(b), free(c0), free(ours), free(alone);
    return same;
}

static const int64_t small_groups[] = {3, 0, 17, 1, 40, 9, 0, 25}, large_groups[] = {300, 0, 513},
                     empty_groups[] = {0, 0, 0}, one_group[] = {77};
static int64_t many_groups[64];

static void test_cases(mmt_ctx *ctx, const char *who)
{
    static const double scales[][2] = {{1, 0}, {0.75, 1.5}, {0, -0.5}};
    const struct {
        const int64_t *sizes;
        int64_t groups, n, k;
    } lists[] = {{small_groups, 8, 24, 19}, {many_groups, 64, 40, 33}, {large_groups, 3, 130, 150},
                 {empty_groups, 3, 8, 8}, {one_group, 1, 21, 300}};
    int cases = 0, right = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
            for (int v = 0; v < 8; v++) { /* layout, transposes and shared B in turn */
                const group_case t = {f64, v & 1, (v >> 1) & 1, (v >> 2) & 1, (int)((l + (size_t)v) % 3 == 0),
                                      lists[l].sizes, lists[l].groups, lists[l].n, lists[l].k,
                                      scales[(l + (size_t)v) % 3][0], scales[(l + (size_t)v) % 3][1]};
                cases++;
                right += case_right(ctx, &t);
            }
    printf("%s: %d of %d grouped cases right\n", who, right, cases);
    CHECK_EQ_INT(right, cases);
}

/* Calls refused whole: C as it was. */
static void test_refused(mmt_ctx *ctx)
{
    float a[64 * 8], b[4 * 8 * 8], c[64 * 8], before[64 * 8];
    for (int i = 0; i < 64 * 8; i++) a[i] = (float)i / 512, c[i] = before[i] = 7;
    for (int i = 0; i < 4 * 8 * 8; i++) b[i] = (float)i / 256;
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const int64_t sizes[4] = {16, 16, 16, 16}, negative[4] = {16, -1, 16, 16};
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, -1, sizes, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, NULL, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, negative, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 1, a, 8, b, 8, -64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 1, a, 7, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 1, a, 8, b, 8, 64, 0, c, 7), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 1, NULL, 8, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 1, a, 8, b, 8, INT64_MAX / 2, 0, c, 8),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_grouped(NULL, &d, 4, sizes, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_INVALID_ARGUMENT);
    const mmt_gemm_desc bf16 = {MMT_BF16, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &bf16, 4, sizes, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_UNSUPPORTED);
    CHECK(memcmp(c, before, sizeof c) == 0);
    /* nothing to do: no groups, or alpha 0 and beta 1 */
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 0, NULL, 8, 8, 1, a, 8, b, 8, 64, 0, c, 8), MMT_OK);
    CHECK_EQ_INT(mmt_gemm_grouped(ctx, &d, 4, sizes, 8, 8, 0, NULL, 8, NULL, 8, 64, 1, c, 8), MMT_OK);
    CHECK(memcmp(c, before, sizeof c) == 0);
}

static void cases(mmt_ctx *ctx, const char *who)
{
    test_cases(ctx, who);
    test_refused(ctx);
}

int main(void)
{
    for (int i = 0; i < 64; i++) many_groups[i] = i % 5 == 0 ? 0 : (i * 37) % 41; /* 0 to 40 rows, some empty */
    with_vendor_and_without(cases);
    return check_result();
}
