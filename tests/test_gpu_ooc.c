/* test_gpu_ooc.c - GEMM on host matrices on a GPU context (out of core, ooc.h), through the
 * public API: small forced tiles and panels so that every call runs many tiles, several
 * panels and ragged edges, for every mode and output type, both layouts, every transpose,
 * odd leading dimensions, the BLAS rules (beta = 0 with NaN-poisoned C, alpha = 0 with NaN A
 * and B), K = 0, against a long double reference with the tuner's bound, C's padding
 * untouched, through staging and (fewer kinds) in place from pinned matrices, on one GPU
 * and dealt across all; the default plan on a larger problem; pinned host operands; the
 * refusals (mixed host and device operands, bad knobs, tiles the GPU cannot hold) with
 * nothing written; one of two GPUs failing part way (the other completes C); a tiny tune of
 * the knobs (ooc_tune.h) into a database of its own, whose best a later call takes for its
 * problem (exact) and a neighbour (nearest), the caller's own knobs winning where set.
 * Exits 77 (skipped) without a GPU. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "ooc.h"
#include "ooc_tune.h" /* the tuner's (mmtune_core) */
#include "query.h"

typedef struct kind {
    mmt_dtype ab, c;
    mmt_compute compute;
} kind;

static const kind kinds[] = {
    {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE},  {MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE},
    {MMT_BF16, MMT_F32, MMT_COMPUTE_NATIVE}, {MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE},
    {MMT_F16, MMT_F32, MMT_COMPUTE_NATIVE},  {MMT_F16, MMT_F16, MMT_COMPUTE_NATIVE},
    {MMT_F32, MMT_F32, MMT_COMPUTE_TF32},    {MMT_F32, MMT_F32, MMT_COMPUTE_F32X3},
};

typedef struct ab {
    double alpha, beta;
    int nan_c, nan_ab;
} ab;

/* beta = 0 never reads C (poisoned), alpha = 0 never reads A and B (poisoned) */
static const ab cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 1}, {-1.5, 1.0, 0, 0}};

/* Tiles of 48 x 40 and panels of 24: 110 x 70 x 90 is 3 x 2 tiles (ragged), 4 panels (ragged).
 * The edges stay wider than 8, so they run the family of the whole tiles (thin ones would
 * each build a kernel of the thin family, for no more coverage of the tiling). */
static const int64_t shapes[][3] = {{110, 70, 90}, {1, 1, 1}, {33, 129, 0}, {60, 57, 25}};

/* A copy of host matrix x (size bytes) in memory CUDA pinned, or x itself where pinned is 0. */
static void *placed(void *x, size_t size, int pinned)
{
    void *p = NULL;
    mmt_err err;
    if (!pinned) return x;
    CHECK_OK(mmt_cuda_async_api()->host_alloc(0, size ? size : 1, &p, &err), &err);
    if (p) memcpy(p, x, size);
    return p;
}

static void unplace(void *p, int pinned)
{
    if (pinned) mmt_cuda_async_api()->host_free(0, p);
}

/* One call on host matrices (pinned: in memory CUDA pinned, which the copies read in place);
 * returns its relative error (NaN or inf: wrong), or -1 if the padding of C changed. */
