/* predict.c - the template-or-vendor prediction for untuned problems (see predict.h). */
#include "predict.h"

#include <math.h>

#include "lookup.h"

static int same_kind(const mmt_problem *a, const mmt_problem *b)
{
    return a->dtype == b->dtype && a->out == b->out && a->mode == b->mode && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b;
}

mmt_prediction mmt_predict(const mmt_paired_rec *recs, size_t n, const mmt_problem *p, int skip_self)
{
    double sum_w = 0, sum_wr = 0;
    for (size_t i = 0; i < n; i++) {
        const mmt_problem q = mmt_problem_normalise(&recs[i].problem);
        if (!same_kind(&q, p) || (skip_self && mmt_problem_equal(&q, p))) continue;
        if (!(recs[i].gflops > 0) || !(recs[i].vendor_gflops > 0) || q.m < 1 || q.n < 1 || q.k < 1) continue;
        const double d2 = mmt_lookup_distance(p, &q); /* squared */
        const double w = exp(-d2 / (MMT_PREDICT_WIDTH * MMT_PREDICT_WIDTH));
        sum_w += w;
        sum_wr += w * log(recs[i].gflops / recs[i].vendor_gflops);
    }
    mmt_prediction pr = {.ratio = sum_w > 0 ? exp(sum_wr / sum_w) : 1, .evidence = sum_w};
    pr.template_wins = pr.evidence >= MMT_PREDICT_EVIDENCE && pr.ratio >= MMT_PREDICT_MARGIN;
    return pr;
}

mmt_choice mmt_predict_serve(mmt_choice how, double gflops, const double *vendor_exact, const mmt_paired_rec *recs,
                             size_t n, const mmt_problem *p, int skip_self, mmt_prediction *pr)
{
    mmt_prediction none = {.ratio = 1};
    if (pr) *pr = none;
    /* a figure of this very problem, timed beside the templates' winners, decides */
    if (vendor_exact && (how != MMT_CHOICE_EXACT || *vendor_exact > gflops)) return MMT_CHOICE_EXACT;
    if (how == MMT_CHOICE_EXACT) return MMT_CHOICE_NONE;
    const mmt_prediction guess = mmt_predict(recs, n, p, skip_self);
    if (pr) *pr = guess;
    return guess.template_wins ? MMT_CHOICE_NONE : MMT_CHOICE_VENDOR;
}
