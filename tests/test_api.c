/* test_api.c - the public API on the CPU: BLAS semantics for both layouts and every
 * transpose, argument errors that write nothing (sizes whose products wrap around among
 * them), mmt_gemm_ex and its descriptor checks, the sgemm policy and MMTUNE_SGEMM, the
 * reproducible flag and MMTUNE_REPRODUCIBLE, the lookup order exact -> nearest -> default
 * against a real database file, and the algorithm policy (Strassen levels only where the
 * caller allows them and they apply) and MMTUNE_ALGORITHM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "bench.h"
#include "check.h"
#include "family.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-api-XXXXXX";

/* One call through mmt_sgemm/mmt_dgemm with padded leading dimensions; returns rel error. */
static double api_case(mmt_ctx *ctx, int f64, int col, int ta, int tb, int64_t m, int64_t n, int64_t k,
                       double alpha, double beta)
{
    int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int64_t lda = (col ? ar : ac) + 2, ldb = (col ? br : bc) + 5, ldc = (col ? m : n) + 1;
    void *a = gc_matrix(f64, col, ar, ac, lda, 0), *b = gc_matrix(f64, col, br, bc, ldb, 0);
    void *c = gc_matrix(f64, col, m, n, ldc, beta == 0);
    void *c0 = gc_matrix(f64, col, m, n, ldc, 0);
    memcpy(c0, c, (size_t)(f64 ? 8 : 4) * (col ? n : m) * ldc);
    double *ref = gc_ref_alloc(m, n);
    gc_reference(f64, col, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc, ref);
    mmt_layout L = col ? MMT_COL_MAJOR : MMT_ROW_MAJOR;
    mmt_transpose A = ta ? MMT_TRANS : MMT_NO_TRANS, B = tb ? MMT_TRANS : MMT_NO_TRANS;
    mmt_status st = f64 ? mmt_dgemm(ctx, L, A, B, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
                        : mmt_sgemm(ctx, L, A, B, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    if (st != MMT_OK) fprintf(stderr, "gemm failed: %s\n", mmt_last_error(ctx));
    double e = st == MMT_OK ? gc_rel_error(f64, col, m, n, c, ldc, ref) : INFINITY;
    free(a), free(b), free(c), free(c0), free(ref);
    return e;
}

static void test_semantics(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none.db", dir);
    setenv("MMTUNE_DB", db, 1); /* a missing default database: every shape runs the default */
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    static const int64_t sizes[][3] = {{1, 1, 1}, {5, 7, 3}, {33, 17, 65}, {100, 3, 1}, {64, 64, 64}};
    int bad = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (int col = 0; col < 2; col++)
            for (int t = 0; t < 4; t++)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                    double e1 = api_case(ctx, f64, col, t & 1, t >> 1, sizes[s][0], sizes[s][1], sizes[s][2], 1, 0);
                    double e2 = api_case(ctx, f64, col, t & 1, t >> 1, sizes[s][0], sizes[s][1], sizes[s][2], -0.5,
                                         1.5);
                    if (!(e1 <= gc_bound(f64, sizes[s][2])) || !(e2 <= gc_bound(f64, sizes[s][2]))) {
                        fprintf(stderr, "f64=%d col=%d t=%d %lldx%lldx%lld: errors %g %g\n", f64, col, t,
                                (long long)sizes[s][0], (long long)sizes[s][1], (long long)sizes[s][2], e1, e2);
                        bad++;
                    }
                }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_DEFAULT);
    mmt_close(ctx);
    unsetenv("MMTUNE_DB");
}

