/* tune.c - the tuning loop (see tune.h). */
#include "tune.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cpu_wait.h"
#include "kernel.h"
#include "final.h"
#include "levels.h"
#include "prebuild.h"
#include "search.h"
#include "versus.h"
#include "warm.h"

/* Trials already in the database, by config text, so a rerun resumes. */
typedef struct prior {
    char **params;
    mmt_trial_status *status;
    double *ms;
    size_t n, cap;
} prior;

static int collect_prior(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    (void)gflops;
    prior *pr = user;
    if (pr->n == pr->cap) {
        size_t cap = pr->cap ? 2 * pr->cap : 64;
        char **np = realloc(pr->params, cap * sizeof *np);
        if (np) pr->params = np;
        mmt_trial_status *ns = realloc(pr->status, cap * sizeof *ns);
        if (ns) pr->status = ns;
        double *nm = realloc(pr->ms, cap * sizeof *nm);
        if (nm) pr->ms = nm;
        if (!np || !ns || !nm) return 1;
        pr->cap = cap;
    }
    if (!(pr->params[pr->n] = strdup(params))) return 1;
    pr->status[pr->n] = status;
    pr->ms[pr->n] = ms;
    pr->n++;
    return 0;
}

static long find_prior(const prior *pr, const char *params)
{
    for (size_t i = pr->n; i-- > 0;)
        if (strcmp(pr->params[i], params) == 0) return (long)i;
    return -1;
}

static int has_prior(const void *pr, const char *params) { return find_prior(pr, params) >= 0; }

/* The candidates measured before, in the order they were: indices into cands. */
static size_t prior_order(const mmt_space *s, const mmt_config *cands, size_t n, const prior *pr, size_t *out)
{
    size_t k = 0;
    for (size_t j = 0; j < pr->n; j++) {
        mmt_config c;
        long i = mmt_config_parse(s, pr->params[j], &c, NULL) == MMT_OK ? mmt_config_index(cands, n, &c) : -1;
        if (i >= 0) out[k++] = (size_t)i; /* a repeat (a final round's) is passed over by the search */
    }
    return k;
}

static void free_prior(prior *pr)
{
    for (size_t i = 0; i < pr->n; i++) free(pr->params[i]);
    free(pr->params);
    free(pr->status);
    free(pr->ms);
}

/* Whether a failure's message is the machine's passing state (memory or processes ran
 * out, a call was interrupted) rather than anything of the candidate. */
static int transient(const char *message)
{
    static const char *const passing[] = {"out of memory", "Cannot allocate memory", "Resource temporarily unavailable",
                                          "Interrupted system call", "cannot run the C compiler"};
    for (size_t i = 0; message && i < sizeof passing / sizeof *passing; i++)
        if (strstr(message, passing[i])) return 1;
    return 0;
}

/* Builds one configuration here and has the worker verify and time it; fills rec and tm.
 * The time from asking for the binary to having it is the device's idle wait (pipe):
 * a compile in turn, a compile the pool had not finished, or a cache read (the file cache
 * the pool fills; a database holds no binaries). */
