/* test_serve.c - the vendor library as a family that libmmtuned serves (api.c, predict.c,
 * store_serving.c, builder.c), on the CPU with OpenBLAS:
 *   - the prediction: nothing known, no calibration, too few calibrated records, a
 *     calibration that eats the margin, a problem beyond the calibration's reach or a
 *     template predicted slower -> the vendor; calibrated neighbours whose template beats the
 *     vendor by the margin -> a template; the nearest 8 records decide; other kinds
 *     ignored; the problem itself left out on request;
 *   - the calibration on a database: every record's neighbours' configuration measured at it;
 *   - a database written as mmtune writes it: a problem with a vendor family best runs the
 *     vendor (EXACT, LIBRARY=... ROUTINE=...), even where its template's figure is the
 *     higher (the tuner keeps the vendor's best where it was the more accurate); an untuned
 *     problem with nothing known runs the vendor (MMT_CHOICE_VENDOR); one whose neighbours
 *     say the templates win runs the nearest tuned configuration; each product right against
 *     a long double reference on padded, transposed, column-major operands, with the BLAS
 *     rules (NaN in C with beta = 0, NaN in A and B with alpha = 0); untuned calls served by
 *     the vendor still count as misses;
 *   - a tuned template whose kernel is not cached is not compiled on the caller's path: the
 *     first call runs the vendor, and the tuned kernel takes over once the context's builder
 *     has built it;
 *   - MMTUNE_VENDOR=off: the templates alone; a misspelt value fails mmt_open;
 *   - the store: the paired figures the prediction reads, a family's best dropped.
 * The parts that need OpenBLAS skip themselves, saying so, where it is not installed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "family.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "predict.h"
#include "store_serving.h"
#include "tuned_db.h"
#include "vendor.h"

static char dir[] = "/tmp/mmtune-test-serve-XXXXXX";

static mmt_problem f32_problem(int64_t m, int64_t n, int64_t k)
{
    return (mmt_problem){.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                         .m = m, .n = n, .k = k};
}

/* n records of the kind of f32_problem around m^3 (a grid of M and N, K = m) whose
 * templates beat the vendor by ratio, calibrated at transfer with reach. */
static size_t around(mmt_paired_rec *recs, size_t n, int64_t m, double ratio, double transfer, double reach)
{
    for (size_t i = 0; i < n; i++)
        recs[i] = (mmt_paired_rec){f32_problem(m * (8 + (int64_t)(i % 3)) / 9, m * (8 + (int64_t)(i / 3 % 3)) / 9, m),
                                   100 * ratio, 100, transfer, reach};
    return n;
}

