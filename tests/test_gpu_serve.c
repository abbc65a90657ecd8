/* test_gpu_serve.c - the vendor family on GPU 0 (api.c, cublas.c): with no database, every
 * mode (bf16 and f16 with 16-bit and f32 C, tf32, f32x3, f32, f64) is served by cuBLAS
 * (MMT_CHOICE_VENDOR, LIBRARY=cuBLAS ..., the routine of the mode), right against a long
 * double reference for both layouts, every transpose, padded leading dimensions and the
 * BLAS rules (NaN in C with beta = 0; NaN in A and B with alpha = 0, which cuBLAS's GemmEx
 * would read: libmmtuned runs it with K = 0), half the calls on operands one element past an
 * allocation's start (cuBLASLt's plans assume 256-byte alignment unless told), and one
 * larger problem a mode. Then a problem with a tuned template entry whose kernel is not
 * cached: its first call runs cuBLAS, and after mmt_wait_kernels the tuned kernel does. And
 * vendor bests whose route is a cuBLASLt plan with workspace (ROUTINE=cublasLtMatmul). And
 * a repeated call's operands asked where they live. And FP8 C, by cuBLASLt at beta 0 alone
 * (test_fp8_c). Exits 77 (skipped) without a GPU or
 * without cuBLAS. */
#include "gpu_check.h"
#include "mmtuned.h"
#include "store.h"
#include "vendor.h"
#include "vendor_modes.h"

/* One call through mmt_gemm_ex on device copies of padded operands, each one element past
 * its allocation's start where shifted; the relative error (INFINITY where it failed or the
 * padding of C changed), and what served it. */
static double one_call(mmt_ctx *ctx, const mode_case *mc, int col, int ta, int tb, shape s, ab c, int shifted,
                       mmt_choice *how, char *config, size_t size)
{
    const int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    /* FP8's rows padded by 16 bytes: cuBLASLt takes 16-byte aligned rows alone */
    const int fp8 = mmt_dtype_fp8(mc->ab);
    const int64_t lda = (col ? ar : ac) + (fp8 ? 16 : 3), ldb = (col ? br : bc) + (fp8 ? 16 : 1),
                  ldc = (col ? s.m : s.n) + (fp8 ? 16 : 2);
    const size_t es = (size_t)mmt_dtype_size(mc->ab), cs = (size_t)mmt_dtype_size(mc->c);
    const size_t asz = es * (col ? ac : ar) * lda, bsz = es * (col ? bc : br) * ldb, csz = cs * (col ? s.n : s.m) * ldc;
    void *a = gc_matrix_t(mc->ab, col, ar, ac, lda, c.nan_ab), *b = gc_matrix_t(mc->ab, col, br, bc, ldb, c.nan_ab);
    void *cm = gc_matrix_t(mc->c, col, s.m, s.n, ldc, c.nan_c), *c0 = malloc(csz);
    memcpy(c0, cm, csz);
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference_t(mc->ab, mc->c, col, ta, tb, s.m, s.n, s.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc, ref);
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    const size_t sa = shifted ? es : 0, sc = shifted ? cs : 0;
    double e = INFINITY;
    const mmt_gemm_desc d = {mc->ab, mc->c, mc->compute, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS};
    if (be->alloc(&dev, asz + sa, &da, &err) == MMT_OK && be->alloc(&dev, bsz + sa, &db, &err) == MMT_OK &&
        be->alloc(&dev, csz + sc, &dc, &err) == MMT_OK && be->copy((char *)da + sa, a, asz, MMT_H2D, &err) == MMT_OK &&
        be->copy((char *)db + sa, b, bsz, MMT_H2D, &err) == MMT_OK &&
        be->copy((char *)dc + sc, cm, csz, MMT_H2D, &err) == MMT_OK) {
        mmt_status st = mmt_gemm_ex(ctx, &d, s.m, s.n, s.k, c.alpha, (char *)da + sa, lda, (char *)db + sa, ldb,
                                    c.beta, (char *)dc + sc, ldc);
        const char *text = "";
        *how = mmt_last_choice(ctx, &text);
        snprintf(config, size, "%s", text);
        if (st != MMT_OK) fprintf(stderr, "mmt_gemm_ex: %s\n", mmt_last_error(ctx));
        if (st == MMT_OK && be->sync(NULL, &err) == MMT_OK && be->copy(cm, (char *)dc + sc, csz, MMT_D2H, &err) == MMT_OK) {
            e = gc_rel_error_t(mc->c, col, s.m, s.n, cm, ldc, ref);
            for (int64_t r = 0; r < (col ? s.n : s.m); r++) /* the padding of C is untouched */
                if (memcmp((char *)cm + cs * (r * ldc + (col ? s.m : s.n)),
                           (char *)c0 + cs * (r * ldc + (col ? s.m : s.n)), cs * 2))
                    e = INFINITY;
        }
    }
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(cm), free(c0), free(ref);
    return e;
}

