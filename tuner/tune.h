/* tune.h - the tuning loop for one (device, problem): enumerate the valid configurations,
 * let the strategy order them, build each (compile cache first), verify, time, and commit
 * every trial as it finishes; then choose the winner (final.h: the close ones measured
 * again side by side), and measure the vendor library in the same run. Trials already in
 * the database for this template source are not measured again (resume), and a rerun that
 * measures nothing new keeps the database's best. Candidates are compiled here and
 * measured in a worker process (worker.h). */
#ifndef MMT_TUNE_H
#define MMT_TUNE_H

#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "family.h"
#include "report.h"
#include "store.h"
#include "worker.h"

typedef struct mmt_tuner {
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_store *st;
    int64_t device_id, session_id;
    mmt_family_list families[MMT_N_MODES]; /* per mode: the families that compete (or --space's) */
    const char *strategy;
    size_t budget;            /* candidates per problem (0: all) */
    double budget_frac;       /* or this fraction of each problem's candidates (0: none) */
    double budget_s;          /* or seconds per problem: no new candidate after it (0: none) */
    uint64_t seed;
    int fresh;                /* measure again what the database already has */
    int classic_only;         /* no levels round (Strassen-Winograd levels are not measured) */
    int compile_threads;      /* compile ahead on this many threads (0: no; the CPU backend) */
    mmt_worker *worker;       /* measures; the tuner itself never runs a candidate */
    mmt_progress *progress;
} mmt_tuner;

typedef struct mmt_tune_result {
    mmt_problem problem;
    int ok; /* a verified best exists */
    char family[64]; /* the winner's template ("cuda/gemm_wgmma.cu") */
    char params[512];
    double gflops, time_ms;
    double vendor_gflops; /* 0: not measured */
    char vendor[128];     /* the vendor library's name, if it opened */
    int measured, failed, reused;
    char message[512];         /* why there is no result, or the vendor's failure */
    mmt_report_detail detail;  /* the winner's interval, how it was chosen, the pipeline figures */
} mmt_tune_result;

mmt_status mmt_tune_problem(mmt_tuner *t, const mmt_problem *p, mmt_tune_result *r, mmt_err *err);

/* The cache size a bench of this device must defeat. */
int64_t mmt_tune_cache_bytes(const mmt_device_info *dev);

#endif
