/* test_epilogue.c - mmt_gemm_epilogue on the CPU (api.c, epilogue.c), nothing tuned, the vendor
 * library serving (where there is one) and the CPU template (the vendor off): C =
 * act(alpha op(A) op(B) + beta C + bias) against a long double reference of the same
 * formula, for f32 and f64, both layouts, transposes, padded rows of C (the padding never
 * written), a bias per row and per column in fp32 and C's type, no activation, ReLU and
 * GELU's tanh form, beta = 0 over NaN (C never read) and a residual (beta != 0), alpha = 0,
 * sizes that take one thread and several. ReLU keeps a NaN a NaN. No epilogue is mmt_gemm_ex
 * bit for bit (and its bias never read). Refused, C untouched: values outside the enums, a
 * bias of another type, a NULL bias, a bias inside C (one just past C's end is fine). The
 * epilogue in the template's store (fused.h) where a tuned database names its loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "epilogue_check.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "tuned_db.h"
#include "vendor_both.h"

typedef struct epi_case {
    int f64, col, ta, tb;
    int64_t m, n, k, pad; /* pad: C's leading dimension beyond its rows (or columns) */
    double alpha, beta;
    mmt_bias_kind bias_kind;
    int bias_f32; /* the bias in fp32 (else in C's type) */
    mmt_activation act;
} epi_case;

/* One case on ctx: 1 where the call succeeded, C is right and its padding untouched. */
static int case_right(mmt_ctx *ctx, const epi_case *t)
{
    const mmt_dtype ty = gc_type(t->f64);
    const int64_t ar = t->ta ? t->k : t->m, ac = t->ta ? t->m : t->k, br = t->tb ? t->n : t->k,
                  bc = t->tb ? t->k : t->n;
    const int64_t lda = t->col ? ar : ac, ldb = t->col ? br : bc, ldc = (t->col ? t->m : t->n) + t->pad;
    void *a = gc_matrix(t->f64, t->col, ar, ac, lda, 0), *b = gc_matrix(t->f64, t->col, br, bc, ldb, 0);
    void *c = gc_matrix(t->f64, t->col, t->m, t->n, ldc, t->beta == 0); /* NaN: never read */
    const int64_t nb = t->bias_kind == MMT_BIAS_PER_ROW ? t->m : t->n, stored = (t->col ? t->n : t->m) * ldc;
    const mmt_dtype bt = t->bias_f32 ? MMT_F32 : ty;
    void *bias = gc_matrix_t(bt, 0, 1, nb, nb, 0);
    const size_t cs = (size_t)mmt_dtype_size(ty);
    char *before = malloc(cs * (size_t)stored);
    memcpy(before, c, cs * (size_t)stored);
    double *ref = gc_ref_alloc(t->m, t->n);
    gc_reference(t->f64, t->col, t->ta, t->tb, t->m, t->n, t->k, t->alpha, a, lda, b, ldb, t->beta, c, ldc, ref);
    const mmt_gemm_desc desc = {ty, ty, MMT_COMPUTE_NATIVE, t->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                                t->ta ? MMT_TRANS : MMT_NO_TRANS, t->tb ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_epilogue epi = {t->bias_kind, bt, bias, t->act, 1};
    const mmt_status st =
        mmt_gemm_epilogue(ctx, &desc, &epi, t->m, t->n, t->k, t->alpha, a, lda, b, ldb, t->beta, c, ldc);
    /* the GEMM's error, carried through a bias (exact up to one rounding) and an activation
     * whose slope is at most 1.13 (GELU's; ReLU's 1), relative to the elements' scale */
    const double err = epi_error(c, ty, t->col, ldc, t->m, t->n, ref, &epi, bias, nb),
                 bound = 1.2 * gc_bound(t->f64, t->k) + 4 * ldexp(1.0, t->f64 ? -53 : -24);
    const int padding_kept = epi_padding_kept(c, before, cs, t->col ? t->n : t->m, ldc, t->pad);
    const int right = st == MMT_OK && err <= bound && padding_kept;
    if (!right)
        fprintf(stderr, "%s %s ta=%d tb=%d %lldx%lldx%lld pad %lld alpha=%g beta=%g bias %d (%s) act %d: %s%s\n",
                t->f64 ? "f64" : "f32", t->col ? "col" : "row", t->ta, t->tb, (long long)t->m, (long long)t->n,
                (long long)t->k, (long long)t->pad, t->alpha, t->beta, t->bias_kind, t->bias_f32 ? "f32" : "C's type",
                t->act, st != MMT_OK ? mmt_last_error(ctx) : "", padding_kept ? "" : " padding written");
    if (st == MMT_OK && err > bound) fprintf(stderr, "  error %g above %g\n", err, bound);
    free(a), free(b), free(c), free(bias), free(before), free(ref);
    return right;
}

static void test_cases(mmt_ctx *ctx)
{
    static const int64_t sizes[][4] = {{37, 23, 19, 3}, {1, 64, 300, 0}, {700, 400, 20, 5}};
    static const double scales[][2] = {{1, 0}, {0.75, 1.5}, {0, -0.5}};
    int cases = 0, right = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (int s = 0; s < 3; s++)
            for (int kind = MMT_BIAS_NONE; kind <= MMT_BIAS_PER_COL; kind++)
                for (int act = MMT_ACT_NONE; act <= MMT_ACT_GELU_TANH; act++) {
                    const int v = cases;
                    const epi_case t = {f64, v % 2, (v / 2) % 2, (v / 3) % 2, sizes[s][0], sizes[s][1], sizes[s][2],
                                        sizes[s][3], scales[v % 3][0], scales[v % 3][1], (mmt_bias_kind)kind,
                                        (v / 5) % 2, (mmt_activation)act};
                    cases++;
                    right += case_right(ctx, &t);
                }
    printf("epilogue: %d of %d cases right\n", right, cases);
    CHECK_EQ_INT(right, cases);
}

/* ReLU of a NaN that C brings in (beta != 0) is a NaN, not 0. */
static void test_relu_keeps_nan(mmt_ctx *ctx)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, NAN, -100, 0};
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const mmt_epilogue epi = {MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_RELU, 1};
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &epi, 2, 2, 2, 1, a, 2, b, 2, 1, c, 2), MMT_OK);
    CHECK(c[0] == 1 && isnan(c[1]) && c[2] == 0 && c[3] == 4);
}

