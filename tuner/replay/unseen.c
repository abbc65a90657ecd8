/* unseen.c - serving on problems nobody tuned: leave one out on a recorded database, and
 * problems drawn for a bench (see unseen.h). */
#include "unseen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "json_out.h"
#include "lookup.h"
#include "ooc_tuned.h"
#include "predict.h"
#include "store_serving.h"
#include "vendor.h"

static int is_template(const mmt_recorded_best *r)
{
    return strcmp(r->template_name, MMT_VENDOR_TEMPLATE) != 0 && strcmp(r->template_name, MMT_OOC_TEMPLATE) != 0;
}

/* ---- the summary ---------------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

mmt_ratio_summary mmt_ratio_summarise(double *r, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(r[i]) && r[i] > 0) r[k++] = r[i];
    mmt_ratio_summary s = {.n = k, .geomean = NAN, .p10 = NAN, .min = NAN};
    if (!k) return s;
    qsort(r, k, sizeof *r, cmp_double);
    double logs = 0;
    for (size_t i = 0; i < k; i++) logs += log(r[i]);
    s.geomean = exp(logs / (double)k);
    const double at = 0.1 * (double)(k - 1); /* numpy's default: linear between order statistics */
    const size_t lo = (size_t)at;
    s.p10 = lo + 1 < k ? r[lo] + (at - (double)lo) * (r[lo + 1] - r[lo]) : r[lo];
    s.min = r[0];
    return s;
}

/* ---- leave one out -------------------------------------------------------------------- */

/* A tuned problem of a device and mode. */
typedef struct tuned {
    mmt_problem stored, np;           /* as stored, and its row-major form */
    const mmt_recorded_best *fastest; /* its fastest template family's best; NULL: none */
    double vendor;                    /* the vendor's figure for it; 0: none */
    mmt_vendor_pairing pairing;
} tuned;

/* What the rule did with a problem taken as untuned. */
typedef struct verdict {
    const tuned *t;
    mmt_choice how;       /* the templates' choice: NEAREST, DEFAULT, or NONE where no template can run it */
    mmt_choice by;        /* mmt_predict_serve: NONE (the template serves) or VENDOR */
    mmt_prediction pr;
    char family[64], params[512];
    double at;            /* the configuration's fastest trial at the problem, GFLOP/s; 0: never measured there */
    double served, nearest, own; /* over the vendor's figure at the problem; NAN: unknown */
    char why[640];        /* why it is unscorable, or "" */
} verdict;

/* A device and mode of the database: its bests and what the rule makes of each problem. */
typedef struct group {
    const mmt_device_info *dev;
    mmt_mode mode;
    mmt_recorded_best *rb;
    size_t n_rb;
    tuned *tp;
    size_t n_tp;
    mmt_paired_rec *paired; /* what the prediction reads: every problem's fastest template and the vendor */
    size_t n_paired;
    size_t alone, other, paired_same; /* the records' vendor figures, by how they were timed */
    mmt_family_list fams;
    char why_no_family[320];
    char stale[640]; /* families whose records are of another source than this build's */
    verdict *v;
    size_t n_v;
} group;

static void group_free(group *g)
{
    free(g->rb);
    free(g->tp);
    free(g->paired);
    free(g->v);
    mmt_family_list_free(&g->fams);
}

/* The problems of g->rb (in problem order, a problem's bests together), their fastest
 * template best and vendor figure, and the prediction's records. */