static void test_predict(void)
{
    const mmt_problem p = f32_problem(1000, 1000, 1000);
    mmt_paired_rec recs[12];
    mmt_prediction pr = mmt_predict(recs, 0, &p, 0);
    CHECK(!pr.template_wins && pr.ratio == 1 && pr.samples == 0 && isinf(pr.distance)); /* nothing known */
    /* templates 1.5x around p, but nothing says what a neighbour's configuration keeps here */
    size_t n = around(recs, 9, 1000, 1.5, 0, 0);
    pr = mmt_predict(recs, n, &p, 0);
    CHECK(!pr.template_wins && pr.ratio > 1.49 && pr.ratio < 1.51 && pr.samples == 0);
    /* calibrated: a neighbour's configuration kept 0.8 of the prediction at worst: 1.2x */
    n = around(recs, 9, 1000, 1.5, 0.8, 0.5);
    pr = mmt_predict(recs, n, &p, 0);
    CHECK(pr.template_wins && pr.samples == 8 && pr.transfer == 0.8 && pr.distance < pr.reach);
    recs[4].transfer = 0.6; /* one kept 0.6: 0.9x, the vendor */
    pr = mmt_predict(recs, n, &p, 0);
    CHECK(!pr.template_wins && pr.transfer == 0.6);
    recs[4].transfer = 0; /* one not calibrated: 8 records left, enough */
    CHECK(mmt_predict(recs, n, &p, 0).template_wins);
    recs[3].transfer = 0; /* 7: too few */
    CHECK(!mmt_predict(recs, n, &p, 0).template_wins);
    /* the nearest 8 decide: a bad record farther away does not count, a nearer one does */
    mmt_paired_rec more[10];
    n = around(more, 9, 1000, 1.5, 0.8, 0.5);
    more[n++] = (mmt_paired_rec){f32_problem(1500, 1500, 1000), 150, 100, 0.3, 0.5};
    pr = mmt_predict(more, n, &p, 0);
    CHECK(pr.template_wins && pr.transfer == 0.8 && pr.samples == 8);
    more[n - 1].problem = f32_problem(1000, 1000, 1001);
    pr = mmt_predict(more, n, &p, 0);
    CHECK(!pr.template_wins && pr.transfer == 0.3);
    /* farther from every record than the calibration reached: the vendor */
    n = around(recs, 9, 1000, 1.5, 0.8, 0.5);
    const mmt_problem far = f32_problem(8000, 8000, 1000);
    pr = mmt_predict(recs, n, &far, 0);
    CHECK(!pr.template_wins && pr.distance > pr.reach && pr.ratio > 1.49);
    /* p's own record, at weight 1, pulls the ratio under the margin; left out, it does not */
    recs[n++] = (mmt_paired_rec){p, 20, 100, 0.8, 0.5};
    CHECK(!mmt_predict(recs, n, &p, 0).template_wins);
    CHECK(mmt_predict(recs, n, &p, 1).template_wins);
    /* another kind (transposed, f64) says nothing about p */
    n = around(recs, 9, 1000, 3, 1, 0.5);
    for (size_t i = 0; i < n; i++) recs[i].problem.trans_a = 1;
    pr = mmt_predict(recs, n, &p, 0);
    CHECK(!pr.template_wins && pr.samples == 0 && isinf(pr.distance));
    for (size_t i = 0; i < n; i++)
        recs[i].problem.trans_a = 0, recs[i].problem.dtype = recs[i].problem.out = MMT_F64,
        recs[i].problem.mode = MMT_MODE_F64;
    CHECK(!mmt_predict(recs, n, &p, 0).template_wins);
    /* a column-major record is its row-major problem: n x m, transposes swapped */
    n = around(recs, 9, 1000, 3, 1, 0.5);
    for (size_t i = 0; i < n; i++) {
        const int64_t m = recs[i].problem.m;
        recs[i].problem.m = recs[i].problem.n, recs[i].problem.n = m;
        recs[i].problem.layout = MMT_COL_MAJOR, recs[i].problem.trans_a = 1;
    }
    mmt_problem q = p;
    q.trans_b = 1;
    CHECK(mmt_predict(recs, n, &q, 0).template_wins);
}