static double run_case(mmt_ctx *ctx, const kind *kd, const int64_t *sh, int col, int ta, int tb, const ab *cs,
                       int odd, int pinned)
{
    const int64_t m = sh[0], n = sh[1], k = sh[2];
    const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int64_t lda = (col ? ar : ac) + (odd ? 3 : 0), ldb = (col ? br : bc) + (odd ? 1 : 0);
    const int64_t ldc = (col ? m : n) + (odd ? 5 : 0);
    const int64_t lda1 = lda > 0 ? lda : 1, ldb1 = ldb > 0 ? ldb : 1;
    void *a = gc_matrix_t(kd->ab, col, ar, ac, lda1, cs->nan_ab);
    void *b = gc_matrix_t(kd->ab, col, br, bc, ldb1, cs->nan_ab);
    void *c = gc_matrix_t(kd->c, col, m, n, ldc, cs->nan_c);
    const size_t c_size = (size_t)((col ? n : m) * ldc * mmt_dtype_size(kd->c));
    void *c0 = malloc(c_size);
    memcpy(c0, c, c_size);
    double *ref = gc_ref_alloc(m, n);
    gc_reference_t(kd->ab, kd->c, col, ta, tb, m, n, k, cs->alpha, a, lda1, b, ldb1, cs->beta, c0, ldc, ref);
    const mmt_gemm_desc d = {kd->ab, kd->c, kd->compute, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS};
    const size_t a_size = (size_t)((col ? ac : ar) * lda1 * mmt_dtype_size(kd->ab));
    const size_t b_size = (size_t)((col ? bc : br) * ldb1 * mmt_dtype_size(kd->ab));
    void *pa = placed(a, a_size, pinned), *pb = placed(b, b_size, pinned), *pc = placed(c, c_size, pinned);
    mmt_status st = mmt_gemm_ex(ctx, &d, m, n, k, cs->alpha, pa, lda1, pb, ldb1, cs->beta, pc, ldc);
    if (pinned) memcpy(c, pc, c_size);
    unplace(pa, pinned), unplace(pb, pinned), unplace(pc, pinned);
    double e = INFINITY;
    if (st != MMT_OK) {
        fprintf(stderr, "mmt_gemm_ex: %s: %s\n", mmt_status_string(st), mmt_last_error(ctx));
    } else {
        e = gc_rel_error_t(kd->c, col, m, n, c, ldc, ref);
        const int64_t es = mmt_dtype_size(kd->c), rows = col ? n : m, used = col ? m : n;
        for (int64_t r = 0; r < rows; r++) /* the padding of each stored row, bit for bit */
            if (memcmp((char *)c + (r * ldc + used) * es, (char *)c0 + (r * ldc + used) * es,
                       (size_t)((ldc - used) * es)) != 0)
                e = -1;
    }
    free(a), free(b), free(c), free(c0), free(ref);
    return e;
}

/* The first n_kinds kinds on `devices` (NULL: the context's GPU), the matrices pinned (read
 * and written in place) or not (through staging). */
static void test_forced_tiles(mmt_ctx *ctx, size_t n_kinds, int pinned, const char *devices)
{
    const mmt_host_gemm_config cfg = {.tile_m = 48, .tile_n = 40, .panel_k = 24, .streams = 3, .devices = devices};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &cfg), MMT_OK);
    for (size_t ki = 0; ki < n_kinds; ki++) {
        const kind *kd = &kinds[ki];
        mmt_mode mode;
        mmt_mode_of(kd->ab, kd->compute, &mode);
        int bad = 0, runs = 0;
        /* every transpose for one type of each size (what the packing sees), NN and TT for the
         * other kinds (each transpose pair is a kernel to build) */
        const int all_trans = ki < 3;
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int v = 0; v < 16; v++) /* layout, transposes, odd leading dimensions */
                for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
                    const int col = v & 1, ta = v >> 1 & 1, tb = v >> 2 & 1, odd = v >> 3 & 1;
                    if (!all_trans && ta != tb) continue;
                    const double bound = gc_bound_mode(mode, kd->c, shapes[si][2]);
                    const double e = run_case(ctx, kd, shapes[si], col, ta, tb, &cases[ci], odd, pinned);
                    runs++;
                    if (!(e >= 0 && e <= bound)) {
                        fprintf(stderr, "%s->%s %s %lldx%lldx%lld %s%s%s case %zu: %s %g (bound %g)\n",
                                mmt_mode_name(mode), mmt_dtype_name(kd->c), col ? "col" : "row",
                                (long long)shapes[si][0], (long long)shapes[si][1], (long long)shapes[si][2],
                                ta ? "T" : "N", tb ? "T" : "N", odd ? " odd ld" : "", ci,
                                e < 0 ? "C's padding changed" : "rel error", e, bound);
                        bad++;
                    }
                }
        CHECK_EQ_INT(bad, 0);
        printf("%s->%s: %d calls on host matrices (%s, devices %s), tiles 48x40, panels of 24, 3 streams: %s\n",
               mmt_mode_name(mode), mmt_dtype_name(kd->c), runs, pinned ? "pinned" : "staged",
               devices ? devices : "the context's", bad ? "WRONG" : "ok");
    }
    /* what ran is said: the tile's kernel, then the plan */
    const char *config = NULL;
    const kind f32 = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE};
    const int64_t sh[3] = {110, 70, 90};
    CHECK(run_case(ctx, &f32, sh, 0, 0, 0, &cases[1], 0, pinned) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, 90));
    CHECK(mmt_last_choice(ctx, &config) != MMT_CHOICE_NONE);
    printf("configuration: %s\n", config);
    char expect[128];
    snprintf(expect, sizeof expect, "OOC_TILE_M=48,OOC_TILE_N=40,OOC_PANEL_K=24,OOC_STREAMS=3,OOC_GPUS=%d",
             devices ? mmt_backend_cuda(NULL)->device_count() : 1);
    CHECK(strstr(config, expect) != NULL);
    CHECK(strstr(config, pinned ? "OOC_PINNED=1" : "OOC_PINNED=0") != NULL);
    /* column-major: the caller's tile is rows x columns of C as the caller stores it */
    CHECK(run_case(ctx, &f32, sh, 1, 0, 0, &cases[1], 0, pinned) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, 90));
    mmt_last_choice(ctx, &config);
    CHECK(strstr(config, "OOC_TILE_M=48,OOC_TILE_N=40") != NULL);
}

