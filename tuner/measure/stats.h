/* stats.h - the statistics of timing: a summary of a candidate's samples (median, the
 * standard error of the median, a distribution-free confidence interval for it), and the
 * decisions the tuner takes from intervals: is a candidate clearly slower than the best
 * (stop measuring it), which candidates are still in the running at the end of a problem
 * (the finalists), and which finalist wins. Pure functions of their arguments: the same
 * samples give the same answers on every run and in every process. */
#ifndef MMT_STATS_H
#define MMT_STATS_H

#include <stddef.h>

/* The nominal coverage of every interval, and the most samples a summary takes. */
#define MMT_STATS_LEVEL 0.95
#define MMT_STATS_MAX_N 256

/* A candidate is stopped only after this many samples, and only if the lower end of its
 * interval lies above the best's upper end by more than this fraction. */
#define MMT_STATS_EARLY_MIN_SAMPLES 3
#define MMT_STATS_EARLY_MARGIN 0.03

typedef struct mmt_summary {
    int n;
    double median, min, max;
    double lo, hi; /* the interval for the median: order statistics (see stats.c) */
    double level;  /* its exact coverage: >= MMT_STATS_LEVEL from 6 samples on, less below */
    double se;     /* standard error of the median (from the MAD), for "stable enough" */
} mmt_summary;

/* Summarises n samples, 1 <= n <= MMT_STATS_MAX_N (more are ignored). */
void mmt_stats_summarise(const double *v, int n, mmt_summary *s);

/* The 1-based ranks (lo, hi = n + 1 - lo) of the order statistics that bound the median
 * of n samples with coverage >= level, the narrowest such symmetric pair; where n is too
 * small for level, the widest one (min and max). Returns the exact coverage. */
double mmt_stats_median_ranks(int n, double level, int *lo, int *hi);

/* The median of v[0..n) (NAN if n is 0); sorts v in place. */
double mmt_stats_median(double *v, size_t n);

/* A candidate's standing: its configuration text (the tie-break key) and its median
 * with the interval (lo == hi == median where no interval is known). */
typedef struct mmt_stats_entry {
    const char *key;
    double median, lo, hi;
} mmt_stats_entry;

/* 1 if the intervals of a and b share a point. */
int mmt_stats_overlap(const mmt_stats_entry *a, const mmt_stats_entry *b);

/* The early stop: after samples >= MMT_STATS_EARLY_MIN_SAMPLES, 1 if a candidate whose
 * interval starts at lo is clearly slower than a best whose interval ends at best_hi
 * (lo > best_hi (1 + MMT_STATS_EARLY_MARGIN)). best_hi <= 0: no best yet, never. */
int mmt_stats_clearly_slower(double lo, double best_hi, int samples);

/* The finalists among n entries: the fastest (by median, then key) and up to max - 1
 * others, fastest first, that are not clearly slower than it: their intervals start
 * below its upper end widened by MMT_STATS_EARLY_MARGIN (the early stop's rule, so what
 * the exploration did not stop, the final round settles). Writes their indices to out
 * (max of them) fastest first; returns how many. The order of the entries does not
 * change the answer. */
size_t mmt_stats_finalists(const mmt_stats_entry *e, size_t n, size_t max, size_t *out);

/* The winner among n entries measured together where a tie has a preference: the fastest
 * by median, unless others' intervals overlap its interval (a tie within noise), in which
 * case the smallest key (strcmp) among the tied wins, the fastest included (the levels
 * round: fewer Strassen levels, a shorter text, where they do not clearly pay). *n_tied (may be NULL) counts the
 * tied, the fastest included (1: a clear win). The order of the entries does not change
 * the answer. n must be >= 1. */
size_t mmt_stats_winner(const mmt_stats_entry *e, size_t n, size_t *n_tied);

/* The fastest of n entries by median (then key), and in *n_tied (may be NULL) how many
 * entries' intervals overlap its interval, itself included (1: a clear win). The final
 * round's rule: a tie within noise is no reason to take a slower median. The order of the
 * entries does not change the answer. n must be >= 1. */
size_t mmt_stats_fastest(const mmt_stats_entry *e, size_t n, size_t *n_tied);

/* Within noise, the more accurate: the entry among those whose intervals overlap entry
 * `fastest`'s (itself included) with the smallest error[i], where fastest's error is above
 * `ratio` times it; else fastest. An error not above 0 is not known and decides nothing.
 * The final round's rule: the same time, and a result the vendor round would refuse for
 * its error (MMT_VENDOR_ERROR_RATIO) is no reason to lose a tied finalist that passes. */
size_t mmt_stats_accurate_tie(const mmt_stats_entry *e, const double *error, size_t n, size_t fastest, double ratio);

#endif
