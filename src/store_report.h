/* store_report.h - what mmtune report reads from a database: its devices, the best of each
 * problem with the vendor figure timed beside it (best_view's pairing: a baseline counts
 * only with the trial it was timed beside), every trial with its time stamp, and the
 * sessions. Each query calls fn once per row, in a fixed order; a non-zero return stops it
 * (with MMT_OK). Text in a row lives until fn returns. */
#ifndef MMT_STORE_REPORT_H
#define MMT_STORE_REPORT_H

#include "store.h"

typedef struct mmt_rep_device {
    int64_t id;
    mmt_device_info info; /* rebuilt from the row: identity and props */
} mmt_rep_device;

typedef struct mmt_rep_best {
    int64_t problem_id;
    mmt_problem problem;
    const char *template_name, *params;
    double time_ms, gflops;
    int partial, chosen;  /* chosen: the fastest family of the problem (best_view's) */
    const char *vendor;   /* the library timed beside this figure; NULL: none */
    double vendor_time_ms, vendor_gflops;
    int vendor_unpaired;  /* the problem has a vendor figure, not timed beside this one (timed alone
                           * in an older run, or beside another trial): no ratio */
} mmt_rep_best;

/* Where a trial comes from: the search, the final round, the vendor round. */
typedef enum mmt_rep_round { MMT_ROUND_SEARCH, MMT_ROUND_FINAL, MMT_ROUND_VENDOR } mmt_rep_round;

typedef struct mmt_rep_trial {
    int64_t id, session_id, problem_id, template_id; /* session_id 0: none */
    mmt_problem problem;
    const char *template_name, *template_hash, *params;
    mmt_trial_status status;
    double time_ms, gflops; /* ok trials; 0 otherwise */
    int64_t created;        /* Unix seconds: the database keeps whole seconds */
    mmt_rep_round round;
} mmt_rep_trial;

typedef struct mmt_rep_session {
    int64_t id;
    const char *command, *strategy, *budget, *host;
    const char *outcome;     /* NULL: still running, or killed */
    int64_t started, ended;  /* Unix seconds; ended 0: never ended */
} mmt_rep_session;

/* Devices by name then id; only those named device where it is not NULL. */
mmt_status mmt_store_report_devices(mmt_store *st, const char *device,
                                    int (*fn)(void *user, const mmt_rep_device *d), void *user, mmt_err *err);
/* The bests of a device, by problem (best_view's order), then template. */
mmt_status mmt_store_report_bests(mmt_store *st, int64_t device_id,
                                  int (*fn)(void *user, const mmt_rep_best *b), void *user, mmt_err *err);
/* Every trial of a device, in the order measured. */
mmt_status mmt_store_report_trials(mmt_store *st, int64_t device_id,
                                   int (*fn)(void *user, const mmt_rep_trial *t), void *user, mmt_err *err);
/* The sessions of a device, in the order begun. */
mmt_status mmt_store_report_sessions(mmt_store *st, int64_t device_id,
                                     int (*fn)(void *user, const mmt_rep_session *s), void *user, mmt_err *err);

#endif
