/* final.c - the final round of a problem (see final.h). */
#include "final.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "kernel.h"
#include "stats.h"

/* The winner's trial becomes the best; a reused trial (id unknown) is the best already:
 * it is the database's best entry, or the fastest of its prior trials. */
static mmt_status pin(mmt_tuner *t, int64_t trial_id, mmt_err *err)
{
    return trial_id > 0 ? mmt_store_best_set(t->st, trial_id, err) : MMT_OK;
}

static void take(mmt_final *out, const mmt_contender *c, size_t i)
{
    out->winner = i;
    out->median_ms = c[i].median_ms;
    out->lo_ms = c[i].lo_ms;
    out->hi_ms = c[i].hi_ms;
    out->level = c[i].level;
}

int mmt_final_binary(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, const char *params,
                     mmt_worker_binary *out)
{
    mmt_config cfg;
    char defines[4096], *log = NULL;
    void *bin = NULL;
    memset(out, 0, sizeof *out);
    int ok = mmt_config_parse(fam->space, params, &cfg, NULL) == MMT_OK &&
             mmt_kernel_defines(fam->space, &cfg, env, defines, sizeof defines, NULL) == MMT_OK &&
             mmt_space_geometry(fam->space, &cfg, env, &out->geometry, NULL) == MMT_OK &&
             mmt_kernel_binary(t->be, &t->dev, fam->name, fam->source, defines, &bin, &out->size, &log, NULL,
                               NULL) == MMT_OK;
    free(log);
    out->bin = bin;
    out->entry = fam->space->entry;
    if (ok && mmt_config_levels(fam->space, &cfg) > 0) { /* the base kernel of a plan, with its additions */
        mmt_space_env lenv = *env;
        lenv.allow_levels = 1;
        void *adds = NULL;
        size_t adds_size = 0;
        int valid = 0;
        ok = mmt_strassen_plan_make(fam->space, &cfg, &lenv, &out->plan, &valid, NULL) == MMT_OK && valid &&
             mmt_strassen_adds_binary(t->be, &t->dev, env->problem->dtype, &adds, &adds_size, NULL) == MMT_OK;
        free(adds);
    }
    return ok;
}

/* The message a finalist's trial keeps: what the round made of it. accurate: the winner is
 * not the fastest median but the more accurate of those within noise of it. */
static void verdict(char *buf, size_t size, int is_winner, size_t tied, int in_tie, int finalists, int rounds,
                    const char *winner, int accurate)
{
    if (is_winner && accurate)
        snprintf(buf, size,
                 "final round: within noise of the fastest median of %d finalists measured side by side over %d "
                 "rounds, and the most accurate of the %zu so tied, the fastest's error above %.1fx its own",
                 finalists, rounds, tied, MMT_VENDOR_ERROR_RATIO);
    else if (accurate && in_tie)
        snprintf(buf, size, "final round: within noise of %.400s, which was more accurate", winner);
    else if (is_winner && tied > 1)
        snprintf(buf, size,
                 "final round: the fastest median of %d finalists measured side by side over %d rounds; %zu of them "
                 "within noise of each other",
                 finalists, rounds, tied);
    else if (is_winner)
        snprintf(buf, size,
                 "final round: the fastest of %d finalists measured side by side over %d rounds, its interval "
                 "clear of the others'",
                 finalists, rounds);
    else if (in_tie)
        snprintf(buf, size, "final round: within noise of %.400s, whose median was faster", winner);
    else
        snprintf(buf, size, "final round: slower than %.400s measured side by side (intervals apart)", winner);
}

mmt_status mmt_final_record(mmt_tuner *t, const mmt_space_env *env, int64_t problem_id, int64_t template_id,
                            const char *params, const mmt_measure *r, const char *message, int64_t *trial_id,
                            mmt_err *err)
{
    mmt_trial_rec rec = {.session_id = t->session_id, .device_id = t->device_id, .problem_id = problem_id,
                         .status = r->status, .rel_error = isnan(r->rel_error) ? -1 : r->rel_error, .message = message,
                         .cpu_wait = r->cpu_wait};
    if (r->status == MMT_TRIAL_OK) {
        const mmt_timing *tm = &r->timing;
        rec.time_ms_median = tm->median_ms;
        rec.time_ms_min = tm->min_ms;
        rec.time_ms_max = tm->max_ms;
        rec.reps = tm->samples;
        rec.gflops = mmt_problem_flops(env->problem) / (tm->median_ms * 1e6);
    }
    FORWARD_IF_ERROR(mmt_store_config(t->st, template_id, params, &rec.config_id, err));
    return mmt_store_trial_add(t->st, &rec, trial_id, err);
}

