/* final.h - the final choice of a problem. The fastest candidate and those not clearly
 * slower than it (intervals that overlap its interval, or miss it by less than the early
 * stop's margin; at most MMT_FINALISTS in all; stats.h) are measured again side by side
 * in one worker (A B C C B A ... on the same input sets), and each result is recorded as
 * an ordinary trial. The winner is the fastest paired median, unless others'
 * intervals overlap it: then the smallest configuration text among the tied wins, so a tie
 * within noise goes the same way on every run and in every process. The winner's trial is
 * then made the problem's best (mmt_store_best_set), whether or not its median is the
 * lowest on record. */
#ifndef MMT_FINAL_H
#define MMT_FINAL_H

#include "tune.h"

#define MMT_FINALISTS 3

/* A candidate still in the running: an ok trial of this run, or the database's best. */
typedef struct mmt_contender {
    const char *params;             /* canonical text */
    double median_ms, lo_ms, hi_ms; /* lo = hi = median: no interval known (a reused trial) */
    double level;                   /* the interval's coverage; 0: none known */
    int64_t trial_id;               /* its trial; 0: a reused one (the store does not say which) */
} mmt_contender;

typedef struct mmt_final {
    size_t winner;                         /* index into the contenders */
    double median_ms, lo_ms, hi_ms, level; /* the winner's, from the final round if there was one */
    int finalists, rounds;                 /* finalists 1: no round was needed */
    size_t tied;                           /* finalists within noise of the fastest, itself included */
    size_t measured;                       /* trials the round recorded */
    double wait_s;                         /* spent fetching the finalists' binaries (device idle) */
    char text[256];                        /* how the winner was chosen, in words */
} mmt_final;

/* Chooses among n >= 1 contenders of one problem (env: its normal form), measuring the
 * finalists side by side if there are several, and pins the winner's trial as the best
 * where its trial is known. A round the worker does not survive leaves the fastest of the
 * contenders as the winner (out->text says so); errors are the tuner's own failures. */
mmt_status mmt_final_choose(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, int64_t problem_id,
                            int64_t template_id, const mmt_contender *c, size_t n, mmt_final *out, mmt_err *err);

/* A configuration's binary (malloc'd: free out->bin), entry and launch geometry for the
 * problem env, as the search built it (the file cache has it: no compile). 0 if it cannot
 * be had again. */
int mmt_final_binary(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, const char *params,
                     mmt_worker_binary *out);

/* Records one result of a side-by-side round of a problem (env: its normal form) as an
 * ordinary trial of params with message; *trial_id is its id. */
mmt_status mmt_final_record(mmt_tuner *t, const mmt_space_env *env, int64_t problem_id, int64_t template_id,
                            const char *params, const mmt_measure *r, const char *message, int64_t *trial_id,
                            mmt_err *err);

#endif