/* The default plan (one tile here), mmt_sgemm and mmt_dgemm, and "all" GPUs. */
static void test_defaults(mmt_ctx *ctx)
{
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, NULL), MMT_OK);
    const kind kd[2] = {{MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE}, {MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE}};
    const int64_t sh[3] = {700, 500, 1100};
    for (int f64 = 0; f64 < 2; f64++) {
        const double e = run_case(ctx, &kd[f64], sh, f64, 1, 0, &cases[3], 1, 0);
        CHECK(e >= 0 && e <= gc_bound(f64, sh[2]));
        const char *config;
        mmt_last_choice(ctx, &config);
        CHECK(strstr(config, "OOC_TILE_M=700,OOC_TILE_N=500,OOC_PANEL_K=1100,OOC_STREAMS=2") != NULL);
    }
    const int64_t m = 300, n = 200, k = 260;
    float *a = gc_matrix(0, 0, m, k, k, 0), *b = gc_matrix(0, 0, k, n, n, 0), *c = gc_matrix(0, 0, m, n, n, 1);
    double *ref = gc_ref_alloc(m, n);
    gc_reference(0, 0, 0, 0, m, n, k, 1.0, a, k, b, n, 0.0, c, n, ref);
    const mmt_host_gemm_config all = {.devices = "all"};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &all), MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n),
                 MMT_OK);
    CHECK(gc_rel_error(0, 0, m, n, c, n, ref) <= gc_bound(0, k));
    const char *config;
    mmt_last_choice(ctx, &config);
    printf("devices all: %s\n", config);
    free(a), free(b), free(c), free(ref);
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, NULL), MMT_OK);
}

/* A tile kernel that fails from its (fail_after + 1)-th call on (-1: never): a GPU that
 * breaks part way through a host-memory GEMM. A healthy one waits (up to 10 s) at its first
 * call until the other has failed, so that the failing one takes the tiles it fails on. */
typedef struct flaky {
    mmt_ctx *ctx;
    int calls, fail_after, waited;
    atomic_int failed;
    struct flaky *other;
} flaky;

