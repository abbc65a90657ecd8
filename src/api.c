/* api.c - the public entry points (include/mmtuned.h): argument checks, layout
 * normalisation, and the per-context table that maps a problem to its loaded kernel, so
 * a repeated shape costs one hash lookup. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "err.h"
#include "family.h"
#include "kernel.h"
#include "lookup.h"
#include "store.h"

#define N_BUCKETS 256

/* A loaded binary, shared by every problem whose instance compiles to the same key. */
typedef struct loaded {
    char key[65];
    mmt_module *mod;
    struct loaded *next;
} loaded;

/* What a problem (row-major form) runs. */
typedef struct entry {
    mmt_problem problem;
    mmt_module *mod;
    mmt_geometry geometry;
    mmt_choice choice;
    char params[512];
    struct entry *next;
} entry;

/* Per dtype: the family and the tuned entries read from the database once. */
typedef struct served {
    mmt_family *family;
    mmt_best_rec *bests;
    size_t n_bests;
    int ready;
} served;

struct mmt_ctx {
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_store *st; /* NULL without a database */
    void *stream;
    pthread_mutex_t lock; /* guards the tables below; launches run outside it */
    served modes[MMT_N_MODES];
    entry *buckets[N_BUCKETS];
    loaded *modules;
    mmt_err err;
    mmt_choice last_choice;
    char last_config[512];
};

static _Thread_local mmt_err open_err; /* for failures before a context exists */

mmt_status mmt_open(mmt_ctx **out, const char *device, const char *db_path)
{
    RETURN_ERROR_IF(!out, &open_err, MMT_INVALID_ARGUMENT, "mmt_open: out is NULL");
    *out = NULL;
    mmt_ctx *ctx = calloc(1, sizeof *ctx);
    RETURN_ERROR_IF(!ctx, &open_err, MMT_OUT_OF_MEMORY, "out of memory");
    pthread_mutex_init(&ctx->lock, NULL);
    int ordinal = 0;
    mmt_status st = mmt_backend_for_device(device ? device : "cpu", &ctx->be, &ordinal, &ctx->err);
    if (st == MMT_OK) st = ctx->be->probe(ordinal, &ctx->dev, &ctx->err);
    if (st == MMT_OK) {
        char path[4096];
        if (db_path) snprintf(path, sizeof path, "%s", db_path);
        else mmt_store_default_path(path, sizeof path);
        /* Writable if we may (compiled binaries are cached there), else read-only; a missing
         * database only means every shape runs the default. */
        if (access(path, F_OK) == 0) {
            mmt_err ignore;
            if (mmt_store_open(path, access(path, W_OK) != 0, &ctx->st, &ignore) != MMT_OK &&
                mmt_store_open(path, 1, &ctx->st, &ctx->err) != MMT_OK)
                st = mmt_err_set(&ctx->err, MMT_DATABASE, "cannot open the database %s: %s", path, ctx->err.msg);
        } else if (db_path) {
            st = mmt_err_set(&ctx->err, MMT_NOT_FOUND, "no database at %s", path);
        }
    }
    *out = ctx;
    return st;
}

void mmt_close(mmt_ctx *ctx)
{
    if (!ctx) return;
    for (int i = 0; i < N_BUCKETS; i++)
        for (entry *e = ctx->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    for (loaded *l = ctx->modules, *next; l; l = next) {
        next = l->next;
        ctx->be->unload(l->mod);
        free(l);
    }
    for (int d = 0; d < MMT_N_MODES; d++) {
        mmt_family_free(ctx->modes[d].family);
        free(ctx->modes[d].bests);
    }
    mmt_store_close(ctx->st);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

const char *mmt_last_error(const mmt_ctx *ctx) { return ctx ? ctx->err.msg : open_err.msg; }

mmt_choice mmt_last_choice(const mmt_ctx *ctx, const char **config)
{
    if (config) *config = ctx ? ctx->last_config : "";
    return ctx ? ctx->last_choice : MMT_CHOICE_NONE;
}

mmt_status mmt_set_stream(mmt_ctx *ctx, void *stream)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    ctx->stream = stream;
    return MMT_OK;
}

static unsigned problem_hash(const mmt_problem *p)
{
    uint64_t h = (uint64_t)p->m * 0x9E3779B97F4A7C15ull ^ (uint64_t)p->n * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)p->k * 0x165667B19E3779F9ull ^ (uint64_t)(p->dtype * 4 + p->trans_a * 2 + p->trans_b);
    return (unsigned)(h ^ (h >> 29)) % N_BUCKETS;
}

