/* search.c - the search strategies (see search.h). Every strategy hands out proposals from
 * one queue: exhaustive and random fill it at the start, the guided ones refill it a
 * batch at a time from what has been reported. The model refills while a whole batch is
 * still queued, so the next batch compiles ahead while that one is measured (a refill
 * only once the queue ran dry left the device idle while the whole batch compiled:
 * 21-35% of a tune on the H100, 2026-11-24; with half a batch queued, problems that
 * measure ten candidates a second still waited for their compiles, 2026-11-25); anneal
 * moves from the results of its whole last batch, so it waits for them. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct strategy {
    const char *name;
    void (*refill)(mmt_search *s); /* NULL: the queue is filled once, at the start */
    int early;                     /* refill while a batch is still queued */
} strategy;

struct mmt_search {
    const strategy *kind;
    const mmt_space *space;
    const mmt_config *cands;
    size_t n, budget, batch, proposed;
    size_t *queue, qhead, qtail; /* each candidate is queued at most once: no wrap */
    char *taken;                 /* queued (handed out or not) */
    double *lt;                  /* log of the reported time; NAN until reported, INFINITY if it failed */
    size_t *done, n_done;        /* reported candidates, in order */
    uint64_t rng;
    size_t n_seed; /* guided strategies: the warm-start candidates and a few random ones come first */
    /* the grid: each candidate's position along every param's value list, normalised to
     * [0, 1], and a hash from positions to candidates (neighbours) */
    int np;
    unsigned char *pos;
    double *scale; /* 1 / (values - 1) per param */
    long *slots;
    size_t nslots;
    /* anneal */
    long cur;             /* the state */
    size_t *last, n_last; /* the batch proposed around it */
    int restarted;        /* the last batch was a random restart point */
};

/* ---- helpers ------------------------------------------------------------------------------ */

static uint64_t next_random(mmt_search *s)
{
    s->rng ^= s->rng >> 12, s->rng ^= s->rng << 25, s->rng ^= s->rng >> 27;
    return s->rng * 0x2545F4914F6CDD1Dull;
}

static double uniform(mmt_search *s) { return (double)(next_random(s) >> 11) / 9007199254740992.0; }

static void push(mmt_search *s, size_t i)
{
    if (i >= s->n || s->taken[i]) return;
    s->taken[i] = 1;
    s->queue[s->qtail++] = i;
}

static size_t queued(const mmt_search *s) { return s->qtail - s->qhead; }

static uint64_t hash_pos(const unsigned char *p, int np)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < np; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The candidate at grid positions p, or -1. */
static long find_pos(const mmt_search *s, const unsigned char *p)
{
    for (size_t k = hash_pos(p, s->np) & (s->nslots - 1);; k = (k + 1) & (s->nslots - 1)) {
        long i = s->slots[k];
        if (i < 0) return -1;
        if (memcmp(s->pos + (size_t)i * s->np, p, (size_t)s->np) == 0) return i;
    }
}

static int build_grid(mmt_search *s)
{
    const mmt_space *sp = s->space;
    s->np = sp->n_params;
    s->pos = malloc(s->n * (size_t)(s->np ? s->np : 1));
    s->scale = malloc(sizeof(double) * (size_t)(s->np ? s->np : 1));
    for (s->nslots = 16; s->nslots < 2 * s->n; s->nslots *= 2) {
    }
    s->slots = malloc(sizeof(long) * s->nslots);
    if (!s->pos || !s->scale || !s->slots) return -1;
    for (int p = 0; p < s->np; p++) s->scale[p] = sp->params[p].n_values > 1 ? 1.0 / (sp->params[p].n_values - 1) : 0;
    for (size_t k = 0; k < s->nslots; k++) s->slots[k] = -1;
    for (size_t i = 0; i < s->n; i++) {
        unsigned char *q = s->pos + i * (size_t)s->np;
        for (int p = 0; p < s->np; p++) {
            int v = 0;
            while (v < sp->params[p].n_values && sp->params[p].values[v] != s->cands[i].v[p]) v++;
            q[p] = (unsigned char)v;
        }
        size_t k = hash_pos(q, s->np) & (s->nslots - 1);
        while (s->slots[k] >= 0) k = (k + 1) & (s->nslots - 1);
        s->slots[k] = (long)i;
    }
    return 0;
}

