/* warm.c - the warm-start order (see warm.h). */
#include "warm.h"

#include <math.h>
#include <stdlib.h>

#include "lookup.h"

/* Appends the candidate equal to c, if there is one and it is not listed yet. */
static void add(const mmt_config *cands, size_t n, const mmt_config *c, size_t *first, size_t *k)
{
    long i = mmt_config_index(cands, n, c);
    if (i < 0) return;
    for (size_t j = 0; j < *k; j++)
        if (first[j] == (size_t)i) return;
    first[(*k)++] = (size_t)i;
}

size_t mmt_warm_order(const mmt_space *s, const mmt_config *cands, size_t n, const mmt_space_env *env,
                      const mmt_best_rec *bests, size_t nb, size_t *first, size_t max_first)
{
    const mmt_problem *np = env->problem;
    size_t k = 0;
    char *used = calloc(nb ? nb : 1, 1);
    if (!used) return 0;
    /* nearest first (selection: the lists are short) */
    while (k + 1 < max_first) {
        double best_d = INFINITY;
        long pick = -1;
        for (size_t i = 0; i < nb; i++) {
            if (used[i]) continue;
            mmt_problem q = mmt_problem_normalise(&bests[i].problem);
            /* the same mode and transposes; another output type's winner is still a good guess */
            if (q.mode != np->mode || q.trans_a != np->trans_a || q.trans_b != np->trans_b) continue;
            double d = mmt_lookup_distance(np, &q);
            if (d < best_d) best_d = d, pick = (long)i;
        }
        if (pick < 0) break;
        used[pick] = 1;
        mmt_config c;
        if (mmt_config_parse(s, bests[pick].params, &c, NULL) == MMT_OK) add(cands, n, &c, first, &k);
    }
    /* the problem's default, or `default:` where that one is not a candidate (pruned) */
    mmt_config def;
    size_t had = k;
    if (k < max_first && mmt_space_default_for(s, env, &def, NULL, NULL) == MMT_OK) add(cands, n, &def, first, &k);
    if (k == had && k < max_first) {
        mmt_space_default(s, &def);
        add(cands, n, &def, first, &k);
    }
    free(used);
    return k;
}
