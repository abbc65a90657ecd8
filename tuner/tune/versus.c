/* versus.c - the vendor round (see versus.h). */
#include "versus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "final.h"
#include "store_serving.h"
#include "vendor.h"

_Static_assert(MMT_MAX_FAMILIES + 3 <= MMT_BENCH_MAX_PAIRED,
               "a paired measurement holds every family and the vendor's three routes");

mmt_status mmt_versus_record(const mmt_versus_to *to, const char *name, const char *source_hash, const char *params,
                             const mmt_measure *r, const char *by, const char *how, int64_t *trial_id, mmt_err *err)
{
    char message[2400];
    mmt_trial_rec rec = {.session_id = to->session_id, .device_id = to->device_id, .problem_id = to->problem_id,
                         .status = r->status, .rel_error = isnan(r->rel_error) ? -1 : r->rel_error,
                         .message = message, .cpu_wait = r->cpu_wait};
    if (r->status == MMT_TRIAL_OK) {
        rec.time_ms_median = r->timing.median_ms;
        rec.time_ms_min = r->timing.min_ms;
        rec.time_ms_max = r->timing.max_ms;
        rec.reps = r->timing.samples;
        rec.gflops = mmt_problem_flops(to->np) / (r->timing.median_ms * 1e6);
        snprintf(message, sizeof message, "%s: %s", by, how);
    } else {
        snprintf(message, sizeof message, "%s: %.2000s", by, r->message);
    }
    int64_t template_id;
    *trial_id = 0;
    FORWARD_IF_ERROR(mmt_store_template(to->st, name, source_hash, &template_id, err));
    FORWARD_IF_ERROR(mmt_store_config(to->st, template_id, params, &rec.config_id, err));
    FORWARD_IF_ERROR(mmt_store_trial_add(to->st, &rec, trial_id, err));
    return r->status == MMT_TRIAL_OK ? mmt_store_best_set(to->st, *trial_id, err) : MMT_OK;
}

mmt_status mmt_versus_record_vendor(const mmt_versus_to *to, const char *params, const mmt_measure *r, const char *by,
                                    const char *how, mmt_err *err)
{
    int64_t id;
    FORWARD_IF_ERROR(mmt_versus_record(to, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, params, r, by, how, &id, err));
    return mmt_store_best_partial(to->st, to->device_id, to->problem_id, MMT_VENDOR_TEMPLATE, 0, err); /* no search */
}

mmt_vendor_serves mmt_versus_vendor_serves(const mmt_timing *winner, double winner_error, const mmt_timing *vendor,
                                           double vendor_error, const mmt_beside *beside, const mmt_cool *cool)
{
    if (vendor->median_ms < winner->median_ms) return MMT_VENDOR_FASTER;
    if (beside && beside->rounds > 0 && beside->other_beside_ms < MMT_BESIDE_MARGIN * beside->ours_beside_ms)
        return MMT_VENDOR_FASTER_BESIDE;
    if (cool && cool->rounds > 0 && cool->other_ms < cool->ours_ms) return MMT_VENDOR_FASTER_COOL;
    if (winner_error > 0 && vendor_error > 0 && winner_error > MMT_VENDOR_ERROR_RATIO * vendor_error)
        return MMT_VENDOR_MORE_ACCURATE;
    return MMT_VENDOR_NOT;
}

int mmt_versus_demotes(const mmt_timing *tuned, const mmt_timing *vendor)
{
    return tuned->samples > 0 && vendor->samples > 0 &&
           ((vendor->median_ms < MMT_DEMOTE_RATIO * tuned->median_ms && vendor->hi_ms < tuned->lo_ms) ||
            vendor->median_ms < MMT_DEMOTE_CLEAR * tuned->median_ms);
}

void mmt_versus_beside_text(const mmt_beside *b, char *buf, size_t size)
{
    snprintf(buf, size,
             "; beside it in one process, calls alternating over %d rounds: the fastest %.2fx its time alone, the "
             "vendor %.2fx",
             b->rounds, b->ours_beside_ms / b->ours_alone_ms, b->other_beside_ms / b->other_alone_ms);
}

void mmt_versus_cool_text(const mmt_cool *c, char *buf, size_t size)
{
    snprintf(buf, size, "; below the power limit over %d rounds: the fastest %.2fx the vendor's speed", c->rounds,
             c->other_ms / c->ours_ms);
}

