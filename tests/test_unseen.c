/* test_unseen.c - serving on problems nobody tuned (tuner/replay/unseen.c) and the rule it measures:
 *   - mmt_predict_serve, the rule libmmtuned and `mmtune replay --unseen` share: the vendor
 *     family's exact entry against the templates', a template's exact entry kept, an untuned
 *     problem left to the prediction (nothing known: the vendor; calibrated neighbours: a
 *     template; the problem's own record left out where asked);
 *   - the summary of ratios: geometric mean, p10 between order statistics, minimum, values
 *     that are no ratio left out;
 *   - mmt_store_recorded_bests: each best with its template's source hash and the vendor's
 *     figure, said timed beside it, alone, or beside another trial;
 *   - mmt_unseen_draw: per mode, shapes of the tuned kinds inside the tuned range, never a
 *     tuned problem (in any written form) nor one drawn before, the same for the same seed;
 *     a range with no untuned shape says so. No device is used. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "predict.h"
#include "store_serving.h"
#include "unseen.h"
#include "vendor.h"

static char dir[] = "/tmp/mmtune-test-unseen-XXXXXX";

static mmt_problem f32_problem(int64_t m, int64_t n, int64_t k)
{
    return (mmt_problem){.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                         .m = m, .n = n, .k = k};
}

static void test_rule(void)
{
    const mmt_problem p = f32_problem(1000, 1000, 1000);
    /* templates 1.5x on a 3 x 3 grid around p, each configuration kept 0.9 of its prediction */
    mmt_paired_rec near[10];
    for (int i = 0; i < 9; i++)
        near[i] = (mmt_paired_rec){f32_problem(900 + 100 * (i % 3), 900 + 100 * (i / 3), 1000), 150, 100, 0.9, 0.2};
    mmt_prediction pr;
    const double vendor = 120;
    /* the vendor family's own entry: it serves unless the templates' exact entry races it
     * (gflops given) and is faster */
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 200, &vendor, near, 9, &p, 0, &pr), MMT_CHOICE_EXACT);
    CHECK(pr.ratio == 1 && pr.samples == 0);
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_EXACT, 110, &vendor, near, 9, &p, 0, NULL), MMT_CHOICE_EXACT);
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_EXACT, 0, &vendor, near, 9, &p, 0, NULL), MMT_CHOICE_EXACT);
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_EXACT, 130, &vendor, near, 9, &p, 0, NULL), MMT_CHOICE_NONE);
    /* a template's exact entry, no vendor entry: the template, no prediction made */
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_EXACT, 10, NULL, NULL, 0, &p, 0, &pr), MMT_CHOICE_NONE);
    CHECK(pr.samples == 0);
    /* untuned: the prediction decides, the vendor where nothing is known */
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 150, NULL, NULL, 0, &p, 0, &pr), MMT_CHOICE_VENDOR);
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 0, NULL, near, 9, &p, 0, &pr), MMT_CHOICE_NONE);
    CHECK(pr.template_wins && pr.ratio > 1.4 && pr.samples == 8 && pr.transfer == 0.9);
    /* ... but a default (no neighbour's configuration runs p) is no neighbour: the vendor */
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_DEFAULT, 0, NULL, near, 9, &p, 0, &pr), MMT_CHOICE_VENDOR);
    CHECK(pr.template_wins);
    /* p's own record at 0.1x, at weight 1, keeps the vendor; left out (with the grid's
     * centre, p too), the other 8 decide */
    near[9] = (mmt_paired_rec){p, 10, 100, 0.9, 0.2};
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 150, NULL, near, 10, &p, 0, NULL), MMT_CHOICE_VENDOR);
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 150, NULL, near, 10, &p, 1, &pr), MMT_CHOICE_NONE);
    /* the problem's own record is all there is: left out, nothing is known */
    CHECK_EQ_INT(mmt_predict_serve(MMT_CHOICE_NEAREST, 150, NULL, &near[9], 1, &p, 1, &pr), MMT_CHOICE_VENDOR);
    CHECK(pr.samples == 0);
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