static int same_problem(const mmt_problem *a, const mmt_problem *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->dtype == b->dtype && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b;
}

/* The family and tuned entries of a mode, read once. Called under the lock. */
static mmt_status serve_mode(mmt_ctx *ctx, mmt_mode mode, served **out)
{
    served *sv = &ctx->modes[mode];
    if (!sv->ready) {
        FORWARD_IF_ERROR(mmt_family_find(ctx->be->name, mode, &sv->family, &ctx->err));
        if (ctx->st)
            FORWARD_IF_ERROR(mmt_store_best_list(ctx->st, ctx->dev.fingerprint, sv->family->name,
                                                 sv->family->source_hash, mode, &sv->bests, &sv->n_bests,
                                                 &ctx->err));
        sv->ready = 1;
    }
    *out = sv;
    return MMT_OK;
}

static mmt_status load_module(mmt_ctx *ctx, const mmt_family *fam, const char *defines, mmt_module **out)
{
    char key[65];
    mmt_kernel_key(ctx->be, &ctx->dev, fam->source, defines, key);
    for (loaded *l = ctx->modules; l; l = l->next)
        if (strcmp(l->key, key) == 0) {
            *out = l->mod;
            return MMT_OK;
        }
    void *bin;
    size_t size;
    char *log = NULL;
    mmt_status st = mmt_kernel_binary(ctx->be, &ctx->dev, ctx->st, fam->name, fam->source, defines, &bin, &size,
                                      &log, NULL, &ctx->err);
    free(log);
    FORWARD_IF_ERROR(st);
    loaded *l = calloc(1, sizeof *l);
    if (!l) st = mmt_err_set(&ctx->err, MMT_OUT_OF_MEMORY, "out of memory");
    if (st == MMT_OK) st = ctx->be->load(&ctx->dev, bin, size, fam->space->entry, &l->mod, &ctx->err);
    free(bin);
    if (st != MMT_OK) {
        free(l);
        return st;
    }
    memcpy(l->key, key, sizeof key);
    l->next = ctx->modules;
    ctx->modules = l;
    *out = l->mod;
    return MMT_OK;
}

/* The kernel for a row-major problem: from the table, or chosen, built and loaded once. */
static mmt_status find_entry(mmt_ctx *ctx, const mmt_problem *p, entry **out)
{
    unsigned b = problem_hash(p);
    for (entry *e = ctx->buckets[b]; e; e = e->next)
        if (same_problem(&e->problem, p)) {
            *out = e;
            return MMT_OK;
        }
    served *sv;
    FORWARD_IF_ERROR(serve_mode(ctx, p->mode, &sv));
    const mmt_space *s = sv->family->space;
    mmt_space_env env = {.problem = p, .device = &ctx->dev};
    entry *e = calloc(1, sizeof *e);
    RETURN_ERROR_IF(!e, &ctx->err, MMT_OUT_OF_MEMORY, "out of memory");
    mmt_config cfg;
    char defines[4096];
    mmt_status st = mmt_lookup_choose(s, sv->bests, sv->n_bests, &env, &cfg, &e->choice, &ctx->err);
    if (st == MMT_OK) st = mmt_kernel_defines(s, &cfg, &env, defines, sizeof defines, &ctx->err);
    if (st == MMT_OK) st = mmt_space_geometry(s, &cfg, &env, &e->geometry, &ctx->err);
    if (st == MMT_OK) st = load_module(ctx, sv->family, defines, &e->mod);
    if (st != MMT_OK) {
        free(e);
        return st;
    }
    e->problem = *p;
    mmt_config_format(s, &cfg, e->params, sizeof e->params);
    e->next = ctx->buckets[b];
    ctx->buckets[b] = e;
    *out = e;
    return MMT_OK;
}

