/* replay.c - strategies against a recorded landscape (see replay.h). */
#include "replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "search.h"
#include "stats.h"
#include "store.h"
#include "warm.h"

#define WITHIN 1.03 /* "within 3% of the optimum" */

/* One problem of the landscape: its candidates and their recorded times. */
typedef struct landscape_problem {
    mmt_trial_set set;
    mmt_family *fam;
    mmt_problem np; /* row-major */
    mmt_config *cands;
    size_t n, recorded;
    double *ms; /* recorded median per candidate; INFINITY if it failed or was not recorded */
    double opt;
    char best[512]; /* the optimum's config text */
    char why[160];  /* why it is not used, if it is not */
} landscape_problem;

typedef struct recorded {
    char *params;
    double ms;
    size_t order;
} recorded;

typedef struct recording {
    recorded *r;
    size_t n, cap;
} recording;

static int collect(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    (void)gflops;
    recording *rec = user;
    if (rec->n == rec->cap) {
        size_t cap = rec->cap ? 2 * rec->cap : 256;
        recorded *grown = realloc(rec->r, cap * sizeof *grown);
        if (!grown) return 1;
        rec->r = grown, rec->cap = cap;
    }
    char *copy = strdup(params);
    if (!copy) return 1;
    rec->r[rec->n] = (recorded){copy, status == MMT_TRIAL_OK ? ms : INFINITY, rec->n};
    rec->n++;
    return 0;
}

/* By text, and among equal texts by the order measured: the last one counts. */
static int cmp_recorded(const void *x, const void *y)
{
    const recorded *a = x, *b = y;
    int c = strcmp(a->params, b->params);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static double lookup_ms(const recording *rec, const char *params)
{
    size_t lo = 0, hi = rec->n; /* the last entry with this text */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(rec->r[mid].params, params) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && strcmp(rec->r[lo - 1].params, params) == 0 ? rec->r[lo - 1].ms : NAN;
}

static mmt_status load_problem(mmt_store *st, landscape_problem *lp, mmt_err *err)
{
    const mmt_trial_set *t = &lp->set;
    lp->np = mmt_problem_normalise(&t->problem);
    mmt_err why;
    if (mmt_family_find_template(t->template_name, &lp->fam, &why) != MMT_OK) {
        snprintf(lp->why, sizeof lp->why, "no embedded space for %s", t->template_name);
        return MMT_OK;
    }
    mmt_space_env env = {.problem = &lp->np, .device = &t->device};
    FORWARD_IF_ERROR(mmt_space_enumerate(lp->fam->space, &env, &lp->cands, &lp->n, err));
    recording rec = {0};
    mmt_status s = mmt_store_trials_each(st, t->device_id, t->problem_id, t->template_id, collect, &rec, err);
    if (s == MMT_OK && rec.n) qsort(rec.r, rec.n, sizeof *rec.r, cmp_recorded);
    lp->ms = s == MMT_OK ? malloc(sizeof(double) * (lp->n ? lp->n : 1)) : NULL;
    if (s == MMT_OK && !lp->ms) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    lp->opt = INFINITY;
    for (size_t i = 0; s == MMT_OK && i < lp->n; i++) {
        char params[512];
        mmt_config_format(lp->fam->space, &lp->cands[i], params, sizeof params);
        double ms = lookup_ms(&rec, params);
        lp->recorded += !isnan(ms);
        lp->ms[i] = isnan(ms) ? INFINITY : ms;
        if (lp->ms[i] < lp->opt) {
            lp->opt = lp->ms[i];
            snprintf(lp->best, sizeof lp->best, "%s", params);
        }
    }
    for (size_t i = 0; i < rec.n; i++) free(rec.r[i].params);
    free(rec.r);
    if (s == MMT_OK && (lp->n == 0 || 20 * lp->recorded < 19 * lp->n || !isfinite(lp->opt)))
        snprintf(lp->why, sizeof lp->why, "not an exhaustive landscape: %zu of %zu candidates recorded",
                 lp->recorded, lp->n);
    return s;
}

/* The other problems' winners on the same device and template: the warm start. */
static size_t neighbours(const landscape_problem *lps, size_t nl, size_t self, mmt_best_rec *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        if (i == self || lps[i].why[0] || lps[i].set.device_id != lps[self].set.device_id ||
            strcmp(lps[i].set.template_name, lps[self].set.template_name) != 0)
            continue;
        out[k].problem = lps[i].set.problem;
        snprintf(out[k].params, sizeof out[k].params, "%s", lps[i].best);
        out[k++].gflops = 0;
    }
    return k;
}

/* One run: the best time found and the measurements it took to come within 3% (0: never). */
typedef struct run {
    double gap;      /* best found / optimum - 1 */
    double to_3pct;  /* measurements to come within 3%, as a fraction of the candidates (INFINITY: never) */
    size_t measured; /* measurements made */
} run;

static mmt_status replay_one(const mmt_replay_options *o, const char *strategy, const landscape_problem *lps,
                             size_t nl, size_t self, uint64_t seed, run *r, mmt_err *err)
{
    const landscape_problem *lp = &lps[self];
    size_t first[MMT_WARM_MAX], n_first;
    mmt_best_rec *bests = calloc(nl ? nl : 1, sizeof *bests);
    RETURN_ERROR_IF(!bests, err, MMT_OUT_OF_MEMORY, "out of memory");
    size_t nb = o->warm ? neighbours(lps, nl, self, bests) : 0;
    mmt_space_env env = {.problem = &lp->np, .device = &lp->set.device};
    n_first = mmt_warm_order(lp->fam->space, lp->cands, lp->n, &env, bests, nb, first, MMT_WARM_MAX);
    free(bests);
    size_t budget = o->budget;
    if (!budget && o->budget_frac > 0) budget = (size_t)ceil(o->budget_frac * (double)lp->n);
    mmt_search *s;
    FORWARD_IF_ERROR(mmt_search_new(strategy, lp->fam->space, lp->cands, lp->n, first, n_first, budget, o->batch,
                                    seed, &s, err));
    double best = INFINITY;
    size_t count = 0, reached = 0;
    for (long i; (i = mmt_search_next(s)) >= 0;) {
        double ms = lp->ms[i];
        mmt_search_report(s, i, ms);
        count++;
        if (ms < best) best = ms;
        if (!reached && best <= WITHIN * lp->opt) reached = count;
    }
    mmt_search_free(s);
    r->gap = best / lp->opt - 1.0;
    r->to_3pct = reached ? (double)reached / (double)lp->n : INFINITY;
    r->measured = count;
    return MMT_OK;
}