static void test_summary(void)
{
    double r[] = {2, NAN, 0.5, -1, 1, INFINITY};
    mmt_ratio_summary s = mmt_ratio_summarise(r, 6);
    CHECK_EQ_INT(s.n, 3);
    CHECK(close_to(s.geomean, 1) && s.min == 0.5);
    CHECK(close_to(s.p10, 0.6)); /* 0.5 + 0.2 (1 - 0.5) */
    double one[] = {1.25};
    s = mmt_ratio_summarise(one, 1);
    CHECK(s.n == 1 && s.geomean == 1.25 && s.p10 == 1.25 && s.min == 1.25);
    s = mmt_ratio_summarise(NULL, 0);
    CHECK(s.n == 0 && isnan(s.geomean) && isnan(s.p10) && isnan(s.min));
}

/* A database as mmtune writes it. */
typedef struct db {
    mmt_store *st;
    mmt_device_info dev;
    int64_t dev_id, sess;
} db;

static void db_open(db *d, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.probe(0, &d->dev, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &d->st, &err), &err);
    CHECK_OK(mmt_store_device(d->st, &d->dev, &d->dev_id, &err), &err);
    CHECK_OK(mmt_store_session_begin(d->st, d->dev_id, "test_unseen", "exhaustive", "0", &d->sess, &err), &err);
}