static mmt_status flaky_gemm(void *user, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, double alpha,
                             const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc,
                             mmt_err *err)
{
    flaky *f = user;
    if (f->fail_after >= 0 && f->calls++ >= f->fail_after) {
        atomic_store(&f->failed, 1);
        return mmt_err_set(err, MMT_LAUNCH, "a forced failure");
    }
    for (int i = 0; f->fail_after < 0 && !f->waited && i < 10000 && !atomic_load(&f->other->failed); i++)
        usleep(1000);
    f->waited = 1;
    mmt_status st = mmt_gemm_ex(f->ctx, d, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return st == MMT_OK ? st : mmt_err_set(err, st, "%s", mmt_last_error(f->ctx));
}

/* Two "GPUs" (two pipelines on GPU 0) of which one or both fail part way (tiles of 4 panels:
 * failing at its 6th kernel, a GPU leaves its second tile and the first one's write-back
 * pending): where one lives, it computes the other's unfinished tiles and C is complete
 * (MMT_LAUNCH, said so), through staging (beta != 0 too, the pending tile's C unpacked
 * never) and in place (pinned) with beta = 0; in place with beta != 0 the pending tile
 * cannot be computed again, and where both fail, C is not said complete. */
static void test_gpu_failure(void)
{
    mmt_ctx *dctx = NULL;
    CHECK_EQ_INT(mmt_open(&dctx, "0", NULL), MMT_OK);
    const int64_t m = 110, n = 70, k = 90;
    const struct { int fail0, fail1, pinned; double beta; int complete, partly; } runs[] = {
        {-1, 3, 0, -1.25, 1, 0}, {0, -1, 0, -1.25, 1, 0}, {-1, 5, 0, -1.25, 1, 0},
        {-1, 5, 1, 0.0, 1, 0},   {-1, 5, 1, -1.25, 0, 1}, {2, 4, 0, 0.5, 0, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        float *a = gc_matrix(0, 0, m, k, k, 0), *b = gc_matrix(0, 0, k, n, n, 0), *c = gc_matrix(0, 0, m, n, n, 0);
        double *ref = gc_ref_alloc(m, n);
        gc_reference(0, 0, 0, 0, m, n, k, 0.75, a, k, b, n, runs[r].beta, c, n, ref);
        const int pin = runs[r].pinned;
        float *pa = placed(a, sizeof(float) * m * k, pin), *pb = placed(b, sizeof(float) * k * n, pin);
        float *pc = placed(c, sizeof(float) * m * n, pin);
        flaky f[2] = {{.ctx = dctx, .fail_after = runs[r].fail0}, {.ctx = dctx, .fail_after = runs[r].fail1}};
        f[0].other = &f[1], f[1].other = &f[0];
        mmt_ooc_device *dv[2] = {mmt_ooc_device_new(0), mmt_ooc_device_new(0)};
        const mmt_ooc_gpu gpus[2] = {{dv[0], NULL, flaky_gemm, &f[0]}, {dv[1], NULL, flaky_gemm, &f[1]}};
        const mmt_ooc_job job = {.desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS},
                                 .m = m, .n = n, .k = k, .alpha = 0.75, .beta = runs[r].beta, .a = pa, .b = pb, .c = pc,
                                 .lda = k, .ldb = n, .ldc = n, .knobs = {48, 40, 24, 2}, .n_gpus = 2, .gpus = gpus};
        mmt_ooc_plan plan;
        mmt_err err;
        mmt_err_clear(&err);
        const mmt_status st = mmt_ooc_run(&job, &plan, &err);
        if (pin) memcpy(c, pc, sizeof(float) * m * n);
        const int said = strstr(err.msg, "C is complete") != NULL;
        printf("failing GPUs (after %d and %d tile kernels, %s): %s: %s\n", runs[r].fail0, runs[r].fail1,
               pin ? "pinned" : "staged", mmt_status_string(st), err.msg);
        CHECK_EQ_INT(st, MMT_LAUNCH);
        CHECK_EQ_INT(said, runs[r].complete);
        if (runs[r].partly) CHECK(strstr(err.msg, "C is partly written") != NULL);
        CHECK_EQ_INT(plan.pinned, pin);
        if (runs[r].complete) CHECK(gc_rel_error(0, 0, m, n, c, n, ref) <= gc_bound(0, k));
        mmt_ooc_device_free(dv[0]), mmt_ooc_device_free(dv[1]);
        unplace(pa, pin), unplace(pb, pin), unplace(pc, pin);
        free(a), free(b), free(c), free(ref);
    }
    mmt_close(dctx);
}

/* Pinned host memory (cuMemHostAlloc) is host memory too, and copied in place. */
static void test_pinned(mmt_ctx *ctx)
{
    const int64_t m = 130, n = 90, k = 70;
    float *ha = gc_matrix(0, 0, m, k, k, 0), *hb = gc_matrix(0, 0, k, n, n, 0), *hc = gc_matrix(0, 0, m, n, n, 0);
    float *a = placed(ha, sizeof(float) * m * k, 1), *b = placed(hb, sizeof(float) * k * n, 1);
    float *c = placed(hc, sizeof(float) * m * n, 1);
    CHECK(mmt_cuda_async_api()->is_host(a) && mmt_cuda_async_api()->is_host(c));
    double *ref = gc_ref_alloc(m, n);
    gc_reference(0, 0, 0, 1, m, n, k, 0.5, ha, k, hb, k, 2.0, hc, n, ref);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS, m, n, k, 0.5f, a, k, b, k, 2.0f, c, n), MMT_OK);
    CHECK(gc_rel_error(0, 0, m, n, c, n, ref) <= gc_bound(0, k));
    const char *config;
    mmt_last_choice(ctx, &config);
    printf("pinned by the caller: %s\n", config);
    CHECK(strstr(config, "OOC_PINNED=1") != NULL); /* copied in place */
    unplace(a, 1), unplace(b, 1), unplace(c, 1);
    free(ha), free(hb), free(hc), free(ref);
}

