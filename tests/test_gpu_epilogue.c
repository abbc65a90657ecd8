/* test_gpu_epilogue.c - mmt_gemm_epilogue on GPU 0 (api.c, epilogue.c, epilogue.cu): the GEMM
 * as libmmtuned serves it (nothing tuned: the vendor, and with the vendor off the
 * templates), then the epilogue's kernel on the same stream: C = act(alpha op(A) op(B) +
 * beta C + bias) against a long double reference of the same formula for f32, f64, bf16,
 * f16 and e4m3 C (bf16 inputs to an f32 C too; FP8 C times its scale, saturated), both
 * layouts, a bias per row and per column in fp32 and in C's type, no activation, ReLU and
 * GELU's tanh form, beta = 0 over NaN and a residual, more lines than a grid's y (65535);
 * the padding of C never written. Refused with
 * nothing written: a bias in host memory, host matrices. Exits 77 (skipped) without a GPU. */
#include "epilogue_check.h"
#include "gpu_check.h"
#include "mmtuned.h"
#include "store.h"

typedef struct epi_case {
    mmt_dtype ab, c;
    int col;
    int64_t m, n, k;
    double beta;
    mmt_bias_kind bias_kind;
    int bias_c; /* the bias in C's type (else fp32) */
    mmt_activation act;
    int tb;              /* B transposed */
    mmt_compute compute; /* of f32 inputs: tf32, f32x3 */
    int aligned;         /* C's rows padded by 16 bytes (else 3 elements): with m and n in 8s, on 16 bytes */
    float scale;         /* FP8 C's (0: none) */
} epi_case;

static void *on_device(const void *x, size_t bytes)
{
    void *d = NULL;
    mmt_err err;
    CHECK_OK(be->alloc(&dev, bytes ? bytes : 1, &d, &err), &err);
    if (d) CHECK_OK(be->copy(d, x, bytes, MMT_H2D, &err), &err);
    return d;
}