static void test_modes(void)
{
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    if (!ctx) return;
    /* 24x40x3000: a deep K, which cuBLAS may split (no kept plan then: cuBLAS's own call) */
    static const shape shapes[] = {{67, 45, 93}, {1, 300, 70}, {130, 17, 0}, {24, 40, 3000}};
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        const mode_case *mc = &modes[mi];
        int bad = 0, runs = 0;
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int col = 0; col < 2; col++)
                for (int t = 0; t < 4; t++)
                    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
                        mmt_choice how;
                        char config[512];
                        const int shifted = (int)((ci + (size_t)t) & 1);
                        const double e = one_call(ctx, mc, col, t & 1, t >> 1, shapes[si], cases[ci], shifted, &how,
                                                  config, sizeof config);
                        runs++;
                        if (!(e <= gc_bound_mode(mc->mode, mc->c, shapes[si].k)) || how != MMT_CHOICE_VENDOR ||
                            !strstr(config, "LIBRARY=cuBLAS") || !strstr(config, mc->routine)) {
                            fprintf(stderr,
                                    "%s->%s %lldx%lldx%lld col=%d t=%d case %zu shifted %d: error %g, choice %d (%s)\n",
                                    mmt_mode_name(mc->mode), mmt_dtype_name(mc->c), (long long)shapes[si].m,
                                    (long long)shapes[si].n, (long long)shapes[si].k, col, t, ci, shifted, e, (int)how,
                                    config);
                            bad++;
                        }
                    }
        printf("%s->%s by cuBLAS: %d runs, %d wrong\n", mmt_mode_name(mc->mode), mmt_dtype_name(mc->c), runs, bad);
        CHECK_EQ_INT(bad, 0);
    }
    /* m*n*k past 1024^3: on tensor cores still a kept plan's (cublaslt.c), on CUDA cores cuBLAS's call */
    const shape larger = {1100, 1000, 1000};
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        mmt_choice how;
        char config[512];
        const int t = (int)(mi % 4);
        const double e = one_call(ctx, &modes[mi], (int)(mi & 1), t & 1, t >> 1, larger, cases[0], (int)(mi & 1),
                                  &how, config, sizeof config);
        printf("%s->%s %lldx%lldx%lld: error %g (%s)\n", mmt_mode_name(modes[mi].mode), mmt_dtype_name(modes[mi].c),
               (long long)larger.m, (long long)larger.n, (long long)larger.k, e, config);
        CHECK(e <= gc_bound_mode(modes[mi].mode, modes[mi].c, larger.k) && how == MMT_CHOICE_VENDOR);
    }
    mmt_close(ctx);
}

/* FP8 C, row-major NT on 16-byte rows (cuBLASLt's one orientation), nothing tuned: cuBLASLt's
 * FP8 D serves beta 0 (NaN in C; and alpha 0 or K 0, where C is zeroed, with NaN in A and B
 * too), a template beta other than 0 (cuBLASLt would read C from a C of another type), and
 * e5m2 C (which cuBLASLt writes only beside an e5m2 operand). */
