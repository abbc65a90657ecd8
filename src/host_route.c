/* host_route.c - GEMMs of host matrices on a GPU context (host_route.h): the row-major
 * problem out of core (ooc.h) on the context's GPUs, each tile a device GEMM of its GPU's
 * context, with the out-of-core knobs the caller set, else those tuned for the problem. */
#include "host_route.h"

#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "ooc_tuned.h"

/* What a GPU's tiles run through: the GEMM of its context on device operands, whose choice
 * is kept from the first tile for the caller. */
typedef struct tile_runner {
    mmt_ctx *ctx;
    mmt_device_gemm_fn gemm;
    int sgemm;
    mmt_choice how;
    char config[512];
} tile_runner;

static mmt_status run_tile(void *user, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, double alpha,
                           const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc,
                           mmt_err *err)
{
    tile_runner *r = user;
    mmt_choice how;
    char config[512];
    FORWARD_IF_ERROR(r->gemm(r->ctx, d, r->sgemm, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &how, config,
                              sizeof config, err));
    if (r->how == MMT_CHOICE_NONE) r->how = how, snprintf(r->config, sizeof r->config, "%s", config);
    return MMT_OK;
}

/* The tuned knobs (ooc_tuned.h) of the problem as the caller wrote it, for those *knobs (the
 * row-major problem's) leaves at 0; returns how they were found (NONE: no row fits, no
 * database, or the caller set every knob). One small query: a host-memory call moves its
 * matrices across the host link, which dwarfs it. Under ooc_lock. */
static mmt_choice tuned_knobs(mmt_ctx *ctx, const mmt_problem *user, mmt_ooc_knobs *knobs)
{
    if (!ctx->st || (knobs->tile_m && knobs->tile_n && knobs->panel_k && knobs->streams)) return MMT_CHOICE_NONE;
    mmt_best_rec *bests = NULL;
    size_t n = 0;
    mmt_err ignore; /* a database that cannot answer leaves the plan's defaults */
    pthread_mutex_lock(&ctx->modes_lock);
    mmt_status st = mmt_store_best_list(ctx->st, ctx->dev.fingerprint, MMT_OOC_TEMPLATE, MMT_OOC_SOURCE_HASH,
                                        user->mode, &bests, &n, &ignore);
    pthread_mutex_unlock(&ctx->modes_lock);
    mmt_ooc_knobs t;
    mmt_choice how = MMT_CHOICE_NONE;
    if (st == MMT_OK && mmt_ooc_tuned_choose(bests, n, user, &t, &how)) {
        const int swap = user->layout == MMT_COL_MAJOR; /* tuned in the caller's terms */
        if (!knobs->tile_m) knobs->tile_m = swap ? t.tile_n : t.tile_m;
        if (!knobs->tile_n) knobs->tile_n = swap ? t.tile_m : t.tile_n;
        if (!knobs->panel_k) knobs->panel_k = t.panel_k;
        if (!knobs->streams) knobs->streams = t.streams;
    }
    free(bests);
    return how;
}

/* A checked call on host matrices (user: its problem as the caller wrote it): the row-major
 * problem out of core on the context's GPUs, the policies of this context on each. */
mmt_status mmt_host_route(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a, int64_t lda,
                          const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_device_gemm_fn device_gemm,
                          mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    const mmt_problem p = mmt_problem_normalise(user);
    const int swap = user->layout == MMT_COL_MAJOR;
    mmt_ooc_job job = {
        .desc = {p.dtype, p.out, mmt_mode_compute(p.mode), MMT_ROW_MAJOR, p.trans_a ? MMT_TRANS : MMT_NO_TRANS,
                 p.trans_b ? MMT_TRANS : MMT_NO_TRANS},
        .m = p.m, .n = p.n, .k = p.k, .alpha = alpha, .beta = beta, .a = swap ? b : a, .b = swap ? a : b, .c = c,
        .lda = swap ? ldb : lda, .ldb = swap ? lda : ldb, .ldc = ldc};
    mmt_ooc_gpu gpus[MMT_MAX_GPUS];
    tile_runner runners[MMT_MAX_GPUS];
    pthread_mutex_lock(&ctx->ooc_lock);
    const mmt_host_gemm_config *cfg = &ctx->ooc_cfg;
    job.knobs = (mmt_ooc_knobs){.tile_m = swap ? cfg->tile_n : cfg->tile_m, .tile_n = swap ? cfg->tile_m : cfg->tile_n,
                                .panel_k = cfg->panel_k, .streams = cfg->streams};
    const mmt_ooc_knobs set = job.knobs;
    const mmt_choice tuned = tuned_knobs(ctx, user, &job.knobs);
    pthread_mutex_lock(&ctx->lock);
    const int policies[3] = {ctx->sgemm_policy, ctx->reproducible, ctx->algorithm_policy};
    pthread_mutex_unlock(&ctx->lock);
    for (int i = 0; i < ctx->n_gpus; i++) {
        mmt_ctx *peer = ctx->peer[i];
        if (peer != ctx) { /* the peers follow this context's policies */
            pthread_mutex_lock(&peer->lock);
            peer->sgemm_policy = policies[0], peer->reproducible = policies[1], peer->algorithm_policy = policies[2];
            pthread_mutex_unlock(&peer->lock);
        }
        runners[i] = (tile_runner){.ctx = peer, .gemm = device_gemm, .sgemm = sgemm};
        gpus[i] = (mmt_ooc_gpu){.dv = ctx->ooc[i], .stream = atomic_load(&peer->stream), .gemm = run_tile,
                                .user = &runners[i]};
    }
    job.n_gpus = ctx->n_gpus;
    job.gpus = gpus;
    mmt_ooc_plan plan;
    mmt_status st = mmt_ooc_run(&job, &plan, err);
    int fell_back = 0;
    if (st == MMT_OUT_OF_MEMORY && tuned != MMT_CHOICE_NONE) { /* C untouched: the default plan, which halves to fit */
        job.knobs = set;
        for (int i = 0; i < ctx->n_gpus; i++) runners[i].how = MMT_CHOICE_NONE;
        st = mmt_ooc_run(&job, &plan, err);
        fell_back = 1;
    }
    pthread_mutex_unlock(&ctx->ooc_lock);
    if (st != MMT_OK) return st;
    const tile_runner *first = &runners[0]; /* the first GPU that ran a tile */
    for (int i = 1; i < job.n_gpus && first->how == MMT_CHOICE_NONE; i++) first = &runners[i];
    *how = first->how;
    snprintf(config, config_size,
             "%.360s%sOOC_TILE_M=%lld,OOC_TILE_N=%lld,OOC_PANEL_K=%lld,OOC_STREAMS=%d,OOC_GPUS=%d,OOC_TUNED=%s,"
             "OOC_PINNED=%d",
             first->config, *first->config ? "," : "", (long long)(swap ? plan.tile_n : plan.tile_m),
             (long long)(swap ? plan.tile_m : plan.tile_n), (long long)plan.panel_k, plan.streams, job.n_gpus,
             fell_back ? "too_big" : tuned == MMT_CHOICE_EXACT ? "exact" : tuned == MMT_CHOICE_NEAREST ? "nearest"
                                                                                                          : "none",
             plan.pinned);
    return MMT_OK;
}