/* One case: 1 where the call succeeded, C is right and its padding untouched. */
static int case_right(mmt_ctx *ctx, const epi_case *t)
{
    const int64_t pad = t->aligned ? 16 / mmt_dtype_size(t->c) : 3, br = t->tb ? t->n : t->k, bc = t->tb ? t->k : t->n;
    const int64_t lda = (t->col ? t->m : t->k), ldb = (t->col ? br : bc), ldc = (t->col ? t->m : t->n) + pad,
                  lines = t->col ? t->n : t->m;
    const mmt_dtype bt = t->bias_c ? t->c : MMT_F32;
    const int64_t nb = t->bias_kind == MMT_BIAS_PER_ROW ? t->m : t->n;
    void *a = gc_matrix_t(t->ab, t->col, t->m, t->k, lda, 0), *b = gc_matrix_t(t->ab, t->col, br, bc, ldb, 0);
    void *c = gc_matrix_t(t->c, t->col, t->m, t->n, ldc, t->beta == 0), *bias = gc_matrix_t(bt, 0, 1, nb, nb, 0);
    const size_t es = (size_t)mmt_dtype_size(t->ab), cs = (size_t)mmt_dtype_size(t->c);
    const size_t a_bytes = es * (size_t)((t->col ? t->k : t->m) * lda),
                 b_bytes = es * (size_t)((t->col ? bc : br) * ldb), c_bytes = cs * (size_t)(lines * ldc);
    double *ref = gc_ref_alloc(t->m, t->n);
    gc_reference_t(t->ab, t->c, t->col, 0, t->tb, t->m, t->n, t->k, 1.0, a, lda, b, ldb, t->beta, c, ldc, ref);
    void *da = on_device(a, a_bytes), *db = on_device(b, b_bytes), *dc = on_device(c, c_bytes),
         *dbias = on_device(bias, (size_t)(nb * mmt_dtype_size(bt)));
    const mmt_gemm_desc desc = {t->ab, t->c, t->compute, t->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR, MMT_NO_TRANS,
                                t->tb ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_epilogue epi = {t->bias_kind, bt, dbias, t->act, t->scale};
    mmt_err err;
    char *out = malloc(c_bytes);
    const mmt_status st =
        mmt_gemm_epilogue(ctx, &desc, &epi, t->m, t->n, t->k, 1.0, da, lda, db, ldb, t->beta, dc, ldc);
    const int copied =
        st == MMT_OK && be->sync(NULL, &err) == MMT_OK && be->copy(out, dc, c_bytes, MMT_D2H, &err) == MMT_OK;
    /* the GEMM's bound, carried through a bias and an activation of slope at most 1.13, and
     * C rounded once more where it is 16-bit (it is widened, then rounded again) */
    mmt_mode mode = MMT_MODE_F32;
    CHECK_EQ_INT(mmt_mode_of(t->ab, t->compute, &mode), 0);
    const double u = ldexp(1.0, t->c == MMT_F64 ? -53 : -24),
                 bound = 1.2 * gc_bound_mode(mode, t->c, t->k) + 2 * gc_unit_out(t->c) + 4 * u;
    const double e = copied ? epi_error(out, t->c, t->col, ldc, t->m, t->n, ref, &epi, bias, nb) : NAN;
    const int padding_kept = !copied || epi_padding_kept(out, c, cs, lines, ldc, pad);
    const int right = copied && e <= bound && padding_kept;
    if (!right)
        fprintf(stderr, "%s->%s %s%s %lldx%lldx%lld beta=%g bias %d (%s) act %d: %s error %g (bound %g)%s\n",
                mmt_mode_name(mode), mmt_dtype_name(t->c), t->col ? "col" : "row", t->tb ? " NT" : "", (long long)t->m,
                (long long)t->n, (long long)t->k, t->beta, t->bias_kind, t->bias_c ? "C's type" : "f32", t->act,
                st != MMT_OK ? mmt_last_error(ctx) : "", e, bound, padding_kept ? "" : ", padding written");
    be->free(da), be->free(db), be->free(dc), be->free(dbias);
    free(a), free(b), free(c), free(bias), free(ref), free(out);
    return right;
}

static void test_cases(mmt_ctx *ctx, const char *who)
{
    static const struct { mmt_dtype ab, c; } kinds[] = {
        {MMT_F32, MMT_F32}, {MMT_F64, MMT_F64}, {MMT_BF16, MMT_BF16}, {MMT_F16, MMT_F16}, {MMT_BF16, MMT_F32},
        {MMT_E4M3, MMT_E4M3}};
    static const int64_t sizes[][3] = {{37, 23, 19}, {300, 257, 64}, {70000, 3, 8}};
    int cases = 0, right = 0;
    for (size_t kd = 0; kd < sizeof kinds / sizeof kinds[0]; kd++)
        for (int s = 0; s < 3; s++)
            for (int kind = MMT_BIAS_NONE; kind <= MMT_BIAS_PER_COL; kind++)
                for (int act = MMT_ACT_NONE; act <= MMT_ACT_GELU_TANH; act++) {
                    const int v = cases++;
                    const epi_case t = {kinds[kd].ab, kinds[kd].c, v % 2, sizes[s][0], sizes[s][1], sizes[s][2],
                                        v % 3 == 0 ? 0.0 : 1.0, (mmt_bias_kind)kind,
                                        (v / 2) % 2 && !mmt_dtype_fp8(kinds[kd].c), (mmt_activation)act, 0,
                                        MMT_COMPUTE_NATIVE, 0, mmt_dtype_fp8(kinds[kd].c) ? 0.5f : 0};
                    right += case_right(ctx, &t);
                }
    printf("%s: %d of %d epilogue cases right\n", who, right, cases);
    CHECK_EQ_INT(right, cases);
}

/* Where cuBLAS serves the GEMM and beta is 0, the epilogue is fused into cuBLASLt's call:
 * bf16 row-major with a bias per column (a layer's), and column-major with one per row,
 * each right and served so (mmt_last_choice says EPILOGUE=cublasLtMatmul); with beta 1, for
 * GELU on doubles (cuBLASLt's is a single-precision one), and where a matrix's rows do not
 * start on 16 bytes (cuBLASLt's GELU_BIAS ran 4-6x its GEMM's time there), the GEMM and the
 * epilogue's kernel run apart. */
static void test_fused(mmt_ctx *ctx)
{
    const epi_case cases[] = {
        {MMT_BF16, MMT_BF16, 0, 304, 256, 64, 0.0, MMT_BIAS_PER_COL, 1, MMT_ACT_GELU_TANH, 0, MMT_COMPUTE_NATIVE, 1, 0},
        {MMT_BF16, MMT_BF16, 1, 304, 256, 64, 0.0, MMT_BIAS_PER_ROW, 1, MMT_ACT_RELU, 0, MMT_COMPUTE_NATIVE, 1, 0},
        {MMT_BF16, MMT_BF16, 0, 304, 256, 64, 1.0, MMT_BIAS_PER_COL, 1, MMT_ACT_GELU_TANH, 0, MMT_COMPUTE_NATIVE, 1, 0},
        {MMT_F64, MMT_F64, 0, 304, 256, 64, 0.0, MMT_BIAS_PER_COL, 1, MMT_ACT_RELU, 0, MMT_COMPUTE_NATIVE, 1, 0},
        {MMT_F64, MMT_F64, 0, 304, 256, 64, 0.0, MMT_BIAS_PER_COL, 1, MMT_ACT_GELU_TANH, 0, MMT_COMPUTE_NATIVE, 1, 0},
        {MMT_BF16, MMT_BF16, 0, 300, 257, 64, 0.0, MMT_BIAS_PER_COL, 1, MMT_ACT_GELU_TANH, 0, MMT_COMPUTE_NATIVE, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(case_right(ctx, &cases[i]));
        const char *config = "";
        mmt_last_choice(ctx, &config);
        printf("fused %zu: %s\n", i, config);
        const int fused = cases[i].beta == 0 && cases[i].aligned &&
                          !(cases[i].c == MMT_F64 && cases[i].act == MMT_ACT_GELU_TANH);
        CHECK_EQ_INT(strstr(config, "EPILOGUE=cublasLtMatmul") != NULL, fused);
    }
}

/* A case of an epilogue in a kernel's store: the template whose tuned entry serves it, by the
 * space's default with knobs ("NAME=VALUE ..."). */
typedef struct store_case {
    const char *tpl;
    epi_case t;
    const char *knobs;
} store_case;

/* A tuned database at path with an entry for each of the n store_cases' problems. */
static void tuned(const char *path, const void *list, size_t n)
{
    const store_case *cases = list;
    mmt_err err;
    mmt_store *st = NULL;
    int64_t dev_id = 0, sess = 0, tpl = 0;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_session_begin(st, dev_id, "test", "exhaustive", "0", &sess, &err), &err);
    for (size_t i = 0; i < n; i++) {
        const epi_case *t = &cases[i].t;
        mmt_family *fam = NULL;
        CHECK_OK(mmt_family_find_template(cases[i].tpl, &fam, &err), &err);
        if (!fam) continue;
        CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
        mmt_problem p = {.dtype = t->ab, .out = t->c, .layout = t->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                         .trans_b = t->tb, .m = t->m, .n = t->n, .k = t->k};
        CHECK_EQ_INT(mmt_mode_of(t->ab, t->compute, &p.mode), 0);
        mmt_config cfg;
        mmt_space_default(fam->space, &cfg);
        char text[512], list[128], *save = NULL;
        snprintf(list, sizeof list, "%s", cases[i].knobs);
        for (char *tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            char name[32];
            long long v = 0;
            int found = 0;
            CHECK_EQ_INT(sscanf(tok, "%31[A-Z_]=%lld", name, &v), 2);
            for (int j = 0; j < fam->space->n_params; j++)
                if (strcmp(fam->space->params[j].name, name) == 0) cfg.v[j] = v, found = 1;
            CHECK(found);
        }
        mmt_config_format(fam->space, &cfg, text, sizeof text);
        int64_t cfg_id, prob, trial;
        CHECK_OK(mmt_store_config(st, tpl, text, &cfg_id, &err), &err);
        CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
        const double ms = mmt_problem_flops(&p) / 1e9; /* 1 TFLOP/s */
        mmt_trial_rec tr = {.session_id = sess, .device_id = dev_id, .problem_id = prob, .config_id = cfg_id,
                            .status = MMT_TRIAL_OK, .time_ms_median = ms, .time_ms_min = ms, .time_ms_max = ms,
                            .gflops = 1000, .rel_error = 1e-7, .reps = 5};
        CHECK_OK(mmt_store_trial_add(st, &tr, &trial, &err), &err);
        CHECK_OK(mmt_store_best_set(st, trial, &err), &err);
        mmt_family_free(fam);
    }
    mmt_store_close(st);
}

/* The epilogue in the store of the kernel that serves the GEMM (fused.h): problems a tuned
 * database gives to the wgmma family, one for each way its store runs (C from the registers,
 * through shared memory, by TMA stores; C^T's tiles written transposed; split-K summed by
 * the last slice; FP8's promoted sums), to the mma.sync family (split-K in the order of K
 * too) and to CUDA cores' (f32 and f64; C by 16 bytes, split-K in order, stream-K), both
 * layouts, the vendor off. The operands' rows lie on 16 bytes (the TMA reads
 * them in place). Each epilogue runs first as the GEMM and the epilogue's kernel while its
 * variant builds, then, the builds done (mmt_wait_kernels), by the variant alone; right
 * both times, and served as the database says (mmt_last_choice: its knobs, EPILOGUE=fused). */
static void test_in_store(void)
{
    static const char wgmma[] = "cuda/gemm_wgmma.cu", mma[] = "cuda/gemm_mma.cu", simt[] = "cuda/gemm_simt.cu";
    const store_case cases[] = {
        {wgmma, {.ab = MMT_BF16, .c = MMT_BF16, .m = 300, .n = 520, .k = 200}, "EPI=0"},
        {wgmma, {.ab = MMT_F16, .c = MMT_F16, .col = 1, .m = 336, .n = 600, .k = 128, .tb = 1}, "EPI=1"},
        {wgmma, {.ab = MMT_BF16, .c = MMT_BF16, .m = 1001, .n = 1029, .k = 256, .tb = 1}, /* ldc 1032: the TMA's */
         "BN=256 PERSIST=1 EPI=2"},
        {wgmma, {.ab = MMT_BF16, .c = MMT_F32, .m = 700, .n = 517, .k = 256, .tb = 1}, "EPI=2"},
        {wgmma, {.ab = MMT_F32, .c = MMT_F32, .col = 1, .m = 300, .n = 260, .k = 128, .compute = MMT_COMPUTE_TF32},
         "SWAP=1 EPI=1"},
        {wgmma, {.ab = MMT_F32, .c = MMT_F32, .m = 200, .n = 300, .k = 4096, .compute = MMT_COMPUTE_F32X3},
         "SWAP=1 EPI=0 PERSIST=1 SPLITK=2"},
        {wgmma, {.ab = MMT_E4M3, .c = MMT_BF16, .m = 256, .n = 384, .k = 256, .tb = 1}, "PROMOTE=1 EPI=1"},
        /* FP8 C with a scale (64: C saturates), ldc 512 (the TMA's) */
        {wgmma, {.ab = MMT_E4M3, .c = MMT_E4M3, .m = 256, .n = 384, .k = 256, .tb = 1, .scale = 0.5f},
         "PROMOTE=1 EPI=1"},
        {wgmma, {.ab = MMT_E5M2, .c = MMT_E4M3, .m = 300, .n = 509, .k = 256, .tb = 1, .scale = 64}, "PERSIST=1 EPI=2"},
        {wgmma, {.ab = MMT_E4M3, .c = MMT_E5M2, .m = 200, .n = 300, .k = 4096, .tb = 1, .scale = 0.25f},
         "PROMOTE=1 EPI=0 PERSIST=1 SPLITK=2"},
        {mma, {.ab = MMT_BF16, .c = MMT_BF16, .m = 296, .n = 520, .k = 200}, "VEC=8"}, /* others than wgmma's */
        {mma, {.ab = MMT_F16, .c = MMT_F16, .col = 1, .m = 344, .n = 600, .k = 128, .tb = 1}, "BM=128 BN=128 VEC=8"},
        {mma, {.ab = MMT_F32, .c = MMT_F32, .m = 200, .n = 300, .k = 4096, .tb = 1, .compute = MMT_COMPUTE_TF32},
         "VEC=4 SPLITK=4 SERIAL=1"},
        {mma, {.ab = MMT_F32, .c = MMT_F32, .col = 1, .m = 300, .n = 260, .k = 128, .compute = MMT_COMPUTE_F32X3},
         "VEC=4"},
        {simt, {.ab = MMT_F32, .c = MMT_F32, .m = 288, .n = 520, .k = 200, .aligned = 1}, /* C by 16 bytes */
         "VEC=1 ASYNC=1 STAGES=3 PIPE=1"},
        {simt, {.ab = MMT_F64, .c = MMT_F64, .col = 1, .m = 344, .n = 600, .k = 128, .tb = 1}, "SPLITK=1"},
        {simt, {.ab = MMT_F32, .c = MMT_F32, .m = 200, .n = 300, .k = 4096, .tb = 1}, "SPLITK=4 SERIAL=1"},
        {simt, {.ab = MMT_F64, .c = MMT_F64, .m = 300, .n = 260, .k = 512}, "STREAMK=2"},
    };
    const size_t n = sizeof cases / sizeof cases[0];
    char path[] = "/tmp/mmt-epi-store-XXXXXX";
    mmt_ctx *ctx = epi_store_open(path, "0", tuned, cases, n);
    int fused = 0;
    for (size_t i = 0; ctx && i < n; i++)
        for (int e = 0; e < 3; e++) {
            epi_case t = cases[i].t;
            const int tma = strstr(cases[i].knobs, "EPI=2") != NULL, c_type = t.c != MMT_F32; /* its bias too */
            epi_store_kind(e, &t.bias_kind, &t.act);
            t.bias_c = e == 0 && c_type && !mmt_dtype_fp8(t.c); /* FP8 C's bias is fp32 */
            t.beta = e == 1 && !tma ? 1.0 : 0.0; /* the TMA stores C where beta is 0 */
            CHECK(case_right(ctx, &t)); /* the variant builds meanwhile */
            int built = 0;
            CHECK_EQ_INT(mmt_wait_kernels(ctx, &built), MMT_OK);
            CHECK(case_right(ctx, &t));
            fused += epi_served_fused(ctx, cases[i].knobs, cases[i].tpl, e);
        }
    epi_store_close(ctx, path, fused, 3 * n);
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* as main set it */
}

/* A bias in host memory, or host matrices: refused, C as it was. */
static void test_refused(mmt_ctx *ctx)
{
    const int64_t m = 16, n = 8, k = 4;
    float a[64], b[32], c[128], bias[8];
    for (int i = 0; i < 64; i++) a[i] = (float)i / 64;
    for (int i = 0; i < 32; i++) b[i] = (float)i / 32;
    for (int i = 0; i < 8; i++) bias[i] = 1;
    for (int i = 0; i < 128; i++) c[i] = 7;
    void *da = on_device(a, sizeof a), *db = on_device(b, sizeof b), *dc = on_device(c, sizeof c);
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const mmt_epilogue host_bias = {MMT_BIAS_PER_COL, MMT_F32, bias, MMT_ACT_RELU, 1};
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &host_bias, m, n, k, 1, da, k, db, n, 0, dc, n), MMT_INVALID_ARGUMENT);
    float back[128];
    mmt_err err;
    CHECK_OK(be->sync(NULL, &err), &err);
    CHECK_OK(be->copy(back, dc, sizeof back, MMT_D2H, &err), &err);
    CHECK(memcmp(back, c, sizeof c) == 0);
    const mmt_epilogue relu = {MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_RELU, 1};
    CHECK_EQ_INT(mmt_gemm_epilogue(ctx, &desc, &relu, m, n, k, 1, a, k, b, n, 0, c, n), MMT_UNSUPPORTED);
    for (int i = 0; i < 128; i++) CHECK(c[i] == 7);
    be->free(da), be->free(db), be->free(dc);
}

int main(void)
{
    int rc = gpu_open();
    if (rc) return rc;
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* nothing tuned */
    for (int off = 0; off < 2; off++) {
        if (off) setenv("MMTUNE_VENDOR", "off", 1); /* read when a context opens */
        mmt_ctx *ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
        if (!ctx) break;
        test_cases(ctx, off ? "the templates (the vendor off)" : "the vendor");
        if (!off) test_fused(ctx);
        test_refused(ctx);
        mmt_close(ctx);
    }
    unsetenv("MMTUNE_VENDOR");
    test_in_store();
    unsetenv("MMTUNE_DB");
    return check_result();
}