/* Distance on the grid: the sum over params of the normalised steps apart. */
static double distance(const mmt_search *s, size_t a, size_t b)
{
    const unsigned char *p = s->pos + a * (size_t)s->np, *q = s->pos + b * (size_t)s->np;
    double d = 0;
    for (int k = 0; k < s->np; k++) d += abs((int)p[k] - (int)q[k]) * s->scale[k];
    return d;
}

/* The best reported candidate so far (-1 if none ran), ties to the lowest index. */
static long best_done(const mmt_search *s)
{
    long best = -1;
    for (size_t j = 0; j < s->n_done; j++) {
        size_t i = s->done[j];
        if (isfinite(s->lt[i]) && (best < 0 || s->lt[i] < s->lt[best] || (s->lt[i] == s->lt[best] && (long)i < best)))
            best = (long)i;
    }
    return best;
}

/* A uniformly chosen candidate not yet queued, or -1. */
static long random_untaken(mmt_search *s)
{
    size_t left = s->n - s->qtail;
    if (left == 0) return -1;
    size_t k = (size_t)(next_random(s) % left);
    for (size_t i = 0; i < s->n; i++)
        if (!s->taken[i] && k-- == 0) return (long)i;
    return -1;
}

/* The first proposals of a guided strategy: random candidates until n_seed are queued (the
 * warm-start ones count), so that there is a spread of points to start from. Returns 1 if
 * it queued something. */
static int seed_phase(mmt_search *s)
{
    int pushed = 0;
    for (size_t b = 0; b < s->batch && s->qtail < s->n_seed; b++) {
        long i = random_untaken(s);
        if (i < 0) break;
        push(s, (size_t)i);
        pushed = 1;
    }
    return pushed;
}

/* ---- anneal --------------------------------------------------------------------------------- */

/* An unqueued neighbour of c (one param moved one or two steps), tried a few times. */
static long random_neighbour(mmt_search *s, size_t c)
{
    unsigned char q[MMT_SPACE_MAX_PARAMS];
    for (int tries = 0; tries < 16 * s->np; tries++) {
        memcpy(q, s->pos + c * (size_t)s->np, (size_t)s->np);
        int p = (int)(next_random(s) % (uint64_t)s->np);
        int step = (next_random(s) % 4 == 0 ? 2 : 1) * (next_random(s) & 1 ? 1 : -1);
        int v = q[p] + step;
        if (v < 0 || v >= s->space->params[p].n_values) continue;
        q[p] = (unsigned char)v;
        long i = find_pos(s, q);
        if (i >= 0 && !s->taken[i]) return i;
    }
    return -1;
}

static void anneal_refill(mmt_search *s)
{
    if (seed_phase(s)) return;
    /* the temperature, in log-time units: a 30% slower move is taken half the time at the
     * start, almost never at the end */
    const double used = s->budget ? (double)s->proposed / (double)s->budget : 1.0;
    const double temp = 0.4 * pow(0.02, used);
    if (s->restarted) { /* the restart point is the state if it ran */
        s->restarted = 0;
        s->cur = isfinite(s->lt[s->last[0]]) ? (long)s->last[0] : best_done(s);
    } else if (s->cur < 0) { /* the start: the best of the warm-start candidates */
        s->cur = best_done(s);
    } else { /* to the best of the last batch if it is better, or with the Metropolis chance */
        long nb = -1;
        for (size_t j = 0; j < s->n_last; j++) {
            size_t i = s->last[j];
            if (isfinite(s->lt[i]) && (nb < 0 || s->lt[i] < s->lt[nb])) nb = (long)i;
        }
        if (nb >= 0 && (s->lt[nb] < s->lt[s->cur] || uniform(s) < exp(-(s->lt[nb] - s->lt[s->cur]) / temp)))
            s->cur = nb;
    }
    s->n_last = 0;
    for (size_t b = 0; s->cur >= 0 && b < s->batch; b++) {
        long i = random_neighbour(s, (size_t)s->cur);
        if (i < 0) break;
        push(s, (size_t)i);
        s->last[s->n_last++] = (size_t)i;
    }
    if (s->n_last == 0) { /* nothing ran yet, or the neighbourhood is spent: restart */
        long i = random_untaken(s);
        if (i < 0) return;
        push(s, (size_t)i);
        s->last[s->n_last++] = (size_t)i;
        s->restarted = 1;
    }
}

