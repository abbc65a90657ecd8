/* report_data.c - a device's results, arranged for the report (see report_data.h). */
#include "report_data.h"

#include <stdlib.h>
#include <string.h>

/* Room for one more element in *items (n used of *cap); 0 ok, -1 out of memory. */
static int grow(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return 0;
    size_t more = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, more * size);
    if (!p) return -1;
    *items = p;
    *cap = more;
    return 0;
}

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

typedef struct loader {
    mmt_rd_device *d;
    size_t cap_bests, cap_problems, cap_sessions;
    size_t last_problem, last_session; /* where the previous trial's were: trials come in runs */
    int failed;                        /* out of memory */
} loader;

static mmt_rd_problem *problem_of(loader *l, int64_t id, const mmt_problem *p)
{
    mmt_rd_device *d = l->d;
    if (l->last_problem < d->n_problems && d->problems[l->last_problem].id == id) return &d->problems[l->last_problem];
    for (size_t i = 0; i < d->n_problems; i++)
        if (d->problems[i].id == id) return &d->problems[l->last_problem = i];
    if (grow((void **)&d->problems, &l->cap_problems, d->n_problems, sizeof *d->problems)) return NULL;
    mmt_rd_problem *x = &d->problems[l->last_problem = d->n_problems++];
    *x = (mmt_rd_problem){.id = id, .problem = *p};
    return x;
}

static int on_best(void *user, const mmt_rep_best *b)
{
    loader *l = user;
    mmt_rd_device *d = l->d;
    if (grow((void **)&d->bests, &l->cap_bests, d->n_bests, sizeof *d->bests)) return l->failed = 1;
    d->bests[d->n_bests++] = (mmt_rd_best){.problem_id = b->problem_id, .problem = b->problem,
                                           .template_name = copy(b->template_name), .params = copy(b->params),
                                           .vendor = copy(b->vendor), .time_ms = b->time_ms, .gflops = b->gflops,
                                           .vendor_time_ms = b->vendor_time_ms, .vendor_gflops = b->vendor_gflops,
                                           .partial = b->partial, .chosen = b->chosen,
                                           .vendor_unpaired = b->vendor_unpaired};
    const mmt_rd_best *x = &d->bests[d->n_bests - 1];
    if (!x->template_name || !x->params || (b->vendor && !x->vendor)) return l->failed = 1;
    return problem_of(l, b->problem_id, &b->problem) ? 0 : (l->failed = 1);
}

static int on_session(void *user, const mmt_rep_session *s)
{
    loader *l = user;
    mmt_rd_device *d = l->d;
    if (grow((void **)&d->sessions, &l->cap_sessions, d->n_sessions, sizeof *d->sessions)) return l->failed = 1;
    d->sessions[d->n_sessions++] =
        (mmt_rd_session){.id = s->id, .started = s->started, .ended = s->ended, .command = copy(s->command),
                         .strategy = copy(s->strategy), .budget = copy(s->budget), .host = copy(s->host),
                         .outcome = copy(s->outcome), .last_problem = -1};
    return 0;
}

static mmt_rd_session *session_of(loader *l, int64_t id)
{
    mmt_rd_device *d = l->d;
    if (l->last_session < d->n_sessions && d->sessions[l->last_session].id == id) return &d->sessions[l->last_session];
    for (size_t i = 0; i < d->n_sessions; i++)
        if (d->sessions[i].id == id) return &d->sessions[l->last_session = i];
    return NULL; /* a trial of no session (or of another device's) */
}

/* A problem's tuning time: per session, its first trial to its last. */
static void span_add(mmt_rd_problem *p, int64_t session, int64_t created)
{
    if (p->trials > 1 && session == p->span_session) {
        p->span_last = created;
        return;
    }
    if (p->trials > 1) p->tuning_s += (double)(p->span_last - p->span_first);
    p->span_session = session;
    p->span_first = p->span_last = created;
}