/* No epilogue (NULL, or nothing in it) is mmt_gemm_ex, bit for bit; refused epilogues
 * leave C as it was. */
static void test_none_and_refused(mmt_ctx *ctx)
{
    const int64_t m = 50, n = 30, k = 40;
    float *a = gc_matrix(0, 0, m, k, k, 0), *b = gc_matrix(0, 0, k, n, n, 0), *c0 = gc_matrix(0, 0, m, n, n, 0);
    float *c = malloc(sizeof(float) * m * n), *want = malloc(sizeof(float) * m * n), bias[64] = {0};
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    memcpy(want, c0, sizeof(float) * m * n);
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &desc, m, n, k, 0.5, a, k, b, n, 2, want, n), MMT_OK);
    /* never read; a scale of 0 reads as 1 */
    const mmt_epilogue nothing = {MMT_BIAS_NONE, MMT_BF16, (const void *)1, MMT_ACT_NONE, 0};
    for (int i = 0; i < 2; i++) {
        memcpy(c, c0, sizeof(float) * m * n);
        CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, i ? &nothing : NULL, m, n, k, 0.5, a, k, b, n, 2, c, n), MMT_OK);
        CHECK(memcmp(c, want, sizeof(float) * m * n) == 0);
    }
    const mmt_epilogue refused[] = {
        {(mmt_bias_kind)3, MMT_F32, bias, MMT_ACT_NONE, 1}, {MMT_BIAS_NONE, MMT_F32, NULL, (mmt_activation)9, 1},
        {MMT_BIAS_PER_ROW, MMT_F32, NULL, MMT_ACT_RELU, 1}, {MMT_BIAS_PER_COL, MMT_F64, bias, MMT_ACT_NONE, 1},
        {MMT_BIAS_PER_COL, MMT_BF16, bias, MMT_ACT_GELU_TANH, 1},
        {MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_RELU, 2},   /* a scale of f32 C */
        {MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_RELU, NAN}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        memcpy(c, c0, sizeof(float) * m * n);
        CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &refused[i], m, n, k, 0.5, a, k, b, n, 2, c, n),
                     MMT_INVALID_ARGUMENT);
        CHECK(memcmp(c, c0, sizeof(float) * m * n) == 0);
        CHECK(strstr(mmt_last_error(ctx), "epilogue") != NULL);
    }
    /* a bias inside C (its last row; then just past its end: allowed) */
    const mmt_epilogue inside = {MMT_BIAS_PER_COL, MMT_F32, c + (m - 1) * n, MMT_ACT_NONE, 1};
    memcpy(c, c0, sizeof(float) * m * n);
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &inside, m, n, k, 0.5, a, k, b, n, 2, c, n), MMT_INVALID_ARGUMENT);
    CHECK(memcmp(c, c0, sizeof(float) * m * n) == 0);
    CHECK(strstr(mmt_last_error(ctx), "overlaps") != NULL);
    /* FP8 C with its scale: a GPU's (no CPU template computes FP8); its bias is fp32 */
    const mmt_gemm_desc fp8 = {MMT_E4M3, MMT_E4M3, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
    const mmt_epilogue scaled = {MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_RELU, 0.25f},
                       fp8_bias = {MMT_BIAS_PER_COL, MMT_E4M3, bias, MMT_ACT_RELU, 0.25f};
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &fp8, &scaled, m, n, k, 0.5, a, k, b, k, 0, c, n), MMT_UNSUPPORTED);
    CHECK(strstr(mmt_last_error(ctx), "e4m3") != NULL);
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &fp8, &fp8_bias, m, n, k, 0.5, a, k, b, k, 0, c, n), MMT_INVALID_ARGUMENT);
    float *c_and_bias = malloc(sizeof(float) * (m * n + n));
    const mmt_epilogue after = {MMT_BIAS_PER_COL, MMT_F32, c_and_bias + m * n, MMT_ACT_NONE, 1};
    memcpy(c_and_bias, c0, sizeof(float) * m * n);
    memset(c_and_bias + m * n, 0, sizeof(float) * n);
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &after, m, n, k, 0.5, a, k, b, n, 2, c_and_bias, n), MMT_OK);
    CHECK(memcmp(c_and_bias, want, sizeof(float) * m * n) == 0); /* a zero bias: the GEMM's bits */
    free(c_and_bias);
    free(a), free(b), free(c0), free(c), free(want);
}

