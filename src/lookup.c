/* lookup.c - exact, nearest, default (see lookup.h). */
#include "lookup.h"

#include <math.h>

double mmt_lookup_distance(const mmt_problem *a, const mmt_problem *b)
{
    double dm = log((double)a->m / (double)b->m), dn = log((double)a->n / (double)b->n),
           dk = log((double)a->k / (double)b->k);
    return dm * dm + dn * dn + dk * dk;
}

static int same_kind(const mmt_problem *a, const mmt_problem *b)
{
    return a->dtype == b->dtype && a->trans_a == b->trans_a && a->trans_b == b->trans_b;
}

mmt_status mmt_lookup_choose(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                             mmt_config *out, mmt_choice *how, mmt_err *err)
{
    const mmt_problem *p = env->problem;
    double best_d = INFINITY;
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        mmt_problem q = mmt_problem_normalise(&bests[i].problem);
        if (!same_kind(p, &q)) continue;
        double d = mmt_lookup_distance(p, &q);
        if (d >= best_d) continue;
        mmt_config c;
        int valid = 0;
        /* A stored config the space no longer accepts, or one invalid for this shape
         * (an EVEN fast path, say), is passed over. */
        if (mmt_config_parse(s, bests[i].params, &c, NULL) != MMT_OK) continue;
        if (mmt_space_check(s, &c, env, &valid, NULL, NULL) != MMT_OK || !valid) continue;
        *out = c;
        best_d = d;
        found = 1;
    }
    if (found) {
        *how = best_d == 0.0 ? MMT_CHOICE_EXACT : MMT_CHOICE_NEAREST;
        return MMT_OK;
    }
    mmt_space_default(s, out);
    int valid = 0;
    FORWARD_IF_ERROR(mmt_space_check(s, out, env, &valid, NULL, err));
    RETURN_ERROR_IF(!valid, err, MMT_INTERNAL, "%s: the default configuration is not valid for this problem",
                    s->file);
    *how = MMT_CHOICE_DEFAULT;
    return MMT_OK;
}