static mmt_status measure(mmt_tuner *t, const mmt_family *fam, const mmt_config *cfg, const mmt_space_env *env,
                          mmt_prebuild *pb, double best_hi_ms, mmt_trial_rec *rec, mmt_timing *tm, char **message,
                          mmt_report_pipeline *pipe, mmt_err *err)
{
    char defines[4096];
    mmt_geometry g;
    FORWARD_IF_ERROR(mmt_kernel_defines(fam->space, cfg, env, defines, sizeof defines, err));
    const double w0 = mmt_now_s();
    mmt_prebuild_claim(pb, defines);
    FORWARD_IF_ERROR(mmt_space_geometry(fam->space, cfg, env, &g, err));
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    int cached = 1;
    mmt_err kerr;
    mmt_err_clear(&kerr);
    mmt_status st = mmt_kernel_binary(t->be, &t->dev, fam->name, fam->source, defines, &bin, &size, &log,
                                      &cached, &kerr);
    pipe->wait_s += mmt_now_s() - w0;
    pipe->compiled += !cached;
    if (st == MMT_COMPILE) {
        rec->status = MMT_TRIAL_COMPILE_ERROR;
        *message = log ? log : strdup(kerr.msg);
        return MMT_OK;
    }
    free(log);
    if (st != MMT_OK) return mmt_err_set(err, st, "%s", kerr.msg);
    mmt_measure m;
    st = mmt_worker_measure(t->worker, bin, size, fam->space->entry, &g, best_hi_ms, &m, err);
    free(bin);
    FORWARD_IF_ERROR(st);
    rec->status = m.status;
    rec->rel_error = isnan(m.rel_error) ? -1 : m.rel_error;
    rec->cpu_wait = m.cpu_wait;
    if (m.status == MMT_TRIAL_OK) {
        *tm = m.timing;
        rec->time_ms_median = m.timing.median_ms;
        rec->time_ms_min = m.timing.min_ms;
        rec->time_ms_max = m.timing.max_ms;
        rec->reps = m.timing.samples;
        rec->gflops = mmt_problem_flops(env->problem) / (m.timing.median_ms * 1e6);
    }
    if (m.message[0]) *message = strdup(m.message);
    return MMT_OK;
}

/* Non-zero once the run is to stop (t->stop): no new candidate, no final or vendor round. */
static int stopped(const mmt_tuner *t) { return t->stop && *t->stop; }

/* The candidates with an ok trial in this run: what the final choice chooses among. */
typedef struct field {
    mmt_contender *c;
    size_t n, cap;
} field;

static int field_add(field *f, const char *params, double median, const mmt_timing *tm, int64_t trial_id)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        mmt_contender *grown = realloc(f->c, cap * sizeof *grown);
        if (!grown) return -1;
        f->c = grown;
        f->cap = cap;
    }
    char *copy = strdup(params);
    if (!copy) return -1;
    /* a reused trial has no interval: the database keeps median, min and max only */
    f->c[f->n++] = (mmt_contender){.params = copy, .median_ms = median, .lo_ms = tm ? tm->lo_ms : median,
                                   .hi_ms = tm ? tm->hi_ms : median, .level = tm ? tm->level : 0,
                                   .trial_id = trial_id};
    return 0;
}

static void field_free(field *f)
{
    for (size_t i = 0; i < f->n; i++) free((char *)f->c[i].params);
    free(f->c);
}

/* The database's best for the problem now, of this template source (out->trial_id 0 if
 * none), and whether this space holds it: a narrowed --space may not, and then the best
 * cannot be built here to defend its place in the final round. */
static int db_best(mmt_tuner *t, const mmt_family *fam, int64_t problem_id, int64_t template_id, mmt_best_row *out)
{
    mmt_config cfg;
    if (mmt_store_best_get(t->st, t->device_id, problem_id, fam->name, out, NULL) != MMT_OK ||
        out->template_id != template_id)
        out->trial_id = 0;
    return out->trial_id > 0 && mmt_config_parse(fam->space, out->params, &cfg, NULL) == MMT_OK;
}

/* r's winner: params, the figure it was chosen by, and how. */
static void take_winner(mmt_tune_result *r, const char *params, const mmt_report_figure *fig, const char *chosen_by)
{
    snprintf(r->params, sizeof r->params, "%s", params);
    r->tuned = *fig;
    r->chosen_ms = fig->median_ms;
    snprintf(r->chosen_by, sizeof r->chosen_by, "%s", chosen_by);
    r->ok = 1;
}

/* The end of a family's search: which candidate wins (final.h), into r. A rerun that
 * measured nothing new keeps the database's best without a final round: that is the choice
 * the run that measured this field made (its final round pinned it). When something new
 * was measured, the database's best stands in for every reused trial (it beat them,
 * side by side where it had to) and defends its place against the new ones. An
 * interrupted run has no final round: the database's best stands, whatever moved it. A
 * best with Strassen levels defends its place by its classic configuration (the levels
 * round comes after); *kept: nothing new was measured. */
