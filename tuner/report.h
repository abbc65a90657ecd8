/* report.h - what a person watches and reads: a progress line (a bar with ETA and
 * best-so-far on a terminal, plain lines otherwise) and the final table per shape. */
#ifndef MMT_REPORT_H
#define MMT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "problem.h"

typedef struct mmt_progress mmt_progress;

/* Progress on f (a terminal gets a redrawn bar; anything else plain lines); quiet prints
 * nothing. */
mmt_progress *mmt_progress_new(FILE *f, size_t n_problems, int quiet);
void mmt_progress_free(mmt_progress *pr);

void mmt_progress_problem(mmt_progress *pr, const mmt_problem *p, size_t planned);
void mmt_progress_trial(mmt_progress *pr, size_t done, const char *params, const char *status, double gflops,
                        double best_gflops);
void mmt_progress_end_problem(mmt_progress *pr);

/* One row of the final table. */
typedef struct mmt_report_row {
    const mmt_problem *problem;
    const char *params;   /* NULL: no result */
    double gflops;        /* ours */
    double vendor_gflops; /* 0: not measured */
    const char *note;     /* why there is no result, or NULL */
} mmt_report_row;

/* The table: shape, best config, GFLOP/s, vendor GFLOP/s, ratio. vendor names the library
 * or says why there is none. */
void mmt_report_table(FILE *f, const char *title, const char *vendor, const mmt_report_row *rows, size_t n);

#endif
