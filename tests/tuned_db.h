/* tuned_db.h - a database written as mmtune writes it (store.h), for the tests of what
 * serving reads: template results, vendor family bests, vendor figures paired with the
 * trial they were timed beside; on the CPU device, with the AVX template's family. */
#ifndef MMT_TEST_TUNED_DB_H
#define MMT_TEST_TUNED_DB_H

#include "backend.h"
#include "check.h"
#include "family.h"
#include "store.h"

typedef struct db {
    mmt_store *st;
    int64_t dev_id, sess;
    mmt_family *fam;
} db;

/* A result of template (name, hash) and configuration params at p, its family's best; with
 * a vendor figure timed beside it where vendor_gflops > 0. Returns the problem's id. */
static int64_t put(db *d, const char *name, const char *hash, const char *params, const mmt_problem *p, double gflops,
                   double vendor_gflops)
{
    mmt_err err;
    int64_t tpl, cfg, prob, trial = 0;
    CHECK_OK(mmt_store_template(d->st, name, hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(d->st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(d->st, p, &prob, &err), &err);
    const double ms = mmt_problem_flops(p) / (gflops * 1e6);
    mmt_trial_rec t = {.session_id = d->sess, .device_id = d->dev_id, .problem_id = prob, .config_id = cfg,
                       .status = MMT_TRIAL_OK, .time_ms_median = ms, .time_ms_min = ms, .time_ms_max = ms,
                       .gflops = gflops, .rel_error = 1e-7, .reps = 5};
    CHECK_OK(mmt_store_trial_add(d->st, &t, &trial, &err), &err);
    CHECK_OK(mmt_store_best_set(d->st, trial, &err), &err);
    if (vendor_gflops > 0)
        CHECK_OK(mmt_store_baseline_put(d->st, d->dev_id, prob, "OpenBLAS (test)",
                                        mmt_problem_flops(p) / (vendor_gflops * 1e6), vendor_gflops, trial, &err),
                 &err);
    return prob;
}

static void db_open(db *d, const char *path)
{
    mmt_err err;
    mmt_device_info dev;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &d->fam, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &d->st, &err), &err);
    CHECK_OK(mmt_store_device(d->st, &dev, &d->dev_id, &err), &err);
    CHECK_OK(mmt_store_session_begin(d->st, d->dev_id, "test", "exhaustive", "0", &d->sess, &err), &err);
}

static void db_close(db *d)
{
    mmt_store_close(d->st);
    mmt_family_free(d->fam);
}

/* The text of the family's default configuration (valid anywhere). */
static void default_text(const mmt_family *fam, char *buf, size_t size)
{
    mmt_config def;
    mmt_space_default(fam->space, &def);
    mmt_config_format(fam->space, &def, buf, size);
}

#endif