static mmt_status choose(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env,
                         int64_t problem_id, int64_t template_id, const prior *pr, const field *f, mmt_tune_result *r,
                         int *kept, mmt_err *err)
{
    char inc[512] = "", classic[512];
    mmt_report_detail *d = &r->detail;
    *kept = 0;
    mmt_best_row best;
    const int held = db_best(t, fam, problem_id, template_id, &best);
    const double flops = mmt_problem_flops(env->problem);
    if (stopped(t)) {
        if (held && best.gflops > 0) {
            take_winner(r, best.params, &(mmt_report_figure){.median_ms = flops / (best.gflops * 1e6)},
                        "the database's best");
            snprintf(d->final, sizeof d->final, "interrupted: no final round; the database's best stands");
        }
        return MMT_OK;
    }
    if (t->fresh) best.trial_id = 0; /* a fresh run neither defends nor keeps what is on record */
    if (held && best.trial_id) snprintf(inc, sizeof inc, "%s", best.params);
    long at = inc[0] ? find_prior(pr, inc) : -1;
    if (at >= 0 && pr->status[at] != MMT_TRIAL_OK) at = -1;
    size_t fresh_ok = 0;
    for (size_t i = 0; i < f->n; i++) fresh_ok += f->c[i].trial_id > 0;
    if (fresh_ok > 0 && at >= 0) { /* the incumbent's classic trial stands in for it */
        mmt_config c;
        if (mmt_config_parse(fam->space, inc, &c, NULL) == MMT_OK) {
            c = mmt_config_with_levels(fam->space, &c, 0);
            mmt_config_format(fam->space, &c, classic, sizeof classic);
            at = find_prior(pr, classic);
            if (at >= 0 && pr->status[at] != MMT_TRIAL_OK) at = -1;
            if (at >= 0) snprintf(inc, sizeof inc, "%s", classic);
        }
    }
    if (fresh_ok == 0 && at >= 0) {
        *kept = 1;
        take_winner(r, inc, &(mmt_report_figure){.median_ms = pr->ms[at]}, "the database's best");
        snprintf(d->final, sizeof d->final, "kept from an earlier run: nothing new measured, the database's best stands");
        return MMT_OK;
    }
    /* the contenders borrow their texts from f and inc */
    mmt_contender *c = malloc(sizeof *c * (f->n + 1));
    RETURN_ERROR_IF(!c, err, MMT_OUT_OF_MEMORY, "out of memory");
    size_t n = 0;
    if (at >= 0)
        c[n++] = (mmt_contender){.params = inc, .median_ms = pr->ms[at], .lo_ms = pr->ms[at], .hi_ms = pr->ms[at]};
    for (size_t i = 0; i < f->n; i++)
        if (at < 0 || f->c[i].trial_id > 0) c[n++] = f->c[i];
    mmt_final fin;
    mmt_status st = n ? mmt_final_choose(t, fam, env, problem_id, template_id, c, n, &fin, err) : MMT_OK;
    if (st == MMT_OK && n) {
        const mmt_report_figure fig = {.median_ms = fin.median_ms, .lo_ms = fin.lo_ms, .hi_ms = fin.hi_ms,
                                       .level = fin.level};
        take_winner(r, c[fin.winner].params, &fig, fin.rounds > 0 ? "the final round" : "the search");
        snprintf(d->final, sizeof d->final, "%s", fin.text);
        d->pipe.wait_s += fin.wait_s;
        d->pipe.finals = fin.measured;
    }
    free(c);
    /* a best outside this space stands where its figure on record beats the winner's */
    if (st == MMT_OK && !held && best.trial_id > 0 && best.gflops > 0 &&
        (!r->ok || best.gflops * 1e6 * r->tuned.median_ms > flops)) {
        st = mmt_store_best_set(t->st, best.trial_id, err);
        if (st == MMT_OK) {
            char text[sizeof d->final];
            snprintf(text, sizeof text, "%s; the database's best stands (outside this space: %.1f GFLOP/s on record)",
                     d->final, best.gflops);
            const double ms = flops / (best.gflops * 1e6);
            take_winner(r, best.params, &(mmt_report_figure){.median_ms = ms, .lo_ms = ms, .hi_ms = ms},
                        "the database's best");
            snprintf(d->final, sizeof d->final, "%s", text);
        }
    }
    return st;
}