static void test_errors(void)
{
    mmt_ctx *ctx = NULL;
    CHECK(mmt_open(&ctx, "gpu7", NULL) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "gpu7") != NULL);
    mmt_close(ctx);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such.db", dir);
    CHECK(mmt_open(&ctx, "cpu", missing) == MMT_NOT_FOUND);
    mmt_close(ctx);
    mmt_close(NULL);

    setenv("MMTUNE_DB", missing, 1);
    CHECK_EQ_INT(mmt_open(&ctx, NULL, NULL), MMT_OK);
    float a[16], b[16], c[16];
    for (int i = 0; i < 16; i++) a[i] = b[i] = 1, c[i] = 42;
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1, a, 3, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "lda") != NULL);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_COL_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 2, 4, 1, a, 4, b, 4, 0, c, 3),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(ctx, (mmt_layout)7, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, (mmt_transpose)0, MMT_NO_TRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1, NULL, 4, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1, a, 4, b, 4, 0, NULL, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_sgemm(NULL, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    for (int i = 0; i < 16; i++) CHECK(c[i] == 42); /* nothing written */
    /* empty problems are no-ops; alpha == 0 reads neither A nor B */
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 0, 4, 4, 1, NULL, 4, NULL, 4, 0, NULL, 4),
                 MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 0, NULL, 4, NULL, 4, 0.5f, c, 4),
                 MMT_OK);
    for (int i = 0; i < 16; i++) CHECK(c[i] == 21);
    mmt_close(ctx);
    unsetenv("MMTUNE_DB");
    for (int s = 0; s <= 11; s++) CHECK(mmt_status_string((mmt_status)s) != NULL);
    CHECK_EQ_STR(mmt_status_string(MMT_OK), "success");
    CHECK(strlen(mmt_version_string()) >= 5);
}

/* mmt_gemm_ex on the CPU: the native modes run the kernels of mmt_sgemm / mmt_dgemm (the
 * same bits), every descriptor no kernel can serve is refused and writes nothing, and a
 * mode without a CPU template is MMT_UNSUPPORTED. */