/* The epilogue in the store of the template that serves the GEMM (fused.h): problems a tuned
 * database gives the CPU template with each of its loops this machine runs (PAR 0 split M, 1
 * split N, 3 in place with packed edge blocks), K in one block and in several, f32 and f64,
 * both layouts, alpha 0 too, the vendor off. Each epilogue runs first as the GEMM and the
 * pass over C while its variant builds, then, built (mmt_wait_kernels), by the variant
 * alone: right both times, and served so (mmt_last_choice: its PAR, EPILOGUE=fused). */
typedef struct par_case {
    epi_case t;
    int par; /* the template's loops (PAR) the database names for the case's problem */
} par_case;

/* A tuned database at path: for each of the n par_cases' problems, the template's default
 * with its PAR. */
static void tuned(const char *path, const void *list, size_t n)
{
    const par_case *cases = list;
    db d;
    db_open(&d, path);
    char def[512], params[512];
    default_text(d.fam, def, sizeof def);
    const char *par = strstr(def, "PAR=");
    CHECK(par != NULL);
    for (size_t i = 0; par && i < n; i++) {
        const epi_case *t = &cases[i].t;
        snprintf(params, sizeof params, "%.*sPAR=%d%s", (int)(par - def), def, cases[i].par, par + 5);
        const mmt_problem p = {.dtype = gc_type(t->f64), .out = gc_type(t->f64),
                               .mode = t->f64 ? MMT_MODE_F64 : MMT_MODE_F32,
                               .layout = t->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR, .trans_a = t->ta, .trans_b = t->tb,
                               .m = t->m, .n = t->n, .k = t->k};
        put(&d, d.fam->name, d.fam->source_hash, params, &p, 100, 0);
    }
    db_close(&d);
}

static void test_in_store(void)
{
    static const par_case cases[] = {
        {{0, 0, 0, 0, 200, 150, 300, 3, 1, 0, MMT_BIAS_NONE, 0, MMT_ACT_NONE}, 0},
        {{1, 1, 0, 1, 130, 170, 90, 2, 1, 0, MMT_BIAS_NONE, 0, MMT_ACT_NONE}, 1},
        {{0, 0, 0, 0, 100, 70, 50, 1, 1, 0, MMT_BIAS_NONE, 0, MMT_ACT_NONE}, 3},
        {{1, 0, 1, 0, 300, 200, 600, 0, 1, 0, MMT_BIAS_NONE, 0, MMT_ACT_NONE}, 1},
        {{0, 0, 0, 0, 64, 96, 40, 0, 0, 0, MMT_BIAS_NONE, 0, MMT_ACT_NONE}, 1}, /* alpha 0: C = act(beta C + bias) */
    };
    const size_t n = sizeof cases / sizeof cases[0];
    char path[] = "/tmp/mmt-epi-cpu-XXXXXX";
    mmt_ctx *ctx = epi_store_open(path, "cpu", tuned, cases, n);
    int fused = 0;
    for (size_t i = 0; ctx && i < n; i++)
        for (int e = 0; e < 3; e++) {
            epi_case t = cases[i].t;
            epi_store_kind(e, &t.bias_kind, &t.act);
            t.bias_f32 = e != 0;
            t.beta = e == 1 ? 1.5 : 0.0;
            CHECK(case_right(ctx, &t)); /* the variant builds meanwhile */
            int built = 0;
            CHECK_EQ_INT(mmt_wait_kernels(ctx, &built), MMT_OK);
            CHECK(case_right(ctx, &t));
            char want[16], what[32];
            snprintf(want, sizeof want, "PAR=%d", cases[i].par);
            snprintf(what, sizeof what, "case %zu", i);
            fused += epi_served_fused(ctx, want, what, e);
        }
    epi_store_close(ctx, path, fused, 3 * n);
}

static void cases(mmt_ctx *ctx, const char *who)
{
    (void)who;
    test_cases(ctx);
    test_relu_keeps_nan(ctx);
    test_none_and_refused(ctx);
}

int main(void)
{
    with_vendor_and_without(cases);
    test_in_store();
    return check_result();
}