/* One family's search for p within budget_s seconds (0: none): its candidates cands[0..n),
 * resumed from its earlier trials, warm-started from its winners of the neighbouring
 * problems, ended by its final round; into r (r->ok where one of them passed). */
static mmt_status tune_family(mmt_tuner *t, const mmt_family *fam, const mmt_problem *p, int64_t problem_id,
                              const mmt_config *cands, size_t n, double budget_s, int first_family,
                              mmt_tune_result *r, mmt_err *err)
{
    memset(r, 0, sizeof *r);
    r->problem = *p;
    snprintf(r->family, sizeof r->family, "%s", fam->name);
    mmt_problem np = mmt_problem_normalise(p);
    mmt_space_env env = {.problem = &np, .device = &t->dev};
    int64_t template_id;
    mmt_status st = mmt_store_template(t->st, fam->name, fam->source_hash, &template_id, err);
    prior pr = {0};
    if (st == MMT_OK && !t->fresh)
        st = mmt_store_trials_each(t->st, t->device_id, problem_id, template_id, collect_prior, &pr, err);
    /* The search replays what this problem measured before (free, and it informs the
     * guided strategies: a rerun continues where the last run stopped, within the same
     * budget), then starts from the neighbours' winners. */
    size_t *first = st == MMT_OK ? malloc(sizeof(size_t) * (pr.n + MMT_WARM_MAX + 1)) : NULL;
    size_t n_first = 0;
    if (st == MMT_OK && !first) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    if (st == MMT_OK) {
        n_first = prior_order(fam->space, cands, n, &pr, first);
        mmt_best_rec *bests = NULL;
        size_t nb = 0, k = 0;
        mmt_store_best_list(t->st, t->dev.fingerprint, fam->name, fam->source_hash, np.mode, &bests, &nb, NULL);
        for (size_t i = 0; i < nb; i++) /* neighbours only: this problem's own best is among its trials */
            if (!mmt_problem_equal(&bests[i].problem, p)) bests[k++] = bests[i];
        n_first += mmt_warm_order(fam->space, cands, n, &env, bests, k, first + n_first, MMT_WARM_MAX);
        free(bests);
    }
    mmt_search *search = NULL;
    if (st == MMT_OK)
        st = mmt_search_new(t->strategy, fam->space, cands, n, first, n_first,
                            t->budget ? t->budget : (size_t)ceil(t->budget_frac * (double)n),
                            t->compile_threads > 0 ? (size_t)t->compile_threads : 1, t->seed, &search, err);
    if (st == MMT_OK) mmt_progress_problem(t->progress, p, fam->name, mmt_search_planned(search), first_family);

    mmt_prebuild *pb = NULL;
    if (st == MMT_OK && t->compile_threads > 0)
        st = mmt_prebuild_new(t->be, &t->dev, fam->source, t->compile_threads, t->exe, &pb, err);

    /* pipe: compiles and waits of the loop itself; the pool's compiles are added to what
     * is shown (shown.compiled) */
    mmt_report_pipeline pipe = {.ahead = pb ? t->compile_threads : 0}, shown;
    field f = {0};
    const double t0 = mmt_now_s();
    double best_ms = INFINITY, best_hi = 0;
    long idx;
    size_t done = 0, ahead = 0; /* ahead: proposals (counted from the first) sent to the pool */
    while (st == MMT_OK && (idx = mmt_search_next(search)) >= 0) {
        char params[512];
        if (stopped(t) || (budget_s > 0 && done > 0 && mmt_now_s() - t0 > budget_s)) break;
        if (ahead < done + 1) ahead = done + 1;
        for (long next; pb && mmt_prebuild_pending(pb) < 2 * t->compile_threads &&
                        (next = mmt_search_ahead(search, ahead - done - 1)) >= 0;
             ahead++) {
            char defines[4096];
            mmt_config_format(fam->space, &cands[next], params, sizeof params);
            if (find_prior(&pr, params) < 0 &&
                mmt_kernel_defines(fam->space, &cands[next], &env, defines, sizeof defines, NULL) == MMT_OK)
                mmt_prebuild_push(pb, defines);
        }
        mmt_config_format(fam->space, &cands[idx], params, sizeof params);
        long prev = find_prior(&pr, params);
        double ms = INFINITY;
        mmt_timing tm = {0};
        const char *status_name;
        if (prev >= 0) {
            r->reused++;
            status_name = mmt_trial_status_name(pr.status[prev]);
            if (pr.status[prev] == MMT_TRIAL_OK && field_add(&f, params, pr.ms[prev], NULL, 0) == 0) {
                ms = pr.ms[prev];
                tm.median_ms = tm.lo_ms = tm.hi_ms = ms; /* no interval known */
            }
        } else {
            mmt_trial_rec rec = {.session_id = t->session_id, .device_id = t->device_id, .problem_id = problem_id,
                                 .rel_error = -1, .cpu_wait = -1};
            char *message = NULL;
            int64_t trial_id = 0;
            st = mmt_store_config(t->st, template_id, params, &rec.config_id, err);
            if (st == MMT_OK)
                st = measure(t, fam, &cands[idx], &env, pb, best_hi, &rec, &tm, &message, &pipe, err);
            if (st == MMT_OK && rec.status != MMT_TRIAL_OK && stopped(t)) {
                /* Ctrl-C reached the compiler too: a failure now says nothing of the
                 * candidate, which the same command measures */
                free(message);
                break;
            }
            if (st == MMT_OK && rec.status != MMT_TRIAL_OK && transient(message)) {
                /* the machine's passing state, not the candidate's: counted as a failure
                 * of this run, never recorded, so the next run measures it again */
                free(message);
                r->measured++, r->failed++;
                mmt_search_report(search, idx, INFINITY);
                continue;
            }
            rec.message = message;
            if (st == MMT_OK) st = mmt_store_trial_add(t->st, &rec, &trial_id, err);
            free(message);
            r->measured++;
            status_name = mmt_trial_status_name(rec.status);
            if (rec.status != MMT_TRIAL_OK) r->failed++;
            else if (st == MMT_OK && field_add(&f, params, rec.time_ms_median, &tm, trial_id) == 0)
                ms = rec.time_ms_median;
        }
        mmt_search_report(search, idx, ms);
        if (ms < best_ms) {
            best_ms = ms;
            best_hi = tm.hi_ms; /* the early stop compares with the best's upper end */
            snprintf(r->explored_params, sizeof r->explored_params, "%s", params);
            r->explored_reused = prev >= 0;
        }
        double flops = mmt_problem_flops(&np);
        shown = pipe;
        shown.compiled += mmt_prebuild_compiled(pb);
        shown.measured = (size_t)r->measured;
        shown.reused = (size_t)r->reused;
        shown.wall_s = mmt_now_s() - t0;
        mmt_trial_line line = {.params = params, .status = status_name,
                               .gflops = isfinite(ms) ? flops / (ms * 1e6) : 0,
                               .best_gflops = isfinite(best_ms) ? flops / (best_ms * 1e6) : 0,
                               .median_ms = isfinite(ms) ? ms : 0, .lo_ms = tm.lo_ms, .hi_ms = tm.hi_ms,
                               .level = tm.level, .reused = prev >= 0};
        mmt_progress_trial(t->progress, ++done, &line, &shown);
    }
    pipe.compiled += mmt_prebuild_compiled(pb);
    mmt_prebuild_free(pb);
    r->detail.pipe = pipe;
    r->explored_ms = best_ms;
    r->proposed = done;
    r->planned = search ? mmt_search_planned(search) : 0;
    r->partial = done < r->planned;
    r->interrupted = stopped(t);
    int kept = 0;
    if (st == MMT_OK) st = choose(t, fam, &env, problem_id, template_id, &pr, &f, r, &kept, err);
    if (st == MMT_OK && !t->classic_only && !stopped(t))
        st = mmt_levels_round(t, fam, &env, problem_id, template_id, kept, has_prior, &pr, r, err);
    mmt_report_pipeline *rp = &r->detail.pipe;
    rp->measured = (size_t)r->measured;
    rp->reused = (size_t)r->reused;
    rp->wall_s = mmt_now_s() - t0;
    mmt_search_free(search);
    free(first);
    field_free(&f);
    free_prior(&pr);
    return st;
}

