/* report.h - what a person watches and reads: a progress line (a bar with ETA, the
 * exploration's best so far and the compile and measure throughput on a terminal, plain
 * lines with each candidate's median and interval otherwise) and the final table per
 * shape, ours and the vendor's figures with their intervals, with how each winner was
 * chosen, where its figures come from and the pipeline figures of each problem. */
#ifndef MMT_REPORT_H
#define MMT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "device.h"
#include "problem.h"
#include "store.h"

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
    int ahead;       /* compile-ahead processes (prebuild.h); 0: compiled in turn (the CPU) */
} mmt_report_pipeline;

/* "measured 12 + 3 in the final round + 3 in the levels round, reused 3 in 4.1 s; compile
 * 2.9/s ahead in 12 processes, measure 3.7/s; idle waiting for compile 29% (1.2 s)": the
 * throughputs per second of wall time (measure: every trial, the rounds' too), the idle
 * share of it. */
void mmt_report_pipeline_text(const mmt_report_pipeline *p, char *buf, size_t size);

/* A timing as the table prints it: a median and the interval for it, and the relative
 * error of the same call's result. */
typedef struct mmt_report_figure {
    double median_ms;           /* 0: none */
    double lo_ms, hi_ms, level; /* level: the interval's coverage; 0: no interval known */
    double rel_error;           /* against the reference (mmt_bench_verify); not above 0 (NaN too): not
                                 * known, as in a figure built without it (an exact 0 prints "-" too) */
} mmt_report_figure;

/* What a tuned row says beyond its figures. */
typedef struct mmt_report_detail {
    char final[256];   /* how the winner was chosen (the final round), in words */
    char figures[512]; /* where the figures come from: the exploration's best, the final round's,
                        * the vendor round's (the table's) */
    char levels[320];  /* the levels round (Strassen-Winograd levels against the classic), or "" */
    mmt_report_pipeline pipe;
} mmt_report_detail;

/* Progress on f (a terminal gets a redrawn bar; anything else plain lines); quiet prints
 * nothing. */
mmt_progress *mmt_progress_new(FILE *f, size_t n_problems, int quiet);
void mmt_progress_free(mmt_progress *pr);

/* One candidate's line: its figure, its median and interval, and the pipeline so far
 * (throughputs). best_gflops is the exploration's best so far: each candidate timed
 * alone, which the table's figures (timed side by side at the end) need not match. */
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

/* One row of the final table. */
typedef struct mmt_report_row {
    const mmt_problem *problem;
    const char *family;              /* the template family of the winner; NULL: not shown */
    const char *params;              /* NULL: no result */
    mmt_report_figure tuned;         /* ours */
    mmt_report_figure vendor;        /* the vendor's, timed with ours; median 0: not measured */
    const char *vendor_label;        /* the vendor library ("OpenBLAS 0.3.21"); NULL: not named */
    int vendor_serves;               /* libmmtuned serves the vendor (faster or more accurate), not params */
    const char *note;                /* why there is no result, a partial search, or NULL */
    const mmt_report_detail *detail; /* the final round, the figures and the pipeline; NULL: none */
} mmt_report_row;

/* The end of a problem on the progress output: its result in one line (the table has the
 * rest). */
void mmt_progress_end_problem(mmt_progress *pr, const mmt_report_row *row);

/* GFLOP/s of a figure of problem p (0 if there is none). */
double mmt_report_gflops(const mmt_problem *p, const mmt_report_figure *f);

/* The table: shape, family (where rows name one), config, then ours and the vendor's
 * figure (GFLOP/s, median ms, interval), the ratio and the two relative errors; the notes of
 * rows; the footer lines; then per problem with a detail, the final round, the figures and
 * the pipeline. */
void mmt_report_table(FILE *f, const char *title, const char *const *footer, const mmt_report_row *rows, size_t n);

/* What a table's title and footer say, for its JSON form. */
typedef struct mmt_report_meta {
    const char *command;            /* "tune", "bench" */
    const mmt_device_info *device;
    const char *database;
    const char *const *notes;       /* the footer lines, NULL-terminated */
    int interrupted;                /* a tune stopped by a signal: its partial table */
} mmt_report_meta;

/* The table as one JSON document (report_json.c): the rows with the same figures, every
 * number in full (times in ms, GFLOP/s = 2mnk / median), the notes; null where the text
 * prints "-". */
void mmt_report_json(FILE *f, const mmt_report_meta *meta, const mmt_report_row *rows, size_t n);

/* show --json: {"database": ..., "device": ..., "rows": [...]}, best_view's rows (of the
 * device named device; NULL: every device) as objects whose keys are its columns. */
mmt_status mmt_report_json_best(FILE *f, mmt_store *st, const char *database, const char *device, mmt_err *err);

#endif