static void test_gemm_ex(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none.db", dir);
    setenv("MMTUNE_DB", db, 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    enum { M = 37, N = 29, K = 41, LDA = K + 3, LDB = K + 1, LDC = N + 2 };
    for (int f64 = 0; f64 < 2; f64++) {
        size_t es = f64 ? 8 : 4;
        void *a = gc_matrix(f64, 0, M, K, LDA, 0), *b = gc_matrix(f64, 0, N, K, LDB, 0);
        void *c1 = gc_matrix(f64, 0, M, N, LDC, 0), *c2 = malloc(es * M * LDC);
        memcpy(c2, c1, es * M * LDC);
        /* B transposed: stored N x K, as column-major K x N would be */
        mmt_status s1 = f64 ? mmt_dgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS, M, N, K, 0.75, a, LDA, b, LDB,
                                        -1.25, c1, LDC)
                            : mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS, M, N, K, 0.75f, a, LDA, b, LDB,
                                        -1.25f, c1, LDC);
        mmt_gemm_desc d = {f64 ? MMT_F64 : MMT_F32, f64 ? MMT_F64 : MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR,
                           MMT_NO_TRANS, MMT_TRANS};
        mmt_status s2 = mmt_gemm_ex(ctx, &d, M, N, K, 0.75, a, LDA, b, LDB, -1.25, c2, LDC);
        CHECK_EQ_INT(s1, MMT_OK);
        CHECK_EQ_INT(s2, MMT_OK);
        CHECK(memcmp(c1, c2, es * M * LDC) == 0);
        free(a), free(b), free(c1), free(c2);
    }

    float a[16], b[16], c[16];
    for (int i = 0; i < 16; i++) a[i] = b[i] = 1, c[i] = 42;
    typedef struct bad_desc {
        mmt_gemm_desc d;
        mmt_status want;
        const char *says; /* in mmt_last_error */
    } bad_desc;
    const mmt_gemm_desc ok = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    bad_desc bad[] = {
        {ok, MMT_UNSUPPORTED, "bf16"},         /* bf16: no CPU template */
        {ok, MMT_UNSUPPORTED, "f16"},
        {ok, MMT_UNSUPPORTED, "tf32"},
        {ok, MMT_UNSUPPORTED, "f32x3"},
        {ok, MMT_INVALID_ARGUMENT, "MMT_COMPUTE_TF32"}, /* f64 with TF32 */
        {ok, MMT_INVALID_ARGUMENT, "c_type bf16"},      /* f32 inputs, bf16 output */
        {ok, MMT_INVALID_ARGUMENT, "c_type f64"},       /* bf16 inputs, f64 output */
        {ok, MMT_INVALID_ARGUMENT, "MMT_COMPUTE_F32X3"}, /* f16 with F32X3 */
        {ok, MMT_INVALID_ARGUMENT, "ab_type 9"},
        {ok, MMT_INVALID_ARGUMENT, "c_type -1"},
        {ok, MMT_INVALID_ARGUMENT, "compute 3"},
        {ok, MMT_INVALID_ARGUMENT, "layout 0"},
        {ok, MMT_INVALID_ARGUMENT, "trans_a"},
        {ok, MMT_INVALID_ARGUMENT, "trans_b"},
        {ok, MMT_INVALID_ARGUMENT, "c_type e4m3"},      /* FP8 C of f32 inputs */
    };
    bad[0].d.ab_type = MMT_BF16;
    bad[1].d.ab_type = MMT_F16, bad[1].d.c_type = MMT_F16;
    bad[2].d.compute = MMT_COMPUTE_TF32;
    bad[3].d.compute = MMT_COMPUTE_F32X3;
    bad[4].d.ab_type = bad[4].d.c_type = MMT_F64, bad[4].d.compute = MMT_COMPUTE_TF32;
    bad[5].d.c_type = MMT_BF16;
    bad[6].d.ab_type = MMT_BF16, bad[6].d.c_type = MMT_F64;
    bad[7].d.ab_type = MMT_F16, bad[7].d.compute = MMT_COMPUTE_F32X3;
    bad[8].d.ab_type = (mmt_dtype)9;
    bad[9].d.c_type = (mmt_dtype)-1;
    bad[10].d.compute = (mmt_compute)3;
    bad[11].d.layout = (mmt_layout)0;
    bad[12].d.trans_a = (mmt_transpose)0;
    bad[13].d.trans_b = (mmt_transpose)113;
    bad[14].d.c_type = MMT_E4M3;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mmt_status st = mmt_gemm_ex(ctx, &bad[i].d, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
        if (st != bad[i].want || !strstr(mmt_last_error(ctx), bad[i].says))
            fprintf(stderr, "case %zu: status %d, message '%s'\n", i, (int)st, mmt_last_error(ctx));
        CHECK_EQ_INT(st, bad[i].want);
        CHECK(strstr(mmt_last_error(ctx), bad[i].says) != NULL);
    }
    /* unsupported whatever the size, and BLAS argument errors come first */
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &bad[0].d, 0, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &bad[0].d, 4, 4, 4, 1.0, a, 3, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_ex(ctx, NULL, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "NULL") != NULL);
    CHECK_EQ_INT(mmt_gemm_ex(NULL, &ok, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &ok, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, NULL, 4), MMT_INVALID_ARGUMENT);
    for (int i = 0; i < 16; i++) CHECK(c[i] == 42); /* nothing written */
    /* operands that are not 16-byte aligned (pointer and pitch) are looked up as such and
     * computed right */
    CHECK(api_case(ctx, 0, 0, 0, 0, 33, 17, 65, 1, 0) <= gc_bound(0, 65));
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &ok, 3, 3, 3, 1.0, a + 1, 3, b + 1, 3, 0.0, c + 1, 3), MMT_OK);
    for (int i = 1; i < 10; i++) CHECK(c[i] == 3);
    mmt_close(ctx);
    unsetenv("MMTUNE_DB");
}

/* mmt_gemm_scaled on the CPU: its refusals, each before anything is written (block-scaled
 * FP8 has no CPU template; it runs on a GPU, test_gpu_scaled). */