static void test_store(void)
{
    char path[600], params[512];
    snprintf(path, sizeof path, "%s/store.db", dir);
    db d;
    db_open(&d, path);
    default_text(d.fam, params, sizeof params);
    const mmt_problem p = f32_problem(200, 300, 400), q = f32_problem(500, 500, 500);
    const int64_t pid = put(&d, d.fam->name, d.fam->source_hash, params, &p, 80, 100);
    put(&d, d.fam->name, d.fam->source_hash, params, &q, 120, 0); /* no vendor figure: not paired */
    put(&d, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, "ROUTINE=cblas_sgemm", &p, 100, 0);
    /* r: the template the faster, the vendor the more accurate (its best kept for that) */
    const mmt_problem r = f32_problem(700, 700, 700);
    put(&d, d.fam->name, d.fam->source_hash, params, &r, 150, 100);
    put(&d, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, "ROUTINE=cblas_sgemm", &r, 100, 0);
    mmt_err err;
    mmt_paired_rec *recs;
    size_t n;
    CHECK_OK(mmt_store_paired_list(d.st, "no such device", MMT_MODE_F32, &recs, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(recs);
    mmt_device_info dev;
    mmt_backend_cpu.probe(0, &dev, &err);
    CHECK_OK(mmt_store_paired_list(d.st, dev.fingerprint, MMT_MODE_F32, &recs, &n, &err), &err);
    CHECK_EQ_INT(n, 2); /* the template's bests beside their vendor figures; not the vendor's own bests */
    if (n == 2) {
        CHECK(mmt_problem_equal(&recs[0].problem, &p) && recs[0].gflops == 80 && recs[0].vendor_gflops == 100);
        /* where the vendor serves, the template counts for no more than the vendor */
        CHECK(mmt_problem_equal(&recs[1].problem, &r) && recs[1].gflops == 100 && recs[1].vendor_gflops == 100);
    }
    free(recs);
    int dropped = -1;
    CHECK_OK(mmt_store_best_drop(d.st, d.dev_id, pid, MMT_VENDOR_TEMPLATE, &dropped, &err), &err);
    CHECK_EQ_INT(dropped, 1);
    CHECK_OK(mmt_store_best_drop(d.st, d.dev_id, pid, MMT_VENDOR_TEMPLATE, &dropped, &err), &err);
    CHECK_EQ_INT(dropped, 0);
    mmt_best_rec *bests;
    CHECK_OK(mmt_store_best_list(d.st, dev.fingerprint, d.fam->name, d.fam->source_hash, MMT_MODE_F32, &bests, &n, &err),
             &err);
    CHECK_EQ_INT(n, 3); /* the templates' bests stay */
    free(bests);
    db_close(&d);
}

/* One sgemm through ctx on padded operands (col: column-major), checked against a long
 * double reference with C (beta = 0) or A and B (alpha = 0) NaN-poisoned; returns the
 * relative error (INFINITY where the call failed). */
static double call(mmt_ctx *ctx, int col, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, double beta)
{
    int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int64_t lda = (col ? ar : ac) + 3, ldb = (col ? br : bc) + 1, ldc = (col ? m : n) + 2;
    void *a = gc_matrix(0, col, ar, ac, lda, alpha == 0), *b = gc_matrix(0, col, br, bc, ldb, alpha == 0);
    void *c = gc_matrix(0, col, m, n, ldc, beta == 0), *c0 = malloc(sizeof(float) * (col ? n : m) * ldc);
    memcpy(c0, c, sizeof(float) * (col ? n : m) * ldc);
    double *ref = gc_ref_alloc(m, n);
    gc_reference(0, col, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc, ref);
    mmt_status st = mmt_sgemm(ctx, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR, ta ? MMT_TRANS : MMT_NO_TRANS,
                              tb ? MMT_TRANS : MMT_NO_TRANS, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    if (st != MMT_OK) fprintf(stderr, "sgemm failed: %s\n", mmt_last_error(ctx));
    double e = st == MMT_OK ? gc_rel_error(0, col, m, n, c, ldc, ref) : INFINITY;
    free(a), free(b), free(c), free(c0), free(ref);
    return e;
}

/* Both layouts, the pairs of transposes [t0, t1) (0 NN, 1 TN, 2 NT, 3 TT) and every BLAS rule
 * of one shape through ctx, each served as `want` says and right. */
static void served_right(mmt_ctx *ctx, int64_t m, int64_t n, int64_t k, int t0, int t1, mmt_choice want,
                         const char *config_prefix)
{
    static const double rules[][2] = {{1, 0}, {0.75, -1.25}, {0, 2}, {-1.5, 1}};
    int bad = 0;
    for (int col = 0; col < 2; col++)
        for (int t = t0; t < t1; t++)
            for (int r = 0; r < 4; r++) {
                const double e = call(ctx, col, t & 1, t >> 1, m, n, k, rules[r][0], rules[r][1]);
                const char *cfg;
                const mmt_choice how = mmt_last_choice(ctx, &cfg);
                if (!(e <= gc_bound(0, k)) || how != want || strncmp(cfg, config_prefix, strlen(config_prefix)) != 0) {
                    fprintf(stderr, "%lldx%lldx%lld col=%d t=%d alpha=%g beta=%g: error %g, choice %d (%s), wanted %d (%s...)\n",
                            (long long)m, (long long)n, (long long)k, col, t, rules[r][0], rules[r][1], e, (int)how,
                            cfg, (int)want, config_prefix);
                    bad++;
                }
            }
    CHECK_EQ_INT(bad, 0);
}

/* The calibration libmmtuned makes of d's f32 records: each of the n grid problems, taken
 * as untuned, gets the configuration they all share, measured there at the 2x predicted. */
static void check_calibration(db *d, const mmt_device_info *dev, size_t n_grid)
{
    mmt_err err;
    mmt_paired_rec *recs;
    size_t n;
    mmt_best_rec *bests;
    size_t n_bests;
    CHECK_OK(mmt_store_paired_list(d->st, dev->fingerprint, MMT_MODE_F32, &recs, &n, &err), &err);
    CHECK_OK(mmt_store_best_list(d->st, dev->fingerprint, d->fam->name, d->fam->source_hash, MMT_MODE_F32, &bests,
                                 &n_bests, &err),
             &err);
    mmt_lookup_family lf = {d->fam->space, bests, n_bests};
    mmt_predict_trials trials = {d->st, dev};
    CHECK_OK(mmt_predict_calibrate(dev, &d->fam, &lf, 1, mmt_predict_measured, &trials, recs, n, &err), &err);
    size_t calibrated = 0;
    for (size_t i = 0; i < n; i++)
        if (recs[i].problem.k == 640) {
            CHECK(fabs(recs[i].transfer - 1) < 1e-9 && recs[i].reach > 0.1 && recs[i].reach < 0.2);
            calibrated++;
        }
    CHECK_EQ_INT(calibrated, n_grid);
    free(recs);
    free(bests);
}

static void test_serving(void)
{
    mmt_device_info dev;
    mmt_err err;
    mmt_backend_cpu.probe(0, &dev, &err);
    mmt_vendor *v = NULL;
    if (mmt_vendor_open(&mmt_backend_cpu, &dev, &v, &err) != MMT_OK) {
        printf("the vendor family is not checked: %s\n", err.msg);
        return;
    }
    char library[160];
    snprintf(library, sizeof library, "LIBRARY=%s,ROUTINE=cblas_sgemm", mmt_vendor_name(v));
    mmt_vendor_close(v);

    char path[600], params[512];
    snprintf(path, sizeof path, "%s/serve.db", dir);
    db d;
    db_open(&d, path);
    default_text(d.fam, params, sizeof params);
    /* 96^3: the vendor family's best beats the template's (timed side by side: paired) */
    const mmt_problem vendor_won = f32_problem(96, 96, 96);
    put(&d, d.fam->name, d.fam->source_hash, params, &vendor_won, 20, 40);
    put(&d, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, "ROUTINE=cblas_sgemm", &vendor_won, 40, 0);
    /* 72^3: the template's figure the higher, but the tuner kept the vendor's best (the more
     * accurate, or the template's figure one of Strassen levels the call does not run) */
    const mmt_problem vendor_kept = f32_problem(72, 72, 72);
    put(&d, d.fam->name, d.fam->source_hash, params, &vendor_kept, 60, 40);
    put(&d, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, "ROUTINE=cblas_sgemm", &vendor_kept, 40, 0);
    /* around 640: the templates beat the vendor by 2x on nine problems, each with the same
     * configuration, so the neighbours' configuration keeps all of the prediction */
    mmt_paired_rec grid[9];
    const size_t n_grid = around(grid, 9, 640, 2, 0, 0);
    for (size_t i = 0; i < n_grid; i++) put(&d, d.fam->name, d.fam->source_hash, params, &grid[i].problem, 200, 100);
    check_calibration(&d, &dev, n_grid);
    db_close(&d);

    setenv("MMTUNE_CACHE_DIR", dir, 1); /* an empty kernel cache: nothing is built yet */
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_OK);
    served_right(ctx, 96, 96, 96, 0, 1, MMT_CHOICE_EXACT, library);  /* the vendor's own tuned entry */
    served_right(ctx, 72, 72, 72, 0, 1, MMT_CHOICE_EXACT, library);  /* kept by the tuner: it serves */
    served_right(ctx, 96, 96, 96, 1, 4, MMT_CHOICE_VENDOR, library); /* the other transposes: untuned */
    served_right(ctx, 37, 29, 51, 0, 4, MMT_CHOICE_VENDOR, library); /* untuned, nothing known around it */
    /* untuned, and the templates win around it: the nearest tuned configuration, which is
     * built on the caller's path only where no vendor can serve meanwhile; here the vendor
     * runs until the builder has it, then the template does */
    const char *cfg;
    call(ctx, 0, 0, 0, 620, 650, 640, 1, 0);
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_VENDOR);
    mmt_choice how = MMT_CHOICE_VENDOR;
    for (int i = 0; i < 600 && how == MMT_CHOICE_VENDOR; i++) { /* 60 s at most: one compile */
        nanosleep(&(struct timespec){0, 100000000}, NULL);
        CHECK(call(ctx, 0, 0, 0, 620, 650, 640, 1, 0) <= gc_bound(0, 640));
        how = mmt_last_choice(ctx, &cfg);
    }
    CHECK_EQ_INT(how, MMT_CHOICE_NEAREST);
    CHECK_EQ_STR(cfg, params);
    mmt_close(ctx);

    /* the same database with the kernel cached now: the template serves from the first call */
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_OK);
    CHECK(call(ctx, 0, 0, 0, 620, 650, 640, 1, 0) <= gc_bound(0, 640));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_NEAREST);
    mmt_close(ctx);

    /* the templates alone: the template's own entry, the nearest one's elsewhere */
    setenv("MMTUNE_VENDOR", "off", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_OK);
    CHECK(call(ctx, 0, 0, 0, 96, 96, 96, 1, 0) <= gc_bound(0, 96));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, params);
    CHECK(call(ctx, 0, 0, 0, 37, 29, 51, 1, 0) <= gc_bound(0, 51));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_NEAREST);
    mmt_close(ctx);
    setenv("MMTUNE_VENDOR", "nope", 1);
    ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "MMTUNE_VENDOR=nope") != NULL);
    mmt_close(ctx);
    unsetenv("MMTUNE_VENDOR");

    /* untuned calls the vendor served are misses all the same: --from-misses tunes them */
    setenv("MMTUNE_SYNC_S", "0", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_OK);
    for (int i = 0; i < 3; i++) call(ctx, 0, 0, 0, 37, 29, 51, 1, 0);
    mmt_close(ctx);
    unsetenv("MMTUNE_SYNC_S");
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 1, &st, &err), &err);
    mmt_miss_rec *misses;
    size_t n;
    CHECK_OK(mmt_store_miss_list(st, dev.fingerprint, &misses, &n, &err), &err);
    int64_t calls = 0;
    for (size_t i = 0; i < n; i++)
        if (misses[i].problem.m == 37 && misses[i].problem.n == 29) calls += misses[i].calls;
    CHECK(calls >= 3);
    free(misses);
    mmt_store_close(st);
    unsetenv("MMTUNE_CACHE_DIR");
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    test_predict();
    test_store();
    test_serving();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
    return check_result();
}
