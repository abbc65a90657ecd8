/* test_gpu_scaled.c - block-scaled FP8 (e4m3-block, e5m2-block: a scale per 128 of K of each
 * row of A and per 128 x 128 block of B, mmtuned.h's mmt_gemm_scaled) on GPU 0, a Hopper:
 * the wgmma template's instances with the scales applied as each stage's sums are promoted
 * (PROMOTE 1 and 2; one and two 64-row slices a consumer; tiles of 64, 128 and 192
 * columns, the last over two blocks of B's scales from either half of a block; split-K;
 * clusters), every orientation (the operands that are
 * not K-major packed first), C in bf16 and fp32, then the same through mmt_gemm_scaled
 * (the space's default, or cuBLASLt's block scaling where it takes the call), against a
 * long double reference of the scaled sums with the FP8 modes' bound; NaN-poisoned C with
 * beta 0, and beta C added. Exits 77 (skipped) without a GPU of compute capability 9.0. */
#include "gpu_check.h"

typedef struct scaled_case {
    mmt_mode mode;
    mmt_dtype out;
} scaled_case;

static const scaled_case scaled_cases[] = {{MMT_MODE_E4M3_BLOCK, MMT_BF16}, {MMT_MODE_E4M3_BLOCK, MMT_F32},
                                    {MMT_MODE_E5M2_BLOCK, MMT_F16}};

/* ragged K (5 blocks, the last of 8), a ragged last column block, odd small sizes, a long
 * K for split-K (and cuBLASLt's block scaling, with a ragged last column block) */
static const shape shapes[] = {{257, 300, 520}, {65, 450, 300}, {33, 17, 129}, {96, 328, 2048}};

/* configurations besides the default (PACK set per orientation as the defaults set it) */
static const char *const configs[] = {
    "BM=128,BN=128,STAGES=4,CONSUMERS=2,GROUP_M=1,CLUSTER=1,PERSIST=1,EPI=2,PACK=0,SPLITK=1,SWAP=0,PROMOTE=2",
    "BM=128,BN=64,STAGES=6,CONSUMERS=2,GROUP_M=8,CLUSTER=1,PERSIST=1,EPI=1,PACK=0,SPLITK=1,SWAP=0,PROMOTE=1",
    "BM=256,BN=64,STAGES=4,CONSUMERS=2,GROUP_M=1,CLUSTER=2,PERSIST=0,EPI=0,PACK=0,SPLITK=1,SWAP=0,PROMOTE=2",
    "BM=64,BN=128,STAGES=6,CONSUMERS=1,GROUP_M=1,CLUSTER=1,PERSIST=1,EPI=0,PACK=0,SPLITK=3,SWAP=0,PROMOTE=1",
    "BM=128,BN=192,STAGES=3,CONSUMERS=2,GROUP_M=16,CLUSTER=1,PERSIST=0,EPI=2,PACK=0,SPLITK=1,SWAP=0,PROMOTE=1",
    "BM=64,BN=192,STAGES=5,CONSUMERS=1,GROUP_M=1,CLUSTER=2,PERSIST=1,EPI=1,PACK=0,SPLITK=1,SWAP=0,PROMOTE=1",
};

/* ref = alpha sum_kb sa sb (A B over kb) + beta C0, then each element's scale (gemm_check.h). */
static void scaled_reference(mmt_dtype ab, mmt_dtype ct, int ta, int tb, shape s, double alpha, const void *a,
                             int64_t lda, const void *b, int64_t ldb, const float *sa, const float *sb, double beta,
                             const void *c0, int64_t ldc, double *ref)
{
    const int64_t kbs = (s.k + 127) / 128;
#pragma omp parallel for schedule(dynamic)
    for (int64_t i = 0; i < s.m; i++)
        for (int64_t j = 0; j < s.n; j++) {
            long double v = 0, scale = 0;
            for (int64_t kb = 0; kb < kbs; kb++) {
                long double sum = 0, abs = 0;
                for (int64_t l = kb * 128; l < s.k && l < kb * 128 + 128; l++) {
                    const long double x = ta ? gc_get_t(a, ab, 0, lda, l, i) : gc_get_t(a, ab, 0, lda, i, l);
                    const long double y = tb ? gc_get_t(b, ab, 0, ldb, j, l) : gc_get_t(b, ab, 0, ldb, l, j);
                    sum += x * y, abs += fabsl(x * y);
                }
                const long double f = (long double)sa[kb * s.m + i] * sb[(j / 128) * kbs + kb];
                v += f * sum, scale += f * abs;
            }
            v *= alpha, scale *= fabs(alpha);
            if (beta != 0) {
                const long double c = gc_get_t(c0, ct, 0, ldc, i, j);
                v += (long double)beta * c, scale += fabsl((long double)beta * c);
            }
            ref[i * s.n + j] = (double)v;
            ref[s.m * s.n + i * s.n + j] = (double)scale;
        }
}