mmt_status mmt_versus_run(mmt_tuner *t, const mmt_problem *p, int64_t problem_id, const mmt_versus_entry *e, int n,
                          mmt_versus *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    out->winner = -1;
    RETURN_ERROR_IF(n < 1 || n > MMT_MAX_FAMILIES, err, MMT_INVALID_ARGUMENT, "vendor round of %d winners", n);
    mmt_problem np = mmt_problem_normalise(p);
    const mmt_versus_to to = {t->st, t->session_id, t->device_id, problem_id, &np};
    mmt_space_env env = {.problem = &np, .device = &t->dev};
    mmt_worker_binary bins[MMT_MAX_FAMILIES];
    int who[MMT_MAX_FAMILIES], m = 0;
    for (int i = 0; i < n; i++)
        if (mmt_final_binary(t, e[i].fam, &env, e[i].params, &bins[m])) who[m++] = i;
        else free((void *)bins[m].bin);
    if (m == 0) {
        snprintf(out->text, sizeof out->text, "no vendor round: the winner could not be built again");
        return MMT_OK;
    }
    mmt_measure res[MMT_MAX_FAMILIES], vres;
    mmt_vendor_route route = MMT_VENDOR_PLAN;
    mmt_status st = mmt_worker_measure_versus(t->worker, m, bins, res, &vres, &route, &out->beside, &out->cool,
                                              out->label, sizeof out->label, err);
    for (int j = 0; j < m; j++) free((void *)bins[j].bin);
    FORWARD_IF_ERROR(st);
    if (res[0].status == MMT_TRIAL_CRASHED || res[0].status == MMT_TRIAL_TIMEOUT) {
        /* which of them took the worker down is not known, and each passed before */
        snprintf(out->text, sizeof out->text, "vendor round lost (%.300s)", res[0].message);
        return MMT_OK;
    }
    out->cpu_wait = res[0].cpu_wait;
    const int vendor_ok = vres.status == MMT_TRIAL_OK && vres.timing.samples > 0;
    int rounds = 0;
    for (int j = 0; j < m; j++)
        if (res[j].status == MMT_TRIAL_OK) rounds = res[j].timing.samples;
    char how[600];
    if (vendor_ok)
        snprintf(how, sizeof how, "timed side by side with %.100s over %d rounds (A B B A ..., the same inputs)",
                 out->label, rounds);
    else
        snprintf(how, sizeof how, "timed again over %d rounds (the vendor: %.300s)", rounds, vres.message);
    if (!vendor_ok)
        snprintf(out->text, sizeof out->text, "%.100s%s%.400s", out->label, out->label[0] ? ": " : "", vres.message);
    if (vendor_ok && out->beside.rounds > 0)
        mmt_versus_beside_text(&out->beside, how + strlen(how), sizeof how - strlen(how));
    if (vendor_ok && out->cool.rounds > 0)
        mmt_versus_cool_text(&out->cool, how + strlen(how), sizeof how - strlen(how));

    int64_t winner_trial = 0;
    for (int j = 0; j < m && st == MMT_OK; j++) {
        int64_t id;
        st = mmt_versus_record(&to, e[who[j]].fam->name, e[who[j]].fam->source_hash, e[who[j]].params, &res[j],
                               "vendor round", how, &id, err);
        if (st != MMT_OK || res[j].status != MMT_TRIAL_OK) continue;
        out->tuned[who[j]] = res[j].timing;
        out->tuned_error[who[j]] = res[j].rel_error;
        if (out->winner < 0 || res[j].timing.median_ms < out->tuned[out->winner].median_ms) {
            out->winner = who[j];
            winner_trial = id;
        }
    }
    FORWARD_IF_ERROR(st);
    if (out->winner < 0 && !out->text[0])
        snprintf(out->text, sizeof out->text, "vendor round: the winner failed this time: %.400s", res[0].message);
    if (out->winner < 0 || !vendor_ok) return MMT_OK;
    out->vendor = vres.timing;
    out->vendor_error = vres.rel_error;
    FORWARD_IF_ERROR(mmt_store_baseline_put(t->st, t->device_id, problem_id, out->label, vres.timing.median_ms,
                                            mmt_problem_flops(&np) / (vres.timing.median_ms * 1e6), winner_trial,
                                            err));
    /* The vendor family: a best of its own where it was the faster in these rounds or the
     * more accurate, so libmmtuned serves it for this problem; where a later round finds it
     * so no more, that best goes and the templates' serves again. */
    char params[96];
    const char *routine = mmt_vendor_route_params(t->be, np.mode, route, params, sizeof params);
    int off = 0;
    FORWARD_IF_ERROR(mmt_vendor_policy(&off, err));
    if (off) return MMT_OK; /* a yardstick only: its family's bests stay as they are */
    if (vres.cpu_wait > MMT_CPU_BUSY) return MMT_OK; /* measured busy: whom libmmtuned serves stays as it was */
    out->vendor_serves = routine ? mmt_versus_vendor_serves(&out->tuned[out->winner], out->tuned_error[out->winner],
                                                            &vres.timing, vres.rel_error, &out->beside, &out->cool)
                                 : MMT_VENDOR_NOT;
    if (!out->vendor_serves)
        return mmt_store_best_drop(t->st, t->device_id, problem_id, MMT_VENDOR_TEMPLATE, NULL, err);
    snprintf(how + strlen(how), sizeof how - strlen(how), "; %s: libmmtuned serves it",
             out->vendor_serves == MMT_VENDOR_FASTER          ? "faster than every template"
             : out->vendor_serves == MMT_VENDOR_FASTER_BESIDE ? "faster than the fastest template with their calls "
                                                                "alternating in one process"
             : out->vendor_serves == MMT_VENDOR_FASTER_COOL   ? "faster than the fastest template with the GPU below "
                                                                "its power limit"
                                                              : "more accurate than the fastest template");
    return mmt_versus_record_vendor(&to, params, &vres, "vendor round", how, err);
}
