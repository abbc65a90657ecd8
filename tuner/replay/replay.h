/* replay.h - search strategies run against a recorded landscape instead of a device: the
 * trials of an earlier exhaustive tune (any mmtune database) answer every measurement, so
 * a strategy's run is deterministic and takes milliseconds. This is how strategies are
 * tested in CI and compared in BENCHMARKS.md.
 *
 * For each (device, problem, template) of the landscape whose valid candidates were (all
 * but 5%) measured, and each strategy and seed: the search runs with the budget, its
 * proposals answered by the recorded median times (failures and unrecorded candidates as
 * failures); the result is the best time it found against the landscape's optimum and
 * how many measurements it took to come within 3% of it. With warm starts, a problem
 * starts from the winners of the landscape's other problems, as if they had been tuned
 * before it. */
#ifndef MMT_REPLAY_H
#define MMT_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

typedef struct mmt_replay_options {
    const char *landscape;  /* the database file (read into memory: any schema version, never written) */
    const char *strategies; /* one name, or "all" */
    size_t budget;          /* measurements per problem (0: all) */
    double budget_frac;     /* or this fraction of each problem's candidates (0: none) */
    size_t batch;           /* proposals per refill of the guided strategies */
    int seeds;              /* runs per strategy and problem, seeds 1..seeds */
    int warm;               /* start from the other problems' winners */
} mmt_replay_options;

/* Prints a row per problem and strategy and a summary per strategy to f. */
mmt_status mmt_replay(const mmt_replay_options *o, FILE *f, mmt_err *err);

#endif