static void test_scaled(void)
{
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    unsigned char a[16], b[16];
    float c[16], sa[4] = {1, 1, 1, 1}, sb[1] = {1};
    for (int i = 0; i < 16; i++) a[i] = b[i] = 0x38, c[i] = 42; /* e4m3 1.0 */
    const mmt_gemm_desc fp8 = {MMT_E4M3, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
    mmt_gemm_desc d = fp8;
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    CHECK(strstr(mmt_last_error(ctx), "e4m3-block") != NULL); /* no template serves it here */
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 0, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    d.layout = MMT_COL_MAJOR;
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    CHECK(strstr(mmt_last_error(ctx), "row-major") != NULL);
    d = fp8, d.ab_type = MMT_F32;
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 4, 4, 4, 1.0, c, 4, c, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "FP8") != NULL);
    d = fp8, d.c_type = MMT_F64;
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    d.c_type = MMT_E4M3; /* FP8 C: a GPU's (wgmma's) */
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &fp8, sa, sb, 4, 4, 4, 1.0, a, 3, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, NULL, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    CHECK_EQ_INT(mmt_gemm_scaled(NULL, &fp8, sa, sb, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    /* FP8 of two kinds: a mode of its own, which the CPU has no template for either */
    d = fp8, d.ab_type = MMT_E4M3_E5M2;
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_UNSUPPORTED);
    CHECK(strstr(mmt_last_error(ctx), "e4m3xe5m2") != NULL);
    d.ab_type = (mmt_dtype)8;
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4), MMT_INVALID_ARGUMENT);
    for (int i = 0; i < 16; i++) CHECK(c[i] == 42); /* nothing written */
    mmt_close(ctx);
}

/* The sgemm policy: on the CPU there is no f32x3 family, so allowing it is plain fp32 (no
 * error); the environment variable is checked when a context opens. */
static void test_policy(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none.db", dir);
    setenv("MMTUNE_DB", db, 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_ALLOW_F32X3), MMT_OK);
    CHECK(api_case(ctx, 0, 0, 0, 0, 64, 64, 64, 1, 0) <= gc_bound(0, 64));
    CHECK_EQ_STR(mmt_last_error(ctx), ""); /* the missing f32x3 family is no failure */
    CHECK(api_case(ctx, 0, 1, 1, 0, 33, 17, 65, -0.5, 1.5) <= gc_bound(0, 65));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_DEFAULT);
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, (mmt_sgemm_policy)7), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "policy") != NULL);
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_F32), MMT_OK);
    CHECK(api_case(ctx, 0, 0, 0, 0, 64, 64, 64, 1, 0) <= gc_bound(0, 64));
    CHECK_EQ_INT(mmt_set_sgemm_policy(NULL, MMT_SGEMM_F32), MMT_INVALID_ARGUMENT);
    mmt_close(ctx);

    setenv("MMTUNE_SGEMM", "bogus", 1);
    ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "MMTUNE_SGEMM") != NULL);
    mmt_close(ctx);
    setenv("MMTUNE_SGEMM", "f32x3", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK(api_case(ctx, 0, 0, 1, 1, 65, 63, 129, 1, 0) <= gc_bound(0, 129));
    mmt_close(ctx);
    setenv("MMTUNE_SGEMM", "f32", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    mmt_close(ctx);
    unsetenv("MMTUNE_SGEMM");
    unsetenv("MMTUNE_DB");
}

/* Reproducible results: on the CPU every kernel is reproducible, so the flag changes no
 * result there; its argument and the environment variable are checked; two calls give the
 * same bits. */
static void test_reproducible(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none.db", dir);
    setenv("MMTUNE_DB", db, 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK_EQ_INT(mmt_set_reproducible(ctx, 1), MMT_OK);
    float a[12 * 40], b[40 * 9], c1[12 * 9], c2[12 * 9];
    for (int i = 0; i < 12 * 40; i++) a[i] = (float)((i * 37 % 101) - 50) / 64.0f;
    for (int i = 0; i < 40 * 9; i++) b[i] = (float)((i * 53 % 97) - 48) / 32.0f;
    for (int i = 0; i < 12 * 9; i++) c1[i] = c2[i] = 0.5f;
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 12, 9, 40, 1.5f, a, 40, b, 9, 0.25f, c1, 9),
                 MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 12, 9, 40, 1.5f, a, 40, b, 9, 0.25f, c2, 9),
                 MMT_OK);
    CHECK(memcmp(c1, c2, sizeof c1) == 0);
    CHECK(api_case(ctx, 0, 1, 0, 0, 33, 17, 65, -0.5, 1.5) <= gc_bound(0, 65));
    CHECK_EQ_INT(mmt_set_reproducible(ctx, 2), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "reproducible") != NULL);
    CHECK_EQ_INT(mmt_set_reproducible(ctx, 0), MMT_OK);
    CHECK_EQ_INT(mmt_set_reproducible(NULL, 1), MMT_INVALID_ARGUMENT);
    mmt_close(ctx);

    setenv("MMTUNE_REPRODUCIBLE", "yes", 1);
    ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "MMTUNE_REPRODUCIBLE=yes") != NULL);
    mmt_close(ctx);
    for (int v = 0; v < 2; v++) {
        setenv("MMTUNE_REPRODUCIBLE", v ? "1" : "0", 1);
        CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
        CHECK(api_case(ctx, 0, 0, 1, 1, 65, 63, 129, 1, 0) <= gc_bound(0, 129));
        mmt_close(ctx);
    }
    unsetenv("MMTUNE_REPRODUCIBLE");
    unsetenv("MMTUNE_DB");
}