static void test_fp8_c(void)
{
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    if (!ctx) return;
    static const mode_case fp8[] = {
        {MMT_E4M3, MMT_E4M3, MMT_COMPUTE_NATIVE, MMT_MODE_E4M3, MMT_VENDOR_LT_ROUTINE, NULL},
        {MMT_E4M3, MMT_E5M2, MMT_COMPUTE_NATIVE, MMT_MODE_E4M3, NULL, NULL}};
    static const ab fp8_cases[] = {{1.0, 0.0, 1, 0}, {0.0, 0.0, 1, 1}, {0.75, -1.25, 0, 0}, {-1.5, 1.0, 0, 0}};
    static const shape shapes[] = {{67, 48, 96}, {256, 384, 512}, {130, 16, 0}};
    for (size_t mi = 0; mi < sizeof fp8 / sizeof fp8[0]; mi++) {
        int bad = 0, by_vendor = 0, runs = 0;
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (size_t ci = 0; ci < sizeof fp8_cases / sizeof fp8_cases[0]; ci++) {
                mmt_choice how;
                char config[512];
                const double e =
                    one_call(ctx, &fp8[mi], 0, 0, 1, shapes[si], fp8_cases[ci], 0, &how, config, sizeof config);
                const int vendor = fp8[mi].routine && fp8_cases[ci].beta == 0;
                runs++, by_vendor += how == MMT_CHOICE_VENDOR;
                if (!(e <= gc_bound_mode(fp8[mi].mode, fp8[mi].c, shapes[si].k)) ||
                    (how == MMT_CHOICE_VENDOR) != vendor || (vendor && !strstr(config, fp8[mi].routine))) {
                    fprintf(stderr, "%s->%s %lldx%lldx%lld case %zu: error %g, choice %d (%s)\n",
                            mmt_mode_name(fp8[mi].mode), mmt_dtype_name(fp8[mi].c), (long long)shapes[si].m,
                            (long long)shapes[si].n, (long long)shapes[si].k, ci, e, (int)how, config);
                    bad++;
                }
            }
        printf("%s->%s: %d runs (%d by cuBLASLt), %d wrong\n", mmt_mode_name(fp8[mi].mode),
               mmt_dtype_name(fp8[mi].c), runs, by_vendor, bad);
        CHECK_EQ_INT(bad, 0);
    }
    mmt_close(ctx);
}

/* A tuned SIMT entry (the space's default, recorded as tuned) whose kernel no cache holds:
 * cuBLAS serves the first call, the tuned kernel every call after mmt_wait_kernels. */
