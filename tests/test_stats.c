/* test_stats.c - the timing statistics (tuner/measure/stats.c): the order-statistic interval of
 * the median against binomial tables and a fixed-seed simulation, the summary of known
 * samples, the early-stop rule, and the finalists and winner of a problem, which must
 * not depend on the order the candidates come in. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "stats.h"

#define CHECK_NEAR(a, b, tol)                                                                             \
    do {                                                                                                  \
        double a_ = (a), b_ = (b);                                                                        \
        if (!(fabs(a_ - b_) <= (tol))) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.10g vs %.10g)\n", __FILE__, __LINE__, #a, #b, a_, \
                    b_);                                                                                  \
            check_failures_++;                                                                            \
        }                                                                                                 \
    } while (0)

/* The ranks of the 95% interval, from tables of the binomial distribution (and their exact
 * coverage 1 - 2 P(B <= lo - 1), B ~ Binomial(n, 1/2)). Below 6 samples no pair reaches
 * 95%: the interval is the range. */
static void test_ranks(void)
{
    static const struct {
        int n, lo, hi;
        double coverage;
    } table[] = {
        {1, 1, 1, 0.0},
        {2, 1, 2, 0.5},
        {5, 1, 5, 1 - 2.0 / 32},
        {6, 1, 6, 1 - 2.0 / 64},
        {8, 1, 8, 1 - 2.0 / 256},
        {9, 2, 8, 1 - 2.0 * 10 / 512},
        {10, 2, 9, 1 - 2.0 * 11 / 1024},
        {20, 6, 15, 1 - 2.0 * (1 + 20 + 190 + 1140 + 4845 + 15504) / 1048576},
        {30, 10, 21, 0.95722605474},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int lo, hi;
        double c = mmt_stats_median_ranks(table[i].n, MMT_STATS_LEVEL, &lo, &hi);
        CHECK_EQ_INT(lo, table[i].lo);
        CHECK_EQ_INT(hi, table[i].hi);
        CHECK_NEAR(c, table[i].coverage, 1e-7);
    }
}

static void test_summary(void)
{
    /* 1..20 in a scrambled order: median 10.5, interval [x(6), x(15)] = [6, 15] */
    double v[20];
    for (int i = 0; i < 20; i++) v[i] = (double)((i * 7) % 20 + 1);
    mmt_summary s;
    mmt_stats_summarise(v, 20, &s);
    CHECK_EQ_INT(s.n, 20);
    CHECK_NEAR(s.median, 10.5, 0);
    CHECK_NEAR(s.min, 1, 0);
    CHECK_NEAR(s.max, 20, 0);
    CHECK_NEAR(s.lo, 6, 0);
    CHECK_NEAR(s.hi, 15, 0);
    CHECK(s.level >= MMT_STATS_LEVEL);

    /* one late sample among steady ones moves neither the median nor its interval */
    double steady[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 50};
    mmt_stats_summarise(steady, 10, &s);
    CHECK_NEAR(s.median, 2, 0);
    CHECK_NEAR(s.lo, 2, 0);
    CHECK_NEAR(s.hi, 2, 0);
    CHECK_NEAR(s.se, 0, 0);
    CHECK_NEAR(s.max, 50, 0);

    /* few samples: the range, with its lower coverage said */
    double three[3] = {3, 1, 2};
    mmt_stats_summarise(three, 3, &s);
    CHECK_NEAR(s.median, 2, 0);
    CHECK_NEAR(s.lo, 1, 0);
    CHECK_NEAR(s.hi, 3, 0);
    CHECK_NEAR(s.level, 0.75, 1e-12);

    double one = 4.5;
    mmt_stats_summarise(&one, 1, &s);
    CHECK_NEAR(s.median, 4.5, 0);
    CHECK_NEAR(s.lo, 4.5, 0);
    CHECK_NEAR(s.hi, 4.5, 0);
}

/* The interval is distribution-free: on skewed samples (exponential, median ln 2) it
 * covers the true median as often as its level says. The seed is fixed, so this is the
 * same computation on every run: 4000 intervals of 20 samples each, exact coverage
 * 0.9586; a binomial count of 4000 lies within 0.95 +- 0.02 of it with certainty here. */
