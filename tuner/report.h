/* report.h - what a person watches and reads: a progress line (a bar with ETA, best so far
 * and the compile and measure throughput on a terminal, plain lines with each candidate's
 * median and interval otherwise) and the final table per shape with the pipeline figures
 * of each problem. */
#ifndef MMT_REPORT_H
#define MMT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "problem.h"

typedef struct mmt_progress mmt_progress;

/* A problem's pipeline: what its tuning took and whether compiling kept the device busy. */
typedef struct mmt_report_pipeline {
    double wall_s;   /* the first candidate to the final choice (the vendor's measurement not included) */
    double wait_s;   /* the loop waited for a binary (a compile, a cache read): the device sat idle */
    size_t compiled; /* binaries compiled, ahead or in turn (cache hits not counted) */
    size_t measured; /* candidates measured (new trials, failures included) */
    size_t finals;   /* trials of the final round (finalists measured again side by side) */
    size_t levels;   /* trials of the levels round (the winner with Strassen-Winograd levels) */
    size_t reused;   /* candidates whose trial the database already had */
    int ahead;       /* compile-ahead threads; 0: compiled in turn (the CPU) */
} mmt_report_pipeline;

/* "measured 12 + 3 in the final round + 3 in the levels round, reused 3 in 4.1 s; compile
 * 2.9/s ahead on 12 threads, measure 3.7/s; idle waiting for compile 29% (1.2 s)": the
 * throughputs per second of wall time (measure: every trial, the rounds' too), the idle
 * share of it. */
void mmt_report_pipeline_text(const mmt_report_pipeline *p, char *buf, size_t size);

/* What a tuned row shows beyond its figure. */
typedef struct mmt_report_detail {
    double median_ms, lo_ms, hi_ms; /* the winner's median and its interval */
    double level;                   /* the interval's coverage; 0: no interval known (a reused trial) */
    char final[256];                /* how the winner was chosen (the final round), in words */
    char levels[320];               /* the levels round (Strassen-Winograd levels against the classic), or "" */
    mmt_report_pipeline pipe;
} mmt_report_detail;

/* Progress on f (a terminal gets a redrawn bar; anything else plain lines); quiet prints
 * nothing. */
mmt_progress *mmt_progress_new(FILE *f, size_t n_problems, int quiet);
void mmt_progress_free(mmt_progress *pr);

/* One candidate's line: its figure, its median and interval, and the pipeline so far
 * (throughputs). */
typedef struct mmt_trial_line {
    const char *params, *status;
    double gflops, best_gflops;            /* 0: none */
    double median_ms, lo_ms, hi_ms, level; /* level 0: no interval (a reused trial) */
    int reused;
} mmt_trial_line;

/* The start of a problem's search by one of its families (first: the problem's first
 * family, which moves the count of problems on). */
void mmt_progress_problem(mmt_progress *pr, const mmt_problem *p, const char *family, size_t planned, int first);
void mmt_progress_trial(mmt_progress *pr, size_t done, const mmt_trial_line *line, const mmt_report_pipeline *pipe);
/* The end of a problem: how the winner was chosen and the pipeline figures (d may be NULL). */
void mmt_progress_end_problem(mmt_progress *pr, const mmt_report_detail *d);

/* One row of the final table. */
typedef struct mmt_report_row {
    const mmt_problem *problem;
    const char *family;              /* the template family of the winner; NULL: not shown */
    const char *params;              /* NULL: no result */
    double gflops;                   /* ours */
    double vendor_gflops;            /* 0: not measured */
    const char *note;                /* why there is no result, or NULL */
    const mmt_report_detail *detail; /* the winner's interval, final round and pipeline; NULL: none */
} mmt_report_row;

/* The table: shape, family (where rows name one), best config, GFLOP/s, median and
 * interval, vendor GFLOP/s, ratio; then
 * per problem with a detail, the final round and the pipeline figures. vendor names the
 * library or says why there is none. */
void mmt_report_table(FILE *f, const char *title, const char *vendor, const mmt_report_row *rows, size_t n);

#endif