static void test_background_build(void)
{
    char dir[] = "/tmp/mmtune-test-gpu-serve-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/s.db", dir);
    setenv("MMTUNE_CACHE_DIR", dir, 1);
    mmt_err err;
    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_find_template("cuda/gemm_simt.cu", &fam, &err), &err);
    if (!fam) return;
    mmt_config def;
    mmt_space_default(fam->space, &def);
    char params[512];
    mmt_config_format(fam->space, &def, params, sizeof params);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    int64_t dev_id, tpl, cfg, prob, sess;
    const shape s = {67, 45, 93};
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .m = s.m,
                     .n = s.n, .k = s.k};
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    CHECK_OK(mmt_store_session_begin(st, dev_id, "test_gpu_serve", "exhaustive", "0", &sess, &err), &err);
    mmt_trial_rec t = {.session_id = sess, .device_id = dev_id, .problem_id = prob, .config_id = cfg,
                       .status = MMT_TRIAL_OK, .time_ms_median = 0.01, .time_ms_min = 0.01, .time_ms_max = 0.01,
                       .gflops = mmt_problem_flops(&p) / 1e4, .rel_error = 1e-7, .reps = 5};
    CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    mmt_store_close(st);
    mmt_family_free(fam);

    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", path), MMT_OK);
    const mode_case *f32 = &modes[5];
    mmt_choice how;
    char config[512];
    /* the default configuration, recorded as tuned, serves any alignment */
    CHECK(one_call(ctx, f32, 0, 0, 0, s, cases[1], 0, &how, config, sizeof config) <= gc_bound(0, s.k));
    printf("first call: %d %s\n", (int)how, config);
    CHECK_EQ_INT(how, MMT_CHOICE_VENDOR);
    int built = 0;
    CHECK_EQ_INT(mmt_wait_kernels(ctx, &built), MMT_OK);
    CHECK_EQ_INT(built, 1);
    CHECK(one_call(ctx, f32, 0, 0, 0, s, cases[0], 0, &how, config, sizeof config) <= gc_bound(0, s.k));
    printf("after the build: %d %s\n", (int)how, config);
    CHECK_EQ_INT(how, MMT_CHOICE_EXACT);
    CHECK_EQ_STR(config, params);
    mmt_close(ctx);
    unsetenv("MMTUNE_CACHE_DIR");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* Vendor bests whose route is other than the lean plan, as the tuner records where that
 * route was the faster: a cuBLASLt plan that may need workspace (ROUTINE=cublasLtMatmul),
 * or cuBLAS's own call (ROUTINE=...,PLAN=0). libmmtuned serves them by it, right for every
 * case of alpha and beta, on aligned and shifted operands. For a deep K in f16 and tf32 the
 * plan with workspace does take some (cuBLASLt splits K there), so the workspace's pool is
 * what those calls exercise. cuBLAS's own call is another call where the lean plan is kept
 * (shapes whose plan needs no workspace, BENCHMARKS.md's call path), and the same call
 * elsewhere. */
static void test_vendor_route(mmt_vendor_route route)
{
    char dir[] = "/tmp/mmtune-test-gpu-serve-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/s.db", dir);
    typedef struct {
        int mode_index; /* into modes[] */
        shape s;
    } tuned_problem;
    static const tuned_problem deep_k[] = {{2, {512, 512, 4096}}, {3, {113, 670, 1023}}, {0, {24, 40, 3000}}},
                               planned[] = {{2, {1024, 512, 768}}, {6, {128, 128, 128}}, {5, {64, 64, 64}}};
    const tuned_problem *tuned = route == MMT_VENDOR_CALL ? planned : deep_k;
    const int n = 3;
    mmt_err err;
    mmt_store *st;
    int64_t dev_id, tpl, cfg, sess;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, &tpl, &err), &err);
    CHECK_OK(mmt_store_session_begin(st, dev_id, "test_gpu_serve", "exhaustive", "0", &sess, &err), &err);
    char params[3][96];
    for (int i = 0; i < n; i++) {
        const mode_case *mc = &modes[tuned[i].mode_index];
        CHECK(mmt_vendor_route_params(be, mc->mode, route, params[i], sizeof params[i]) != NULL);
        CHECK_OK(mmt_store_config(st, tpl, params[i], &cfg, &err), &err);
        mmt_problem p = {.dtype = mc->ab, .out = mc->c, .mode = mc->mode, .layout = MMT_ROW_MAJOR,
                         .m = tuned[i].s.m, .n = tuned[i].s.n, .k = tuned[i].s.k};
        int64_t prob, trial;
        CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
        mmt_trial_rec t = {.session_id = sess, .device_id = dev_id, .problem_id = prob, .config_id = cfg,
                           .status = MMT_TRIAL_OK, .time_ms_median = 0.01, .time_ms_min = 0.01,
                           .time_ms_max = 0.01, .gflops = mmt_problem_flops(&p) / 1e4, .rel_error = 1e-4, .reps = 5};
        CHECK_OK(mmt_store_trial_add(st, &t, &trial, &err), &err);
        CHECK_OK(mmt_store_best_set(st, trial, &err), &err);
    }
    mmt_store_close(st);

    /* the route is another call: the plan needs workspace where BENCHMARKS.md says cuBLASLt
     * splits K; every one of these problems has a kept plan */
    mmt_vendor *v = NULL;
    CHECK_OK(mmt_vendor_open(be, &dev, &v, &err), &err);
    for (int i = 0; v && i < (route == MMT_VENDOR_PLAN_WORKSPACE ? 2 : n); i++) {
        const mode_case *mc = &modes[tuned[i].mode_index];
        const shape s = tuned[i].s;
        const size_t es = (size_t)mmt_dtype_size(mc->ab), cs = (size_t)mmt_dtype_size(mc->c);
        void *da = NULL, *db = NULL, *dc = NULL;
        if (be->alloc(&dev, es * s.m * s.k, &da, &err) == MMT_OK && be->alloc(&dev, es * s.k * s.n, &db, &err) == MMT_OK &&
            be->alloc(&dev, cs * s.m * s.n, &dc, &err) == MMT_OK) {
            const mmt_vendor_call call = {v, mc->mode, mc->c, MMT_VENDOR_PLAN};
            const mmt_gemm_params gp = {.m = s.m, .n = s.n, .k = s.k, .lda = s.k, .ldb = s.n, .ldc = s.n,
                                        .alpha = 1, .a = da, .b = db, .c = dc};
            const int differ = mmt_vendor_route_differs(&call, &gp, route);
            printf("%s %lldx%lldx%lld: %s is %s\n", mmt_mode_name(mc->mode), (long long)s.m, (long long)s.n,
                   (long long)s.k, params[i], differ ? "another call than the lean plan" : "the lean plan's call");
            CHECK(differ);
        }
        be->free(da), be->free(db), be->free(dc);
    }
    mmt_vendor_close(v);

    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", path), MMT_OK);
    for (int i = 0; ctx && i < n; i++) {
        const mode_case *mc = &modes[tuned[i].mode_index];
        int bad = 0;
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
            for (int shifted = 0; shifted < 2; shifted++) {
                mmt_choice how;
                char config[512];
                const double e = one_call(ctx, mc, 0, 0, 0, tuned[i].s, cases[ci], shifted, &how, config,
                                          sizeof config);
                if (!(e <= gc_bound_mode(mc->mode, mc->c, tuned[i].s.k)) || how != MMT_CHOICE_EXACT ||
                    !strstr(config, params[i])) {
                    fprintf(stderr, "%s %lldx%lldx%lld case %zu shifted %d: error %g, choice %d (%s)\n",
                            mmt_mode_name(mc->mode), (long long)tuned[i].s.m, (long long)tuned[i].s.n,
                            (long long)tuned[i].s.k, ci, shifted, e, (int)how, config);
                    bad++;
                }
            }
        printf("%s %lldx%lldx%lld by %s: %d wrong\n", mmt_mode_name(mc->mode), (long long)tuned[i].s.m,
               (long long)tuned[i].s.n, (long long)tuned[i].s.k, params[i], bad);
        CHECK_EQ_INT(bad, 0);
    }
    mmt_close(ctx);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* A call repeated on one thread skips the checks and the lookup (api.c), but not the
 * question where its operands live: the same call on host operands right after goes through
 * the host-memory route, and one that mixes host and device memory is refused, C untouched. */
