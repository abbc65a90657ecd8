/* levels.c - the levels round (see levels.h). */
#include "levels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "final.h"
#include "kernel.h"
#include "stats.h"
#include "strassen.h"

#define MAX_CONTENDERS (1 + MMT_STRASSEN_MAX_LEVELS)

static const char *levels_name(int levels)
{
    return levels == 0 ? "classic" : levels == 1 ? "1 level" : "2 levels";
}

/* The trial's message: its time against the classic kernel's, side by side, and the verdict. */
static void verdict(char *buf, size_t size, const mmt_measure *m, const mmt_measure *classic, int levels, int won,
                    int rounds, double bound)
{
    if (m->status != MMT_TRIAL_OK) {
        snprintf(buf, size, "levels round, %s: %.1900s", levels_name(levels), m->message);
        return;
    }
    int n = snprintf(buf, size, "levels round, %s: error %.3g (bound %.3g)", levels_name(levels), m->rel_error, bound);
    if (levels && classic->status == MMT_TRIAL_OK)
        n += snprintf(buf + n, size - (size_t)n, ", %.3fx the classic kernel's speed side by side over %d rounds",
                      classic->timing.median_ms / m->timing.median_ms, rounds);
    snprintf(buf + n, size - (size_t)n, "; %s", won ? "chosen" : "not chosen");
}