mmt_status mmt_final_choose(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, int64_t problem_id,
                            int64_t template_id, const mmt_contender *c, size_t n, mmt_final *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    mmt_stats_entry *e = malloc(sizeof *e * (n ? n : 1));
    RETURN_ERROR_IF(!e, err, MMT_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) e[i] = (mmt_stats_entry){c[i].params, c[i].median_ms, c[i].lo_ms, c[i].hi_ms};
    size_t idx[MMT_FINALISTS];
    size_t k = mmt_stats_finalists(e, n, MMT_FINALISTS, idx);
    free(e);
    RETURN_ERROR_IF(k == 0, err, MMT_INTERNAL, "final round without contenders");
    out->finalists = (int)k;
    out->tied = 1;
    take(out, c, idx[0]);
    if (k == 1) {
        snprintf(out->text, sizeof out->text, "%s",
                 n == 1 ? "the only candidate that passed" : "no final round: the others are clearly slower");
        return pin(t, c[idx[0]].trial_id, err);
    }

    /* the finalists' binaries: from the file cache the search filled */
    mmt_worker_binary bins[MMT_FINALISTS];
    size_t who[MMT_FINALISTS];
    int m = 0;
    const double w0 = mmt_now_s();
    for (size_t j = 0; j < k; j++)
        if (mmt_final_binary(t, fam, env, c[idx[j]].params, &bins[m])) who[m++] = idx[j];
        else free((void *)bins[m].bin);
    out->wait_s = mmt_now_s() - w0;
    if (m < 2) {
        for (int j = 0; j < m; j++) free((void *)bins[j].bin);
        snprintf(out->text, sizeof out->text, "no final round: only one finalist could be built again");
        return pin(t, c[idx[0]].trial_id, err);
    }

    mmt_measure res[MMT_FINALISTS];
    mmt_status st = mmt_worker_measure_paired(t->worker, m, bins, res, err);
    for (int j = 0; j < m; j++) free((void *)bins[j].bin);
    FORWARD_IF_ERROR(st);
    if (res[0].status == MMT_TRIAL_CRASHED || res[0].status == MMT_TRIAL_TIMEOUT) {
        /* which finalist took the worker down is not known, and each passed before */
        snprintf(out->text, sizeof out->text, "final round lost (%.150s): the fastest of the exploration stands",
                 res[0].message);
        return pin(t, c[idx[0]].trial_id, err);
    }

    /* the decision, on the paired medians of those that passed verification again */
    mmt_stats_entry pe[MMT_FINALISTS];
    int pj[MMT_FINALISTS], pe_of[MMT_FINALISTS], np = 0, rounds = 0;
    for (int j = 0; j < m; j++) {
        pe_of[j] = -1;
        if (res[j].status != MMT_TRIAL_OK) continue;
        const mmt_timing *tm = &res[j].timing;
        pe[np] = (mmt_stats_entry){c[who[j]].params, tm->median_ms, tm->lo_ms, tm->hi_ms};
        pe_of[j] = np;
        pj[np++] = j;
        rounds = tm->samples;
    }
    /* the fastest paired median wins, within noise of others too: it is the best figure
     * there is, where the smallest config text (the rule before) favoured some instances
     * whatever their speed (f16 4096^3 on the H100 kept a one-consumer 128 x 128 tile) */
    size_t tied = 0;
    const size_t fastest = np > 0 ? mmt_stats_fastest(pe, (size_t)np, &tied) : 0;
    double error[MMT_FINALISTS];
    for (int q = 0; q < np; q++) error[q] = isnan(res[pj[q]].rel_error) ? 0 : res[pj[q]].rel_error;
    const size_t chosen = np > 0 ? mmt_stats_accurate_tie(pe, error, (size_t)np, fastest, MMT_VENDOR_ERROR_RATIO) : 0;
    const int accurate = chosen != fastest;
    const int wj = np > 0 ? pj[chosen] : -1;
    const char *winner = wj >= 0 ? c[who[wj]].params : "";

    /* every finalist's result is an ordinary trial; the winner's is recorded last */
    int64_t winner_trial = 0;
    for (int pass = 0; pass < 2 && st == MMT_OK; pass++)
        for (int j = 0; j < m && st == MMT_OK; j++) {
            if ((j == wj) != (pass == 1)) continue;
            const mmt_measure *r = &res[j];
            char message[2048];
            if (r->status == MMT_TRIAL_OK)
                verdict(message, sizeof message, j == wj, tied, mmt_stats_overlap(&pe[pe_of[j]], &pe[fastest]), m,
                        rounds, winner, accurate);
            else
                snprintf(message, sizeof message, "final round: %.2000s", r->message);
            int64_t id = 0;
            st = mmt_final_record(t, env, problem_id, template_id, c[who[j]].params, r, message, &id, err);
            if (j == wj) winner_trial = id;
            out->measured++;
        }
    FORWARD_IF_ERROR(st);
    out->rounds = rounds;
    if (wj < 0) {
        snprintf(out->text, sizeof out->text,
                 "final round: no finalist passed verification again; the fastest of the exploration stands");
        return pin(t, c[idx[0]].trial_id, err);
    }
    const mmt_timing *wt = &res[wj].timing;
    out->winner = who[wj];
    out->median_ms = wt->median_ms;
    out->lo_ms = wt->lo_ms;
    out->hi_ms = wt->hi_ms;
    out->level = wt->level;
    out->tied = tied;
    if (accurate)
        snprintf(out->text, sizeof out->text,
                 "final round: %d finalists side by side over %d rounds; %zu within noise of each other, the most "
                 "accurate chosen (error %.2g; the fastest median's %.2g)",
                 m, rounds, tied, error[chosen], error[fastest]);
    else if (tied > 1)
        snprintf(out->text, sizeof out->text,
                 "final round: %d finalists side by side over %d rounds; %zu within noise of each other, the "
                 "fastest median chosen",
                 m, rounds, tied);
    else
        snprintf(out->text, sizeof out->text, "final round: %d finalists side by side over %d rounds; a clear win", m,
                 rounds);
    return pin(t, winner_trial, err);
}