static int on_trial(void *user, const mmt_rep_trial *t)
{
    loader *l = user;
    mmt_rd_problem *p = problem_of(l, t->problem_id, &t->problem);
    if (!p) return l->failed = 1;
    l->d->n_trials++;
    p->trials++;
    span_add(p, t->session_id, t->created);
    mmt_rd_session *s = session_of(l, t->session_id);
    if (s) {
        if (grow((void **)&s->offsets, &s->cap, s->trials, sizeof *s->offsets)) return l->failed = 1;
        s->offsets[s->trials++] = t->created - s->started;
        s->ok += t->status == MMT_TRIAL_OK;
        s->rounds += t->round != MMT_ROUND_SEARCH;
        s->problems += s->last_problem != t->problem_id;
        s->last_problem = t->problem_id;
    }
    if (t->round != MMT_ROUND_SEARCH) return 0;
    mmt_rd_config *c = NULL;
    for (size_t i = 0; i < p->n_configs && !c; i++)
        if (p->configs[i].template_id == t->template_id && strcmp(p->configs[i].params, t->params) == 0)
            c = &p->configs[i];
    if (!c) { /* its first measurement */
        if (grow((void **)&p->configs, &p->cap, p->n_configs, sizeof *p->configs)) return l->failed = 1;
        c = &p->configs[p->n_configs++];
        *c = (mmt_rd_config){.template_id = t->template_id, .template_name = copy(t->template_name),
                             .template_hash = copy(t->template_hash), .params = copy(t->params)};
        if (!c->template_name || !c->template_hash || !c->params) return l->failed = 1;
    }
    c->status = t->status;
    c->time_ms = t->status == MMT_TRIAL_OK ? t->time_ms : 0;
    c->gflops = t->status == MMT_TRIAL_OK ? t->gflops : 0;
    return 0;
}

/* ok ones fastest first (ties by text, for the same page every time), then the failed */
static int by_time(const void *a, const void *b)
{
    const mmt_rd_config *x = a, *y = b;
    int fx = x->status != MMT_TRIAL_OK, fy = y->status != MMT_TRIAL_OK;
    if (fx != fy) return fx - fy;
    if (!fx && x->time_ms != y->time_ms) return x->time_ms < y->time_ms ? -1 : 1;
    int t = strcmp(x->template_name, y->template_name);
    return t ? t : strcmp(x->params, y->params);
}

mmt_status mmt_rd_load(mmt_store *st, const mmt_rep_device *dev, mmt_rd_device *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    out->dev = *dev;
    loader l = {.d = out};
    mmt_status s = mmt_store_report_bests(st, dev->id, on_best, &l, err);
    if (s == MMT_OK && !l.failed) s = mmt_store_report_sessions(st, dev->id, on_session, &l, err);
    if (s == MMT_OK && !l.failed) s = mmt_store_report_trials(st, dev->id, on_trial, &l, err);
    if (s == MMT_OK && l.failed) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    if (s != MMT_OK) return s;
    for (size_t i = 0; i < out->n_problems; i++) {
        mmt_rd_problem *p = &out->problems[i];
        if (p->trials > 0) p->tuning_s += (double)(p->span_last - p->span_first);
        qsort(p->configs, p->n_configs, sizeof *p->configs, by_time);
        while (p->n_ok < p->n_configs && p->configs[p->n_ok].status == MMT_TRIAL_OK) p->n_ok++;
        for (size_t b = 0; b < out->n_bests && !p->best; b++)
            if (out->bests[b].problem_id == p->id && out->bests[b].chosen) p->best = &out->bests[b];
    }
    return MMT_OK;
}

void mmt_rd_free(mmt_rd_device *d)
{
    for (size_t i = 0; i < d->n_bests; i++) {
        free(d->bests[i].template_name);
        free(d->bests[i].params);
        free(d->bests[i].vendor);
    }
    for (size_t i = 0; i < d->n_problems; i++) {
        for (size_t c = 0; c < d->problems[i].n_configs; c++) {
            free(d->problems[i].configs[c].template_name);
            free(d->problems[i].configs[c].template_hash);
            free(d->problems[i].configs[c].params);
        }
        free(d->problems[i].configs);
    }
    for (size_t i = 0; i < d->n_sessions; i++) {
        mmt_rd_session *s = &d->sessions[i];
        free(s->command), free(s->strategy), free(s->budget), free(s->host), free(s->outcome), free(s->offsets);
    }
    free(d->bests);
    free(d->problems);
    free(d->sessions);
    memset(d, 0, sizeof *d);
}