static void print_pct(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "  %7.1f%%", 100 * x);
    else fprintf(f, "  %8s", "never");
}

mmt_status mmt_replay(const mmt_replay_options *o, FILE *f, mmt_err *err)
{
    mmt_store *st;
    FORWARD_IF_ERROR(mmt_store_open_snapshot(o->landscape, &st, err));
    mmt_trial_set *sets = NULL;
    size_t nl = 0;
    mmt_status s = mmt_store_trial_sets(st, &sets, &nl, err);
    landscape_problem *lps = s == MMT_OK ? calloc(nl ? nl : 1, sizeof *lps) : NULL;
    if (s == MMT_OK && !lps) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; s == MMT_OK && i < nl; i++) {
        lps[i].set = sets[i];
        s = load_problem(st, &lps[i], err);
    }
    const char *names[] = {"exhaustive", "random", "anneal", "model"};
    size_t n_names = 4, usable = 0;
    if (s == MMT_OK && strcmp(o->strategies, "all") != 0) {
        if (!mmt_search_known(o->strategies))
            s = mmt_err_set(err, MMT_INVALID_ARGUMENT, "unknown strategy '%s' (%s, or all)", o->strategies,
                            mmt_search_names());
        names[0] = o->strategies, n_names = 1;
    }
    for (size_t i = 0; i < nl; i++) usable += lps && !lps[i].why[0];
    if (s == MMT_OK && usable == 0)
        s = mmt_err_set(err, MMT_NOT_FOUND, "%s holds no exhaustive landscape (tune with --strategy exhaustive)%s%s",
                        o->landscape, nl ? ": the first problem is " : "", nl ? lps[0].why : "");
    const int seeds = o->seeds > 0 ? o->seeds : 1;
    double *gaps = NULL, *to3 = NULL, *all_gaps = NULL, *all_to3 = NULL;
    if (s == MMT_OK) {
        gaps = malloc(sizeof(double) * (size_t)seeds);
        to3 = malloc(sizeof(double) * (size_t)seeds);
        all_gaps = malloc(sizeof(double) * (size_t)seeds * usable);
        all_to3 = malloc(sizeof(double) * (size_t)seeds * usable);
        if (!gaps || !to3 || !all_gaps || !all_to3) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    if (s == MMT_OK) {
        fprintf(f, "replay of %s: %zu problem(s), %d seed(s), budget %s, %s\n", o->landscape, usable, seeds,
                o->budget ? "fixed" : o->budget_frac > 0 ? "a fraction" : "all", o->warm ? "warm starts" : "cold");
        for (size_t i = 0; i < nl; i++)
            if (lps[i].why[0]) {
                char name[128];
                mmt_problem_format(&lps[i].set.problem, name, sizeof name);
                fprintf(f, "  skipped %s on %s: %s\n", name, lps[i].set.device.name, lps[i].why);
            }
        fprintf(f, "%-34s %-10s %10s %9s %9s %9s\n", "problem", "strategy", "candidates", "measured", "to 3%",
                "gap");
    }
    for (size_t si = 0; s == MMT_OK && si < n_names; si++) {
        size_t runs = 0, within = 0;
        for (size_t i = 0; s == MMT_OK && i < nl; i++) {
            if (lps[i].why[0]) continue;
            size_t measured = 0;
            for (int seed = 1; s == MMT_OK && seed <= seeds; seed++) {
                run r = {0};
                s = replay_one(o, names[si], lps, nl, i, (uint64_t)seed, &r, err);
                gaps[seed - 1] = all_gaps[runs] = r.gap;
                to3[seed - 1] = all_to3[runs] = r.to_3pct;
                runs++;
                within += r.gap <= WITHIN - 1.0 + 1e-12;
                measured += r.measured;
            }
            if (s != MMT_OK) break;
            char name[128];
            mmt_problem_format(&lps[i].set.problem, name, sizeof name);
            fprintf(f, "%-34s %-10s %10zu %9.1f", name, names[si], lps[i].n, (double)measured / seeds);
            print_pct(f, mmt_stats_median(to3, (size_t)seeds));
            print_pct(f, mmt_stats_median(gaps, (size_t)seeds));
            fputc('\n', f);
        }
        if (s != MMT_OK) break;
        fprintf(f, "%-34s %-10s %10s %9s", "  median over problems and seeds", names[si], "", "");
        print_pct(f, mmt_stats_median(all_to3, runs));
        print_pct(f, mmt_stats_median(all_gaps, runs));
        fprintf(f, "   (%zu of %zu runs within 3%%)\n", within, runs);
    }
    free(gaps), free(to3), free(all_gaps), free(all_to3);
    for (size_t i = 0; lps && i < nl; i++) {
        mmt_family_free(lps[i].fam);
        free(lps[i].cands);
        free(lps[i].ms);
    }
    free(lps);
    free(sets);
    mmt_store_close(st);
    return s;
}