/* Refusals, with C as it was. */
static void test_refusals(mmt_ctx *ctx)
{
    const mmt_cuda_async *cu = mmt_cuda_async_api();
    mmt_err err;
    float host[64], c[16], c0[16];
    for (int i = 0; i < 64; i++) host[i] = (float)i;
    for (int i = 0; i < 16; i++) c[i] = c0[i] = (float)-i;
    void *dev = NULL;
    CHECK_OK(cu->dev_alloc(0, sizeof host, &dev, &err), &err);
    CHECK(!cu->is_host(dev) && cu->is_host(host) && cu->is_host(c));
    /* device A, host B and C */
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1.0f, dev, 4, host, 4, 0.0f, c, 4),
                 MMT_INVALID_ARGUMENT);
    printf("mixed: %s\n", mmt_last_error(ctx));
    CHECK(strstr(mmt_last_error(ctx), "A is device") != NULL);
    CHECK(memcmp(c, c0, sizeof c) == 0);
    /* host A and B, device C */
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 4, 4, 4, 1.0f, host, 4, host, 4, 0.0f, dev, 4),
                 MMT_INVALID_ARGUMENT);
    cu->dev_free(0, dev);
    /* knobs */
    mmt_host_gemm_config bad = {.streams = 9};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &bad), MMT_INVALID_ARGUMENT);
    bad = (mmt_host_gemm_config){.tile_m = -1};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &bad), MMT_INVALID_ARGUMENT);
    bad = (mmt_host_gemm_config){.devices = "0,zero"};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &bad), MMT_INVALID_ARGUMENT);
    bad = (mmt_host_gemm_config){.devices = "63"};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &bad), MMT_NOT_FOUND);
    /* a tile the caller set that no GPU holds (200000^2 fp32, two of them: 320 GB) fails before
     * anything is read or written (the small buffers would fault if anything were) */
    const mmt_host_gemm_config huge = {.tile_m = 200000, .tile_n = 200000};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &huge), MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 200000, 200000, 4, 1.0f, host, 4, host,
                           200000, 0.0f, c, 200000),
                 MMT_OUT_OF_MEMORY);
    printf("too large a tile: %s\n", mmt_last_error(ctx));
    CHECK(memcmp(c, c0, sizeof c) == 0);
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, NULL), MMT_OK);
    /* the CPU has no host-memory GEMM to configure */
    mmt_ctx *cpu = NULL;
    CHECK_EQ_INT(mmt_open(&cpu, "cpu", NULL), MMT_OK);
    CHECK_EQ_INT(mmt_set_host_gemm(cpu, NULL), MMT_UNSUPPORTED);
    mmt_close(cpu);
}