static float *random_scales(int64_t count)
{
    float *x = malloc(sizeof(float) * (size_t)(count ? count : 1));
    for (int64_t i = 0; i < count; i++) /* 0.125 to 6 */
        x[i] = (float)ldexp(1.0 + 0.5 * gc_random(), (int)(3 * gc_random()));
    return x;
}

/* One problem's operands on host and device. */
typedef struct operands {
    shape s;
    int ta, tb;
    int64_t lda, ldb, ldc;
    void *a, *b, *c0;
    float *sa, *sb;
    void *da, *db, *dc, *dsa, *dsb;
} operands;

static void *put(const void *x, size_t bytes)
{
    mmt_err err;
    void *d = NULL;
    CHECK_OK(be->alloc(&dev, bytes ? bytes : 1, &d, &err), &err);
    if (d && x && bytes) CHECK_OK(be->copy(d, x, bytes, MMT_H2D, &err), &err); /* x NULL: left as allocated */
    return d;
}

static operands operands_of(const scaled_case *sc, shape s, int ta, int tb)
{
    const mmt_dtype ab = mmt_mode_dtype(sc->mode);
    operands o = {.s = s, .ta = ta, .tb = tb};
    const int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    o.lda = (ac + 15) / 16 * 16, o.ldb = (bc + 15) / 16 * 16, o.ldc = s.n;
    o.a = gc_matrix_t(ab, 0, ar, ac, o.lda, 0), o.b = gc_matrix_t(ab, 0, br, bc, o.ldb, 0);
    o.c0 = gc_matrix_t(sc->out, 0, s.m, s.n, o.ldc, 0);
    const int64_t kbs = (s.k + 127) / 128;
    o.sa = random_scales(kbs * s.m), o.sb = random_scales((s.n + 127) / 128 * kbs);
    o.da = put(o.a, (size_t)(ar * o.lda)), o.db = put(o.b, (size_t)(br * o.ldb));
    o.dc = put(NULL, (size_t)(mmt_dtype_size(sc->out) * s.m * s.n));
    o.dsa = put(o.sa, sizeof(float) * (size_t)(kbs * s.m));
    o.dsb = put(o.sb, sizeof(float) * (size_t)((s.n + 127) / 128 * kbs));
    return o;
}

static void operands_free(operands *o)
{
    be->free(o->da), be->free(o->db), be->free(o->dc), be->free(o->dsa), be->free(o->dsb);
    free(o->a), free(o->b), free(o->c0), free(o->sa), free(o->sb);
}

/* C's error after run (an instance's launch or mmt_gemm_scaled) with beta: C poisoned with
 * NaN first (beta 0) or set to C0. */
typedef mmt_status (*runner)(void *user, const operands *o, double alpha, double beta, mmt_err *err);

static double error_of(const scaled_case *sc, const operands *o, double beta, runner run, void *user)
{
    const mmt_dtype ct = sc->out, ab = mmt_mode_dtype(sc->mode);
    const size_t csz = (size_t)mmt_dtype_size(ct) * o->s.m * o->s.n;
    void *host = malloc(csz ? csz : 1);
    double *ref = gc_ref_alloc(o->s.m, o->s.n);
    mmt_err err;
    const double alpha = 0.75;
    if (beta == 0) memset(host, 0xff, csz);
    else memcpy(host, o->c0, csz);
    double e = INFINITY;
    if (be->copy(o->dc, host, csz, MMT_H2D, &err) == MMT_OK && run(user, o, alpha, beta, &err) == MMT_OK &&
        be->sync(NULL, &err) == MMT_OK && be->copy(host, o->dc, csz, MMT_D2H, &err) == MMT_OK) {
        scaled_reference(ab, ct, o->ta, o->tb, o->s, alpha, o->a, o->lda, o->b, o->ldb, o->sa, o->sb, beta, o->c0,
                         o->ldc, ref);
        e = gc_rel_error_t(ct, 0, o->s.m, o->s.n, host, o->ldc, ref);
    } else {
        fprintf(stderr, "  %s\n", err.msg);
    }
    free(host), free(ref);
    return e;
}

