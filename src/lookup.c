/* lookup.c - exact, nearest, default (see lookup.h). */
#include "lookup.h"

#include <math.h>
#include <stdlib.h>

#include "strassen.h"

double mmt_lookup_distance(const mmt_problem *a, const mmt_problem *b)
{
    double dm = log((double)a->m / (double)b->m), dn = log((double)a->n / (double)b->n),
           dk = log((double)a->k / (double)b->k);
    return dm * dm + dn * dn + dk * dk;
}

/* A configuration tuned for another kind computes something else (another mode) or was
 * timed for another memory pattern (transposes, output type): never borrowed. */
static int same_kind(const mmt_problem *a, const mmt_problem *b)
{
    return a->dtype == b->dtype && a->out == b->out && a->mode == b->mode && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b;
}

int mmt_lookup_tuned(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                     mmt_config *out, mmt_choice *how, double *gflops)
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
        /* A stored config the space no longer accepts, or one invalid for this shape or
         * these operands (an EVEN fast path, aligned loads), is passed over. */
        if (mmt_config_parse(s, bests[i].params, &c, NULL) != MMT_OK) continue;
        /* Strassen levels run only where the caller allows them and their plan holds here;
         * elsewhere the configuration is its classic winner (the levels round added them to it) */
        if (!mmt_strassen_applies(s, &c, env)) c = mmt_config_with_levels(s, &c, 0);
        if (mmt_space_check(s, &c, env, &valid, NULL, NULL) != MMT_OK || !valid) continue;
        *out = c;
        best_d = d;
        if (gflops) *gflops = bests[i].gflops;
        found = 1;
    }
    if (found) *how = best_d == 0.0 ? MMT_CHOICE_EXACT : MMT_CHOICE_NEAREST;
    return found;
}

mmt_status mmt_lookup_choose(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                             mmt_config *out, mmt_choice *how, double *gflops, mmt_err *err)
{
    if (mmt_lookup_tuned(s, bests, n, env, out, how, gflops)) return MMT_OK;
    if (gflops) *gflops = 0;
    int which, valid = 0;
    FORWARD_IF_ERROR(mmt_space_default_for(s, env, out, &which, err));
    if (which >= 0) { /* a shape's default, valid here */
        *how = MMT_CHOICE_DEFAULT;
        return MMT_OK;
    }
    FORWARD_IF_ERROR(mmt_space_check(s, out, env, &valid, NULL, err));
    if (!valid && (env->align_a || env->align_b)) {
        mmt_space_env dense = *env;
        dense.align_a = dense.align_b = 0;
        if (mmt_space_check(s, out, &dense, &valid, NULL, NULL) == MMT_OK && valid)
            return mmt_err_set(err, MMT_UNSUPPORTED,
                               "%s: no tuned configuration fits, and the default does not accept A aligned to %d "
                               "bytes and B to %d (the alignment of pointer and row pitch)",
                               s->file, env->align_a, env->align_b);
        valid = 0;
    }
    if (!valid) { /* none of the space at all (its device constraints, say: FP8 on a GPU before Hopper) is
                   * not served here; some but not the default is the space's own fault */
        mmt_config *all = NULL;
        size_t count = 0;
        const mmt_status st = mmt_space_enumerate(s, env, &all, &count, NULL);
        free(all);
        RETURN_ERROR_IF(st == MMT_OK && count == 0, err, MMT_UNSUPPORTED,
                        "%s: no configuration serves this problem on this device", s->file);
    }
    RETURN_ERROR_IF(!valid, err, MMT_INTERNAL, "%s: the default configuration is not valid for this problem",
                    s->file);
    *how = MMT_CHOICE_DEFAULT;
    return MMT_OK;
}

int mmt_lookup_tuned_among(const mmt_lookup_family *fams, int n, const mmt_space_env *env, mmt_config *out,
                           mmt_choice *how, double *gflops)
{
    int which = -1;
    double best = 0;
    for (int i = 0; i < n; i++) {
        mmt_config c;
        mmt_choice h;
        double g = 0;
        if (!mmt_lookup_tuned(fams[i].space, fams[i].bests, fams[i].n_bests, env, &c, &h, &g)) continue;
        /* EXACT (1) before NEAREST (2), then the faster */
        if (which >= 0 && (h > *how || (h == *how && g <= best))) continue;
        which = i, best = g, *out = c, *how = h;
    }
    if (which >= 0 && gflops) *gflops = best;
    return which;
}

mmt_status mmt_lookup_choose_among(const mmt_lookup_family *fams, int n, const mmt_space_env *env, mmt_config *out,
                                   mmt_choice *how, double *gflops, int *which, mmt_err *err)
{
    if ((*which = mmt_lookup_tuned_among(fams, n, env, out, how, gflops)) >= 0) return MMT_OK;
    /* A `defaults:` entry says its family suits this kind of problem: it comes before any
     * family's catch-all `default:` (an evaluation error surfaces below, with its family). */
    for (int i = 0; i < n; i++) {
        int entry;
        if (mmt_space_default_for(fams[i].space, env, out, &entry, NULL) == MMT_OK && entry >= 0) {
            *which = i;
            *how = MMT_CHOICE_DEFAULT;
            if (gflops) *gflops = 0;
            return MMT_OK;
        }
    }
    mmt_err first, why;
    mmt_err_clear(&first);
    for (int i = 0; i < n; i++) {
        if (mmt_lookup_choose(fams[i].space, NULL, 0, env, out, how, gflops, i ? &why : &first) == MMT_OK) {
            *which = i;
            return MMT_OK;
        }
    }
    RETURN_ERROR_IF(n == 0, err, MMT_INTERNAL, "no family to choose from");
    return mmt_err_set(err, first.status, "%s", first.msg);
}