/* A database with one tuned f32 problem (row-major NN), written through the store as
 * mmtune does. */
static void make_db(const char *path, const char *params, int64_t size)
{
    mmt_err err;
    mmt_store *st;
    mmt_device_info dev;
    mmt_family *fam;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    int64_t dev_id, tpl, cfg, prob, sess;
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = size, .n = size, .k = size};
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    CHECK_OK(mmt_store_session_begin(st, dev_id, "test_api", "exhaustive", "0", &sess, &err), &err);
    mmt_trial_rec t = {.session_id = sess, .device_id = dev_id, .problem_id = prob, .config_id = cfg,
                       .status = MMT_TRIAL_OK, .time_ms_median = 1, .time_ms_min = 1, .time_ms_max = 1,
                       .gflops = 33.5, .rel_error = 1e-7, .reps = 5};
    CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    mmt_store_close(st);
    mmt_family_free(fam);
}

static void test_lookup(void)
{
    mmt_err err;
    mmt_family *fam;
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    mmt_device_info dev;
    mmt_backend_cpu.probe(0, &dev, &err);
    /* a valid configuration that is not the default */
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 256, .n = 256, .k = 256};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all, def;
    size_t n;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &n, &err), &err);
    mmt_space_default(fam->space, &def);
    char tuned[512] = "", deftext[512];
    mmt_config_format(fam->space, &def, deftext, sizeof deftext);
    for (size_t i = n; i-- > 0 && !tuned[0];) {
        mmt_config_format(fam->space, &all[i], tuned, sizeof tuned);
        if (strcmp(tuned, deftext) == 0) tuned[0] = '\0';
    }
    free(all);
    mmt_family_free(fam);
    CHECK(tuned[0] != '\0');

    char db[600];
    snprintf(db, sizeof db, "%s/tuned.db", dir);
    make_db(db, tuned, 256);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    const char *cfg;
    CHECK(api_case(ctx, 0, 0, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, tuned);
    /* column-major C = A B is the row-major problem n x m: the same tuned entry */
    CHECK(api_case(ctx, 0, 1, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK(api_case(ctx, 0, 0, 0, 0, 300, 200, 250, 1, 0) <= gc_bound(0, 250));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_NEAREST);
    CHECK_EQ_STR(cfg, tuned);
    /* allowing f32x3 where there is no f32x3 family keeps the tuned f32 kernel */
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_ALLOW_F32X3), MMT_OK);
    CHECK(api_case(ctx, 0, 0, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, tuned);
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_F32), MMT_OK);
    /* other transposes and dtypes have no tuned neighbour */
    CHECK(api_case(ctx, 0, 0, 1, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_DEFAULT);
    CHECK_EQ_STR(cfg, deftext);
    CHECK(api_case(ctx, 1, 0, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(1, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_DEFAULT);
    mmt_close(ctx);
}

/* A call repeated on one thread runs without the checks and the lookup (api.c, last_call):
 * each repeat right on new operands, mmt_last_choice that of the call itself after other
 * shapes and a batch came between, an error's message gone with the next success, a policy
 * change and an operand of another alignment looked up again, and after the thread's view
 * of the context was given away and made again. */
static void test_repeat(void)
{
    mmt_err err;
    mmt_family *fam;
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    mmt_config def;
    char deftext[512], db[600];
    mmt_space_default(fam->space, &def);
    mmt_config_format(fam->space, &def, deftext, sizeof deftext);
    mmt_family_free(fam);
    snprintf(db, sizeof db, "%s/tuned.db", dir); /* test_lookup's: 256^3 tuned to another configuration */
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    const char *cfg;
    char tuned[512];
    for (int i = 0; i < 3; i++) CHECK(api_case(ctx, 0, 0, 0, 0, 256, 256, 256, 1, i == 1 ? 0.5 : 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    snprintf(tuned, sizeof tuned, "%s", cfg);
    CHECK(strcmp(tuned, deftext) != 0);
    /* another shape, then the first again: its own choice */
    CHECK(api_case(ctx, 0, 0, 1, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_DEFAULT);
    CHECK(api_case(ctx, 0, 0, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, tuned);
    /* a batch of another shape between two of the same calls */
    float *a = gc_matrix(0, 0, 256, 256, 256, 0), *b = gc_matrix(0, 0, 256, 256, 256, 0);
    float *c = gc_matrix(0, 0, 256, 256, 256, 0);
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, c, 256),
                 MMT_OK);
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &d, 16, 16, 16, 1, a, 256, 16, b, 256, 16, 0, c, 256, 16 * 256, 4),
                 MMT_OK);
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_DEFAULT);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, c, 256),
                 MMT_OK);
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    /* an error, then the same call right: no message left */
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, NULL,
                           256),
                 MMT_INVALID_ARGUMENT);
    CHECK(mmt_last_error(ctx)[0] != '\0');
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, c, 256),
                 MMT_OK);
    CHECK_EQ_STR(mmt_last_error(ctx), "");
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    /* A one element past a 64-byte boundary: looked up for its alignment, right */
    float *a1 = malloc(sizeof(float) * (256 * 256 + 1));
    memcpy(a1 + 1, a, sizeof(float) * 256 * 256);
    float *c1 = malloc(sizeof(float) * 256 * 256);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a1 + 1, 256, b, 256, 0, c1,
                           256),
                 MMT_OK);
    CHECK(memcmp(c, c1, sizeof(float) * 256 * 256) == 0 || mmt_last_choice(ctx, NULL) != MMT_CHOICE_EXACT);
    double *ref = gc_ref_alloc(256, 256);
    gc_reference(0, 0, 0, 0, 256, 256, 256, 1, a, 256, b, 256, 0, c, 256, ref);
    CHECK(gc_rel_error(0, 0, 256, 256, c1, 256, ref) <= gc_bound(0, 256));
    /* a policy change: the same call looked up again (f32x3 has no CPU family: the tuned kernel) */
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_ALLOW_F32X3), MMT_OK);
    CHECK(api_case(ctx, 0, 0, 0, 0, 256, 256, 256, 1, 0) <= gc_bound(0, 256));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, tuned);
    /* the thread's view of ctx given to four other contexts (failed calls), then made again
     * for ctx by a failed call of its own, in each of the slots in turn: the same call after
     * it says its own choice again */
    CHECK_EQ_INT(mmt_set_sgemm_policy(ctx, MMT_SGEMM_F32), MMT_OK);
    mmt_ctx *other[4];
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(mmt_open(&other[i], "cpu", db), MMT_OK);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, c,
                               256),
                     MMT_OK);
        for (int i = 0; i < 4 + r; i++)
            mmt_sgemm(other[(i + r) % 4], MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256,
                      0, NULL, 256);
        CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0,
                               NULL, 256),
                     MMT_INVALID_ARGUMENT);
        CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 256, 256, 256, 1, a, 256, b, 256, 0, c,
                               256),
                     MMT_OK);
        CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
        CHECK_EQ_STR(cfg, tuned);
    }
    for (int i = 0; i < 4; i++) mmt_close(other[i]);
    free(a), free(b), free(c), free(a1), free(c1), free(ref);
    mmt_close(ctx);
}