typedef struct instance_run {
    mmt_module *mod;
    mmt_geometry g;
} instance_run;

static mmt_status run_instance(void *user, const operands *o, double alpha, double beta, mmt_err *err)
{
    instance_run *ir = user;
    void *ws = NULL;
    if (ir->g.workspace > 0) FORWARD_IF_ERROR(be->alloc(&dev, (size_t)ir->g.workspace, &ws, err));
    mmt_gemm_params gp = {.m = o->s.m, .n = o->s.n, .k = o->s.k, .lda = o->lda, .ldb = o->ldb, .ldc = o->ldc,
                          .trans_a = o->ta, .trans_b = o->tb, .alpha = alpha, .beta = beta, .a = o->da, .b = o->db,
                          .c = o->dc, .workspace = ws, .workspace_size = ws ? ir->g.workspace : 0,
                          .scale_a = o->dsa, .scale_b = o->dsb};
    mmt_status st = be->launch(ir->mod, &gp, &ir->g, NULL, err);
    if (st == MMT_OK) st = be->sync(NULL, err);
    be->free(ws);
    return st;
}

/* mmt_gemm_scaled on a context: what libmmtuned serves an untuned block-scaled call. */
typedef struct api_run {
    mmt_ctx *ctx;
    const scaled_case *sc;
} api_run;