/* Adds the pipeline of one family's search to the problem's (the families search in turn). */
static void add_pipeline(mmt_report_pipeline *to, const mmt_report_pipeline *p)
{
    to->wall_s += p->wall_s;
    to->wait_s += p->wait_s;
    to->compiled += p->compiled;
    to->measured += p->measured;
    to->finals += p->finals;
    to->levels += p->levels;
    to->reused += p->reused;
    if (p->ahead > to->ahead) to->ahead = p->ahead;
}

/* The search's plan for n candidates (mmt_search_new's rule): a count, a share, or all. */
static size_t planned_of(const mmt_tuner *t, size_t n)
{
    size_t budget = t->budget ? t->budget : (size_t)ceil(t->budget_frac * (double)n);
    return budget && budget < n ? budget : n;
}

static mmt_report_figure figure_of(const mmt_timing *tm, double rel_error)
{
    return (mmt_report_figure){tm->median_ms, tm->lo_ms, tm->hi_ms, tm->level, rel_error};
}

/* Makes a family's winner the problem's (its pipeline stays the sum of every family's). */
static void take_family(mmt_tune_result *r, const mmt_tune_result *part)
{
    snprintf(r->family, sizeof r->family, "%s", part->family);
    snprintf(r->params, sizeof r->params, "%s", part->params);
    snprintf(r->chosen_by, sizeof r->chosen_by, "%s", part->chosen_by);
    snprintf(r->detail.final, sizeof r->detail.final, "%s", part->detail.final);
    snprintf(r->detail.levels, sizeof r->detail.levels, "%s", part->detail.levels);
    r->tuned = part->tuned;
    r->chosen_ms = part->chosen_ms;
    r->ok = 1;
}

