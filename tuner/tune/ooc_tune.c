/* ooc_tune.c - tuning the out-of-core GEMM's knobs of a host-memory problem (ooc_tune.h). */
#include "ooc_tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clock.h"
#include "ooc_tuned.h"

#define REPS 3     /* timed calls per candidate, after the verified one: each moves all of A, B and C */
#define SAMPLES 64 /* entries of C checked against the fp64 reference */

/* A host matrix of rows x cols as the caller stores it (layout), densely. */
typedef struct host_mat {
    void *data;
    mmt_dtype type;
    int64_t rows, cols, ld;
    int row_major;
} host_mat;

static int64_t index_of(const host_mat *x, int64_t i, int64_t j)
{
    return x->row_major ? i * x->ld + j : i + j * x->ld;
}

static double get(const host_mat *x, int64_t i, int64_t j)
{
    return mmt_bench_elem(x->data, x->type, (size_t)index_of(x, i, j));
}

static int make_mat(host_mat *x, mmt_dtype type, int64_t rows, int64_t cols, int row_major)
{
    *x = (host_mat){.type = type, .rows = rows, .cols = cols, .ld = row_major ? cols : rows, .row_major = row_major};
    x->data = malloc((size_t)(rows * cols * mmt_dtype_size(type)));
    return x->data ? 0 : -1;
}

/* The relative Frobenius error of the sampled entries of C = op(A) op(B) (bench.h's
 * measure on a sample); NaN where C kept the poison. */
static double sample_error(const host_mat *a, const host_mat *b, const host_mat *c, const mmt_problem *p)
{
    double diff = 0, norm = 0;
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (int q = 0; q < SAMPLES; q++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const int64_t i = (q == 0) ? 0 : q == 1 ? p->m - 1 : (int64_t)(s % (uint64_t)p->m);
        const int64_t j = (q == 0) ? 0 : q == 1 ? p->n - 1 : (int64_t)((s >> 32) % (uint64_t)p->n);
        double ref = 0;
        for (int64_t l = 0; l < p->k; l++)
            ref += (p->trans_a ? get(a, l, i) : get(a, i, l)) * (p->trans_b ? get(b, j, l) : get(b, l, j));
        const double d = get(c, i, j) - ref;
        diff += d * d;
        norm += ref * ref;
    }
    return sqrt(diff) / (norm > 0 ? sqrt(norm) : 1);
}

typedef struct candidate {
    mmt_ooc_knobs knobs;
    char text[128];
    mmt_trial_rec rec;
    int64_t trial_id;
    char message[600];
} candidate;