mmt_status mmt_levels_round(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, int64_t problem_id,
                            int64_t template_id, int kept, int (*has_trial)(const void *user, const char *params),
                            const void *user, mmt_tune_result *r, mmt_err *err)
{
    const mmt_space *s = fam->space;
    mmt_report_detail *d = &r->detail;
    d->levels[0] = '\0';
    mmt_config won;
    if (s->levels_param < 0 || !r->ok || mmt_config_parse(s, r->params, &won, NULL) != MMT_OK) return MMT_OK;

    /* the classic winner, and it with every number of levels its plan allows here */
    mmt_config cand[MAX_CONTENDERS];
    mmt_strassen_plan plans[MAX_CONTENDERS];
    char text[MAX_CONTENDERS][512];
    int levels[MAX_CONTENDERS], n = 1, known = 1;
    mmt_space_env lenv = *env;
    lenv.allow_levels = 1;
    cand[0] = mmt_config_with_levels(s, &won, 0);
    memset(&plans[0], 0, sizeof plans[0]);
    levels[0] = 0;
    const mmt_space_param *lp = &s->params[s->levels_param];
    for (int i = 0; i < lp->n_values && n < MAX_CONTENDERS; i++) {
        int valid = 0;
        if (lp->values[i] == 0) continue;
        cand[n] = mmt_config_with_levels(s, &won, (int)lp->values[i]);
        FORWARD_IF_ERROR(mmt_strassen_plan_make(s, &cand[n], &lenv, &plans[n], &valid, err));
        if (valid) levels[n++] = (int)lp->values[i];
    }
    if (n == 1) return MMT_OK; /* no level runs this problem (too small, another mode) */
    for (int i = 0; i < n; i++) {
        mmt_config_format(s, &cand[i], text[i], sizeof text[i]);
        known &= has_trial(user, text[i]);
    }
    if (kept && known) return MMT_OK; /* the database's best stands: this round was run before */

    /* one binary for all: levels are the runtime's; the additions go into the caches
     * (database and kernel files), where the worker finds them */
    char defines[4096], *log = NULL;
    void *bin = NULL, *adds = NULL;
    size_t size = 0, adds_size = 0;
    mmt_geometry g;
    FORWARD_IF_ERROR(mmt_kernel_defines(s, &cand[0], env, defines, sizeof defines, err));
    FORWARD_IF_ERROR(mmt_space_geometry(s, &cand[0], env, &g, err));
    mmt_err why;
    mmt_status st = mmt_kernel_binary(t->be, &t->dev, fam->name, fam->source, defines, &bin, &size, &log, NULL,
                                      &why);
    free(log);
    if (st == MMT_OK) st = mmt_strassen_adds_binary(t->be, &t->dev, env->problem->dtype, &adds, &adds_size, &why);
    free(adds);
    if (st != MMT_OK) {
        free(bin);
        snprintf(d->levels, sizeof d->levels, "no levels round: %.200s", why.msg);
        return MMT_OK;
    }
    mmt_worker_binary bins[MAX_CONTENDERS];
    for (int i = 0; i < n; i++)
        bins[i] = (mmt_worker_binary){.bin = bin, .size = size, .entry = s->entry, .geometry = g, .plan = plans[i]};
    mmt_measure res[MAX_CONTENDERS];
    st = mmt_worker_measure_paired(t->worker, n, bins, res, err);
    free(bin);
    FORWARD_IF_ERROR(st);
    d->pipe.levels += (size_t)n;
    if (res[0].status == MMT_TRIAL_CRASHED || res[0].status == MMT_TRIAL_TIMEOUT) {
        snprintf(d->levels, sizeof d->levels, "levels round lost (%.150s): the classic kernel stands", res[0].message);
        return MMT_OK;
    }

    /* the decision: a tie within noise goes to the fewest levels (the shortest text) */
    mmt_stats_entry pe[MAX_CONTENDERS];
    int of[MAX_CONTENDERS], np = 0, rounds = 0;
    for (int i = 0; i < n; i++)
        if (res[i].status == MMT_TRIAL_OK) {
            const mmt_timing *tm = &res[i].timing;
            pe[np] = (mmt_stats_entry){text[i], tm->median_ms, tm->lo_ms, tm->hi_ms};
            of[np++] = i;
            rounds = tm->samples;
        }
    const int w = np > 0 ? of[mmt_stats_winner(pe, (size_t)np, NULL)] : -1;

    /* every result a trial, the winner's last; the winner's is pinned */
    int64_t winner_trial = 0;
    for (int pass = 0; pass < 2 && st == MMT_OK; pass++)
        for (int i = 0; i < n && st == MMT_OK; i++) {
            if ((i == w) != (pass == 1)) continue;
            char message[2048];
            verdict(message, sizeof message, &res[i], &res[0], levels[i], i == w, rounds,
                    mmt_bench_error_bound(env->problem, levels[i]));
            int64_t id = 0;
            st = mmt_final_record(t, env, problem_id, template_id, text[i], &res[i], message, &id, err);
            if (i == w) winner_trial = id;
        }
    if (st == MMT_OK && winner_trial) st = mmt_store_best_set(t->st, winner_trial, err);
    FORWARD_IF_ERROR(st);

    size_t len = (size_t)snprintf(d->levels, sizeof d->levels, "side by side over %d rounds:", rounds);
    for (int i = 0; i < n && len < sizeof d->levels; i++) {
        const mmt_measure *m = &res[i];
        if (m->status != MMT_TRIAL_OK)
            len += (size_t)snprintf(d->levels + len, sizeof d->levels - len, " %s %s;", levels_name(levels[i]),
                                    mmt_trial_status_name(m->status));
        else
            len += (size_t)snprintf(d->levels + len, sizeof d->levels - len, " %s %.4g ms (%.2fx, error %.2g);",
                                    levels_name(levels[i]), m->timing.median_ms,
                                    res[0].status == MMT_TRIAL_OK ? res[0].timing.median_ms / m->timing.median_ms : 0,
                                    m->rel_error);
    }
    if (len < sizeof d->levels)
        snprintf(d->levels + len, sizeof d->levels - len, " %s%s",
                 w < 0 ? "none passed: the classic kernel stands" : levels_name(levels[w]),
                 w < 0 ? "" : w == 0 ? " kept (no level clearly faster)" : " kept");
    if (w >= 0) { /* the round's winner is the problem's result, as it is the database's best */
        const mmt_timing *tm = &res[w].timing;
        snprintf(r->params, sizeof r->params, "%s", text[w]);
        r->tuned = (mmt_report_figure){tm->median_ms, tm->lo_ms, tm->hi_ms, tm->level, res[w].rel_error};
        r->chosen_ms = tm->median_ms;
        snprintf(r->chosen_by, sizeof r->chosen_by, "the levels round");
    }
    return MMT_OK;
}
