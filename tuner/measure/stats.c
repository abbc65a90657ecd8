/* stats.c - medians, intervals and the decisions taken from them (see stats.h).
 *
 * The interval for a median is the distribution-free one from order statistics: of n
 * samples sorted x(1) <= ... <= x(n), the true median lies in [x(l), x(n+1-l)] unless
 * fewer than l samples fall on one side of it, so the coverage is
 * 1 - 2 P(B <= l - 1) with B ~ Binomial(n, 1/2), whatever the distribution of the times.
 * Timings are skewed (a late sample, never an early one), which rules out intervals
 * that assume a normal shape, and a bootstrap of 5 to 30 samples would only reshuffle
 * the same order statistics at the price of a random seed. No randomness here: the same
 * samples give the same interval everywhere. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mmt_stats_median_ranks(int n, double level, int *lo, int *hi)
{
    if (n < 1) {
        *lo = *hi = 0;
        return 0;
    }
    /* tail[j] = P(B <= j) for B ~ Binomial(n, 1/2), j < n/2: the pmf by its recurrence */
    double p = ldexp(1.0, -n), tail = p, coverage = 1 - 2 * tail; /* l = 1 */
    int l = 1;
    for (int j = 1; l + 1 <= (n + 1) / 2; j++) {
        p = p * (n - j + 1) / j;
        double next = 1 - 2 * (tail + p); /* the coverage of l + 1 */
        if (next < level) break;
        tail += p;
        coverage = next;
        l++;
    }
    *lo = l;
    *hi = n + 1 - l;
    return coverage < 0 ? 0 : coverage;
}

double mmt_stats_median(double *v, size_t n)
{
    if (n == 0) return NAN;
    qsort(v, n, sizeof(double), cmp_double);
    return median_sorted(v, (int)n);
}

void mmt_stats_summarise(const double *v, int n, mmt_summary *s)
{
    double x[MMT_STATS_MAX_N], dev[MMT_STATS_MAX_N];
    memset(s, 0, sizeof *s);
    if (n > MMT_STATS_MAX_N) n = MMT_STATS_MAX_N;
    if (n < 1) return;
    memcpy(x, v, sizeof(double) * n);
    qsort(x, n, sizeof(double), cmp_double);
    s->n = n;
    s->median = median_sorted(x, n);
    s->min = x[0];
    s->max = x[n - 1];
    int lo, hi;
    s->level = mmt_stats_median_ranks(n, MMT_STATS_LEVEL, &lo, &hi);
    s->lo = x[lo - 1];
    s->hi = x[hi - 1];
    /* 1.4826 MAD estimates the standard deviation of a normal core without the outliers'
     * pull; the median of n such samples has a standard error sqrt(pi/2) sigma / sqrt(n). */
    for (int i = 0; i < n; i++) dev[i] = fabs(x[i] - s->median);
    qsort(dev, n, sizeof(double), cmp_double);
    s->se = 1.4826 * median_sorted(dev, n) * 1.2533 / sqrt((double)n);
}

int mmt_stats_overlap(const mmt_stats_entry *a, const mmt_stats_entry *b)
{
    return a->lo <= b->hi && b->lo <= a->hi;
}

int mmt_stats_clearly_slower(double lo, double best_hi, int samples)
{
    /* The margin covers what neither interval does: the candidate and the best were
     * measured at different times (clocks, temperature, other tenants); the final round
     * settles what lies within it by measuring the two side by side. */
    return best_hi > 0 && samples >= MMT_STATS_EARLY_MIN_SAMPLES && lo > best_hi * (1 + MMT_STATS_EARLY_MARGIN);
}

static const char *key_of(const mmt_stats_entry *e) { return e->key ? e->key : ""; }

/* The order of "faster": the median, then the key, so equal medians have one order. */
static int faster(const mmt_stats_entry *a, const mmt_stats_entry *b)
{
    if (a->median != b->median) return a->median < b->median;
    return strcmp(key_of(a), key_of(b)) < 0;
}

static size_t fastest(const mmt_stats_entry *e, size_t n)
{
    size_t f = 0;
    for (size_t i = 1; i < n; i++)
        if (faster(&e[i], &e[f])) f = i;
    return f;
}

size_t mmt_stats_finalists(const mmt_stats_entry *e, size_t n, size_t max, size_t *out)
{
    if (n == 0 || max == 0) return 0;
    size_t f = fastest(e, n), k = 0;
    out[k++] = f;
    /* then those not clearly slower, fastest first: a selection, max is small. The margin
     * is the early stop's: two intervals measured seconds apart can miss each other by
     * drift alone (a shared machine's clock, another tenant), which side by side cancels. */
    while (k < max) {
        long pick = -1;
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            for (size_t j = 0; j < k; j++) taken |= out[j] == i;
            if (taken || e[i].lo > e[f].hi * (1 + MMT_STATS_EARLY_MARGIN)) continue;
            if (pick < 0 || faster(&e[i], &e[pick])) pick = (long)i;
        }
        if (pick < 0) break;
        out[k++] = (size_t)pick;
    }
    return k;
}

size_t mmt_stats_fastest(const mmt_stats_entry *e, size_t n, size_t *n_tied)
{
    size_t f = fastest(e, n), tied = 0;
    for (size_t i = 0; i < n; i++) tied += mmt_stats_overlap(&e[i], &e[f]) != 0;
    if (n_tied) *n_tied = tied;
    return f;
}

size_t mmt_stats_accurate_tie(const mmt_stats_entry *e, const double *error, size_t n, size_t fastest, double ratio)
{
    size_t best = fastest;
    for (size_t i = 0; i < n; i++)
        if (error[i] > 0 && mmt_stats_overlap(&e[i], &e[fastest]) && (!(error[best] > 0) || error[i] < error[best]))
            best = i;
    return error[fastest] > 0 && error[best] > 0 && error[fastest] > ratio * error[best] ? best : fastest;
}

size_t mmt_stats_winner(const mmt_stats_entry *e, size_t n, size_t *n_tied)
{
    const size_t f = mmt_stats_fastest(e, n, n_tied);
    size_t w = f;
    for (size_t i = 0; i < n; i++) {
        if (!mmt_stats_overlap(&e[i], &e[f])) continue;
        int c = strcmp(key_of(&e[i]), key_of(&e[w]));
        if (c < 0 || (c == 0 && faster(&e[i], &e[w]))) w = i;
    }
    return w;
}