static mmt_status gather(group *g, mmt_err *err)
{
    g->tp = calloc(g->n_rb ? g->n_rb : 1, sizeof *g->tp);
    g->paired = calloc(g->n_rb ? g->n_rb : 1, sizeof *g->paired);
    RETURN_ERROR_IF(!g->tp || !g->paired, err, MMT_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < g->n_rb; i++) {
        const mmt_recorded_best *r = &g->rb[i];
        if (strcmp(r->template_name, MMT_OOC_TEMPLATE) == 0) continue; /* host memory: another problem */
        tuned *t = g->n_tp ? &g->tp[g->n_tp - 1] : NULL;
        if (!t || !mmt_problem_equal(&t->stored, &r->best.problem)) {
            t = &g->tp[g->n_tp++];
            t->stored = r->best.problem;
            t->np = mmt_problem_normalise(&r->best.problem);
        }
        if (is_template(r) && (!t->fastest || r->best.gflops > t->fastest->best.gflops)) t->fastest = r;
    }
    for (size_t i = 0; i < g->n_tp; i++) {
        tuned *t = &g->tp[i];
        /* the vendor's figure: the one its fastest template best was timed beside, else any */
        if (t->fastest && t->fastest->vendor_gflops > 0)
            t->vendor = t->fastest->vendor_gflops, t->pairing = t->fastest->pairing;
        for (size_t j = 0; j < g->n_rb && !t->vendor; j++)
            if (g->rb[j].vendor_gflops > 0 && mmt_problem_equal(&g->rb[j].best.problem, &t->stored))
                t->vendor = g->rb[j].vendor_gflops, t->pairing = g->rb[j].pairing;
        if (!t->fastest || !(t->vendor > 0) || !(t->fastest->best.gflops > 0)) continue;
        /* as store_serving.c reads them: no more than the vendor where the vendor family serves */
        double gflops = t->fastest->best.gflops;
        for (size_t j = 0; j < g->n_rb; j++)
            if (strcmp(g->rb[j].template_name, MMT_VENDOR_TEMPLATE) == 0 &&
                mmt_problem_equal(&g->rb[j].best.problem, &t->stored) && gflops > t->vendor)
                gflops = t->vendor;
        g->paired[g->n_paired++] = (mmt_paired_rec){t->stored, gflops, t->vendor, 0, 0};
        g->paired_same += t->pairing == MMT_VENDOR_PAIRED;
        g->alone += t->pairing == MMT_VENDOR_ALONE;
        g->other += t->pairing == MMT_VENDOR_OTHER;
    }
    return MMT_OK;
}

/* The fastest trial of configuration params of family name at problem t (0: none): of the
 * source its own best of the family was measured with, else of any the family's records
 * have. */
static mmt_status measured_at(mmt_store *st, const group *g, const tuned *t, const char *name, const char *params,
                              double *gflops, mmt_err *err)
{
    *gflops = 0;
    const char *hashes[64];
    size_t nh = 0;
    for (size_t i = 0; i < g->n_rb && nh < 64; i++) /* its own best's source first (one at most) */
        if (strcmp(g->rb[i].template_name, name) == 0 && mmt_problem_equal(&g->rb[i].best.problem, &t->stored))
            hashes[nh++] = g->rb[i].source_hash;
    for (size_t i = 0; i < g->n_rb && nh < 64; i++) {
        if (strcmp(g->rb[i].template_name, name) != 0) continue;
        int seen = 0;
        for (size_t h = 0; h < nh; h++) seen |= strcmp(hashes[h], g->rb[i].source_hash) == 0;
        if (!seen) hashes[nh++] = g->rb[i].source_hash;
    }
    for (size_t h = 0; h < nh && !*gflops; h++) {
        mmt_best_rec *m;
        size_t n;
        FORWARD_IF_ERROR(mmt_store_measured_list(st, g->dev->fingerprint, name, hashes[h], &t->stored, &m, &n, err));
        for (size_t i = 0; i < n && !*gflops; i++)
            if (strcmp(m[i].params, params) == 0) *gflops = m[i].gflops;
        free(m);
    }
    return MMT_OK;
}