static void test_coverage(void)
{
    uint64_t x = 12345;
    int covered = 0, runs = 4000;
    for (int r = 0; r < runs; r++) {
        double v[20];
        for (int i = 0; i < 20; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
            v[i] = -log(u);
        }
        mmt_summary s;
        mmt_stats_summarise(v, 20, &s);
        covered += s.lo <= log(2.0) && log(2.0) <= s.hi;
    }
    double rate = (double)covered / runs;
    CHECK(rate > 0.94 && rate < 0.98);
}

static void test_early_stop(void)
{
    /* never before the minimum of samples, however slow */
    CHECK(!mmt_stats_clearly_slower(100.0, 1.0, MMT_STATS_EARLY_MIN_SAMPLES - 1));
    CHECK(mmt_stats_clearly_slower(100.0, 1.0, MMT_STATS_EARLY_MIN_SAMPLES));
    /* the lower end must clear the best's upper end by the margin */
    CHECK(!mmt_stats_clearly_slower(1.0 + MMT_STATS_EARLY_MARGIN / 2, 1.0, 10));
    CHECK(mmt_stats_clearly_slower(1.0 + 2 * MMT_STATS_EARLY_MARGIN, 1.0, 10));
    CHECK(!mmt_stats_clearly_slower(0.9, 1.0, 10));
    /* no best yet */
    CHECK(!mmt_stats_clearly_slower(5.0, 0.0, 10));
}

/* Every order of the entries (n <= 4: all 24 permutations) must give the same key. */
static const char *winner_key(const mmt_stats_entry *e, size_t n, const int *perm, size_t *tied)
{
    mmt_stats_entry p[4];
    for (size_t i = 0; i < n; i++) p[i] = e[perm[i]];
    return p[mmt_stats_winner(p, n, tied)].key;
}

static int next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1]) i--;
    if (i < 0) return 0;
    int j = n - 1;
    while (a[j] <= a[i]) j--;
    int t = a[i];
    a[i] = a[j], a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) t = a[l], a[l] = a[r], a[r] = t;
    return 1;
}

static void check_winner_any_order(const mmt_stats_entry *e, size_t n, const char *want, size_t want_tied)
{
    int perm[4] = {0, 1, 2, 3};
    do {
        size_t tied = 0;
        CHECK_EQ_STR(winner_key(e, n, perm, &tied), want);
        CHECK_EQ_INT(tied, want_tied);
    } while (next_perm(perm, (int)n));
}

static void test_winner(void)
{
    /* three within noise of each other: the smallest text wins, not the smallest median */
    mmt_stats_entry tied[3] = {
        {"MR=6,NV=2", 1.000, 0.990, 1.012},
        {"MR=4,NV=3", 1.004, 0.995, 1.015},
        {"MR=8,NV=1", 1.008, 1.001, 1.020},
    };
    check_winner_any_order(tied, 3, "MR=4,NV=3", 3);

    /* a clear win stands, whatever the texts */
    mmt_stats_entry clear[3] = {
        {"Z=9", 1.000, 0.995, 1.005},
        {"A=1", 1.100, 1.090, 1.110},
        {"B=2", 1.200, 1.190, 1.210},
    };
    check_winner_any_order(clear, 3, "Z=9", 1);

    /* tied with the fastest counts, tied with a tied one does not */
    mmt_stats_entry chain[4] = {
        {"C=3", 1.000, 0.990, 1.010},
        {"B=2", 1.008, 1.005, 1.020},
        {"A=1", 1.025, 1.015, 1.030}, /* overlaps B, not C */
        {"D=4", 1.500, 1.400, 1.600},
    };
    check_winner_any_order(chain, 4, "B=2", 2);

    /* no intervals (lo = hi = median): equal medians are a tie, anything else is not */
    mmt_stats_entry points[3] = {{"X=2", 2.0, 2.0, 2.0}, {"X=1", 2.0, 2.0, 2.0}, {"X=0", 2.5, 2.5, 2.5}};
    check_winner_any_order(points, 3, "X=1", 2);
}

static void test_fastest(void)
{
    /* the final round's rule: within noise of each other, the fastest median still wins */
    mmt_stats_entry tied[3] = {
        {"MR=6,NV=2", 1.000, 0.990, 1.012},
        {"MR=4,NV=3", 1.004, 0.995, 1.015},
        {"MR=8,NV=1", 1.030, 1.020, 1.040}, /* clear of the fastest */
    };
    int perm[3] = {0, 1, 2};
    do {
        mmt_stats_entry p[3];
        for (int i = 0; i < 3; i++) p[i] = tied[perm[i]];
        size_t n_tied = 0;
        CHECK_EQ_STR(p[mmt_stats_fastest(p, 3, &n_tied)].key, "MR=6,NV=2");
        CHECK_EQ_INT(n_tied, 2);
    } while (next_perm(perm, 3));
    /* equal medians: the smaller key, so the answer does not depend on the order */
    mmt_stats_entry same[2] = {{"X=2", 2.0, 1.9, 2.1}, {"X=1", 2.0, 1.9, 2.1}};
    CHECK_EQ_STR(same[mmt_stats_fastest(same, 2, NULL)].key, "X=1");
}