/* Appends to buf (size bytes, *used of them taken), never past its end. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = *used + (size_t)n < size ? *used + (size_t)n : size;
}

/* Where r's figures come from (detail.figures): the search's best (each candidate timed
 * alone: the progress line's "explored best"), the figure the winner was chosen by, and
 * the table's (the vendor round's, where it ran). */
static void describe_figures(mmt_tune_result *r, const mmt_versus *vs)
{
    char *buf = r->detail.figures;
    const size_t size = sizeof r->detail.figures;
    size_t used = 0;
    const double flops = mmt_problem_flops(&r->problem);
    if (isfinite(r->explored_ms) && r->explored_ms > 0)
        append(buf, size, &used, "explored best %.1f GFLOP/s (%.200s, %s); ", flops / (r->explored_ms * 1e6),
               strcmp(r->explored_params, r->params) == 0 ? "the winner" : r->explored_params,
               r->explored_reused ? "its trial of an earlier run" : "timed alone");
    if (strcmp(r->chosen_by, "the search") != 0 && r->chosen_ms > 0)
        append(buf, size, &used, "%s: %.1f GFLOP/s; ", r->chosen_by, flops / (r->chosen_ms * 1e6));
    if (vs->winner >= 0 && r->vendor.median_ms > 0) {
        append(buf, size, &used, "the table's %.1f GFLOP/s and %.100s's %.1f: timed side by side over %d rounds",
               mmt_report_gflops(&r->problem, &r->tuned), r->vendor_label, mmt_report_gflops(&r->problem, &r->vendor),
               vs->tuned[vs->winner].samples);
        char beside[200] = "";
        if (vs->beside.rounds > 0) mmt_versus_beside_text(&vs->beside, beside, sizeof beside);
        else if (vs->cool.rounds > 0) mmt_versus_cool_text(&vs->cool, beside, sizeof beside);
        append(buf, size, &used, "%s", beside);
    } else if (vs->winner >= 0) {
        append(buf, size, &used, "the table's %.1f GFLOP/s: timed again over %d rounds, without the vendor",
               mmt_report_gflops(&r->problem, &r->tuned), vs->tuned[vs->winner].samples);
    } else {
        append(buf, size, &used, "the table's: the figure it was chosen by, without a vendor round%s",
               r->interrupted ? " (interrupted)" : "");
    }
}