/* Runs one candidate: the verified call, then the timed ones; fills c->rec's outcome. */
static void run_candidate(mmt_ctx *ctx, const mmt_problem *p, const host_mat *a, const host_mat *b, host_mat *cm,
                          candidate *c)
{
    const mmt_gemm_desc d = {mmt_mode_ab_type(p->mode), p->out, mmt_mode_compute(p->mode), p->layout,
                             p->trans_a ? MMT_TRANS : MMT_NO_TRANS, p->trans_b ? MMT_TRANS : MMT_NO_TRANS};
    const mmt_host_gemm_config cfg = {.tile_m = c->knobs.tile_m, .tile_n = c->knobs.tile_n,
                                      .panel_k = c->knobs.panel_k, .streams = c->knobs.streams};
    c->rec.status = MMT_TRIAL_LAUNCH_ERROR;
    c->rec.rel_error = -1;
    mmt_status st = mmt_set_host_gemm(ctx, &cfg);
    /* The first call chooses the tiles' kernels; where one was built in the background
     * meanwhile (the vendor ran its tiles), the call is made again: what is checked and
     * timed is what runs once they are in place. */
    int built = 1;
    for (int call = 0; st == MMT_OK && built && call < 2; call++) {
        mmt_bench_fill_nan(cm->data, (size_t)(cm->rows * cm->cols), cm->type);
        st = mmt_gemm_ex(ctx, &d, p->m, p->n, p->k, 1.0, a->data, a->ld, b->data, b->ld, 0.0, cm->data, cm->ld);
        if (st == MMT_OK) st = mmt_wait_kernels(ctx, &built);
    }
    if (st != MMT_OK) {
        snprintf(c->message, sizeof c->message, "%s: %.500s", mmt_status_string(st), mmt_last_error(ctx));
        if (st == MMT_COMPILE) c->rec.status = MMT_TRIAL_COMPILE_ERROR;
        return;
    }
    const char *served;
    mmt_last_choice(ctx, &served);
    const double bound = mmt_bench_error_bound(p, 0);
    c->rec.rel_error = sample_error(a, b, cm, p);
    if (!(c->rec.rel_error <= bound)) { /* NaN too */
        c->rec.status = MMT_TRIAL_WRONG_RESULT;
        snprintf(c->message, sizeof c->message, "error %.3g on %d sampled entries, above the bound %.3g; served by %.300s",
                 c->rec.rel_error, SAMPLES, bound, served);
        return;
    }
    snprintf(c->message, sizeof c->message, "out-of-core round: error %.3g on %d sampled entries; served by %.400s",
             c->rec.rel_error, SAMPLES, served);
    double ms[REPS];
    for (int r = 0; r < REPS; r++) {
        const double t0 = mmt_now_s();
        st = mmt_gemm_ex(ctx, &d, p->m, p->n, p->k, 1.0, a->data, a->ld, b->data, b->ld, 0.0, cm->data, cm->ld);
        ms[r] = 1e3 * (mmt_now_s() - t0);
        if (st != MMT_OK) {
            snprintf(c->message, sizeof c->message, "%s: %.500s", mmt_status_string(st), mmt_last_error(ctx));
            return;
        }
    }
    for (int i = 1; i < REPS; i++) /* sort the few samples: median, min, max */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            const double x = ms[j];
            ms[j] = ms[j - 1], ms[j - 1] = x;
        }
    c->rec.status = MMT_TRIAL_OK;
    c->rec.time_ms_median = ms[REPS / 2];
    c->rec.time_ms_min = ms[0];
    c->rec.time_ms_max = ms[REPS - 1];
    c->rec.gflops = mmt_problem_flops(p) / (c->rec.time_ms_median * 1e6);
    c->rec.reps = REPS;
}