/* One f32 call (column-major where col) run twice on the same inputs, with the classic
 * algorithm and with Strassen levels allowed (the policy is left allowing them); returns
 * the relative Frobenius difference of the two results, *cfg the configuration the second
 * ran. Levels are checked against a reference in test_strassen.c: here the runtime's
 * choice, against the classic kernel, which the bounds of both contain. */
static double with_and_without(mmt_ctx *ctx, int col, int64_t m, int64_t n, int64_t k, double alpha, double beta,
                               const char **cfg)
{
    const int64_t ld = (col ? m : n) + 1, lda = (col ? m : k) + 3, ldb = (col ? k : n) + 2;
    const size_t cs = (size_t)((col ? n : m) * ld);
    float *a = gc_matrix(0, col, m, k, lda, 0), *b = gc_matrix(0, col, k, n, ldb, 0), *c = gc_matrix(0, col, m, n, ld, 0);
    float *c2 = malloc(sizeof(float) * cs);
    memcpy(c2, c, sizeof(float) * cs);
    const mmt_layout L = col ? MMT_COL_MAJOR : MMT_ROW_MAJOR;
    double diff = INFINITY, num = 0, den = 0;
    *cfg = "";
    if (mmt_set_algorithm_policy(ctx, MMT_CLASSIC_ONLY) == MMT_OK &&
        mmt_sgemm(ctx, L, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ld) ==
            MMT_OK &&
        mmt_set_algorithm_policy(ctx, MMT_ALLOW_STRASSEN) == MMT_OK &&
        mmt_sgemm(ctx, L, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c2, ld) ==
            MMT_OK) {
        mmt_last_choice(ctx, cfg);
        for (int64_t i = 0; i < (col ? n : m); i++)
            for (int64_t j = 0; j < (col ? m : n); j++) {
                double x = c[i * ld + j], y = c2[i * ld + j];
                num += (x - y) * (x - y), den += x * x;
            }
        diff = sqrt(num / den);
    } else {
        fprintf(stderr, "gemm failed: %s\n", mmt_last_error(ctx));
    }
    free(a), free(b), free(c), free(c2);
    return diff;
}