/* ---- model ---------------------------------------------------------------------------------- */

enum { MODEL_K = 6 };

/* Predicted log-time of candidate i from its MODEL_K nearest reported neighbours
 * (inverse-square-distance weights; failures count as a time worse than any measured),
 * and the distance to the nearest of them. */
static double predict(const mmt_search *s, size_t i, double fail_lt, double *dmin)
{
    double nd[MODEL_K], nv[MODEL_K];
    int k = 0;
    for (size_t j = 0; j < s->n_done; j++) {
        size_t m = s->done[j];
        double v = isfinite(s->lt[m]) ? s->lt[m] : fail_lt;
        double d = distance(s, i, m);
        if (k < MODEL_K) {
            nd[k] = d, nv[k] = v, k++;
        } else {
            int far = 0;
            for (int q = 1; q < MODEL_K; q++)
                if (nd[q] > nd[far]) far = q;
            if (d < nd[far]) nd[far] = d, nv[far] = v;
        }
    }
    double sw = 0, sv = 0, dm = INFINITY;
    for (int q = 0; q < k; q++) {
        double w = 1.0 / (nd[q] * nd[q] + 1e-3);
        sw += w, sv += w * nv[q];
        if (nd[q] < dm) dm = nd[q];
    }
    *dmin = dm;
    return sv / sw;
}

static void model_refill(mmt_search *s)
{
    if (seed_phase(s)) return; /* something to fit first */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < s->n_done; j++) {
        double v = s->lt[s->done[j]];
        if (isfinite(v)) lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    if (!isfinite(lo)) lo = hi = 0;
    const double fail_lt = hi + 1.0;
    /* exploration: a candidate one unit of distance away from anything measured earns the
     * spread of the measured times per param, less as the budget is spent */
    const double used = s->budget ? (double)s->proposed / (double)s->budget : 1.0;
    const double kappa = (hi - lo + 0.1) / (s->np ? s->np : 1) * 4.0 * (1.0 - used);
    double *score = malloc(sizeof(double) * s->n), *dmin = malloc(sizeof(double) * s->n);
    if (!score || !dmin) {
        free(score), free(dmin);
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!s->taken[i]) score[i] = predict(s, i, fail_lt, &dmin[i]);
    for (size_t b = 0; b < s->batch; b++) {
        long pick = -1;
        double ps = INFINITY;
        for (size_t i = 0; i < s->n; i++) {
            if (s->taken[i]) continue;
            double v = score[i] - kappa * dmin[i];
            if (v < ps) ps = v, pick = (long)i;
        }
        if (pick < 0) break;
        push(s, (size_t)pick);
        /* the rest of the batch keeps away from this pick as if it were measured */
        for (size_t i = 0; i < s->n; i++)
            if (!s->taken[i]) {
                double d = distance(s, i, (size_t)pick);
                if (d < dmin[i]) dmin[i] = d;
            }
    }
    free(score);
    free(dmin);
}

/* ---- the interface ---------------------------------------------------------------------------- */

static const strategy strategies[] = {
    {"exhaustive", NULL, 0},
    {"random", NULL, 0},
    {"anneal", anneal_refill, 0},
    {"model", model_refill, 1},
};