static void test_repeat_operands(void)
{
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    if (!ctx) return;
    const int64_t m = 67, n = 45, k = 93;
    float *a = gc_matrix_t(MMT_F32, 0, m, k, k, 0), *b = gc_matrix_t(MMT_F32, 0, k, n, n, 0);
    float *c = gc_matrix_t(MMT_F32, 0, m, n, n, 1), *c0 = malloc(sizeof(float) * m * n);
    double *ref = gc_ref_alloc(m, n);
    gc_reference_t(MMT_F32, MMT_F32, 0, 0, 0, m, n, k, 1, a, k, b, n, 0, c, n, ref);
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    if (be->alloc(&dev, sizeof(float) * m * k, &da, &err) == MMT_OK &&
        be->alloc(&dev, sizeof(float) * k * n, &db, &err) == MMT_OK &&
        be->alloc(&dev, sizeof(float) * m * n, &dc, &err) == MMT_OK &&
        be->copy(da, a, sizeof(float) * m * k, MMT_H2D, &err) == MMT_OK &&
        be->copy(db, b, sizeof(float) * k * n, MMT_H2D, &err) == MMT_OK) {
        for (int i = 0; i < 3; i++) /* the second and third repeat the first */
            CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, m, n, k, 1, da, k, db, n, 0, dc, n), MMT_OK);
        const char *cfg = "";
        CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, m, n, k, 1, a, k, b, n, 0, c, n), MMT_OK);
        mmt_last_choice(ctx, &cfg);
        printf("the same call on host operands: error %g (%s)\n", gc_rel_error_t(MMT_F32, 0, m, n, c, n, ref), cfg);
        CHECK(gc_rel_error_t(MMT_F32, 0, m, n, c, n, ref) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, k));
        CHECK(strstr(cfg, "OOC_TILE_M=") != NULL);
        CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, m, n, k, 1, da, k, db, n, 0, dc, n), MMT_OK);
        memcpy(c0, c, sizeof(float) * m * n);
        CHECK_EQ_INT(mmt_gemm_ex(ctx, &d, m, n, k, 1, a, k, db, n, 0, c, n), MMT_INVALID_ARGUMENT);
        CHECK(memcmp(c0, c, sizeof(float) * m * n) == 0);
    }
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(c), free(c0), free(ref);
    mmt_close(ctx);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gpu_open()) return 77;
    mmt_err err;
    mmt_vendor *v = NULL;
    if (mmt_vendor_open(be, &dev, &v, &err) != MMT_OK) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    mmt_vendor_close(v);
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1);
    test_modes();
    test_fp8_c();
    test_repeat_operands();
    unsetenv("MMTUNE_DB");
    test_background_build();
    test_vendor_route(MMT_VENDOR_PLAN_WORKSPACE);
    test_vendor_route(MMT_VENDOR_CALL);
    return check_result();
}
