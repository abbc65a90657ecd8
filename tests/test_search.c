/* test_search.c - the search strategies on a synthetic landscape over a real space (a
 * 10 x 10 x 10 grid with a hole cut by a constraint; time grows with the squared distance
 * from one optimum): every strategy proposes each candidate at most once, stays within its
 * budget, starts with the warm-start candidates, is deterministic for a seed and differs
 * between seeds; exhaustive and random cover the space; the guided strategies find the
 * optimum of this smooth landscape with a fraction of the measurements; failures are
 * reported and walked around. No timing: the landscape is a formula. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "search.h"
#include "space.h"

static const char grid_yaml[] = "template: cpu/none.c\n"
                                "entry: mmt_gemm\n"
                                "modes: [f32]\n"
                                "params:\n"
                                "  A: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
                                "  B: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
                                "  C: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
                                "constraints:\n"
                                "  - A + B != 9\n"
                                "default: {A: 0, B: 0, C: 0}\n";

static mmt_space *space;
static mmt_config *cands;
static size_t n;

/* The landscape: one optimum at (6, 2, 7); C = 9 fails to run. */
static double time_of(size_t i)
{
    const int64_t *v = cands[i].v;
    if (v[2] == 9) return INFINITY;
    return 1.0 + (v[0] - 6) * (v[0] - 6) + (v[1] - 2) * (v[1] - 2) + 0.5 * (v[2] - 7) * (v[2] - 7);
}

static size_t optimum(void)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (time_of(i) < time_of(best)) best = i;
    return best;
}

/* Runs a search to its end; order[] gets the proposals; returns how many, and in *found
 * the measurements it took to propose the optimum (0: never). */
static size_t run(const char *strategy, size_t budget, size_t batch, uint64_t seed, const size_t *first,
                  size_t n_first, size_t *order, size_t *found)
{
    mmt_search *s = NULL;
    mmt_err err;
    CHECK_OK(mmt_search_new(strategy, space, cands, n, first, n_first, budget, batch, seed, &s, &err), &err);
    if (!s) return 0;
    char *seen = calloc(n, 1);
    size_t k = 0, opt = optimum();
    *found = 0;
    long i;
    while ((i = mmt_search_next(s)) >= 0) {
        CHECK(i < (long)n);
        if (i >= (long)n) break;
        CHECK(!seen[i]); /* at most once */
        seen[i] = 1;
        /* what ahead() promised is what next() gives */
        long ahead = mmt_search_ahead(s, 0);
        order[k++] = (size_t)i;
        if ((size_t)i == opt && !*found) *found = k;
        mmt_search_report(s, i, time_of((size_t)i));
        if (ahead >= 0) {
            long again = mmt_search_ahead(s, 0);
            CHECK_EQ_INT(again, ahead);
        }
    }
    CHECK(k <= mmt_search_planned(s));
    free(seen);
    mmt_search_free(s);
    return k;
}

static void test_strategy(const char *name, double max_fraction)
{
    size_t *a = malloc(sizeof(size_t) * n), *b = malloc(sizeof(size_t) * n), found, found2;
    /* deterministic for a seed, different for another (exhaustive aside) */
    size_t ka = run(name, 0, 4, 7, NULL, 0, a, &found), kb = run(name, 0, 4, 7, NULL, 0, b, &found2);
    CHECK_EQ_INT(ka, kb);
    CHECK(memcmp(a, b, sizeof(size_t) * ka) == 0);
    CHECK_EQ_INT(ka, n); /* without a budget every candidate is proposed in the end */
    kb = run(name, 0, 4, 8, NULL, 0, b, &found2);
    if (strcmp(name, "exhaustive") != 0) CHECK(memcmp(a, b, sizeof(size_t) * (ka < kb ? ka : kb)) != 0);
    /* the budget holds, and the warm-start candidates come first */
    size_t first[3] = {n - 1, 5, n / 2};
    kb = run(name, 25, 3, 1, first, 3, b, &found2);
    CHECK_EQ_INT(kb, 25);
    CHECK(b[0] == first[0] && b[1] == first[1] && b[2] == first[2]);
    /* a smooth landscape: the optimum within a fraction of the space (median of 5 seeds) */
    size_t takes[5];
    for (int seed = 0; seed < 5; seed++) {
        run(name, 0, 1, (uint64_t)seed + 1, NULL, 0, a, &takes[seed]);
        CHECK(takes[seed] > 0);
    }
    for (int i = 0; i < 5; i++) /* sort 5 */
        for (int j = i + 1; j < 5; j++)
            if (takes[j] < takes[i]) {
                size_t t = takes[i];
                takes[i] = takes[j], takes[j] = t;
            }
    printf("%-10s finds the optimum of %zu candidates after %zu measurements (median of 5 seeds)\n", name, n,
           takes[2]);
    CHECK((double)takes[2] <= max_fraction * (double)n);
    free(a);
    free(b);
}

int main(void)
{
    mmt_err err;
    CHECK_OK(mmt_space_load_text("grid.yaml", grid_yaml, sizeof grid_yaml - 1, &space, &err), &err);
    if (!space) return check_result();
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                     .m = 64, .n = 64, .k = 64};
    mmt_space_env env = {.problem = &p};
    CHECK_OK(mmt_space_enumerate(space, &env, &cands, &n, &err), &err);
    CHECK_EQ_INT(n, 900); /* 1000 less the 100 on the plane A + B == 9 */

    mmt_search *s = NULL;
    CHECK(mmt_search_new("greedy", space, cands, n, NULL, 0, 0, 1, 1, &s, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "exhaustive, random, anneal, model") != NULL);
    CHECK(mmt_search_known("model") && mmt_search_known("anneal") && !mmt_search_known("all"));

    test_strategy("exhaustive", 1.0);
    test_strategy("random", 1.0);
    test_strategy("anneal", 0.25);
    test_strategy("model", 0.15);
    free(cands);
    mmt_space_free(space);
    return check_result();
}
