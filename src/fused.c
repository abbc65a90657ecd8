/* fused.c - a GEMM's epilogue in the store of the kernel that serves it (fused.h). */
#include "fused.h"

#include <stdio.h>
#include <stdlib.h>

#include "builder.h"

/* The templates whose store takes an epilogue (templates/cuda/mmt_fuse.h, and the CPU's); an
 * instance of one that cannot (atomic split-K) fails its build, once. */
static const char *const fusing[] = {"cuda/gemm_wgmma.cu", "cuda/gemm_mma.cu", "cuda/gemm_simt.cu", "cpu/gemm_avx.c",
                                     NULL};

enum { NOT_TRIED, MAKING, MADE, FAILED };

/* A variant of the table's module base: published once made. */
struct mmt_fused_instance {
    mmt_module *base;
    int kind; /* (bias * 3 + act) * 2 + bias_c */
    _Atomic int state;
    _Atomic(mmt_module *) mod;
    struct mmt_fused_instance *next;
};

/* The record of base's variant of kind, added where there is none; NULL out of memory. */
static struct mmt_fused_instance *record_of(mmt_ctx *ctx, mmt_module *base, int kind)
{
    pthread_mutex_lock(&ctx->lock);
    struct mmt_fused_instance *f = ctx->fused;
    while (f && (f->base != base || f->kind != kind)) f = f->next;
    if (!f && (f = calloc(1, sizeof *f)) != NULL) {
        f->base = base, f->kind = kind, f->next = ctx->fused;
        ctx->fused = f;
    }
    pthread_mutex_unlock(&ctx->lock);
    return f;
}

static mmt_status make(mmt_ctx *ctx, const struct mmt_fused_instance *f, int compile, mmt_module **out, mmt_err *err)
{
    char extra[64];
    snprintf(extra, sizeof extra, "EPI_BIAS=%d EPI_ACT=%d BIAS_C=%d", f->kind / 6, f->kind / 2 % 3, f->kind % 2);
    return mmt_table_variant(ctx, f->base, fusing, extra, compile, out, err);
}

/* Publishes what making f came to. */
static void done(struct mmt_fused_instance *f, mmt_status st, mmt_module *mod)
{
    if (st == MMT_OK) atomic_store(&f->mod, mod);
    atomic_store(&f->state, st == MMT_OK ? MADE : st == MMT_NOT_FOUND ? NOT_TRIED : FAILED);
}

typedef struct build_job {
    mmt_ctx *ctx;
    struct mmt_fused_instance *f;
} build_job;

static void build_in_background(void *arg, int run)
{
    build_job *j = arg;
    if (run) {
        mmt_module *mod = NULL;
        mmt_err err;
        const mmt_status st = make(j->ctx, j->f, 1, &mod, &err); /* before mod is read */
        done(j->f, st, mod);
    } else {
        atomic_store(&j->f->state, NOT_TRIED);
    }
    free(j);
}

mmt_status mmt_fused_instance(mmt_ctx *ctx, const mmt_table_hit *hit, int bias, int act, int bias_c, mmt_module **out,
                              mmt_err *err)
{
    *out = NULL;
    if (!hit->mod || !hit->repeatable) return MMT_UNSUPPORTED;
    struct mmt_fused_instance *f = record_of(ctx, hit->mod, (bias * 3 + act) * 2 + bias_c);
    if (!f) return MMT_UNSUPPORTED; /* the epilogue's own kernel needs no memory */
    if ((*out = atomic_load(&f->mod)) != NULL) return MMT_OK;
    int state = NOT_TRIED;
    if (!atomic_compare_exchange_strong(&f->state, &state, MAKING))
        return state == FAILED ? MMT_UNSUPPORTED : MMT_NOT_FOUND; /* another call makes it */
    mmt_status st = make(ctx, f, 0, out, err);
    if (st == MMT_NOT_FOUND && ctx->builder) {
        build_job *job = malloc(sizeof *job);
        if (job) *job = (build_job){ctx, f};
        if (job && mmt_builder_submit(ctx->builder, build_in_background, job) == 0) return MMT_NOT_FOUND;
        free(job);
    }
    if (st == MMT_NOT_FOUND) st = make(ctx, f, 1, out, err); /* no thread to build it: the caller waits */
    done(f, st, *out);
    return st == MMT_OK || st == MMT_NOT_FOUND ? st : MMT_UNSUPPORTED;
}

void mmt_fused_free(mmt_ctx *ctx)
{
    for (struct mmt_fused_instance *f = ctx->fused, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    ctx->fused = NULL;
}
