/* predict.c - the template-or-vendor prediction for untuned problems (see predict.h). */
#include "predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_kind(const mmt_problem *a, const mmt_problem *b)
{
    return a->dtype == b->dtype && a->out == b->out && a->mode == b->mode && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b;
}

/* A calibrated record of p's kind: how far from p, and its calibration. */
typedef struct sample {
    double distance, transfer, reach;
} sample;

static int by_distance(const void *x, const void *y)
{
    const sample *a = x, *b = y;
    return (a->distance > b->distance) - (a->distance < b->distance);
}

mmt_prediction mmt_predict(const mmt_paired_rec *recs, size_t n, const mmt_problem *p, int skip_self)
{
    double sum_w = 0, sum_wr = 0, nearest = INFINITY;
    sample near[MMT_PREDICT_SAMPLES + 1];
    int samples = 0;
    for (size_t i = 0; i < n; i++) {
        const mmt_problem q = mmt_problem_normalise(&recs[i].problem);
        if (!same_kind(&q, p) || (skip_self && mmt_problem_equal(&q, p))) continue;
        if (!(recs[i].gflops > 0) || !(recs[i].vendor_gflops > 0) || q.m < 1 || q.n < 1 || q.k < 1) continue;
        const double d2 = mmt_lookup_distance(p, &q); /* squared */
        const double w = exp(-d2 / (MMT_PREDICT_WIDTH * MMT_PREDICT_WIDTH));
        sum_w += w;
        sum_wr += w * log(recs[i].gflops / recs[i].vendor_gflops);
        if (sqrt(d2) < nearest) nearest = sqrt(d2);
        if (!(recs[i].transfer > 0)) continue;
        /* the nearest calibrated records, sorted; once full, the spare slot's is dropped or
         * takes the farthest one's place */
        const int full = samples == MMT_PREDICT_SAMPLES;
        near[samples] = (sample){sqrt(d2), recs[i].transfer, recs[i].reach};
        if (!full) samples++;
        qsort(near, (size_t)samples + (size_t)full, sizeof near[0], by_distance);
    }
    /* far records still average (the weights only order them), so the ratio is a guess from
     * the nearest where nothing is close: the calibration measured what such guesses were worth */
    mmt_prediction pr = {.ratio = sum_w > 0 ? exp(sum_wr / sum_w) : 1, .transfer = 1, .samples = samples,
                         .distance = nearest, .reach = 0};
    for (int i = 0; i < samples; i++) {
        if (i == 0 || near[i].transfer < pr.transfer) pr.transfer = near[i].transfer;
        if (near[i].reach > pr.reach) pr.reach = near[i].reach;
    }
    pr.template_wins = samples >= MMT_PREDICT_SAMPLES && nearest <= pr.reach &&
                       pr.ratio * pr.transfer >= MMT_PREDICT_MARGIN;
    return pr;
}

mmt_status mmt_predict_measured(void *trials, const mmt_family *fam, const mmt_problem *p, const char *params,
                                double *gflops, mmt_err *err)
{
    const mmt_predict_trials *t = trials;
    mmt_best_rec *m;
    size_t n;
    *gflops = 0;
    FORWARD_IF_ERROR(mmt_store_measured_list(t->st, t->dev->fingerprint, fam->name, fam->source_hash, p, &m, &n, err));
    for (size_t i = 0; i < n && !*gflops; i++)
        if (strcmp(m[i].params, params) == 0) *gflops = m[i].gflops;
    free(m);
    return MMT_OK;
}

mmt_status mmt_predict_calibrate(const mmt_device_info *dev, mmt_family *const *fams, const mmt_lookup_family *lf,
                                 int n_fams, mmt_predict_measured_fn measured, void *user, mmt_paired_rec *recs,
                                 size_t n, mmt_err *err)
{
    for (size_t i = 0; i < n; i++) recs[i].transfer = 0, recs[i].reach = 0;
    mmt_lookup_family others[MMT_MAX_FAMILIES];
    mmt_best_rec *kept[MMT_MAX_FAMILIES] = {0};
    mmt_status s = MMT_OK;
    for (int f = 0; f < n_fams && s == MMT_OK; f++) {
        kept[f] = malloc(sizeof *kept[f] * (lf[f].n_bests ? lf[f].n_bests : 1));
        if (!kept[f]) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    const size_t stride = n > MMT_PREDICT_CALIBRATED ? (n + MMT_PREDICT_CALIBRATED - 1) / MMT_PREDICT_CALIBRATED : 1;
    for (size_t i = 0; i < n && s == MMT_OK; i += stride) {
        mmt_paired_rec *r = &recs[i];
        const mmt_problem q = mmt_problem_normalise(&r->problem);
        for (int f = 0; f < n_fams; f++) { /* every family's tuned entries but q's own */
            size_t k = 0;
            for (size_t b = 0; b < lf[f].n_bests; b++) {
                const mmt_problem bp = mmt_problem_normalise(&lf[f].bests[b].problem);
                if (!mmt_problem_equal(&bp, &q)) kept[f][k++] = lf[f].bests[b];
            }
            others[f] = (mmt_lookup_family){lf[f].space, kept[f], k};
        }
        /* as libmmtuned runs a call of it: dense operands, classic algorithm */
        mmt_space_env env = {.problem = &q, .device = dev};
        mmt_config cfg;
        mmt_choice how;
        int which;
        mmt_err why;
        if (mmt_lookup_choose_among(others, n_fams, &env, &cfg, &how, NULL, &which, &why) != MMT_OK) continue;
        char params[512];
        mmt_config_format(fams[which]->space, &cfg, params, sizeof params);
        double at;
        s = measured(user, fams[which], &r->problem, params, &at, err);
        if (s != MMT_OK || !(at > 0) || !(r->vendor_gflops > 0)) continue;
        const mmt_prediction guess = mmt_predict(recs, n, &q, 1);
        r->transfer = at / r->vendor_gflops / guess.ratio;
        r->reach = guess.distance;
    }
    for (int f = 0; f < n_fams; f++) free(kept[f]);
    return s;
}

mmt_choice mmt_predict_serve(mmt_choice how, double gflops, const double *vendor_exact, const mmt_paired_rec *recs,
                             size_t n, const mmt_problem *p, int skip_self, mmt_prediction *pr)
{
    mmt_prediction none = {.ratio = 1, .transfer = 1, .distance = INFINITY};
    if (pr) *pr = none;
    /* a figure of this very problem, timed beside the templates' winners, decides */
    if (vendor_exact && (how != MMT_CHOICE_EXACT || *vendor_exact > gflops)) return MMT_CHOICE_EXACT;
    if (how == MMT_CHOICE_EXACT) return MMT_CHOICE_NONE;
    const mmt_prediction guess = mmt_predict(recs, n, p, skip_self);
    if (pr) *pr = guess;
    /* the prediction is of the neighbours' configurations: a default (none of theirs runs
     * here) is another kernel, of unknown speed (f32x3 119x2635x2841 measured 0.41x) */
    return guess.template_wins && how == MMT_CHOICE_NEAREST ? MMT_CHOICE_NONE : MMT_CHOICE_VENDOR;
}
