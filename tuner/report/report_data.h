/* report_data.h - one device's results as mmtune report draws them, read from the store
 * (store_report.h) and arranged: the bests, each problem with every configuration its
 * search measured (the last measurement of each, the fastest first), the time its tuning
 * took, and each session with its trials' time stamps. */
#ifndef MMT_REPORT_DATA_H
#define MMT_REPORT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "store_report.h"

/* A best of the device (store_report.h's row, its text copied). */
typedef struct mmt_rd_best {
    int64_t problem_id;
    mmt_problem problem;
    char *template_name, *params, *vendor; /* vendor NULL: none timed beside it */
    double time_ms, gflops, vendor_time_ms, vendor_gflops;
    int partial, chosen, vendor_unpaired;
} mmt_rd_best;

/* A configuration as its problem's search measured it last (not the final or vendor
 * rounds, which time a few again under other conditions). */
typedef struct mmt_rd_config {
    int64_t template_id;
    char *template_name, *template_hash, *params;
    mmt_trial_status status;
    double time_ms, gflops; /* ok only */
} mmt_rd_config;

typedef struct mmt_rd_problem {
    int64_t id;
    mmt_problem problem;
    mmt_rd_config *configs; /* ok ones fastest first, then the failed */
    size_t n_configs, n_ok, cap;
    size_t trials;          /* every trial of it, the rounds' too */
    double tuning_s;        /* per session, its first trial to its last, summed */
    const mmt_rd_best *best; /* the chosen family's best; NULL: none */
    int64_t span_session, span_first, span_last; /* the session being summed */
} mmt_rd_problem;

typedef struct mmt_rd_session {
    int64_t id, started, ended; /* Unix seconds; ended 0: never ended */
    char *command, *strategy, *budget, *host, *outcome;
    size_t trials, ok, rounds, problems;
    int64_t *offsets; /* each trial's seconds after the start, in order */
    size_t cap;
    int64_t last_problem;
} mmt_rd_session;

typedef struct mmt_rd_device {
    mmt_rep_device dev;
    mmt_rd_best *bests;
    size_t n_bests;
    mmt_rd_problem *problems; /* in the bests' order, then problems without a best */
    size_t n_problems;
    mmt_rd_session *sessions;
    size_t n_sessions;
    size_t n_trials;
} mmt_rd_device;

/* Reads device d's results; out is freed with mmt_rd_free, also after a failure. */
mmt_status mmt_rd_load(mmt_store *st, const mmt_rep_device *d, mmt_rd_device *out, mmt_err *err);
void mmt_rd_free(mmt_rd_device *d);

#endif
