/* search.c - exhaustive and random search (see search.h). */
#include "search.h"

#include <stdlib.h>
#include <string.h>

struct mmt_search {
    size_t *order; /* the proposal order */
    size_t n, pos, budget;
};

int mmt_search_known(const char *name) { return strcmp(name, "exhaustive") == 0 || strcmp(name, "random") == 0; }

mmt_status mmt_search_new(const char *strategy, size_t n, const size_t *first, size_t n_first, size_t budget,
                          uint64_t seed, mmt_search **out, mmt_err *err)
{
    RETURN_ERROR_IF(!mmt_search_known(strategy), err, MMT_INVALID_ARGUMENT,
                    "unknown strategy '%s' (exhaustive, random)", strategy);
    mmt_search *s = calloc(1, sizeof *s);
    size_t *order = malloc(sizeof(size_t) * (n ? n : 1));
    char *taken = calloc(n ? n : 1, 1);
    if (!s || !order || !taken) {
        free(s);
        free(order);
        free(taken);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n_first; i++)
        if (first[i] < n && !taken[first[i]]) {
            taken[first[i]] = 1;
            order[k++] = first[i];
        }
    size_t rest = k;
    for (size_t i = 0; i < n; i++)
        if (!taken[i]) order[k++] = i;
    if (strcmp(strategy, "random") == 0) {
        uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
        for (size_t i = n - 1; i > rest && i < n; i--) { /* Fisher-Yates over the rest */
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            size_t j = rest + (size_t)((x * 0x2545F4914F6CDD1Dull) % (i - rest + 1));
            size_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    free(taken);
    s->order = order;
    s->n = n;
    s->budget = budget && budget < n ? budget : n;
    *out = s;
    return MMT_OK;
}

long mmt_search_next(mmt_search *s) { return s->pos < s->budget ? (long)s->order[s->pos++] : -1; }

long mmt_search_ahead(const mmt_search *s, size_t i)
{
    return s->pos + i < s->budget ? (long)s->order[s->pos + i] : -1;
}

void mmt_search_report(mmt_search *s, long index, double time_ms)
{
    (void)s, (void)index, (void)time_ms; /* exhaustive and random do not learn; guided ones will */
}

size_t mmt_search_planned(const mmt_search *s) { return s->budget; }

void mmt_search_free(mmt_search *s)
{
    if (!s) return;
    free(s->order);
    free(s);
}