/* Where the fastest winner lost the vendor round on accuracy alone (its error above 1.1x the
 * vendor's on the same inputs), its family's fastest configuration measured within that
 * error takes its place and the round runs again, once: on the 2-core VM the winner of f32
 * 1024^3 ran 1.10x OpenBLAS at 3.3e-7 against its 3.0e-7, and the vendor served a problem
 * that a configuration a little slower and as accurate would have won. part[f] (which
 * winners[] reads) takes the new configuration. */
static mmt_status accurate_again(mmt_tuner *t, const mmt_problem *p, int64_t problem_id, mmt_versus_entry *winners,
                                 int n_winners, mmt_tune_result *part, const int *winner_part, mmt_versus *vs,
                                 mmt_err *err)
{
    if (vs->vendor_serves != MMT_VENDOR_MORE_ACCURATE || vs->winner < 0 || !(vs->vendor_error > 0)) return MMT_OK;
    mmt_tune_result *pt = &part[winner_part[vs->winner]];
    const mmt_family *fam = winners[vs->winner].fam;
    const double bound = MMT_VENDOR_ERROR_RATIO * vs->vendor_error, fastest_error = vs->tuned_error[vs->winner];
    int64_t template_id;
    char params[sizeof pt->params];
    double ms;
    FORWARD_IF_ERROR(mmt_store_template(t->st, fam->name, fam->source_hash, &template_id, err));
    FORWARD_IF_ERROR(
        mmt_store_fastest_within(t->st, t->device_id, problem_id, template_id, bound, params, sizeof params, &ms, err));
    if (!params[0] || strcmp(params, pt->params) == 0) return MMT_OK;
    snprintf(pt->params, sizeof pt->params, "%s", params);
    pt->chosen_ms = ms;
    size_t used = strlen(pt->detail.final);
    append(pt->detail.final, sizeof pt->detail.final, &used,
           "; its error %.2g was above %.1fx the vendor's %.2g: the fastest configuration within that (%.4g ms in "
           "the search) took its place beside the vendor",
           fastest_error, MMT_VENDOR_ERROR_RATIO, vs->vendor_error, ms);
    return mmt_versus_run(t, p, problem_id, winners, n_winners, vs, err);
}