/* Stored rows x cols with leading dimension ld in the given layout: is ld big enough? */
static int ld_ok(mmt_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    int64_t need = layout == MMT_ROW_MAJOR ? cols : rows;
    return ld >= (need > 1 ? need : 1);
}

static mmt_status gemm(mmt_ctx *ctx, mmt_dtype dtype, mmt_layout layout, mmt_transpose ta, mmt_transpose tb,
                       int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                       int64_t ldb, double beta, void *c, int64_t ldc)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err *err = &ctx->err;
    RETURN_ERROR_IF(layout != MMT_ROW_MAJOR && layout != MMT_COL_MAJOR, err, MMT_INVALID_ARGUMENT,
                    "layout %d is neither MMT_ROW_MAJOR nor MMT_COL_MAJOR", (int)layout);
    RETURN_ERROR_IF(ta != MMT_NO_TRANS && ta != MMT_TRANS, err, MMT_INVALID_ARGUMENT, "bad trans_a %d", (int)ta);
    RETURN_ERROR_IF(tb != MMT_NO_TRANS && tb != MMT_TRANS, err, MMT_INVALID_ARGUMENT, "bad trans_b %d", (int)tb);
    RETURN_ERROR_IF(m < 0 || n < 0 || k < 0, err, MMT_INVALID_ARGUMENT, "negative size m=%lld n=%lld k=%lld",
                    (long long)m, (long long)n, (long long)k);
    int tra = ta == MMT_TRANS, trb = tb == MMT_TRANS;
    RETURN_ERROR_IF(!ld_ok(layout, tra ? k : m, tra ? m : k, lda), err, MMT_INVALID_ARGUMENT,
                    "lda=%lld is too small", (long long)lda);
    RETURN_ERROR_IF(!ld_ok(layout, trb ? n : k, trb ? k : n, ldb), err, MMT_INVALID_ARGUMENT,
                    "ldb=%lld is too small", (long long)ldb);
    RETURN_ERROR_IF(!ld_ok(layout, m, n, ldc), err, MMT_INVALID_ARGUMENT, "ldc=%lld is too small", (long long)ldc);
    if (m == 0 || n == 0) return MMT_OK;
    RETURN_ERROR_IF(!c, err, MMT_INVALID_ARGUMENT, "C is NULL");
    RETURN_ERROR_IF(k > 0 && alpha != 0 && (!a || !b), err, MMT_INVALID_ARGUMENT, "A or B is NULL");

    mmt_problem user = {.dtype = dtype, .out = dtype, .mode = (mmt_mode)dtype, .layout = layout, .trans_a = tra, .trans_b = trb, .m = m, .n = n, .k = k};
    mmt_problem p = mmt_problem_normalise(&user);
    int swap = layout == MMT_COL_MAJOR;
    mmt_gemm_params gp = {.m = p.m, .n = p.n, .k = p.k, .lda = swap ? ldb : lda, .ldb = swap ? lda : ldb,
                          .ldc = ldc, .trans_a = p.trans_a, .trans_b = p.trans_b, .alpha = alpha, .beta = beta,
                          .a = swap ? b : a, .b = swap ? a : b, .c = c};

    pthread_mutex_lock(&ctx->lock);
    entry *e;
    mmt_status st = find_entry(ctx, &p, &e);
    if (st == MMT_OK) {
        ctx->last_choice = e->choice;
        snprintf(ctx->last_config, sizeof ctx->last_config, "%s", e->params);
    }
    pthread_mutex_unlock(&ctx->lock);
    FORWARD_IF_ERROR(st);
    return ctx->be->launch(e->mod, &gp, &e->geometry, ctx->stream, err);
}

mmt_status mmt_sgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b, int64_t m,
                     int64_t n, int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                     float beta, float *c, int64_t ldc)
{
    return gemm(ctx, MMT_F32, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

mmt_status mmt_dgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b, int64_t m,
                     int64_t n, int64_t k, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
                     double beta, double *c, int64_t ldc)
{
    return gemm(ctx, MMT_F64, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