/* A trial of (template, params) at p, made its best; returns the trial, *prob its problem. */
static int64_t put(db *d, const char *name, const char *hash, const char *params, const mmt_problem *p, double gflops,
                   int64_t *prob)
{
    mmt_err err;
    int64_t tpl, cfg, trial = 0;
    CHECK_OK(mmt_store_template(d->st, name, hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(d->st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(d->st, p, prob, &err), &err);
    const double ms = mmt_problem_flops(p) / (gflops * 1e6);
    mmt_trial_rec t = {.session_id = d->sess, .device_id = d->dev_id, .problem_id = *prob, .config_id = cfg,
                       .status = MMT_TRIAL_OK, .time_ms_median = ms, .time_ms_min = ms, .time_ms_max = ms,
                       .gflops = gflops, .rel_error = 1e-7, .reps = 5};
    CHECK_OK(mmt_store_trial_add(d->st, &t, &trial, &err), &err);
    CHECK_OK(mmt_store_best_set(d->st, trial, &err), &err);
    return trial;
}

static void vendor_figure(db *d, int64_t prob, const mmt_problem *p, double gflops, int64_t trial)
{
    mmt_err err;
    CHECK_OK(mmt_store_baseline_put(d->st, d->dev_id, prob, "OpenBLAS (test)", mmt_problem_flops(p) / (gflops * 1e6),
                                    gflops, trial, &err),
             &err);
}

static const mmt_recorded_best *find(const mmt_recorded_best *r, size_t n, const mmt_problem *p, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (mmt_problem_equal(&r[i].best.problem, p) && strcmp(r[i].template_name, name) == 0) return &r[i];
    return NULL;
}

static void test_recorded(void)
{
    db d;
    db_open(&d, "recorded.db");
    mmt_err err;
    const mmt_problem a = f32_problem(64, 64, 64), b = f32_problem(96, 64, 64), c = f32_problem(128, 64, 64),
                      e = f32_problem(160, 64, 64);
    int64_t pa, pb, pc, pe;
    const int64_t ta = put(&d, "cpu/t.c", "hash1", "X=1", &a, 50, &pa);
    vendor_figure(&d, pa, &a, 40, ta);           /* beside its best */
    put(&d, "cpu/t.c", "hash2", "X=2", &b, 60, &pb);
    vendor_figure(&d, pb, &b, 45, 0);            /* alone */
    const int64_t tc = put(&d, "cpu/t.c", "hash1", "X=3", &c, 70, &pc);
    vendor_figure(&d, pc, &c, 55, tc);
    put(&d, "cpu/t.c", "hash1", "X=4", &c, 80, &pc); /* the best moved on */
    put(&d, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, "ROUTINE=cblas_sgemm", &e, 90, &pe);
    mmt_recorded_best *r;
    size_t n;
    CHECK_OK(mmt_store_recorded_bests(d.st, "no such device", MMT_MODE_F32, &r, &n, &err), &err);
    CHECK(n == 0 && r == NULL);
    CHECK_OK(mmt_store_recorded_bests(d.st, d.dev.fingerprint, MMT_MODE_F64, &r, &n, &err), &err);
    CHECK(n == 0);
    CHECK_OK(mmt_store_recorded_bests(d.st, d.dev.fingerprint, MMT_MODE_F32, &r, &n, &err), &err);
    CHECK_EQ_INT(n, 4);
    const mmt_recorded_best *x = find(r, n, &a, "cpu/t.c");
    CHECK(x && x->pairing == MMT_VENDOR_PAIRED && x->vendor_gflops == 40 && x->best.gflops == 50);
    CHECK(x && strcmp(x->source_hash, "hash1") == 0 && strcmp(x->best.params, "X=1") == 0);
    x = find(r, n, &b, "cpu/t.c");
    CHECK(x && x->pairing == MMT_VENDOR_ALONE && x->vendor_gflops == 45 && strcmp(x->source_hash, "hash2") == 0);
    x = find(r, n, &c, "cpu/t.c");
    CHECK(x && x->pairing == MMT_VENDOR_OTHER && x->vendor_gflops == 55 && x->best.gflops == 80);
    x = find(r, n, &e, MMT_VENDOR_TEMPLATE);
    CHECK(x && x->pairing == MMT_VENDOR_NONE && x->vendor_gflops == 0);
    free(r);
    mmt_store_close(d.st);
}

static void test_draw(void)
{
    db d;
    db_open(&d, "draw.db");
    mmt_err err;
    mmt_problem tuned[5] = {f32_problem(32, 40, 32), f32_problem(128, 64, 48), f32_problem(48, 64, 40),
                            f32_problem(8, 8, 8), f32_problem(20, 24, 16)};
    tuned[2].trans_b = 1;
    tuned[3].dtype = tuned[3].out = MMT_F64, tuned[3].mode = MMT_MODE_F64; /* a range of one shape */
    tuned[4].layout = MMT_COL_MAJOR; /* the out-of-core knobs' problem: no range, but never drawn */
    int64_t prob;
    for (int i = 0; i < 4; i++) put(&d, "cpu/t.c", "hash", "X=1", &tuned[i], 10, &prob);
    put(&d, "ooc", "hash", "TILE=1", &tuned[4], 10, &prob);

    mmt_problem *p, *again;
    size_t n, n_again;
    char note[256];
    CHECK_OK(mmt_unseen_draw(d.st, &d.dev, 40, 5, &p, &n, note, sizeof note, &err), &err);
    CHECK_EQ_INT(n, 40); /* f32 alone: the f64 range is the tuned shape */
    CHECK(strstr(note, "f64: 0 of 40 drawn") != NULL);
    int nt = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(p[i].mode == MMT_MODE_F32 && p[i].dtype == MMT_F32 && p[i].out == MMT_F32);
        CHECK(p[i].layout == MMT_ROW_MAJOR && p[i].trans_a == 0);
        nt += p[i].trans_b;
        CHECK(p[i].m >= 32 && p[i].m <= 128 && p[i].n >= 40 && p[i].n <= 64 && p[i].k >= 32 && p[i].k <= 48);
        CHECK(!mmt_problem_among(&p[i], tuned, 5));
        CHECK(!mmt_problem_among(&p[i], p, i));
    }
    CHECK(nt > 0 && nt < 40); /* both kinds tuned are drawn */
    CHECK_OK(mmt_unseen_draw(d.st, &d.dev, 40, 5, &again, &n_again, NULL, 0, &err), &err);
    CHECK(n_again == n && memcmp(again, p, n * sizeof *p) == 0);
    free(again);
    CHECK_OK(mmt_unseen_draw(d.st, &d.dev, 40, 6, &again, &n_again, NULL, 0, &err), &err);
    CHECK(n_again == n && memcmp(again, p, n * sizeof *p) != 0);
    free(again);
    free(p);
    /* a device with nothing tuned has no range */
    mmt_device_info other = d.dev;
    snprintf(other.fingerprint, sizeof other.fingerprint, "another device");
    CHECK_EQ_INT(mmt_unseen_draw(d.st, &other, 4, 1, &p, &n, NULL, 0, &err), MMT_NOT_FOUND);
    CHECK(p == NULL && n == 0);
    mmt_store_close(d.st);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_rule();
    test_summary();
    test_recorded();
    test_draw();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