/* The rule for tuned problem t taken as untuned: the runtime's choice from everything else. */
static mmt_status judge(mmt_store *st, const group *g, const tuned *t, verdict *v, mmt_err *err)
{
    memset(v, 0, sizeof *v);
    v->t = t;
    v->served = v->nearest = v->own = NAN;
    if (t->fastest) v->own = t->fastest->best.gflops / t->vendor;
    if (!g->fams.n) {
        snprintf(v->why, sizeof v->why, "%s", g->why_no_family);
        return MMT_OK;
    }
    /* each family's tuned entries, the problem's own (in any of its written forms) left out */
    mmt_lookup_family lf[MMT_MAX_FAMILIES];
    mmt_status s = MMT_OK;
    for (int f = 0; f < g->fams.n; f++) {
        mmt_best_rec *b = malloc(sizeof *b * (g->n_rb ? g->n_rb : 1));
        size_t nb = 0;
        for (size_t i = 0; b && i < g->n_rb; i++) {
            const mmt_recorded_best *r = &g->rb[i];
            const mmt_problem q = mmt_problem_normalise(&r->best.problem);
            if (strcmp(r->template_name, g->fams.f[f]->name) == 0 && !mmt_problem_equal(&q, &t->np))
                b[nb++] = r->best;
        }
        lf[f] = (mmt_lookup_family){g->fams.f[f]->space, b, nb};
        if (!b && s == MMT_OK) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    /* as libmmtuned runs a call of it: dense operands, classic algorithm, not reproducible */
    mmt_space_env env = {.problem = &t->np, .device = g->dev};
    mmt_config cfg;
    double gflops = 0;
    int which = -1;
    mmt_err why;
    if (s == MMT_OK &&
        mmt_lookup_choose_among(lf, g->fams.n, &env, &cfg, &v->how, &gflops, &which, &why) != MMT_OK) {
        v->how = MMT_CHOICE_NONE;
        snprintf(v->why, sizeof v->why, "no template runs it: %.280s", why.msg);
    }
    for (int f = 0; f < g->fams.n; f++) free((void *)lf[f].bests);
    FORWARD_IF_ERROR(s);
    if (v->how == MMT_CHOICE_NONE) return MMT_OK;
    const mmt_family *fam = g->fams.f[which];
    snprintf(v->family, sizeof v->family, "%s", fam->name);
    mmt_config_format(fam->space, &cfg, v->params, sizeof v->params);
    v->by = mmt_predict_serve(v->how, gflops, NULL, g->paired, g->n_paired, &t->np, 1, &v->pr);
    FORWARD_IF_ERROR(measured_at(st, g, t, fam->name, v->params, &v->at, err));
    if (v->at > 0) v->nearest = v->at / t->vendor;
    else snprintf(v->why, sizeof v->why, "%s %s was never measured at this problem", fam->name, v->params);
    v->served = v->by == MMT_CHOICE_VENDOR ? 1.0 : v->nearest;
    return MMT_OK;
}

static const char *served_name(const verdict *v)
{
    if (v->how == MMT_CHOICE_NONE) return "-";
    if (v->by == MMT_CHOICE_VENDOR) return "vendor";
    return v->how == MMT_CHOICE_DEFAULT ? "default" : "template";
}

static const char *pairing_name(mmt_vendor_pairing p)
{
    switch (p) {
    case MMT_VENDOR_PAIRED: return "paired";
    case MMT_VENDOR_ALONE: return "alone";
    case MMT_VENDOR_OTHER: return "beside another trial";
    default: return "none";
    }
}

static void print_ratio(FILE *f, double r)
{
    if (isfinite(r)) fprintf(f, " %7.2fx", r);
    else fprintf(f, " %8s", "-");
}

/* The summaries of a group over the problems both rules can score. */
typedef struct group_summary {
    size_t problems, scored, vendor, templ;
    mmt_ratio_summary served, nearest, own;
} group_summary;

static mmt_status summarise(const group *g, group_summary *gs, mmt_err *err)
{
    memset(gs, 0, sizeof *gs);
    double *a = malloc(sizeof(double) * (g->n_v ? g->n_v : 1)), *b = malloc(sizeof(double) * (g->n_v ? g->n_v : 1)),
           *c = malloc(sizeof(double) * (g->n_v ? g->n_v : 1));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    gs->problems = g->n_v;
    for (size_t i = 0; i < g->n_v; i++) {
        const verdict *v = &g->v[i];
        if (!isfinite(v->served) || !isfinite(v->nearest)) continue;
        a[gs->scored] = v->served, b[gs->scored] = v->nearest, c[gs->scored] = v->own;
        gs->scored++;
        gs->vendor += v->by == MMT_CHOICE_VENDOR;
        gs->templ += v->by != MMT_CHOICE_VENDOR;
    }
    gs->served = mmt_ratio_summarise(a, gs->scored);
    gs->nearest = mmt_ratio_summarise(b, gs->scored);
    gs->own = mmt_ratio_summarise(c, gs->scored);
    free(a), free(b), free(c);
    return MMT_OK;
}

static void print_summary_line(FILE *f, const char *what, const mmt_ratio_summary *s)
{
    fprintf(f, "  %-34s", what);
    print_ratio(f, s->geomean);
    print_ratio(f, s->p10);
    print_ratio(f, s->min);
    fputc('\n', f);
}

static void print_group(FILE *f, const group *g, const group_summary *gs)
{
    fprintf(f, "\n%s (%s), %s: %zu tuned problem(s) with a vendor figure, each left out in turn\n", g->dev->name,
            g->dev->arch, mmt_mode_name(g->mode), g->n_v);
    fprintf(f, "  the prediction's records: %zu (vendor figures: %zu timed beside the best, %zu timed alone, %zu "
               "beside another trial)\n",
            g->n_paired, g->paired_same, g->alone, g->other);
    if (g->alone + g->other)
        fprintf(f, "  note: libmmtuned reads only vendor figures timed beside the best (%zu here)%s; this "
                   "evaluation uses the others too\n",
                g->paired_same,
                g->paired_same ? "" : ": on this database it has no evidence and serves the vendor wherever untuned");
    if (g->stale[0]) fprintf(f, "  note: %s\n", g->stale);
    if (g->why_no_family[0]) fprintf(f, "  note: %s\n", g->why_no_family);
    fprintf(f, "%-34s %-9s %10s %9s %8s %8s %8s  %s\n", "problem", "served", "predicted", "transfer", "served",
            "nearest", "tuned", "templates' choice (nearest other tuned problem's, or the default)");
    for (size_t i = 0; i < g->n_v; i++) {
        const verdict *v = &g->v[i];
        char name[128];
        mmt_problem_format(&v->t->stored, name, sizeof name);
        fprintf(f, "%-34s %-9s", name, served_name(v));
        if (isfinite(v->pr.distance)) fprintf(f, " %9.3fx", v->pr.ratio);
        else fprintf(f, " %10s", "-");
        if (v->pr.samples) fprintf(f, " %8.3fx", v->pr.transfer);
        else fprintf(f, " %9s", "-");
        print_ratio(f, v->served);
        print_ratio(f, v->nearest);
        print_ratio(f, v->own);
        if (v->how != MMT_CHOICE_NONE) fprintf(f, "  %s %s", v->family, v->params);
        if (v->why[0]) fprintf(f, "  (unscorable: %s)", v->why);
        fputc('\n', f);
    }
    fprintf(f, "summary %s: %zu scored of %zu (%zu unscorable); the rule served a template %zu, the vendor %zu\n",
            mmt_mode_name(g->mode), gs->scored, gs->problems, gs->problems - gs->scored, gs->templ, gs->vendor);
    fprintf(f, "  %-34s %8s %8s %8s\n", "GFLOP/s over the vendor's", "geomean", "p10", "min");
    print_summary_line(f, "served by the rule (prediction)", &gs->served);
    print_summary_line(f, "nearest only (no vendor)", &gs->nearest);
    print_summary_line(f, "tuned (the problem's own best)", &gs->own);
}

static void json_ratio(mmt_json *j, const char *key, double r)
{
    if (isfinite(r)) mmt_json_num(j, key, r);
    else mmt_json_null(j, key);
}

static void json_summary(mmt_json *j, const char *key, const mmt_ratio_summary *s)
{
    mmt_json_open(j, key, '{');
    mmt_json_int(j, "n", (long long)s->n);
    json_ratio(j, "geomean", s->geomean);
    json_ratio(j, "p10", s->p10);
    json_ratio(j, "min", s->min);
    mmt_json_close(j, '}');
}

static void json_group(mmt_json *j, const group *g, const group_summary *gs)
{
    mmt_json_open(j, NULL, '{');
    mmt_json_str(j, "device", g->dev->name);
    mmt_json_str(j, "arch", g->dev->arch);
    mmt_json_str(j, "mode", mmt_mode_name(g->mode));
    mmt_json_open(j, "records", '{');
    mmt_json_int(j, "n", (long long)g->n_paired);
    mmt_json_int(j, "vendor_paired", (long long)g->paired_same);
    mmt_json_int(j, "vendor_alone", (long long)g->alone);
    mmt_json_int(j, "vendor_beside_another_trial", (long long)g->other);
    mmt_json_close(j, '}');
    mmt_json_str(j, "stale", g->stale[0] ? g->stale : NULL);
    mmt_json_open(j, "rows", '[');
    for (size_t i = 0; i < g->n_v; i++) {
        const verdict *v = &g->v[i];
        char name[128];
        mmt_problem_format(&v->t->stored, name, sizeof name);
        mmt_json_open(j, NULL, '{');
        mmt_json_str(j, "problem", name);
        mmt_json_str(j, "served_by", served_name(v));
        if (isfinite(v->pr.distance)) mmt_json_num(j, "predicted_ratio", v->pr.ratio);
        else mmt_json_null(j, "predicted_ratio");
        if (v->pr.samples) mmt_json_num(j, "transfer", v->pr.transfer);
        else mmt_json_null(j, "transfer");
        mmt_json_int(j, "transfer_samples", v->pr.samples);
        json_ratio(j, "distance", v->pr.distance);
        mmt_json_num(j, "reach", v->pr.reach);
        mmt_json_str(j, "family", v->family[0] ? v->family : NULL);
        mmt_json_str(j, "params", v->params[0] ? v->params : NULL);
        mmt_json_str(j, "choice", v->how == MMT_CHOICE_NEAREST   ? "nearest"
                                  : v->how == MMT_CHOICE_DEFAULT ? "default"
                                                                 : NULL);
        mmt_json_num(j, "vendor_gflops", v->t->vendor);
        mmt_json_str(j, "vendor_timed", pairing_name(v->t->pairing));
        json_ratio(j, "template_gflops", v->at > 0 ? v->at : NAN);
        json_ratio(j, "served_over_vendor", v->served);
        json_ratio(j, "nearest_over_vendor", v->nearest);
        json_ratio(j, "tuned_over_vendor", v->own);
        mmt_json_bool(j, "scored", isfinite(v->served) && isfinite(v->nearest));
        mmt_json_str(j, "unscorable", v->why[0] ? v->why : NULL);
        mmt_json_close(j, '}');
    }
    mmt_json_close(j, ']');
    mmt_json_open(j, "summary", '{');
    mmt_json_int(j, "problems", (long long)gs->problems);
    mmt_json_int(j, "scored", (long long)gs->scored);
    mmt_json_int(j, "served_template", (long long)gs->templ);
    mmt_json_int(j, "served_vendor", (long long)gs->vendor);
    json_summary(j, "prediction", &gs->served);
    json_summary(j, "nearest_only", &gs->nearest);
    json_summary(j, "tuned", &gs->own);
    mmt_json_close(j, '}');
    mmt_json_close(j, '}');
}

typedef struct group_trials {
    mmt_store *st;
    const group *g;
} group_trials;

/* mmt_predict_measured_fn over the records of any source, as measured_at reads them. */
static mmt_status measured_any(void *user, const mmt_family *fam, const mmt_problem *p, const char *params,
                               double *gflops, mmt_err *err)
{
    const group_trials *gt = user;
    const tuned t = {.stored = *p};
    return measured_at(gt->st, gt->g, &t, fam->name, params, gflops, err);
}

/* The prediction's calibration on g's records, as libmmtuned makes it (predict.h), from
 * each family's records of any source. */
static mmt_status calibrate(mmt_store *st, group *g, mmt_err *err)
{
    group_trials gt = {st, g};
    mmt_lookup_family lf[MMT_MAX_FAMILIES];
    mmt_status s = MMT_OK;
    for (int f = 0; f < g->fams.n; f++) {
        mmt_best_rec *b = malloc(sizeof *b * (g->n_rb ? g->n_rb : 1));
        size_t nb = 0;
        for (size_t i = 0; b && i < g->n_rb; i++)
            if (strcmp(g->rb[i].template_name, g->fams.f[f]->name) == 0) b[nb++] = g->rb[i].best;
        lf[f] = (mmt_lookup_family){g->fams.f[f]->space, b, nb};
        if (!b && s == MMT_OK) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    if (s == MMT_OK && g->fams.n)
        s = mmt_predict_calibrate(g->dev, g->fams.f, lf, g->fams.n, measured_any, &gt, g->paired, g->n_paired, err);
    for (int f = 0; f < g->fams.n; f++) free((void *)lf[f].bests);
    return s;
}

/* Whether device d is the one --device names: its backend or its name (NULL: every one). */
static int device_wanted(const char *want, const mmt_device_info *d)
{
    return !want || strcmp(want, d->backend) == 0 || strcmp(want, d->name) == 0;
}

/* Reads and judges the group of (dev, mode); g->n_v 0 where it has nothing to judge. */
static mmt_status load_group(mmt_store *st, const mmt_device_info *dev, mmt_mode mode, group *g, mmt_err *err)
{
    memset(g, 0, sizeof *g);
    g->dev = dev;
    g->mode = mode;
    FORWARD_IF_ERROR(mmt_store_recorded_bests(st, dev->fingerprint, mode, &g->rb, &g->n_rb, err));
    if (!g->n_rb) return MMT_OK;
    FORWARD_IF_ERROR(gather(g, err));
    mmt_err why;
    if (mmt_family_find_all(dev->backend, mode, &g->fams, &why) != MMT_OK)
        snprintf(g->why_no_family, sizeof g->why_no_family, "%.300s", why.msg);
    size_t used = 0;
    for (int f = 0; f < g->fams.n; f++) {
        const mmt_family *fam = g->fams.f[f];
        size_t stale = 0, all = 0;
        for (size_t i = 0; i < g->n_rb; i++)
            if (strcmp(g->rb[i].template_name, fam->name) == 0)
                all++, stale += strcmp(g->rb[i].source_hash, fam->source_hash) != 0;
        if (stale && used < sizeof g->stale)
            used += (size_t)snprintf(g->stale + used, sizeof g->stale - used,
                                     "%s%zu of %zu %s records are of another source than this build's (%.12s): used "
                                     "as recorded, which libmmtuned would not serve",
                                     used ? "; " : "", stale, all, fam->name, fam->source_hash);
    }
    FORWARD_IF_ERROR(calibrate(st, g, err));
    g->v = calloc(g->n_tp ? g->n_tp : 1, sizeof *g->v);
    RETURN_ERROR_IF(!g->v, err, MMT_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < g->n_tp; i++)
        if (g->tp[i].vendor > 0) FORWARD_IF_ERROR(judge(st, g, &g->tp[i], &g->v[g->n_v++], err));
    return MMT_OK;
}

static void print_header(FILE *f, const char *db)
{
    fprintf(f,
            "unseen problems in %s: each tuned problem with a vendor figure left out in turn and served by "
            "libmmtuned's rule from the rest (predict.h: a template where the others' ratio to the vendor, kernel "
            "width %.2f in log M, N, K, times the transfer their configurations kept on this device's records, "
            "clears %.2fx on %d calibrated records or more, within their reach; else the vendor)\n",
            db, MMT_PREDICT_WIDTH, MMT_PREDICT_MARGIN, MMT_PREDICT_SAMPLES);
    fprintf(f, "served, nearest, tuned: GFLOP/s at the problem over the vendor's there, as the database measured "
               "them: what the rule served (the vendor: 1), the templates' choice always (the rule before the "
               "vendor served), the problem's own tuned best\n");
}

mmt_status mmt_unseen_replay(const mmt_unseen_options *o, FILE *text, FILE *out, mmt_err *err)
{
    mmt_store *st;
    FORWARD_IF_ERROR(mmt_store_open_snapshot(o->db, &st, err));
    mmt_trial_set *sets = NULL;
    size_t n_sets = 0;
    mmt_status s = mmt_store_trial_sets(st, &sets, &n_sets, err);
    mmt_json j;
    if (o->json) {
        mmt_json_init(&j, out);
        mmt_json_open(&j, NULL, '{');
        mmt_json_str(&j, "command", "replay --unseen");
        mmt_json_str(&j, "database", o->db);
        mmt_json_open(&j, "rule", '{');
        mmt_json_num(&j, "width", MMT_PREDICT_WIDTH);
        mmt_json_num(&j, "margin", MMT_PREDICT_MARGIN);
        mmt_json_int(&j, "samples", MMT_PREDICT_SAMPLES);
        mmt_json_close(&j, '}');
        mmt_json_open(&j, "groups", '[');
    }
    size_t judged = 0;
    for (size_t i = 0; s == MMT_OK && i < n_sets; i++) {
        int first = 1; /* each device once, where its first set is */
        for (size_t k = 0; k < i; k++) first &= strcmp(sets[k].device.fingerprint, sets[i].device.fingerprint) != 0;
        if (!first || !device_wanted(o->device, &sets[i].device)) continue;
        for (int mode = 0; s == MMT_OK && mode < MMT_N_MODES; mode++) {
            group g;
            s = load_group(st, &sets[i].device, (mmt_mode)mode, &g, err);
            group_summary gs;
            if (s == MMT_OK && g.n_v) s = summarise(&g, &gs, err);
            if (s == MMT_OK && g.n_v) {
                if (text && !judged) print_header(text, o->db);
                judged += g.n_v;
                if (text) print_group(text, &g, &gs);
                if (o->json) json_group(&j, &g, &gs);
            }
            group_free(&g);
        }
    }
    if (o->json) {
        mmt_json_close(&j, ']');
        mmt_json_close(&j, '}');
    }
    if (s == MMT_OK && !judged)
        s = mmt_err_set(err, MMT_NOT_FOUND, "%s holds no tuned problem with a vendor figure%s%s", o->db,
                        o->device ? " on " : "", o->device ? o->device : "");
    free(sets);
    mmt_store_close(st);
    return s;
}

/* ---- problems drawn for a bench ------------------------------------------------------- */

/* splitmix64: a seed's stream, the same on every machine */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *state)
{
    return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t log_uniform(uint64_t *state, int64_t lo, int64_t hi)
{
    const double v = exp(log((double)lo) + next_unit(state) * (log((double)hi) - log((double)lo)));
    const int64_t r = (int64_t)llround(v);
    return r < lo ? lo : r > hi ? hi : r;
}

static int same_kind(const mmt_problem *a, const mmt_problem *b)
{
    return a->dtype == b->dtype && a->out == b->out && a->layout == b->layout && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b;
}

mmt_status mmt_unseen_draw(mmt_store *st, const mmt_device_info *dev, size_t per_mode, uint64_t seed,
                           mmt_problem **out, size_t *n, char *note, size_t note_size, mmt_err *err)
{
    *out = NULL;
    *n = 0;
    if (note && note_size) note[0] = '\0';
    size_t used = 0, cap = 0, n_tuned = 0;
    mmt_problem *tuned_list = NULL; /* every problem tuned on the device, any mode */
    mmt_recorded_best *rb[MMT_N_MODES] = {0};
    size_t n_rb[MMT_N_MODES] = {0};
    mmt_status s = MMT_OK;
    for (int mode = 0; s == MMT_OK && mode < MMT_N_MODES; mode++) {
        s = mmt_store_recorded_bests(st, dev->fingerprint, (mmt_mode)mode, &rb[mode], &n_rb[mode], err);
        if (s != MMT_OK) break;
        mmt_problem *grown = realloc(tuned_list, sizeof *grown * (n_tuned + n_rb[mode] + 1));
        if (!grown) {
            s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
            break;
        }
        tuned_list = grown;
        for (size_t i = 0; i < n_rb[mode]; i++) tuned_list[n_tuned++] = rb[mode][i].best.problem;
    }
    uint64_t state = seed;
    size_t modes = 0;
    for (int mode = 0; s == MMT_OK && mode < MMT_N_MODES; mode++) {
        /* the range and the kinds of the mode's tuned problems (the out-of-core knobs' are
         * host problems, which a bench does not run) */
        int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {0, 0, 0};
        mmt_problem *kinds = malloc(sizeof *kinds * (n_rb[mode] + 1));
        size_t n_kinds = 0;
        if (!kinds) {
            s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
            break;
        }
        for (size_t i = 0; i < n_rb[mode]; i++) {
            const mmt_problem *p = &rb[mode][i].best.problem;
            if (strcmp(rb[mode][i].template_name, MMT_OOC_TEMPLATE) == 0 || p->m < 1 || p->n < 1 || p->k < 1) continue;
            const int64_t d[3] = {p->m, p->n, p->k};
            for (int x = 0; x < 3; x++) {
                if (d[x] < lo[x]) lo[x] = d[x];
                if (d[x] > hi[x]) hi[x] = d[x];
            }
            size_t k = 0;
            while (k < n_kinds && !same_kind(&kinds[k], p)) k++;
            if (k == n_kinds) kinds[n_kinds++] = *p;
        }
        if (n_kinds) modes++;
        size_t drawn = 0;
        for (int missed = 0; n_kinds && drawn < per_mode && missed < 1000;) {
            mmt_problem p = kinds[next_u64(&state) % n_kinds];
            p.m = log_uniform(&state, lo[0], hi[0]);
            p.n = log_uniform(&state, lo[1], hi[1]);
            p.k = log_uniform(&state, lo[2], hi[2]);
            if (mmt_problem_among(&p, tuned_list, n_tuned) || mmt_problem_among(&p, *out, *n)) {
                missed++;
                continue;
            }
            if (*n == cap) {
                mmt_problem *grown = realloc(*out, sizeof *grown * (cap = cap ? 2 * cap : 16));
                if (!grown) {
                    s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
                    break;
                }
                *out = grown;
            }
            (*out)[(*n)++] = p;
            drawn++;
        }
        if (s == MMT_OK && n_kinds && drawn < per_mode && note && used < note_size)
            used += (size_t)snprintf(note + used, note_size - used,
                                     "%s%s: %zu of %zu drawn (1000 draws in the range of its tuned problems met "
                                     "a tuned or drawn one)",
                                     used ? "; " : "", mmt_mode_name((mmt_mode)mode), drawn, per_mode);
        free(kinds);
    }
    for (int mode = 0; mode < MMT_N_MODES; mode++) free(rb[mode]);
    free(tuned_list);
    if (s == MMT_OK && !modes)
        s = mmt_err_set(err, MMT_NOT_FOUND, "the database has no tuned problem on %s: no range to draw from",
                        dev->name);
    if (s != MMT_OK) free(*out), *out = NULL, *n = 0;
    return s;
}