const char *mmt_search_names(void) { return "exhaustive, random, anneal, model"; }

static const strategy *strategy_named(const char *name)
{
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strcmp(name, strategies[i].name) == 0) return &strategies[i];
    return NULL;
}

int mmt_search_known(const char *name) { return strategy_named(name) != NULL; }

mmt_status mmt_search_new(const char *strategy_name, const mmt_space *space, const mmt_config *cands, size_t n,
                          const size_t *first, size_t n_first, size_t budget, size_t batch, uint64_t seed,
                          mmt_search **out, mmt_err *err)
{
    *out = NULL;
    const strategy *kind = strategy_named(strategy_name);
    RETURN_ERROR_IF(!kind, err, MMT_INVALID_ARGUMENT, "unknown strategy '%s' (%s)", strategy_name,
                    mmt_search_names());
    mmt_search *s = calloc(1, sizeof *s);
    RETURN_ERROR_IF(!s, err, MMT_OUT_OF_MEMORY, "out of memory");
    s->kind = kind;
    s->space = space;
    s->cands = cands;
    s->n = n;
    s->budget = budget && budget < n ? budget : n;
    s->batch = batch ? batch : 1;
    s->rng = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    s->cur = -1;
    size_t cap = n ? n : 1;
    s->queue = malloc(sizeof(size_t) * cap);
    s->taken = calloc(cap, 1);
    s->lt = malloc(sizeof(double) * cap);
    s->done = malloc(sizeof(size_t) * cap);
    s->last = malloc(sizeof(size_t) * (s->batch + 1));
    if (!s->queue || !s->taken || !s->lt || !s->done || !s->last || (kind->refill && build_grid(s) != 0)) {
        mmt_search_free(s);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < n; i++) s->lt[i] = NAN;
    for (size_t i = 0; i < n_first; i++) push(s, first[i]);
    /* a handful of random points, more in larger spaces (2 to 8: about half the square root) */
    size_t n_init = (size_t)(sqrt((double)n) / 2);
    s->n_seed = s->qtail + (n_init < 2 ? 2 : n_init > 8 ? 8 : n_init);
    if (!kind->refill) { /* the whole order now */
        size_t rest = s->qtail;
        for (size_t i = 0; i < n; i++) push(s, i);
        if (strcmp(kind->name, "random") == 0)
            for (size_t i = n; i-- > rest + 1;) { /* Fisher-Yates over what follows `first` */
                size_t j = rest + (size_t)(next_random(s) % (i - rest + 1));
                size_t t = s->queue[i];
                s->queue[i] = s->queue[j];
                s->queue[j] = t;
            }
    }
    *out = s;
    return MMT_OK;
}

long mmt_search_next(mmt_search *s)
{
    if (s->proposed >= s->budget) return -1;
    if (s->kind->refill && queued(s) <= (s->kind->early ? s->batch : 0)) s->kind->refill(s);
    if (queued(s) == 0) return -1;
    s->proposed++;
    return (long)s->queue[s->qhead++];
}

long mmt_search_ahead(const mmt_search *s, size_t i)
{
    return s->proposed + i < s->budget && i < queued(s) ? (long)s->queue[s->qhead + i] : -1;
}

void mmt_search_report(mmt_search *s, long index, double time_ms)
{
    if (index < 0 || (size_t)index >= s->n || !isnan(s->lt[index])) return;
    s->lt[index] = isfinite(time_ms) && time_ms > 0 ? log(time_ms) : INFINITY;
    s->done[s->n_done++] = (size_t)index;
}

size_t mmt_search_planned(const mmt_search *s) { return s->budget; }

void mmt_search_free(mmt_search *s)
{
    if (!s) return;
    free(s->queue);
    free(s->taken);
    free(s->lt);
    free(s->done);
    free(s->last);
    free(s->pos);
    free(s->scale);
    free(s->slots);
    free(s);
}