mmt_status mmt_tune_problem(mmt_tuner *t, const mmt_problem *p, mmt_tune_result *r, mmt_err *err)
{
    memset(r, 0, sizeof *r);
    r->problem = *p;
    const mmt_family_list *fl = &t->families[p->mode];
    mmt_problem np = mmt_problem_normalise(p);
    mmt_space_env env = {.problem = &np, .device = &t->dev};
    mmt_config *cands[MMT_MAX_FAMILIES] = {NULL};
    size_t n[MMT_MAX_FAMILIES] = {0};
    int live = 0;
    mmt_status st = MMT_OK;
    for (int f = 0; st == MMT_OK && f < fl->n; f++) {
        st = mmt_space_enumerate(fl->f[f]->space, &env, &cands[f], &n[f], err);
        live += n[f] > 0;
    }
    if (st == MMT_OK && live == 0) {
        size_t used = (size_t)snprintf(r->message, sizeof r->message, "no valid configuration for this problem in");
        for (int f = 0; f < fl->n && used < sizeof r->message; f++)
            used += (size_t)snprintf(r->message + used, sizeof r->message - used, " %s", fl->f[f]->space->file);
    }
    int64_t problem_id = 0;
    if (st == MMT_OK && live) st = mmt_store_problem(t->st, p, &problem_id, err);
    if (st == MMT_OK && live) st = mmt_worker_setup(t->worker, p, err);
    mmt_cpu_wait load;
    mmt_cpu_wait_start(&load);
    /* The families compete: each searches within its share of what is left of the time
     * budget (one that finishes early leaves its time to the next), and the fastest winner
     * is the problem's. A family built for this exact architecture weighs twice (it exists
     * because it is the faster one here: on the H100 the wgmma family beat mma.sync by
     * 1.8x wherever both ran), the others once. */
    const double t0 = mmt_now_s();
    int weight_left = 0;
    for (int f = 0; f < fl->n; f++) weight_left += n[f] ? 1 + fl->f[f]->space->arch_specific : 0;
    mmt_tune_result part[MMT_MAX_FAMILIES];
    int searched[MMT_MAX_FAMILIES] = {0};
    mmt_versus_entry winners[MMT_MAX_FAMILIES];
    int winner_part[MMT_MAX_FAMILIES], n_winners = 0;
    r->explored_ms = INFINITY;
    for (int f = 0, done = 0; st == MMT_OK && f < fl->n; f++) {
        if (!n[f]) continue;
        if (stopped(t)) { /* a family never begun: the problem's search is cut short */
            r->partial = 1;
            r->planned += planned_of(t, n[f]);
            continue;
        }
        const int weight = 1 + fl->f[f]->space->arch_specific;
        const double left = t->budget_s - (mmt_now_s() - t0);
        const double share = t->budget_s > 0 ? (left > 1 ? left : 1) * weight / weight_left : 0;
        weight_left -= weight;
        mmt_tune_result *pt = &part[f];
        st = tune_family(t, fl->f[f], p, problem_id, cands[f], n[f], share, done == 0, pt, err);
        searched[f] = 1;
        done++;
        r->measured += pt->measured, r->failed += pt->failed, r->reused += pt->reused;
        r->proposed += pt->proposed, r->planned += pt->planned, r->partial |= pt->partial;
        add_pipeline(&r->detail.pipe, &pt->detail.pipe);
        if (pt->explored_ms < r->explored_ms) {
            r->explored_ms = pt->explored_ms;
            snprintf(r->explored_params, sizeof r->explored_params, "%s", pt->explored_params);
            r->explored_reused = pt->explored_reused;
        }
        if (!pt->ok) continue;
        winners[n_winners] = (mmt_versus_entry){fl->f[f], pt->params};
        winner_part[n_winners++] = f;
        if (!r->ok || pt->chosen_ms < r->chosen_ms) take_family(r, pt); /* until the vendor round says */
    }
    if (st == MMT_OK && live && !r->ok) snprintf(r->message, sizeof r->message, "no configuration passed verification");
    mmt_versus vs = {.winner = -1};
    if (st == MMT_OK && n_winners > 0 && !stopped(t)) {
        st = mmt_versus_run(t, p, problem_id, winners, n_winners, &vs, err);
        if (st == MMT_OK) st = accurate_again(t, p, problem_id, winners, n_winners, part, winner_part, &vs, err);
        if (st == MMT_OK && vs.winner >= 0) {
            take_family(r, &part[winner_part[vs.winner]]);
            r->tuned = figure_of(&vs.tuned[vs.winner], vs.tuned_error[vs.winner]);
            if (vs.vendor.samples > 0) r->vendor = figure_of(&vs.vendor, vs.vendor_error);
            r->vendor_serves = vs.vendor_serves;
            snprintf(r->vendor_label, sizeof r->vendor_label, "%s", vs.label);
        }
        if (st == MMT_OK && vs.text[0]) snprintf(r->message, sizeof r->message, "%.500s", vs.text);
    }
    /* the end of the searches: their bests say whether they were cut short */
    for (int f = 0; st == MMT_OK && f < fl->n; f++)
        if (searched[f]) st = mmt_store_best_partial(t->st, t->device_id, problem_id, fl->f[f]->name, part[f].partial, err);
    r->interrupted = live && stopped(t);
    r->cpu_wait = strcmp(t->be->name, "cpu") == 0 ? mmt_cpu_wait_share(&load) : -1;
    /* a short vendor round at the end can be busy where the problem's whole time was not:
     * the problem is busy then too, as its serving was left as it was */
    if (r->cpu_wait >= 0 && vs.cpu_wait > MMT_CPU_BUSY && vs.cpu_wait > r->cpu_wait) r->cpu_wait = vs.cpu_wait;
    if (r->ok) describe_figures(r, &vs);
    for (int f = 0; f < fl->n; f++) free(cands[f]);
    return st;
}