mmt_status mmt_ooc_tune_problem(mmt_tuner *t, const char *device, const char *db_path, const mmt_problem *p,
                                mmt_tune_result *r, mmt_err *err)
{
    memset(r, 0, sizeof *r);
    r->problem = *p;
    r->explored_ms = INFINITY;
    RETURN_ERROR_IF(strcmp(t->be->name, "cuda") != 0, err, MMT_UNSUPPORTED,
                    "host: true tunes the out-of-core GEMM, which runs on a GPU (this device is %s)", t->be->name);
    candidate cand[MMT_OOC_GRID_MAX];
    mmt_ooc_knobs grid[MMT_OOC_GRID_MAX];
    const size_t n = mmt_ooc_grid(p->m, p->n, p->k, mmt_dtype_size(p->dtype), mmt_dtype_size(p->out), grid);
    RETURN_ERROR_IF(n == 0, err, MMT_INVALID_ARGUMENT, "no out-of-core plan for this problem");
    int64_t template_id, problem_id;
    FORWARD_IF_ERROR(mmt_store_template(t->st, MMT_OOC_TEMPLATE, MMT_OOC_SOURCE_HASH, &template_id, err));
    FORWARD_IF_ERROR(mmt_store_problem(t->st, p, &problem_id, err));

    const int row = p->layout == MMT_ROW_MAJOR;
    host_mat a = {0}, b = {0}, c = {0};
    int bad = make_mat(&a, p->dtype, p->trans_a ? p->k : p->m, p->trans_a ? p->m : p->k, row);
    bad |= make_mat(&b, mmt_mode_b_dtype(p->mode), p->trans_b ? p->n : p->k, p->trans_b ? p->k : p->n, row);
    bad |= make_mat(&c, p->out, p->m, p->n, row);
    mmt_ctx *ctx = NULL;
    mmt_status st = bad ? mmt_err_set(err, MMT_OUT_OF_MEMORY, "no host memory for the matrices of this problem")
                        : mmt_open(&ctx, device, db_path);
    if (st != MMT_OK && !bad) mmt_err_set(err, st, "%s", mmt_last_error(ctx));
    if (st == MMT_OK) {
        mmt_bench_fill_random(a.data, (size_t)(a.rows * a.cols), a.type, 1);
        mmt_bench_fill_random(b.data, (size_t)(b.rows * b.cols), b.type, 2);
    }
    /* every candidate a trial; none is the best until all are measured */
    mmt_progress_problem(t->progress, p, MMT_OOC_TEMPLATE, n, 1);
    const double start = mmt_now_s();
    int w = -1;
    size_t done = 0;
    for (size_t i = 0; i < n && st == MMT_OK && !(t->stop && *t->stop); i++, done++) {
        candidate *cd = &cand[i];
        memset(cd, 0, sizeof *cd);
        cd->knobs = grid[i];
        mmt_ooc_knobs_format(&cd->knobs, cd->text, sizeof cd->text);
        cd->rec = (mmt_trial_rec){.session_id = t->session_id, .device_id = t->device_id, .problem_id = problem_id,
                                  .message = cd->message, .cpu_wait = -1};
        st = mmt_store_config(t->st, template_id, cd->text, &cd->rec.config_id, err);
        if (st != MMT_OK) break;
        run_candidate(ctx, p, &a, &b, &c, cd);
        st = mmt_store_trial_add(t->st, &cd->rec, &cd->trial_id, err);
        if (cd->rec.status == MMT_TRIAL_OK) {
            r->measured++;
            if (w < 0 || cd->rec.time_ms_median < cand[w].rec.time_ms_median) w = (int)i;
        } else {
            r->failed++;
        }
        r->detail.pipe.measured++;
        r->detail.pipe.wall_s = mmt_now_s() - start;
        const int ok = cd->rec.status == MMT_TRIAL_OK;
        const mmt_trial_line line = {.params = cd->text, .status = mmt_trial_status_name(cd->rec.status),
                                     .gflops = ok ? cd->rec.gflops : 0, .best_gflops = w >= 0 ? cand[w].rec.gflops : 0,
                                     .median_ms = ok ? cd->rec.time_ms_median : 0, .lo_ms = cd->rec.time_ms_min,
                                     .hi_ms = cd->rec.time_ms_max};
        mmt_progress_trial(t->progress, i + 1, &line, &r->detail.pipe);
    }
    mmt_close(ctx);
    free(a.data), free(b.data), free(c.data);
    r->proposed = done;
    r->planned = n;
    r->partial = done < n;
    r->interrupted = t->stop && *t->stop;
    if (st == MMT_OK && w >= 0) {
        st = mmt_store_best_set(t->st, cand[w].trial_id, err);
        if (st == MMT_OK)
            st = mmt_store_best_partial(t->st, t->device_id, problem_id, MMT_OOC_TEMPLATE, r->partial, err);
    }
    FORWARD_IF_ERROR(st);
    if (w < 0) {
        snprintf(r->message, sizeof r->message, "no out-of-core plan passed: %.400s",
                 done ? cand[0].message : "interrupted");
        return MMT_OK;
    }
    const candidate *win = &cand[w];
    r->ok = 1;
    snprintf(r->family, sizeof r->family, "%s", MMT_OOC_TEMPLATE);
    snprintf(r->params, sizeof r->params, "%s", win->text);
    /* no rel_error: the plans' error is of sampled entries, not the table's measure */
    r->tuned = (mmt_report_figure){.median_ms = win->rec.time_ms_median, .lo_ms = win->rec.time_ms_min,
                                   .hi_ms = win->rec.time_ms_max};
    r->chosen_ms = win->rec.time_ms_median;
    snprintf(r->chosen_by, sizeof r->chosen_by, "the out-of-core grid");
    r->explored_ms = win->rec.time_ms_median;
    snprintf(r->explored_params, sizeof r->explored_params, "%s", win->text);
    snprintf(r->detail.figures, sizeof r->detail.figures,
             "host matrices through mmt_gemm_ex, wall clock, median of %d calls (copies included); %zu of %zu plans "
             "passed",
             REPS, (size_t)r->measured, n);
    return MMT_OK;
}