static void test_accurate_tie(void)
{
    mmt_stats_entry e[4] = {
        {"A=1", 1.00, 0.99, 1.02}, /* the fastest */
        {"B=2", 1.01, 1.00, 1.03}, /* within noise of it */
        {"C=3", 1.02, 1.01, 1.04}, /* within noise too */
        {"D=4", 1.20, 1.15, 1.25}, /* apart */
    };
    /* A's error 1.2x C's, the least among the tied: C, not D (more accurate, but slower) */
    const double err[4] = {3.6e-7, 3.4e-7, 3.0e-7, 1.0e-7};
    CHECK_EQ_STR(e[mmt_stats_accurate_tie(e, err, 4, 0, 1.1)].key, "C=3");
    /* within the ratio: the fastest stays */
    const double near[4] = {3.2e-7, 3.4e-7, 3.0e-7, 1.0e-7};
    CHECK_EQ_STR(e[mmt_stats_accurate_tie(e, near, 4, 0, 1.1)].key, "A=1");
    /* errors not known decide nothing: the fastest's, or the others' */
    const double unknown_fastest[4] = {0, 3.4e-7, 1.0e-7, 1.0e-7};
    CHECK_EQ_STR(e[mmt_stats_accurate_tie(e, unknown_fastest, 4, 0, 1.1)].key, "A=1");
    const double unknown_others[4] = {3.6e-7, -1, 0, 1.0e-7};
    CHECK_EQ_STR(e[mmt_stats_accurate_tie(e, unknown_others, 4, 0, 1.1)].key, "A=1");
}

static void test_finalists(void)
{
    mmt_stats_entry e[6] = {
        {"E=5", 1.30, 1.20, 1.40},  /* clearly slower than the fastest */
        {"B=2", 1.01, 1.00, 1.03},
        {"A=1", 1.00, 0.99, 1.02},  /* the fastest */
        {"D=4", 1.03, 1.015, 1.05},
        {"C=3", 1.02, 1.01, 1.04},
        {"F=6", 1.07, 1.04, 1.09},  /* apart from A's interval, not by the margin: a finalist */
    };
    size_t out[6];
    size_t k = mmt_stats_finalists(e, 6, 3, out);
    CHECK_EQ_INT(k, 3);
    CHECK_EQ_STR(e[out[0]].key, "A=1");
    CHECK_EQ_STR(e[out[1]].key, "B=2");
    CHECK_EQ_STR(e[out[2]].key, "C=3");
    k = mmt_stats_finalists(e, 6, 6, out);
    CHECK_EQ_INT(k, 5); /* E stays out */
    CHECK_EQ_STR(e[out[3]].key, "D=4");
    CHECK_EQ_STR(e[out[4]].key, "F=6");

    /* reversed input, same finalists in the same order */
    mmt_stats_entry r[6];
    for (int i = 0; i < 6; i++) r[i] = e[5 - i];
    k = mmt_stats_finalists(r, 6, 3, out);
    CHECK_EQ_INT(k, 3);
    CHECK_EQ_STR(r[out[0]].key, "A=1");
    CHECK_EQ_STR(r[out[1]].key, "B=2");
    CHECK_EQ_STR(r[out[2]].key, "C=3");

    /* equal medians: the key orders them */
    mmt_stats_entry eq[2] = {{"Q=2", 1.0, 0.9, 1.1}, {"Q=1", 1.0, 0.9, 1.1}};
    k = mmt_stats_finalists(eq, 2, 1, out);
    CHECK_EQ_INT(k, 1);
    CHECK_EQ_STR(eq[out[0]].key, "Q=1");
    CHECK_EQ_INT(mmt_stats_finalists(eq, 0, 3, out), 0);
}

int main(void)
{
    test_ranks();
    test_summary();
    test_coverage();
    test_early_stop();
    test_winner();
    test_fastest();
    test_accurate_tie();
    test_finalists();
    return check_result();
}