/* mmtune's tune of a host: true problem, in this process, then libmmtuned serving it. */
static void test_tuned(const mmt_backend *be)
{
    char dir[] = "/tmp/mmtune-test-gpu-ooc-XXXXXX", path[256], text[256];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/t.db", dir);
    mmt_err err;
    mmt_tuner t = {.be = be, .strategy = "exhaustive"};
    CHECK_OK(be->probe(0, &t.dev, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &t.st, &err), &err);
    CHECK_OK(mmt_store_device(t.st, &t.dev, &t.device_id, &err), &err);
    CHECK_OK(mmt_store_session_begin(t.st, t.device_id, "test_gpu_ooc", "exhaustive", "0", &t.session_id, &err), &err);
    /* tiles of 1100x900 and 550x450, panels of 1300 and 650, 2 and 3 streams */
    const mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                           .m = 1100, .n = 900, .k = 1300};
    mmt_tune_result r;
    CHECK_OK(mmt_ooc_tune_problem(&t, "cuda:0", path, &p, &r, &err), &err);
    mmt_store_close(t.st);
    CHECK(r.ok && r.measured == 8 && r.failed == 0 && !r.partial);
    printf("tuned: %s, %.3f ms (%s)\n", r.params, r.tuned.median_ms, r.detail.figures);
    query(path, "SELECT count(*) FROM trial JOIN config c ON c.id = config_id JOIN template x ON x.id = c.template_id "
                "WHERE x.name = 'ooc' AND status = 'ok' AND rel_error >= 0",
          text, sizeof text);
    CHECK_EQ_STR(text, "8");
    query(path, "SELECT params FROM best_view WHERE template = 'ooc' AND partial = 0", text, sizeof text);
    CHECK_EQ_STR(text, r.params);

    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cuda:0", path), MMT_OK);
    if (!ctx) return;
    const kind f32 = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE};
    const int64_t exact[3] = {1100, 900, 1300}, near[3] = {1000, 900, 1300};
    const char *config;
    CHECK(run_case(ctx, &f32, exact, 0, 0, 0, &cases[0], 0, 0) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, 1300));
    mmt_last_choice(ctx, &config);
    printf("exact: %s\n", config);
    CHECK(strstr(config, r.params) != NULL && strstr(config, "OOC_TUNED=exact") != NULL);
    CHECK(run_case(ctx, &f32, near, 0, 0, 0, &cases[1], 0, 0) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, 1300));
    mmt_last_choice(ctx, &config);
    printf("nearest: %s\n", config);
    CHECK(strstr(config, "OOC_TUNED=nearest") != NULL);
    /* the caller's knob wins; the others still come from the tune */
    const mmt_host_gemm_config panel = {.panel_k = 512};
    CHECK_EQ_INT(mmt_set_host_gemm(ctx, &panel), MMT_OK);
    CHECK(run_case(ctx, &f32, exact, 0, 0, 0, &cases[1], 0, 0) <= gc_bound_mode(MMT_MODE_F32, MMT_F32, 1300));
    mmt_last_choice(ctx, &config);
    printf("panel set: %s\n", config);
    CHECK(strstr(config, "OOC_PANEL_K=512,") != NULL && strstr(config, "OOC_TUNED=exact") != NULL);
    mmt_close(ctx);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines as they come: a timeout keeps what ran */
    mmt_err err;
    const mmt_backend *be = mmt_backend_cuda(&err);
    if (!be || be->device_count() == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    /* no tuned problem: every tile runs the vendor library (cuBLAS), or its template's default
     * where there is none */
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1);
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cuda:0", NULL), MMT_OK);
    if (!ctx || check_result()) {
        fprintf(stderr, "mmt_open: %s\n", mmt_last_error(ctx));
        return 1;
    }
    const size_t n_kinds = sizeof kinds / sizeof kinds[0];
    test_forced_tiles(ctx, n_kinds, 0, NULL);
    if (be->device_count() > 1) test_forced_tiles(ctx, n_kinds, 0, "all"); /* tiles dealt across the GPUs */
    /* pinned matrices, copied in place: every transpose, one type of each size */
    test_forced_tiles(ctx, 3, 1, be->device_count() > 1 ? "all" : NULL);
    test_defaults(ctx);
    test_pinned(ctx);
    test_gpu_failure();
    test_refusals(ctx);
    mmt_close(ctx);
    test_tuned(be);
    return check_result();
}