static mmt_status run_api(void *user, const operands *o, double alpha, double beta, mmt_err *err)
{
    const api_run *ar = user;
    const mmt_gemm_desc d = {mmt_mode_dtype(ar->sc->mode), ar->sc->out, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR,
                             o->ta ? MMT_TRANS : MMT_NO_TRANS, o->tb ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_status st = mmt_gemm_scaled(ar->ctx, &d, o->dsa, o->dsb, o->s.m, o->s.n, o->s.k, alpha, o->da, o->lda,
                                          o->db, o->ldb, beta, o->dc, o->ldc);
    return st == MMT_OK ? st : mmt_err_set(err, st, "mmt_gemm_scaled: %s", mmt_last_error(ar->ctx));
}

/* Through the API, every case, shape and orientation: right, and served by the templates. */
static void check_api(void)
{
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    if (!ctx) return;
    for (size_t ci = 0; ci < sizeof scaled_cases / sizeof scaled_cases[0]; ci++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int t = 0; t < 4; t++) {
                operands o = operands_of(&scaled_cases[ci], shapes[si], t & 1, t >> 1);
                api_run ar = {ctx, &scaled_cases[ci]};
                const double e = error_of(&scaled_cases[ci], &o, 0.0, run_api, &ar),
                             bound = gc_bound_mode(scaled_cases[ci].mode, scaled_cases[ci].out, shapes[si].k);
                const char *config = NULL;
                const mmt_choice how = mmt_last_choice(ctx, &config);
                /* cuBLASLt's block scaling: e4m3, NT, M in 4s, K in 512s (vendor.c) */
                const int vendor = scaled_cases[ci].mode == MMT_MODE_E4M3_BLOCK && t == 2 && si == 3;
                const int served = config && strstr(config, vendor ? "LIBRARY=cuBLAS" : "PROMOTE=");
                if (!(e <= bound) || !served)
                    fprintf(stderr, "mmt_gemm_scaled case %zu shape %zu orientation %d: error %.3g (bound %.3g), "
                                    "choice %d %s\n", ci, si, t, e, bound, (int)how, config ? config : "");
                CHECK(e <= bound);
                CHECK(served); /* a template, promoting, or the vendor where it takes the call */
                operands_free(&o);
            }
    /* NULL scales with work to do: refused, nothing written */
    operands o = operands_of(&scaled_cases[0], shapes[2], 0, 1);
    const mmt_gemm_desc d = {MMT_E4M3, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
    CHECK_EQ_INT(mmt_gemm_scaled(ctx, &d, NULL, o.dsb, o.s.m, o.s.n, o.s.k, 1.0, o.da, o.lda, o.db, o.ldb, 0.0, o.dc,
                                 o.ldc),
                 MMT_INVALID_ARGUMENT);
    operands_free(&o);
    mmt_close(ctx);
}

/* The instances of configs and the default for one case, shape and orientation. */
static int check_instances(const mmt_family *fam, const scaled_case *sc, shape s, int ta, int tb)
{
    operands o = operands_of(sc, s, ta, tb);
    mmt_problem p = {.dtype = mmt_mode_dtype(sc->mode), .out = sc->out, .mode = sc->mode, .layout = MMT_ROW_MAJOR,
                     .trans_a = ta, .trans_b = tb, .m = s.m, .n = s.n, .k = s.k};
    mmt_space_env env = {.problem = &p, .device = &dev, .align_a = 16, .align_b = 16};
    const int64_t pack = ta + 2 * !tb;
    int bad = 0, pack_idx = -1;
    for (int i = 0; i < fam->space->n_params; i++)
        if (strcmp(fam->space->params[i].name, "PACK") == 0) pack_idx = i;
    CHECK(pack_idx >= 0);
    for (size_t ci = 0; ci <= sizeof configs / sizeof configs[0]; ci++) {
        mmt_config cfg;
        mmt_err err;
        int valid = 0;
        if (ci == 0) CHECK_OK(mmt_space_default_for(fam->space, &env, &cfg, NULL, &err), &err);
        else CHECK_OK(mmt_config_parse(fam->space, configs[ci - 1], &cfg, &err), &err);
        if (ci > 0 && pack_idx >= 0) cfg.v[pack_idx] = pack;
        mmt_space_check(fam->space, &cfg, &env, &valid, NULL, NULL);
        if (!valid) continue; /* split-K where there are enough tiles, say */
        char text[512], defines[4096], *log = NULL, name[64];
        mmt_config_format(fam->space, &cfg, text, sizeof text);
        void *bin = NULL;
        size_t bytes = 0;
        instance_run ir = {0};
        mmt_status st = mmt_kernel_defines(fam->space, &cfg, &env, defines, sizeof defines, &err);
        if (st == MMT_OK) st = be->compile(&dev, fam->source, defines, &bin, &bytes, &log, &err);
        if (st == MMT_OK) st = be->load(&dev, bin, bytes, fam->space->entry, &ir.mod, &err);
        if (st == MMT_OK) st = mmt_space_geometry(fam->space, &cfg, &env, &ir.g, &err);
        free(bin), free(log);
        CHECK_OK(st, &err);
        if (st != MMT_OK) continue;
        mmt_problem_format(&p, name, sizeof name);
        for (int b0 = 0; b0 < 2; b0++) {
            const double e = error_of(sc, &o, b0 ? 0.5 : 0.0, run_instance, &ir),
                         bound = gc_bound_mode(sc->mode, sc->out, s.k);
            if (!(e <= bound)) {
                fprintf(stderr, "%s %s beta %g: error %.3g above %.3g\n", name, text, b0 ? 0.5 : 0.0, e, bound);
                bad++;
            }
            CHECK(e <= bound);
        }
        printf("%-34s %-110s ok\n", name, text);
        be->unload(ir.mod);
    }
    operands_free(&o);
    return bad;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gpu_open()) return 77;
    int64_t major = 0, minor = 0;
    mmt_device_get_prop(&dev, "cc_major", 8, &major), mmt_device_get_prop(&dev, "cc_minor", 8, &minor);
    if (major != 9 || minor != 0) {
        printf("skipped: block-scaled FP8 runs on compute capability 9.0 (the wgmma family)\n");
        return 77;
    }
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_wgmma.yaml", &fam, &err), &err);
    if (!fam) return check_result();
    for (size_t ci = 0; ci < sizeof scaled_cases / sizeof scaled_cases[0]; ci++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int t = 0; t < 4; t++)
                if (!gc_quick() || t == 2 || si == 0) /* quick: NT, and the first shape in every orientation */
                    check_instances(fam, &scaled_cases[ci], shapes[si], t & 1, t >> 1);
    mmt_family_free(fam);
    check_api();
    return check_result();
}