/* The configuration that serves an f32 row-major NN call of m x n x k (computed, not
 * checked). */
static const char *served_config(mmt_ctx *ctx, int64_t m, int64_t n, int64_t k)
{
    float *a = calloc((size_t)(m * k), sizeof *a), *b = calloc((size_t)(k * n), sizeof *b),
          *c = calloc((size_t)(m * n), sizeof *c);
    const char *cfg = "";
    if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n) == MMT_OK)
        mmt_last_choice(ctx, &cfg);
    free(a), free(b), free(c);
    return cfg;
}

/* The algorithm policy against a database whose 2048^3 best has a Strassen level (the
 * built-in space lets one run from there): the classic algorithm unless the caller allows
 * levels (mmt_set_algorithm_policy, MMTUNE_ALGORITHM), and then only where they apply (a
 * neighbour too small for a level runs its classic winner); a level's result within the
 * bounds of the classic kernel's. */
static void test_algorithm_policy(void)
{
    mmt_err err;
    mmt_family *fam;
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    if (!fam) return;
    mmt_config def;
    mmt_space_default(fam->space, &def);
    mmt_config l1 = mmt_config_with_levels(fam->space, &def, 1);
    char classic[512], strassen[512];
    mmt_config_format(fam->space, &def, classic, sizeof classic);
    mmt_config_format(fam->space, &l1, strassen, sizeof strassen);
    mmt_family_free(fam);
    CHECK(strstr(strassen, ",LEVELS=1") != NULL);
    char db[600];
    snprintf(db, sizeof db, "%s/strassen.db", dir);
    make_db(db, strassen, 2048);
    const mmt_problem p = {.mode = MMT_MODE_F32, .k = 2048};
    const double bounds = mmt_bench_error_bound(&p, 0) + mmt_bench_error_bound(&p, 1);

    mmt_ctx *ctx;
    const char *cfg;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    CHECK_EQ_STR(served_config(ctx, 2048, 2048, 2048), classic); /* classic unless asked */
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_EXACT);
    CHECK(with_and_without(ctx, 0, 2048, 2048, 2048, 1, 0, &cfg) <= bounds);
    CHECK_EQ_STR(cfg, strassen);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_EXACT);
    CHECK(with_and_without(ctx, 1, 2048, 2048, 2048, -0.5, 1.5, &cfg) <= bounds); /* column-major, beta */
    CHECK_EQ_STR(cfg, strassen);
    CHECK(with_and_without(ctx, 0, 2055, 2051, 2053, 0.5, 0, &cfg) <= bounds); /* a neighbour, peeled */
    CHECK_EQ_STR(cfg, strassen);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_NEAREST);
    CHECK_EQ_STR(mmt_last_error(ctx), "");
    CHECK_EQ_STR(served_config(ctx, 2000, 2048, 2048), classic); /* too small for a level */
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_NEAREST);
    CHECK_EQ_INT(mmt_set_algorithm_policy(ctx, MMT_CLASSIC_ONLY), MMT_OK);
    CHECK_EQ_STR(served_config(ctx, 2048, 2048, 2048), classic);
    CHECK_EQ_INT(mmt_set_algorithm_policy(ctx, (mmt_algorithm_policy)5), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "algorithm policy") != NULL);
    CHECK_EQ_INT(mmt_set_algorithm_policy(NULL, MMT_ALLOW_STRASSEN), MMT_INVALID_ARGUMENT);
    mmt_close(ctx);

    setenv("MMTUNE_ALGORITHM", "winograd", 1);
    ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "MMTUNE_ALGORITHM") != NULL);
    mmt_close(ctx);
    setenv("MMTUNE_ALGORITHM", "strassen", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    CHECK_EQ_STR(served_config(ctx, 2048, 2048, 2048), strassen);
    mmt_close(ctx);
    setenv("MMTUNE_ALGORITHM", "classic", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    CHECK_EQ_STR(served_config(ctx, 2048, 2048, 2048), classic);
    mmt_close(ctx);
    unsetenv("MMTUNE_ALGORITHM");
}

/* Sizes whose products wrap around are refused before anything is touched: m = k = 2^40
 * over a small buffer, as plain arguments and through the descriptor. */
static void test_size_limits(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none.db", dir);
    setenv("MMTUNE_DB", db, 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    float a[16], b[16], c[16];
    for (int i = 0; i < 16; i++) a[i] = b[i] = 1, c[i] = NAN;
    const int64_t big = (int64_t)1 << 40;
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, big, 4, big, 1, a, big, b, 4, 0, c, 4),
                 MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "64-bit") != NULL);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_COL_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, big, big, 1, a, 4, b, big, 0, c, 4),
                 MMT_INVALID_ARGUMENT); /* B: 2^40 columns of 2^40 */
    mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, big, big, 4, 1, a, 4, b, big, 0, c, big), MMT_INVALID_ARGUMENT); /* C */
    /* BLAS's quick return: (alpha = 0 or k = 0) and beta = 1 leave C as it is, at once,
     * whatever m and n (2^40 rows of a C of 16 elements: nothing is read or written) */
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, big, 1, 4, 0, a, 4, b, 1, 1, c, 1), MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, big, 1, 0, 1, NULL, 1, NULL, 1, 1, c, 1),
                 MMT_OK);
    int untouched = 1;
    for (int i = 0; i < 16; i++) untouched &= isnan(c[i]);
    CHECK(untouched);
    mmt_close(ctx);
    /* a database that is not a regular file is refused, not opened (a FIFO would block) */
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/fifo.db", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", fifo), MMT_DATABASE);
    CHECK(strstr(mmt_last_error(ctx), "not a regular file") != NULL);
    mmt_close(ctx);
    /* the same sizes as a problem (shapes files, --problem, the store) */
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = big, .n = 4, .k = big};
    CHECK(mmt_problem_check(&p) != NULL);
}

int main(void)
{
    /* the templates' own choice (tuned, nearest, default): the vendor family is test_serve's */
    setenv("MMTUNE_VENDOR", "off", 1);
    CHECK(mkdtemp(dir) != NULL);
    test_errors();
    test_gemm_ex();
    test_scaled();
    test_policy();
    test_reproducible();
    test_size_limits();
    test_semantics();
    test_lookup();
    test_repeat();
    test_algorithm_policy();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return check_result();
}
