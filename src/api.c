/* api.c - the public entry points (include/mmtuned.h): contexts, their policies, argument
 * and descriptor checks and layout normalisation; a checked call goes to the context's
 * table (call_table.h), or, for host matrices on a GPU, out of core (host_route.h). Errors
 * and the last choice are kept per thread (thread views below). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "call_table.h"
#include "ctx.h"
#include "epilogue.h"
#include "fused.h"
#include "err.h"
#include "grouped.h"
#include "host_route.h"
#include "parallel_for.h"

/* ---- per-thread views ---------------------------------------------------------------- */

/* What the calling thread's last call on a context said: its error (if it failed) and the
 * choice that served it. A thread keeps views of its last few contexts (the oldest gives
 * way); id 0 is a failure with no context (mmt_open without an out pointer). */
#define THREAD_VIEWS 4
typedef struct thread_view {
    uint64_t ctx_id, used;
    mmt_err err;
    mmt_choice choice;
    char config[512];
} thread_view;
static _Atomic uint64_t next_ctx_id = 1;

/* This thread's last GEMM call through gemm() below where the table ran it, and what ran
 * it: the same call again (the same context, descriptor, sizes and leading dimensions: the
 * same checks pass) runs it without the checks and the lookup, the cost of a tiny GEMM's
 * call (on a GPU it still asks where its operands live). Valid while the thread's view of
 * the context, `view`, holds that call's choice: finish() forgets it whenever it writes a
 * choice, and view_of() when it gives that view away (to any context, this one too). */
typedef struct last_call {
    uint64_t ctx_id; /* 0: none */
    thread_view *view;
    mmt_gemm_desc d;
    int sgemm;
    int64_t lda, ldb, ldc;
    mmt_table_hit hit; /* the sizes are its problem's */
} last_call;

/* A thread's state in one object: in a shared library each thread-local object costs a
 * call to find it (__tls_get_addr), and a tiny GEMM's call finds one. */
typedef struct thread_state {
    thread_view views[THREAD_VIEWS];
    uint64_t view_clock;
    last_call last;
} thread_state;
static _Thread_local thread_state tls;

static thread_view *view_of(uint64_t id, int make)
{
    thread_view *views = tls.views, *oldest = &views[0];
    for (int i = 0; i < THREAD_VIEWS; i++) {
        if (views[i].used && views[i].ctx_id == id) return &views[i];
        if (views[i].used < oldest->used) oldest = &views[i];
    }
    if (!make) return NULL;
    if (oldest == tls.last.view) tls.last.ctx_id = 0; /* the last call's view is given away */
    memset(oldest, 0, sizeof *oldest);
    oldest->ctx_id = id;
    oldest->used = ++tls.view_clock;
    return oldest;
}

/* The end of a public call on ctx: its outcome becomes this thread's view of ctx. */
static mmt_status finish(const mmt_ctx *ctx, mmt_status st, const mmt_err *err, mmt_choice choice,
                         const char *config)
{
    thread_view *v = view_of(ctx ? ctx->id : 0, 1);
    v->used = ++tls.view_clock;
    if (st != MMT_OK) {
        v->err = *err;
        v->err.status = st;
    } else {
        mmt_err_clear(&v->err);
    }
    if (config) {
        v->choice = choice;
        mmt_copy_text(v->config, sizeof v->config, config);
        tls.last.ctx_id = 0; /* another choice in the view: the last call is no longer repeated */
    }
    return st;
}

/* ---- contexts --------------------------------------------------------------------------- */

static mmt_status open_ctx(mmt_ctx *ctx, const char *device, const char *db_path, int peer, mmt_err *err);
static mmt_status host_gemm_env(mmt_host_gemm_config *cfg, char *devices, size_t size, mmt_err *err);
static mmt_status set_host_gemm(mmt_ctx *ctx, const mmt_host_gemm_config *cfg, mmt_err *err);

/* mmt_open, or (peer) the context of another GPU that a context's host-memory GEMMs use,
 * which takes no GPUs of its own from the environment. */
static mmt_status open_any(mmt_ctx **out, const char *device, const char *db_path, int peer)
{
    mmt_err err;
    mmt_err_clear(&err);
    if (!out) return finish(NULL, mmt_err_set(&err, MMT_INVALID_ARGUMENT, "mmt_open: out is NULL"), &err, 0, NULL);
    *out = NULL;
    mmt_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return finish(NULL, mmt_err_set(&err, MMT_OUT_OF_MEMORY, "out of memory"), &err, 0, NULL);
    ctx->id = atomic_fetch_add(&next_ctx_id, 1);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->modes_lock, NULL);
    pthread_mutex_init(&ctx->ws_lock, NULL);
    pthread_mutex_init(&ctx->ooc_lock, NULL);
    pthread_mutex_init(&ctx->vendor_lock, NULL);
    ctx->builder = mmt_builder_new(); /* NULL: kernels are built on the callers' paths */
    *out = ctx;
    return finish(ctx, open_ctx(ctx, device, db_path, peer, &err), &err, 0, NULL);
}

mmt_status mmt_open(mmt_ctx **out, const char *device, const char *db_path)
{
    return open_any(out, device, db_path, 0);
}

static mmt_status open_ctx(mmt_ctx *ctx, const char *device, const char *db_path, int peer, mmt_err *err)
{
    /* The environment's policy first: a misspelt value must not pass unnoticed, on any device. */
    const char *policy = getenv("MMTUNE_SGEMM");
    if (policy && *policy && strcmp(policy, "f32") != 0) {
        RETURN_ERROR_IF(strcmp(policy, "f32x3") != 0, err, MMT_INVALID_ARGUMENT,
                        "MMTUNE_SGEMM=%.100s: the values are f32 (the default) and f32x3", policy);
        ctx->sgemm_policy = MMT_SGEMM_ALLOW_F32X3;
    }
    const char *repro = getenv("MMTUNE_REPRODUCIBLE");
    if (repro && *repro) {
        RETURN_ERROR_IF(strcmp(repro, "0") != 0 && strcmp(repro, "1") != 0, err, MMT_INVALID_ARGUMENT,
                        "MMTUNE_REPRODUCIBLE=%.100s: the values are 0 (the default) and 1", repro);
        ctx->reproducible = repro[0] == '1';
    }
    const char *algorithm = getenv("MMTUNE_ALGORITHM");
    if (algorithm && *algorithm && strcmp(algorithm, "classic") != 0) {
        RETURN_ERROR_IF(strcmp(algorithm, "strassen") != 0, err, MMT_INVALID_ARGUMENT,
                        "MMTUNE_ALGORITHM=%.100s: the values are classic (the default) and strassen", algorithm);
        ctx->algorithm_policy = MMT_ALLOW_STRASSEN;
    }
    int vendor_off;
    FORWARD_IF_ERROR(mmt_vendor_policy(&vendor_off, err));
    if (vendor_off) ctx->vendor_state = -1;
    double sync_s;
    FORWARD_IF_ERROR(mmt_misses_interval(&sync_s, err));
    FORWARD_IF_ERROR(mmt_autotune_config(&ctx->autotune, err));
    snprintf(ctx->device, sizeof ctx->device, "%s", device ? device : "cpu");
    int ordinal = 0;
    mmt_status st = mmt_backend_for_device(device ? device : "cpu", &ctx->be, &ordinal, err);
    if (st == MMT_OK) st = ctx->be->probe(ordinal, &ctx->dev, err);
    if (st == MMT_OK) {
        char path[4096];
        if (db_path) snprintf(path, sizeof path, "%s", db_path);
        else mmt_store_default_path(path, sizeof path);
        mmt_err ignore, why; /* not err: a message must not be formatted into itself */
        /* a default folder others may write is no database of ours: serve untuned */
        if (!db_path && mmt_store_default_dir_check(ctx->autotune.on, &why) != MMT_OK) {
            fprintf(stderr, "libmmtuned: %.600s; serving without the default database\n", why.msg);
            path[0] = '\0';
        }
        /* background tuning writes its results into the database: the default one is made */
        if (!db_path && path[0] && ctx->autotune.on && access(path, F_OK) != 0 &&
            mmt_store_open(path, 0, &ctx->st, &ignore) == MMT_OK) {
            mmt_store_close(ctx->st);
            ctx->st = NULL;
        }
        /* Writable if we may (misses are recorded there), else read-only; a missing
         * database only means every shape runs the default. */
        struct stat sb;
        if (!path[0]) {
            /* refused above: no database */
        } else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) { /* a FIFO would block the open for ever */
            if (db_path) st = mmt_err_set(err, MMT_DATABASE, "the database %s is not a regular file", path);
            else fprintf(stderr, "libmmtuned: the database %.600s is not a regular file; serving without it\n", path);
        } else if (access(path, F_OK) == 0) {
            int writable = access(path, W_OK) == 0;
            if (mmt_store_open(path, !writable, &ctx->st, &ignore) != MMT_OK) {
                writable = 0;
                if (mmt_store_open(path, 1, &ctx->st, &why) == MMT_OK) {
                    /* read-only after all */
                } else if (db_path) { /* named by the caller: a wrong file must not pass unnoticed */
                    st = mmt_err_set(err, MMT_DATABASE, "cannot open the database %s: %s", path, why.msg);
                } else { /* the default one (or $MMTUNE_DB's): of a newer mmtune, say; serve untuned */
                    ctx->st = NULL;
                    fprintf(stderr, "libmmtuned: cannot open the database %.600s: %.600s; serving without it\n",
                            path, why.msg);
                }
            }
            if (st == MMT_OK && writable && realpath(path, ctx->db_path))
                ctx->misses = mmt_misses_new(ctx->db_path, &ctx->dev, sync_s);
        } else if (db_path) {
            st = mmt_err_set(err, MMT_NOT_FOUND, "no database at %s", path);
        }
    }
    snprintf(ctx->db_arg, sizeof ctx->db_arg, "%s", db_path ? db_path : "");
    if (st == MMT_OK && strcmp(ctx->be->name, "cuda") == 0) {
        ctx->async = mmt_cuda_async_api();
        ctx->n_gpus = 1;
        ctx->gpus[0] = ctx->dev.ordinal;
        ctx->peer[0] = ctx;
        mmt_host_gemm_config cfg;
        char devices[sizeof ctx->ooc_devices];
        st = host_gemm_env(&cfg, devices, sizeof devices, err);
        if (st == MMT_OK && !peer) st = set_host_gemm(ctx, &cfg, err);
    }
    return st;
}

void mmt_close(mmt_ctx *ctx)
{
    if (!ctx) return;
    mmt_builder_free(ctx->builder); /* the kernel it builds goes in first; the rest are dropped */
    mmt_grouped_free(ctx);
    mmt_fused_free(ctx);
    mmt_misses_free(ctx->misses); /* the last counts go to the database */
    mmt_table_free(ctx);
    for (int i = 0; i < ctx->n_gpus; i++) {
        mmt_ooc_device_free(ctx->ooc[i]);
        if (ctx->peer[i] != ctx) mmt_close(ctx->peer[i]);
    }
    if (ctx->ws) { /* the stream may still be using it */
        mmt_err ignore;
        ctx->be->sync(ctx->stream, &ignore);
        ctx->be->free(ctx->ws);
    }
    mmt_store_close(ctx->st);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->modes_lock);
    pthread_mutex_destroy(&ctx->ws_lock);
    pthread_mutex_destroy(&ctx->ooc_lock);
    pthread_mutex_destroy(&ctx->vendor_lock);
    free(ctx);
}

const char *mmt_last_error(const mmt_ctx *ctx)
{
    const thread_view *v = view_of(ctx ? ctx->id : 0, 0);
    return v ? v->err.msg : "";
}

mmt_choice mmt_last_choice(const mmt_ctx *ctx, const char **config)
{
    const thread_view *v = ctx ? view_of(ctx->id, 0) : NULL;
    if (config) *config = v ? v->config : "";
    return v ? v->choice : MMT_CHOICE_NONE;
}

mmt_status mmt_wait_kernels(mmt_ctx *ctx, int *built)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    const int any = mmt_builder_drain(ctx->builder);
    if (built) *built = any;
    return MMT_OK;
}

mmt_status mmt_set_stream(mmt_ctx *ctx, void *stream)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    pthread_mutex_lock(&ctx->ws_lock);
    mmt_status st = MMT_OK;
    void *old = atomic_load(&ctx->stream);
    if (ctx->ws && stream != old) st = ctx->be->sync(old, &err); /* the scratch moves streams */
    if (st == MMT_OK) atomic_store(&ctx->stream, stream);
    pthread_mutex_unlock(&ctx->ws_lock);
    return finish(ctx, st, &err, 0, NULL);
}

/* Sets one of a context's two-valued policies under the lock; any other value is refused
 * with a message naming the policy and its values. */
static mmt_status set_policy(mmt_ctx *ctx, int *field, int value, const char *what, const char *values)
{
    mmt_err err;
    if (value != 0 && value != 1)
        return finish(ctx, mmt_err_set(&err, MMT_INVALID_ARGUMENT, "unknown %s policy %d (%s)", what, value, values),
                      &err, 0, NULL);
    pthread_mutex_lock(&ctx->lock);
    *field = value;
    atomic_fetch_add(&ctx->table_gen, 1); /* a call's key reads the policies */
    pthread_mutex_unlock(&ctx->lock);
    return MMT_OK;
}

mmt_status mmt_set_reproducible(mmt_ctx *ctx, int on)
{
    return ctx ? set_policy(ctx, &ctx->reproducible, on, "reproducible", "0, 1") : MMT_INVALID_ARGUMENT;
}

mmt_status mmt_set_sgemm_policy(mmt_ctx *ctx, mmt_sgemm_policy policy)
{
    return ctx ? set_policy(ctx, &ctx->sgemm_policy, (int)policy, "sgemm", "MMT_SGEMM_F32, MMT_SGEMM_ALLOW_F32X3")
               : MMT_INVALID_ARGUMENT;
}

mmt_status mmt_set_algorithm_policy(mmt_ctx *ctx, mmt_algorithm_policy policy)
{
    return ctx ? set_policy(ctx, &ctx->algorithm_policy, (int)policy, "algorithm",
                            "MMT_CLASSIC_ONLY, MMT_ALLOW_STRASSEN")
               : MMT_INVALID_ARGUMENT;
}

/* ---- host matrices on a GPU (ooc.h) -------------------------------------------------------- */

static mmt_status host_gemm_env(mmt_host_gemm_config *cfg, char *devices, size_t size, mmt_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    const char *why = mmt_ooc_env(&cfg->tile_m, &cfg->tile_n, &cfg->panel_k, &cfg->streams, devices, size);
    RETURN_ERROR_IF(why, err, MMT_INVALID_ARGUMENT, "%s", why);
    cfg->devices = devices;
    return MMT_OK;
}

/* Checks cfg, opens the contexts of GPUs new to the list (on this context's database) and
 * closes those it drops; the context is unchanged where anything fails. Under ooc_lock, or
 * before the context is shared. */
static mmt_status set_host_gemm(mmt_ctx *ctx, const mmt_host_gemm_config *cfg, mmt_err *err)
{
    const mmt_host_gemm_config none = {0};
    if (!cfg) cfg = &none;
    RETURN_ERROR_IF(!ctx->async, err, MMT_UNSUPPORTED, "host-memory GEMMs run on a GPU context (this one is %s)",
                    ctx->be->name);
    RETURN_ERROR_IF(cfg->tile_m < 0 || cfg->tile_n < 0 || cfg->panel_k < 0, err, MMT_INVALID_ARGUMENT,
                    "tile %lldx%lld, panel %lld: sizes are positive (0: chosen)", (long long)cfg->tile_m,
                    (long long)cfg->tile_n, (long long)cfg->panel_k);
    RETURN_ERROR_IF(cfg->streams < 0 || cfg->streams > MMT_OOC_MAX_STREAMS, err, MMT_INVALID_ARGUMENT,
                    "streams %d: 1 to %d (0: chosen)", cfg->streams, MMT_OOC_MAX_STREAMS);
    const char *list = cfg->devices ? cfg->devices : "";
    RETURN_ERROR_IF(strlen(list) >= sizeof ctx->ooc_devices, err, MMT_INVALID_ARGUMENT, "devices: too long a list");
    int gpus[MMT_MAX_GPUS], n = 1;
    gpus[0] = ctx->dev.ordinal;
    if (*list) {
        const char *why = mmt_ooc_parse_devices(list, ctx->be->device_count(), MMT_MAX_GPUS, gpus, &n);
        RETURN_ERROR_IF(why, err, strstr(why, "no GPU") ? MMT_NOT_FOUND : MMT_INVALID_ARGUMENT, "%s", why);
    }
    mmt_ctx *peer[MMT_MAX_GPUS] = {0};
    mmt_ooc_device *state[MMT_MAX_GPUS] = {0};
    mmt_status st = MMT_OK;
    for (int i = 0; i < n && st == MMT_OK; i++) {
        for (int j = 0; j < ctx->n_gpus && !peer[i]; j++) /* kept: its context and pipeline */
            if (ctx->gpus[j] == gpus[i]) peer[i] = ctx->peer[j], state[i] = ctx->ooc[j];
        if (!peer[i] && gpus[i] == ctx->dev.ordinal) peer[i] = ctx;
        if (!peer[i]) {
            char name[32];
            snprintf(name, sizeof name, "cuda:%d", gpus[i]);
            st = open_any(&peer[i], name, *ctx->db_arg ? ctx->db_arg : NULL, 1);
            if (st != MMT_OK)
                mmt_err_set(err, st, "GPU %d: %s", gpus[i], peer[i] ? mmt_last_error(peer[i]) : "cannot open");
        }
    }
    for (int i = 0; i < n && st == MMT_OK; i++)
        if (!state[i] && !(state[i] = mmt_ooc_device_new(gpus[i])))
            st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    /* on success the GPUs the list drops go, on a failure those it would have added */
    const int from_n = st == MMT_OK ? ctx->n_gpus : n, to_n = st == MMT_OK ? n : ctx->n_gpus;
    mmt_ctx **from = st == MMT_OK ? ctx->peer : peer, **to = st == MMT_OK ? peer : ctx->peer;
    mmt_ooc_device **from_state = st == MMT_OK ? ctx->ooc : state;
    for (int i = 0; i < from_n; i++) {
        int kept = 0;
        for (int j = 0; j < to_n && !kept; j++) kept = to[j] == from[i];
        if (kept || !from[i]) continue;
        if (from[i] != ctx) mmt_close(from[i]);
        mmt_ooc_device_free(from_state[i]);
    }
    if (st != MMT_OK) return st;
    ctx->n_gpus = n;
    memcpy(ctx->gpus, gpus, sizeof gpus);
    memcpy(ctx->peer, peer, sizeof peer);
    memcpy(ctx->ooc, state, sizeof state);
    ctx->ooc_cfg = *cfg;
    snprintf(ctx->ooc_devices, sizeof ctx->ooc_devices, "%s", list);
    ctx->ooc_cfg.devices = ctx->ooc_devices;
    return MMT_OK;
}

mmt_status mmt_set_host_gemm(mmt_ctx *ctx, const mmt_host_gemm_config *cfg)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    pthread_mutex_lock(&ctx->ooc_lock);
    mmt_status st = set_host_gemm(ctx, cfg, &err);
    pthread_mutex_unlock(&ctx->ooc_lock);
    return finish(ctx, st, &err, 0, NULL);
}

/* Stored rows x cols with leading dimension ld in the given layout: is ld big enough? */
static int ld_ok(mmt_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    int64_t need = layout == MMT_ROW_MAJOR ? cols : rows;
    return ld >= (need > 1 ? need : 1);
}

static const char *compute_name(mmt_compute c)
{
    return c == MMT_COMPUTE_NATIVE ? "MMT_COMPUTE_NATIVE" : c == MMT_COMPUTE_TF32 ? "MMT_COMPUTE_TF32"
                                                                                  : "MMT_COMPUTE_F32X3";
}

/* The descriptor as a problem (user layout, sizes to be filled in), or why there is none. */
static mmt_status check_desc(const mmt_gemm_desc *d, mmt_problem *p, mmt_err *err)
{
    RETURN_ERROR_IF(!d, err, MMT_INVALID_ARGUMENT, "the descriptor is NULL");
    const int pair = d->ab_type == MMT_E4M3_E5M2 || d->ab_type == MMT_E5M2_E4M3; /* FP8 of two kinds */
    RETURN_ERROR_IF(!mmt_dtype_name(d->ab_type) && !pair, err, MMT_INVALID_ARGUMENT,
                    "unknown ab_type %d (MMT_F32, MMT_F64, MMT_BF16, MMT_F16, MMT_E4M3, MMT_E5M2, MMT_E4M3_E5M2, "
                    "MMT_E5M2_E4M3)",
                    (int)d->ab_type);
    RETURN_ERROR_IF(!mmt_dtype_name(d->c_type), err, MMT_INVALID_ARGUMENT,
                    "unknown c_type %d (MMT_F32, MMT_F64, MMT_BF16, MMT_F16, MMT_E4M3, MMT_E5M2)", (int)d->c_type);
    RETURN_ERROR_IF(d->compute != MMT_COMPUTE_NATIVE && d->compute != MMT_COMPUTE_TF32 &&
                        d->compute != MMT_COMPUTE_F32X3,
                    err, MMT_INVALID_ARGUMENT,
                    "unknown compute %d (MMT_COMPUTE_NATIVE, MMT_COMPUTE_TF32, MMT_COMPUTE_F32X3)", (int)d->compute);
    RETURN_ERROR_IF(d->layout != MMT_ROW_MAJOR && d->layout != MMT_COL_MAJOR, err, MMT_INVALID_ARGUMENT,
                    "layout %d is neither MMT_ROW_MAJOR nor MMT_COL_MAJOR", (int)d->layout);
    RETURN_ERROR_IF(d->trans_a != MMT_NO_TRANS && d->trans_a != MMT_TRANS, err, MMT_INVALID_ARGUMENT,
                    "bad trans_a %d", (int)d->trans_a);
    RETURN_ERROR_IF(d->trans_b != MMT_NO_TRANS && d->trans_b != MMT_TRANS, err, MMT_INVALID_ARGUMENT,
                    "bad trans_b %d", (int)d->trans_b);
    mmt_mode mode;
    RETURN_ERROR_IF(mmt_mode_of(d->ab_type, d->compute, &mode) != 0, err, MMT_INVALID_ARGUMENT,
                    "%s inputs cannot be computed with %s (TF32 and F32X3 take f32 inputs)",
                    pair ? "FP8" : mmt_dtype_name(d->ab_type), compute_name(d->compute));
    *p = (mmt_problem){.dtype = mmt_mode_dtype(mode), .out = d->c_type, .mode = mode, .layout = d->layout,
                       .trans_a = d->trans_a == MMT_TRANS, .trans_b = d->trans_b == MMT_TRANS};
    const char *why = mmt_problem_check(p);
    RETURN_ERROR_IF(why, err, MMT_INVALID_ARGUMENT, "c_type %s with ab_type %s: %s", mmt_dtype_name(d->c_type),
                    pair ? mmt_mode_name(mode) : mmt_dtype_name(d->ab_type), why);
    return MMT_OK;
}

static mmt_status device_gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n, int64_t k,
                              double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                              void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err);

/* The checks of a call's descriptor, sizes and leading dimensions: *user its problem (sizes
 * set), span the bytes that A, B and C span (0 for an empty one). */
static mmt_status check_sizes(const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                              int64_t ldc, mmt_problem *user, int64_t span[3], mmt_err *err)
{
    FORWARD_IF_ERROR(check_desc(d, user, err));
    RETURN_ERROR_IF(m < 0 || n < 0 || k < 0, err, MMT_INVALID_ARGUMENT, "negative size m=%lld n=%lld k=%lld",
                    (long long)m, (long long)n, (long long)k);
    int tra = user->trans_a, trb = user->trans_b;
    RETURN_ERROR_IF(!ld_ok(d->layout, tra ? k : m, tra ? m : k, lda), err, MMT_INVALID_ARGUMENT,
                    "lda=%lld is too small", (long long)lda);
    RETURN_ERROR_IF(!ld_ok(d->layout, trb ? n : k, trb ? k : n, ldb), err, MMT_INVALID_ARGUMENT,
                    "ldb=%lld is too small", (long long)ldb);
    RETURN_ERROR_IF(!ld_ok(d->layout, m, n, ldc), err, MMT_INVALID_ARGUMENT, "ldc=%lld is too small",
                    (long long)ldc);
    /* what each matrix spans in bytes must be a number: sizes whose products wrap around
     * would have the kernels index a small buffer as a huge one */
    const int row = d->layout == MMT_ROW_MAJOR;
    RETURN_ERROR_IF(mmt_span_bytes(row == !tra ? m : k, row == !tra ? k : m, lda, mmt_dtype_size(user->dtype),
                                   &span[0]) != 0 ||
                        mmt_span_bytes(row == !trb ? k : n, row == !trb ? n : k, ldb, mmt_dtype_size(user->dtype),
                                       &span[1]) != 0 ||
                        mmt_span_bytes(row ? m : n, row ? n : m, ldc, mmt_dtype_size(user->out), &span[2]) != 0,
                    err, MMT_INVALID_ARGUMENT,
                    "m=%lld n=%lld k=%lld with lda=%lld ldb=%lld ldc=%lld: a matrix would span more bytes than "
                    "64-bit sizes hold",
                    (long long)m, (long long)n, (long long)k, (long long)lda, (long long)ldb, (long long)ldc);
    user->m = m, user->n = n, user->k = k;
    return MMT_OK;
}

/* What a checked call has to do: 0 nothing (an unserved mode still says so), 1 compute,
 * after the checks of its pointers; alpha and beta as the kernels apply them. */
static mmt_status check_work(mmt_ctx *ctx, const mmt_problem *user, double *alpha, const void *a, const void *b,
                             double *beta, const void *c, int *todo, mmt_err *err)
{
    *todo = 0;
    if (user->mode != MMT_MODE_F64) { /* the contract: alpha and beta are applied in fp32 */
        *alpha = (float)*alpha;
        *beta = (float)*beta;
    }
    if (user->m == 0 || user->n == 0) /* nothing to compute, but an unserved mode says so whatever the size */
        return mmt_table_serve_mode(ctx, user->mode, err);
    RETURN_ERROR_IF(!c, err, MMT_INVALID_ARGUMENT, "C is NULL");
    RETURN_ERROR_IF(user->k > 0 && *alpha != 0 && (!a || !b), err, MMT_INVALID_ARGUMENT, "A or B is NULL");
    *todo = !((*alpha == 0 || user->k == 0) && *beta == 1); /* BLAS's quick return: C stays C */
    return MMT_OK;
}

/* On a GPU, whether the operands a call reads and writes are host memory (*host), one query
 * each; a call that mixes host and device memory is refused. */
static mmt_status where_operands(const mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a,
                                 const void *b, const void *c, int *host, mmt_err *err)
{
    const int host_c = ctx->async->is_host(c), reads = user->k > 0 && alpha != 0;
    const int host_a = reads ? ctx->async->is_host(a) : host_c, host_b = reads ? ctx->async->is_host(b) : host_c;
    RETURN_ERROR_IF(host_a != host_c || host_b != host_c, err, MMT_INVALID_ARGUMENT,
                    "A, B and C must all be device memory or all host memory (A is %s, B %s, C %s memory)",
                    host_a ? "host" : "device", host_b ? "host" : "device", host_c ? "host" : "device");
    *host = host_c;
    return MMT_OK;
}

/* A checked call with work to do (user's problem; alpha and beta as the kernels apply them):
 * on a GPU where host_ok, the host-memory route where its operands are host memory; else the
 * table's lookup and launch. */
static mmt_status run_checked(mmt_ctx *ctx, const mmt_problem *user, int sgemm, int host_ok, double alpha,
                              const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc,
                              mmt_choice *how, char *config, size_t config_size, mmt_table_hit *hit, mmt_err *err)
{
    int host = 0;
    if (host_ok && ctx->async) /* a GPU: one query per operand read says where it lives */
        FORWARD_IF_ERROR(where_operands(ctx, user, alpha, a, b, c, &host, err));
    if (host)
        return mmt_host_route(ctx, user, sgemm, alpha, a, lda, b, ldb, beta, c, ldc, device_gemm, how, config,
                              config_size, err);
    return mmt_table_run(ctx, user, sgemm, alpha, a, lda, b, ldb, beta, c, ldc, how, config, config_size, hit, err);
}

/* A GEMM call: checked, normalised, looked up (made the first time), launched; *how and
 * config say what served it. sgemm: the call came through mmt_sgemm, whose policy may allow
 * f32x3; mmt_gemm_ex runs exactly what its descriptor says. host_ok: operands may be host
 * memory on a GPU (a public call; the out-of-core GEMM's tiles are device operands). *hit
 * (may be NULL): what the table ran, repeatable or not (mmt_table_hit). */
static mmt_status run_gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int host_ok, int64_t m, int64_t n,
                           int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                           void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_table_hit *hit,
                           mmt_err *err)
{
    if (hit) hit->repeatable = 0;
    mmt_problem user;
    int64_t span[3];
    int todo;
    FORWARD_IF_ERROR(check_sizes(d, m, n, k, lda, ldb, ldc, &user, span, err));
    FORWARD_IF_ERROR(check_work(ctx, &user, &alpha, a, b, &beta, c, &todo, err));
    if (!todo) return MMT_OK;
    return run_checked(ctx, &user, sgemm, host_ok, alpha, a, lda, b, ldb, beta, c, ldc, how, config, config_size, hit,
                       err);
}

/* The GEMM of device operands a host-memory call's tiles run through (host_route.h). */
static mmt_status device_gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n, int64_t k,
                              double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                              void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    return run_gemm(ctx, d, sgemm, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, how, config, config_size, NULL,
                    err);
}


static int same_call(const last_call *l, const mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n,
                     int64_t k, int64_t lda, int64_t ldb, int64_t ldc)
{
    const mmt_gemm_desc *ld = &l->d;
    const mmt_problem *p = &l->hit.user;
    return l->ctx_id == ctx->id && d && m == p->m && n == p->n && k == p->k && lda == l->lda && ldb == l->ldb &&
           ldc == l->ldc && sgemm == l->sgemm && d->ab_type == ld->ab_type && d->c_type == ld->c_type &&
           d->compute == ld->compute && d->layout == ld->layout && d->trans_a == ld->trans_a &&
           d->trans_b == ld->trans_b;
}

/* The last call repeated on new operands where nothing but its launch is left to do (none of
 * BLAS's quick returns, no NULL pointer); 0 where the full path must run. What finish()
 * would do is done here on the view the call kept. */
static int repeat_last(thread_state *t, mmt_ctx *ctx, double alpha, const void *a, const void *b, double beta,
                       void *c, int64_t lda, int64_t ldb, int64_t ldc, mmt_status *st)
{
    last_call *l = &t->last;
    if (l->hit.problem.mode != MMT_MODE_F64) alpha = (float)alpha, beta = (float)beta;
    thread_view *v = l->view;
    if (v->ctx_id != ctx->id || !a || !b || !c || alpha == 0 || l->hit.user.k == 0) return 0;
    mmt_err err;
    int host = 0; /* on a GPU: device operands, as the first call's were (else the full path) */
    if (ctx->async && (where_operands(ctx, &l->hit.user, alpha, a, b, c, &host, &err) != MMT_OK || host)) return 0;
    if (!mmt_table_repeat(ctx, &l->hit, alpha, a, lda, b, ldb, beta, c, ldc, st, &err)) return 0;
    v->used = ++t->view_clock; /* the view keeps this call's choice */
    if (*st == MMT_OK) {
        if (v->err.status != MMT_OK) mmt_err_clear(&v->err);
    } else {
        v->err = err;
        v->err.status = *st;
        l->ctx_id = 0;
    }
    return 1;
}

/* Every GEMM entry point ends here: the call's outcome becomes this thread's view. */
static mmt_status gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n, int64_t k,
                       double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                       int64_t ldc)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_status st;
    /* found once: the compiler would otherwise look it up again (__tls_get_addr) at each use */
    thread_state *t = &tls;
    __asm__("" : "+r"(t));
    last_call *l = &t->last;
    if (same_call(l, ctx, d, sgemm, m, n, k, lda, ldb, ldc) &&
        repeat_last(t, ctx, alpha, a, b, beta, c, lda, ldb, ldc, &st))
        return st;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512]; /* written where how is set (not cleared: a call's time matters) */
    config[0] = '\0';
    mmt_table_hit hit;
    st = run_gemm(ctx, d, sgemm, 1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &how, config, sizeof config, &hit,
                  &err);
    st = finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
    if (st == MMT_OK && hit.repeatable)
        *l = (last_call){ctx->id, view_of(ctx->id, 0), *d, sgemm, lda, ldb, ldc, hit};
    return st;
}

mmt_status mmt_gemm_ex(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k, double alpha,
                       const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
    return gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* mmt_gemm_scaled's checks and call: the block-scaled mode of the descriptor's FP8 mode,
 * looked up as any GEMM, run with the scales by its kernel or the vendor library. */
static mmt_status run_scaled(mmt_ctx *ctx, const mmt_gemm_desc *d, const float *scale_a, const float *scale_b,
                             int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                             int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how, char *config,
                             size_t config_size, mmt_err *err)
{
    mmt_problem user;
    int64_t span[3];
    int todo, host = 0;
    FORWARD_IF_ERROR(check_sizes(d, m, n, k, lda, ldb, ldc, &user, span, err));
    RETURN_ERROR_IF(mmt_mode_with_block_scales(user.mode, &user.mode) != 0, err, MMT_INVALID_ARGUMENT,
                    "mmt_gemm_scaled: block scales are FP8's (ab_type MMT_E4M3 or MMT_E5M2, compute native), not %s",
                    mmt_mode_name(user.mode));
    RETURN_ERROR_IF(d->layout != MMT_ROW_MAJOR, err, MMT_UNSUPPORTED,
                    "mmt_gemm_scaled: block scales of row-major calls alone (a column-major C = A B is the row-major "
                    "C^T = B^T A^T, whose per-row scales would be B's)");
    FORWARD_IF_ERROR(check_work(ctx, &user, &alpha, a, b, &beta, c, &todo, err));
    if (!todo) return MMT_OK;
    const int reads = user.k > 0 && alpha != 0;
    RETURN_ERROR_IF(reads && (!scale_a || !scale_b), err, MMT_INVALID_ARGUMENT,
                    "mmt_gemm_scaled: a scale array is NULL");
    if (ctx->async) {
        FORWARD_IF_ERROR(where_operands(ctx, &user, alpha, a, b, c, &host, err));
        RETURN_ERROR_IF(host || (reads && (ctx->async->is_host(scale_a) || ctx->async->is_host(scale_b))), err,
                        MMT_UNSUPPORTED, "mmt_gemm_scaled: A, B, C and the scales must be device memory");
    }
    mmt_table_hit hit;
    FORWARD_IF_ERROR(
        mmt_table_lookup(ctx, &user, 0, a, lda, b, ldb, beta, c, ldc, how, config, config_size, &hit, err));
    FORWARD_IF_ERROR(mmt_table_launch_scaled(ctx, &hit, alpha, a, lda, b, ldb, beta, c, ldc, scale_a, scale_b, err));
    mmt_table_count_calls(ctx, &hit, 1);
    return MMT_OK;
}

mmt_status mmt_gemm_scaled(mmt_ctx *ctx, const mmt_gemm_desc *desc, const float *scale_a, const float *scale_b,
                           int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                           int64_t ldb, double beta, void *c, int64_t ldc)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512];
    config[0] = '\0';
    const mmt_status st = run_scaled(ctx, desc, scale_a, scale_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &how,
                                     config, sizeof config, &err);
    return finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
}

/* The epilogue fused into the GEMM, which spares C a pass of its own: where a template serves
 * the GEMM, by the variant of its kernel with the epilogue in its store (fused.h), once that
 * is built; on a GPU where the vendor library serves it and beta is 0, into its call
 * (cuBLASLt's). MMT_UNSUPPORTED, nothing run, where neither applies; the caller then runs the
 * GEMM and the epilogue's pass (which also says what is wrong with a bad call). */
static mmt_status epilogue_fused(mmt_ctx *ctx, const mmt_gemm_desc *d, const mmt_epilogue *e, int64_t m, int64_t n,
                                 int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                                 double beta, void *c, int64_t ldc)
{
    mmt_err err;
    mmt_problem user;
    int64_t span[3];
    int todo, host = 1;
    if (check_sizes(d, m, n, k, lda, ldb, ldc, &user, span, &err) != MMT_OK ||
        check_work(ctx, &user, &alpha, a, b, &beta, c, &todo, &err) != MMT_OK || !todo ||
        (ctx->async && (where_operands(ctx, &user, alpha, a, b, c, &host, &err) != MMT_OK || host)))
        return MMT_UNSUPPORTED;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512] = "";
    mmt_table_hit hit;
    /* FP8 C's epilogue is the templates' store (cuBLASLt's FP8 D would read its scale, applied
     * after the activation, from device memory): looked up as for a beta other than 0, which
     * the vendor does not take for FP8 C */
    const double key_beta = mmt_dtype_fp8(d->c_type) ? 1.0 : beta;
    if (mmt_table_lookup(ctx, &user, 0, a, lda, b, ldb, key_beta, c, ldc, &how, config, sizeof config, &hit, &err) !=
        MMT_OK)
        return MMT_UNSUPPORTED;
    /* a bias along the rows or the columns of the row-major form: a column-major call's
     * rows are its columns */
    const int along_rows = (e->bias_kind == MMT_BIAS_PER_ROW) == (d->layout == MMT_ROW_MAJOR);
    const int bias = e->bias_kind == MMT_BIAS_NONE ? 0 : along_rows ? 1 : 2;
    const void *bias_ptr = bias ? e->bias : NULL;
    mmt_status st;
    if (hit.mod) {
        const int bias_c = bias && e->bias_type == d->c_type && d->c_type != MMT_F32;
        mmt_module *mod;
        if (mmt_fused_instance(ctx, &hit, bias, e->act, bias_c, &mod, &err) != MMT_OK) return MMT_UNSUPPORTED;
        st = mmt_table_launch_fused(ctx, &hit, mod, bias_ptr, mmt_epilogue_scale(e), alpha, a, lda, b, ldb, beta, c,
                                    ldc, &err);
    } else {
        /* cuBLASLt's bias runs along the columns of the row-major form; the vendor says where
         * else it cannot (or should not) fuse it */
        if (!ctx->async || beta != 0 || bias == 1) return MMT_UNSUPPORTED;
        st = mmt_table_launch_epilogue(ctx, &hit, alpha, a, lda, b, ldb, beta, c, ldc, e->act, bias_ptr,
                                       e->bias_type, &err);
        if (st == MMT_UNSUPPORTED) return st;
    }
    if (st == MMT_OK) {
        mmt_table_count_calls(ctx, &hit, 1);
        const size_t len = strlen(config);
        snprintf(config + len, sizeof config - len, ",EPILOGUE=%s", hit.mod ? "fused" : "cublasLtMatmul");
    }
    return finish(ctx, st, &err, how, st == MMT_OK ? config : NULL);
}

/* FP8 C's epilogue apart from the GEMM (its kernel's variant with the epilogue in the store is
 * not built yet): the GEMM of fp32 C into scratch memory, then the epilogue's kernel (mod)
 * from it into C, so that C is rounded (and saturated) once, after the scale. */
static mmt_status epilogue_fp8_apart(mmt_ctx *ctx, mmt_module *mod, const mmt_gemm_desc *desc,
                                     const mmt_epilogue *epi, int64_t m, int64_t n, int64_t k, double alpha,
                                     const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                                     int64_t ldc)
{
    if (m <= 0 || n <= 0) return gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); /* its checks */
    mmt_err err;
    void *s = NULL;
    mmt_status st = ctx->be->alloc(&ctx->dev, (size_t)(m * n) * sizeof(float), &s, &err);
    if (st != MMT_OK) return finish(ctx, st, &err, 0, NULL);
    mmt_gemm_desc d32 = *desc;
    d32.c_type = MMT_F32;
    void *stream = atomic_load(&ctx->stream);
    st = gemm(ctx, &d32, 0, m, n, k, alpha, a, lda, b, ldb, 0.0, s, desc->layout == MMT_ROW_MAJOR ? n : m);
    if (st == MMT_OK) {
        st = mmt_epilogue_launch(ctx->be, mod, epi, desc->c_type, desc->layout, m, n, s, beta, c, ldc, stream, &err);
        if (st == MMT_OK) st = ctx->be->sync(stream, &err); /* the scratch is read until then */
        if (st != MMT_OK) st = finish(ctx, st, &err, 0, NULL);
    }
    ctx->be->free(s);
    return st;
}

/* The GEMM with its epilogue fused in where it can be (epilogue_fused), else the GEMM, then
 * the epilogue's pass over C. Checked before anything runs. */
mmt_status mmt_gemm_epilogue(mmt_ctx *ctx, const mmt_gemm_desc *desc, const mmt_epilogue *epi, int64_t m, int64_t n,
                             int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                             double beta, void *c, int64_t ldc)
{
    if (!epi) return gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    const char *why =
        desc ? mmt_epilogue_refused(epi, desc->c_type, desc->layout, m, n, c, ldc) : "desc is NULL";
    if (why) return finish(ctx, mmt_err_set(&err, MMT_INVALID_ARGUMENT, "epilogue: %s", why), &err, 0, NULL);
    if (epi->bias_kind == MMT_BIAS_NONE && epi->act == MMT_ACT_NONE) { /* nothing, or a scale: alpha's and beta's */
        const double s = mmt_epilogue_scale(epi);
        return gemm(ctx, desc, 0, m, n, k, s * alpha, a, lda, b, ldb, s * beta, c, ldc);
    }
    if (ctx->async && m > 0 && n > 0 && c && ctx->async->is_host(c))
        return finish(ctx, mmt_err_set(&err, MMT_UNSUPPORTED, "epilogues on host matrices of a GPU context"), &err,
                      0, NULL);
    if (ctx->async && epi->bias_kind != MMT_BIAS_NONE && m > 0 && n > 0 && ctx->async->is_host(epi->bias))
        return finish(ctx, mmt_err_set(&err, MMT_INVALID_ARGUMENT, "epilogue: the bias is host memory, C the GPU's"),
                      &err, 0, NULL);
    const mmt_status fused = epilogue_fused(ctx, desc, epi, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (fused != MMT_UNSUPPORTED) return fused;
    if (!ctx->async) { /* the host's cores over C */
        const mmt_status st = gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        if (st == MMT_OK) mmt_epilogue_apply_host(epi, desc->c_type, desc->layout, m, n, c, ldc);
        return st;
    }
    /* a GPU: the GEMM, then the epilogue's kernel on the same stream */
    const int bias_c = epi->bias_kind != MMT_BIAS_NONE && epi->bias_type == desc->c_type && desc->c_type != MMT_F32;
    /* the kernel, built on the first call of its kind outside the lock (others' calls go on) */
    mmt_module **slot = &ctx->epilogue[desc->c_type][bias_c], *mod, *made = NULL;
    pthread_mutex_lock(&ctx->lock);
    mod = *slot;
    pthread_mutex_unlock(&ctx->lock);
    if (!mod) {
        const mmt_status st = mmt_epilogue_load(ctx->be, &ctx->dev, desc->c_type, bias_c, &made, &err);
        if (st != MMT_OK) return finish(ctx, st, &err, 0, NULL);
        pthread_mutex_lock(&ctx->lock);
        if (!*slot) *slot = made, made = NULL; /* else another thread's is kept */
        mod = *slot;
        pthread_mutex_unlock(&ctx->lock);
        if (made) ctx->be->unload(made);
    }
    if (mmt_dtype_fp8(desc->c_type))
        return epilogue_fp8_apart(ctx, mod, desc, epi, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    mmt_status st = gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st != MMT_OK) return st;
    st = mmt_epilogue_launch(ctx->be, mod, epi, desc->c_type, desc->layout, m, n, NULL, 0, c, ldc,
                             atomic_load(&ctx->stream), &err);
    return st == MMT_OK ? MMT_OK : finish(ctx, st, &err, 0, NULL);
}

/* Where the i-th matrix of a strided batch starts (NULL stays NULL: a matrix not read). */
static const void *nth(const void *x, int64_t i, int64_t stride, int64_t size)
{
    return x ? (const char *)x + i * stride * size : NULL;
}

/* ---- a CPU batch of small GEMMs, spread over the host's threads ------------------------ */

/* The table's key holds the alignment of A and B (mmt_align_bytes: at most 16 bytes), which
 * depends on an address modulo 16 only: GEMM i of a strided batch has the key of GEMM
 * i mod 16, and where both strides are whole multiples of 16 bytes, every GEMM has GEMM 0's. */
#define BATCH_CLASSES 16

/* GEMMs of one problem but for their rows, each on matrices of its own: a grouped GEMM's
 * groups, a batch's GEMMs on arrays of pointers. GEMM i has rows[i] rows (0: not run). */
typedef struct gemm_list {
    int64_t count;
    int64_t *rows;
    const void **a, **b;
    void **c;
} gemm_list;

static void gemm_list_free(gemm_list *l)
{
    free(l->rows), free(l->a), free(l->b), free(l->c);
}

static mmt_status gemm_list_new(gemm_list *l, int64_t count, mmt_err *err)
{
    l->count = count;
    l->rows = malloc(sizeof *l->rows * (size_t)count);
    l->a = malloc(sizeof *l->a * (size_t)count), l->b = malloc(sizeof *l->b * (size_t)count);
    l->c = malloc(sizeof *l->c * (size_t)count);
    if (l->rows && l->a && l->b && l->c) return MMT_OK;
    gemm_list_free(l);
    return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for %lld GEMMs", (long long)count);
}

/* What the threads of a spread batch or list of GEMMs share (run_spread, run_list_spread):
 * GEMM i's operands, of a strided batch (bt) or a list (l), and its entry hit[i % classes];
 * they write only the first failure, under the lock. */
typedef struct spread {
    mmt_ctx *ctx;
    const mmt_batch *bt; /* a strided batch on a, b and c, or NULL */
    const void *a, *b;
    void *c;
    int64_t es, cs;
    const gemm_list *l; /* else a list (its GEMMs without rows skipped) */
    const mmt_table_hit *hit;
    int64_t classes;
    double alpha, beta;
    int64_t lda, ldb, ldc;
    pthread_mutex_t lock;
    int64_t failed; /* the lowest index of a GEMM that failed (the count: none), its status and error */
    mmt_status st;
    mmt_err err;
} spread;

/* GEMMs [begin, end) of a spread batch or list, in order, on the calling thread; a failure
 * ends the range there, as it ends GEMMs run one by one. */
static void spread_range(void *arg, int64_t begin, int64_t end)
{
    spread *s = arg;
    const mmt_batch *bt = s->bt;
    const gemm_list *l = s->l;
    for (int64_t i = begin; i < end; i++) {
        if (l && !l->rows[i]) continue;
        mmt_err err;
        const mmt_status st =
            mmt_table_launch(s->ctx, &s->hit[i % s->classes], s->alpha, l ? l->a[i] : nth(s->a, i, bt->stride_a, s->es),
                             s->lda, l ? l->b[i] : nth(s->b, i, bt->stride_b, s->es), s->ldb, s->beta,
                             l ? l->c[i] : (void *)nth(s->c, i, bt->stride_c, s->cs), s->ldc, &err);
        if (st == MMT_OK) continue;
        pthread_mutex_lock(&s->lock);
        if (i < s->failed) s->failed = i, s->st = st, s->err = err;
        pthread_mutex_unlock(&s->lock);
        return;
    }
}

/* A thread of a spread batch must have work enough to pay for itself: one thread for every
 * BATCH_THREAD_WORK multiply-adds of the batch, each GEMM counted BATCH_CALL_WORK more for
 * its call (a tiny GEMM's time is mostly its call). Making, starting and joining a thread
 * took some 45 us on the 2-core virtual machine of BENCHMARKS.md (15 us to make, 25 us until
 * it ran, 20 us from its end to the join), and small GEMMs on two threads at once ran there
 * at 1.2-1.8x one thread's rate: a second thread paid from about 150 us of work, some 2^23
 * multiply-adds of f32 (2^22 of f64), and lost below 100 us. */
#define BATCH_THREAD_WORK (1 << 22)
#define BATCH_CALL_WORK (1 << 12)

/* Threads for count GEMMs of mnk multiply-adds each: up to one a core, never more than GEMMs,
 * one for every BATCH_THREAD_WORK of work (at least one: the caller). */
static int batch_threads(int64_t count, double mnk)
{
    const double work = (double)count * (mnk + BATCH_CALL_WORK) / BATCH_THREAD_WORK;
    double t = mmt_usable_cores();
    if (t > count) t = (double)count;
    if (t > work) t = work;
    return t > 1 ? (int)t : 1;
}

/* A checked CPU batch (user's problem, alpha and beta as the kernels apply them) whose GEMMs
 * each run on one thread, spread over the host's cores in contiguous ranges, each GEMM
 * computed as mmt_gemm_ex computes it alone: the same entry of the table for the same key
 * (every alignment class looked up once, here), launched on one thread as it would be. A
 * GEMM runs on one thread where the CPU template runs it on one (MMT_CPU_ONE_THREAD_MNK: it
 * then asks OpenMP nothing) or OpenBLAS does (MMT_VENDOR_ONE_THREAD_MNK), and not with
 * Strassen levels (their temporaries are the context's one scratch). Returns 0 where the
 * batch is not such (the caller runs it one by one, its lookups made); else 1, *st the
 * status of the lowest GEMM that failed (err its error), else MMT_OK. The batch's calls are
 * counted at once, after its launches, as mmt_table_run counts each after its own. */
static int run_spread(mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a, int64_t lda, const void *b,
                      int64_t ldb, double beta, void *c, int64_t ldc, const mmt_batch *bt, mmt_choice *how,
                      char *config, size_t config_size, mmt_status *st, mmt_err *err)
{
    const double mnk = (double)user->m * (double)user->n * (double)user->k;
    if (ctx->async || bt->count < 2 || (mnk > MMT_CPU_ONE_THREAD_MNK && mnk > MMT_VENDOR_ONE_THREAD_MNK)) return 0;
    mmt_table_hit hit[BATCH_CLASSES]; /* GEMM i runs hit[i % classes] */
    spread s = {.ctx = ctx, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c, .lda = lda, .ldb = ldb,
                .ldc = ldc, .es = mmt_dtype_size(user->dtype), .cs = mmt_dtype_size(user->out), .bt = bt,
                .hit = hit, .lock = PTHREAD_MUTEX_INITIALIZER, .failed = bt->count};
    s.classes = (bt->stride_a * s.es) % BATCH_CLASSES == 0 && (bt->stride_b * s.es) % BATCH_CLASSES == 0 ? 1
                : bt->count < BATCH_CLASSES                                                             ? bt->count
                                                                                                        : BATCH_CLASSES;
    const int64_t last = (bt->count - 1) % s.classes; /* what mmt_last_choice says: the last GEMM's */
    for (int64_t i = 0; i < s.classes; i++) {
        mmt_choice h;
        char text[512];
        *st = mmt_table_lookup(ctx, user, 0, nth(a, i, bt->stride_a, s.es), lda, nth(b, i, bt->stride_b, s.es), ldb,
                               beta, nth(c, i, bt->stride_c, s.cs), ldc, &h, text, sizeof text, &hit[i], err);
        if (*st != MMT_OK) return 1;
        const mmt_table_hit *hi = &hit[i];
        if (!hi->repeatable || mnk > (hi->mod ? MMT_CPU_ONE_THREAD_MNK : MMT_VENDOR_ONE_THREAD_MNK)) return 0;
        if (i == last) *how = h, mmt_copy_text(config, config_size, text);
    }
    mmt_parallel_for(bt->count, 0, batch_threads(bt->count, mnk), spread_range, &s);
    for (int64_t i = 0; i < s.classes; i++)
        mmt_table_count_calls(ctx, &hit[i], bt->count / s.classes + (i < bt->count % s.classes));
    *st = s.failed < bt->count ? s.st : MMT_OK;
    if (*st != MMT_OK) *err = s.err;
    return 1;
}

/* A strided batch whose A's and C's follow one another row after row (row-major, no gaps)
 * as a grouped GEMM's groups of m rows, in one launch where the templates take it (grouped.h). */
static mmt_status batch_as_groups(mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a, int64_t lda,
                                  const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const mmt_batch *bt,
                                  mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    int64_t rows_in_all;
    if (user->layout != MMT_ROW_MAJOR || user->trans_a || bt->stride_a != user->m * lda ||
        bt->stride_c != user->m * ldc || __builtin_mul_overflow(user->m, bt->count, &rows_in_all) ||
        rows_in_all > INT32_MAX) /* the template's rows are 32-bit */
        return MMT_UNSUPPORTED;
    return mmt_grouped_run(ctx, user, bt->count, NULL, alpha, a, lda, b, ldb, bt->stride_b, beta, c, ldc, how,
                           config, config_size, err); /* NULL: every group of m rows */
}

/* A strided batch: checked whole first (nothing is written where a check fails), then one
 * call of the vendor's strided-batched routine on a GPU (device operands), else one launch
 * of the templates for GEMMs stored as a grouped GEMM's groups (batch_as_groups); on the CPU,
 * a batch of GEMMs that each run on one thread spread over the cores (run_spread); else the
 * GEMMs one by one as run_gemm runs each. *how and config: the call's, or the batch's last
 * GEMM's. */
static mmt_status run_batched(mmt_ctx *ctx, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, double alpha,
                              const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                              int64_t ldc, const mmt_batch *bt, mmt_choice *how, char *config, size_t config_size,
                              mmt_err *err)
{
    mmt_problem user;
    int64_t span[3];
    int todo, host = 0;
    FORWARD_IF_ERROR(check_sizes(d, m, n, k, lda, ldb, ldc, &user, span, err));
    RETURN_ERROR_IF(bt->count < 0, err, MMT_INVALID_ARGUMENT, "negative batch count %lld", (long long)bt->count);
    RETURN_ERROR_IF(bt->stride_a < 0 || bt->stride_b < 0 || bt->stride_c < 0, err, MMT_INVALID_ARGUMENT,
                    "negative stride (stride_a=%lld stride_b=%lld stride_c=%lld)", (long long)bt->stride_a,
                    (long long)bt->stride_b, (long long)bt->stride_c);
    const int64_t es = mmt_dtype_size(user.dtype), cs = mmt_dtype_size(user.out);
    RETURN_ERROR_IF(bt->count > 1 && bt->stride_c < span[2] / cs, err, MMT_INVALID_ARGUMENT,
                    "stride_c=%lld is less than one C (%lld elements): the batch's C matrices would overlap",
                    (long long)bt->stride_c, (long long)(span[2] / cs));
    const int64_t stride[3] = {bt->stride_a, bt->stride_b, bt->stride_c}, size[3] = {es, es, cs};
    for (int i = 0; i < 3 && bt->count > 1; i++) { /* where the last matrix ends must be a number too */
        int64_t end;
        RETURN_ERROR_IF(__builtin_mul_overflow(stride[i], size[i], &end) ||
                            __builtin_mul_overflow(end, bt->count - 1, &end) || __builtin_add_overflow(end, span[i], &end),
                        err, MMT_INVALID_ARGUMENT,
                        "a batch of %lld with stride_%c=%lld would span more bytes than 64-bit sizes hold",
                        (long long)bt->count, "abc"[i], (long long)stride[i]);
    }
    FORWARD_IF_ERROR(check_work(ctx, &user, &alpha, a, b, &beta, c, &todo, err));
    if (!todo || bt->count == 0) return MMT_OK;
    if (ctx->async) {
        FORWARD_IF_ERROR(where_operands(ctx, &user, alpha, a, b, c, &host, err));
        mmt_status st = host ? MMT_UNSUPPORTED
                             : mmt_table_run_batched(ctx, &user, alpha, a, lda, b, ldb, beta, c, ldc, bt, how, config,
                                                     config_size, err);
        if (st == MMT_UNSUPPORTED && !host)
            st = batch_as_groups(ctx, &user, alpha, a, lda, b, ldb, beta, c, ldc, bt, how, config, config_size, err);
        if (st != MMT_UNSUPPORTED) return st;
    }
    mmt_status st;
    if (run_spread(ctx, &user, alpha, a, lda, b, ldb, beta, c, ldc, bt, how, config, config_size, &st, err)) return st;
    for (int64_t i = 0; i < bt->count; i++) /* checked whole above; each GEMM's operands asked where they live */
        FORWARD_IF_ERROR(run_checked(ctx, &user, 0, 1, alpha, nth(a, i, bt->stride_a, es), lda,
                                     nth(b, i, bt->stride_b, es), ldb, beta, (void *)nth(c, i, bt->stride_c, cs), ldc,
                                     how, config, config_size, NULL, err));
    return MMT_OK;
}

mmt_status mmt_gemm_strided_batched(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k,
                                    double alpha, const void *a, int64_t lda, int64_t stride_a, const void *b,
                                    int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc,
                                    int64_t stride_c, int64_t batch)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512];
    config[0] = '\0';
    const mmt_batch bt = {batch, stride_a, stride_b, stride_c};
    mmt_status st = run_batched(ctx, desc, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &bt, &how, config,
                                sizeof config, &err);
    return finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
}

/* ---- a grouped GEMM: groups of rows of A and C, each group with its own B -------------- */

/* Elements from one row of op(A) (of C where of_c) to the next: a row-major matrix's rows
 * are lines of its leading dimension, a column-major one's are neighbours, and a transposed
 * A's rows are its stored columns. */
static int64_t row_step(const mmt_gemm_desc *d, int of_c, int64_t ld)
{
    return (of_c || d->trans_a == MMT_NO_TRANS) == (d->layout == MMT_ROW_MAJOR) ? ld : 1;
}

/* A checked CPU list of GEMMs that each run on one thread (as run_spread asks of a batch's
 * GEMMs), a GEMM to a thread as threads come free; 0 where it is not such (the caller runs
 * them one by one), else 1 with *st as run_spread's. */
static int run_list_spread(mmt_ctx *ctx, const mmt_problem *total, const gemm_list *l, double alpha, int64_t lda,
                           int64_t ldb, double beta, int64_t ldc, mmt_choice *how, char *config, size_t config_size,
                           mmt_status *st, mmt_err *err)
{
    if (ctx->async || l->count < 2) return 0;
    double work = 0;
    for (int64_t i = 0; i < l->count; i++) {
        const double mnk = (double)l->rows[i] * (double)total->n * (double)total->k;
        if (mnk > MMT_CPU_ONE_THREAD_MNK && mnk > MMT_VENDOR_ONE_THREAD_MNK) return 0;
        work += mnk;
    }
    mmt_table_hit *hit = malloc(sizeof *hit * (size_t)l->count); /* written for the GEMMs with rows */
    if (!hit) return 0;
    spread s = {.ctx = ctx, .l = l, .hit = hit, .classes = l->count, .alpha = alpha, .beta = beta, .lda = lda,
                .ldb = ldb, .ldc = ldc, .lock = PTHREAD_MUTEX_INITIALIZER, .failed = l->count};
    int spreads = 1;
    *st = MMT_OK;
    for (int64_t i = 0; i < l->count && spreads && *st == MMT_OK; i++) {
        if (!l->rows[i]) continue;
        mmt_problem user = *total;
        user.m = l->rows[i];
        /* what served the call: the last GEMM with rows (its text only) */
        *st = mmt_table_lookup(ctx, &user, 0, l->a[i], lda, l->b[i], ldb, beta, l->c[i], ldc, how, config,
                               config_size, &hit[i], err);
        const double mnk = (double)l->rows[i] * (double)user.n * (double)user.k;
        spreads = *st != MMT_OK ||
                  (hit[i].repeatable && mnk <= (hit[i].mod ? MMT_CPU_ONE_THREAD_MNK : MMT_VENDOR_ONE_THREAD_MNK));
    }
    if (*st == MMT_OK && spreads) {
        mmt_parallel_for(l->count, 1, batch_threads(l->count, work / (double)l->count), spread_range, &s);
        for (int64_t i = 0; i < l->count; i++)
            if (l->rows[i]) mmt_table_count_calls(ctx, &hit[i], 1);
        *st = s.failed < l->count ? s.st : MMT_OK;
        if (*st != MMT_OK) *err = s.err;
    }
    free(hit);
    return *st != MMT_OK || spreads;
}

/* On a GPU, device operands: the GEMMs with rows in one call of the vendor's grouped routine
 * where it pays (mmt_table_run_grouped); MMT_UNSUPPORTED where not, nothing run. *host: the
 * operands are host memory (nothing run). */
static mmt_status list_by_vendor(mmt_ctx *ctx, const mmt_problem *total, const gemm_list *l, double alpha,
                                 int64_t lda, int64_t ldb, double beta, int64_t ldc, mmt_choice *how, char *config,
                                 size_t config_size, int *host, mmt_err *err)
{
    int64_t first = 0; /* where the operands live: the first GEMM with rows says */
    while (first < l->count && !l->rows[first]) first++;
    if (first == l->count) return MMT_UNSUPPORTED;
    FORWARD_IF_ERROR(where_operands(ctx, total, alpha, l->a[first], l->b[first], l->c[first], host, err));
    if (*host) return MMT_UNSUPPORTED;
    return mmt_table_run_grouped(ctx, total, l->count, l->rows, alpha, l->a, lda, l->b, ldb, beta, l->c, ldc, how,
                                 config, config_size, err);
}

/* A checked list of GEMMs: on a GPU one call of the vendor's grouped routine where it pays
 * (list_by_vendor), else spread over the cores (run_list_spread) or one by one as
 * run_checked runs a GEMM (each GEMM's operands asked where they live). vendor_tried: the
 * caller asked list_by_vendor already. */
static mmt_status run_list(mmt_ctx *ctx, const mmt_problem *total, const gemm_list *l, double alpha, int64_t lda,
                           int64_t ldb, double beta, int64_t ldc, int vendor_tried, mmt_choice *how, char *config,
                           size_t config_size, mmt_err *err)
{
    mmt_status st = MMT_UNSUPPORTED;
    int host = 0;
    if (ctx->async && !vendor_tried)
        st = list_by_vendor(ctx, total, l, alpha, lda, ldb, beta, ldc, how, config, config_size, &host, err);
    if (st != MMT_UNSUPPORTED) return st;
    if (run_list_spread(ctx, total, l, alpha, lda, ldb, beta, ldc, how, config, config_size, &st, err)) return st;
    for (int64_t i = 0; i < l->count; i++) {
        if (!l->rows[i]) continue;
        mmt_problem user = *total;
        user.m = l->rows[i];
        FORWARD_IF_ERROR(run_checked(ctx, &user, 0, 1, alpha, l->a[i], lda, l->b[i], ldb, beta, l->c[i], ldc, how,
                                     config, config_size, NULL, err));
    }
    return MMT_OK;
}

/* A grouped GEMM: checked whole first (nothing is written where a check fails), then on a GPU
 * in one call or one launch where one takes it, else its groups as a list of GEMMs (run_list). */
static mmt_status run_grouped(mmt_ctx *ctx, const mmt_gemm_desc *d, int64_t groups, const int64_t *m_sizes,
                              int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                              int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc, mmt_choice *how,
                              char *config, size_t config_size, mmt_err *err)
{
    RETURN_ERROR_IF(groups < 0, err, MMT_INVALID_ARGUMENT, "negative group count %lld", (long long)groups);
    RETURN_ERROR_IF(groups > 0 && !m_sizes, err, MMT_INVALID_ARGUMENT, "m_sizes is NULL");
    RETURN_ERROR_IF(stride_b < 0, err, MMT_INVALID_ARGUMENT, "negative stride_b %lld", (long long)stride_b);
    int64_t sum = 0;
    for (int64_t g = 0; g < groups; g++) {
        RETURN_ERROR_IF(m_sizes[g] < 0, err, MMT_INVALID_ARGUMENT, "group %lld has %lld rows", (long long)g,
                        (long long)m_sizes[g]);
        RETURN_ERROR_IF(__builtin_add_overflow(sum, m_sizes[g], &sum), err, MMT_INVALID_ARGUMENT,
                        "the groups' rows sum beyond 64-bit sizes");
    }
    mmt_problem total;
    int64_t span[3];
    int todo;
    FORWARD_IF_ERROR(check_sizes(d, sum, n, k, lda, ldb, ldc, &total, span, err));
    const int64_t es = mmt_dtype_size(total.dtype), cs = mmt_dtype_size(total.out);
    int64_t end;
    RETURN_ERROR_IF(groups > 1 && (__builtin_mul_overflow(stride_b, es, &end) ||
                                   __builtin_mul_overflow(end, groups - 1, &end) ||
                                   __builtin_add_overflow(end, span[1], &end)),
                    err, MMT_INVALID_ARGUMENT,
                    "%lld groups with stride_b=%lld would span more bytes than 64-bit sizes hold", (long long)groups,
                    (long long)stride_b);
    FORWARD_IF_ERROR(check_work(ctx, &total, &alpha, a, b, &beta, c, &todo, err));
    if (!todo || groups == 0) return MMT_OK;
    gemm_list l;
    FORWARD_IF_ERROR(gemm_list_new(&l, groups, err));
    const int64_t step_a = row_step(d, 0, lda), step_c = row_step(d, 1, ldc);
    for (int64_t g = 0, row = 0; g < groups; row += m_sizes[g], g++) {
        l.rows[g] = m_sizes[g];
        l.a[g] = nth(a, row, step_a, es), l.b[g] = nth(b, g, stride_b, es);
        l.c[g] = (void *)nth(c, row, step_c, cs);
    }
    /* on a GPU, device operands: the vendor's grouped routine where it pays, else the
     * templates' one launch for all groups where they take the call (grouped.h) */
    mmt_status st = MMT_UNSUPPORTED;
    int host = 0;
    if (ctx->async) {
        st = list_by_vendor(ctx, &total, &l, alpha, lda, ldb, beta, ldc, how, config, config_size, &host, err);
        if (st == MMT_UNSUPPORTED && !host)
            st = mmt_grouped_run(ctx, &total, groups, m_sizes, alpha, a, lda, b, ldb, stride_b, beta, c, ldc, how,
                                 config, config_size, err);
    }
    if (st == MMT_UNSUPPORTED)
        st = run_list(ctx, &total, &l, alpha, lda, ldb, beta, ldc, ctx->async != NULL, how, config, config_size, err);
    gemm_list_free(&l);
    return st;
}

/* A batch on arrays of pointers: checked whole first (nothing is written where a check
 * fails), then its GEMMs as a list (run_list). */
static mmt_status run_batched_ptrs(mmt_ctx *ctx, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, double alpha,
                                   const void *const *a, int64_t lda, const void *const *b, int64_t ldb, double beta,
                                   void *const *c, int64_t ldc, int64_t batch, mmt_choice *how, char *config,
                                   size_t config_size, mmt_err *err)
{
    RETURN_ERROR_IF(batch < 0, err, MMT_INVALID_ARGUMENT, "negative batch count %lld", (long long)batch);
    mmt_problem user;
    int64_t span[3];
    FORWARD_IF_ERROR(check_sizes(d, m, n, k, lda, ldb, ldc, &user, span, err));
    RETURN_ERROR_IF(batch > 0 && (!a || !b || !c), err, MMT_INVALID_ARGUMENT, "an array of pointers is NULL");
    int todo = 0;
    for (int64_t i = 0; i < batch; i++) { /* each GEMM's matrices as mmt_gemm_ex asks of one */
        double al = alpha, be = beta;
        const mmt_status st = check_work(ctx, &user, &al, a[i], b[i], &be, c[i], &todo, err);
        if (st != MMT_OK) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            return mmt_err_set(err, st, "GEMM %lld of the batch: %s", (long long)i, why);
        }
        if (!todo) break; /* the same for every GEMM: C stays C */
    }
    if (!todo || batch == 0) return MMT_OK;
    if (user.mode != MMT_MODE_F64) alpha = (float)alpha, beta = (float)beta; /* as check_work rounds them */
    gemm_list l;
    FORWARD_IF_ERROR(gemm_list_new(&l, batch, err));
    for (int64_t i = 0; i < batch; i++) l.rows[i] = user.m, l.a[i] = a[i], l.b[i] = b[i], l.c[i] = c[i];
    const mmt_status st = run_list(ctx, &user, &l, alpha, lda, ldb, beta, ldc, 0, how, config, config_size, err);
    gemm_list_free(&l);
    return st;
}

mmt_status mmt_gemm_batched(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k, double alpha,
                            const void *const *a, int64_t lda, const void *const *b, int64_t ldb, double beta,
                            void *const *c, int64_t ldc, int64_t batch)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512];
    config[0] = '\0';
    const mmt_status st = run_batched_ptrs(ctx, desc, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch, &how,
                                           config, sizeof config, &err);
    return finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
}

mmt_status mmt_gemm_grouped(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t groups, const int64_t *m_sizes,
                            int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                            int64_t stride_b, double beta, void *c, int64_t ldc)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512];
    config[0] = '\0';
    const mmt_status st = run_grouped(ctx, desc, groups, m_sizes, n, k, alpha, a, lda, b, ldb, stride_b, beta, c, ldc,
                                      &how, config, sizeof config, &err);
    return finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
}

mmt_status mmt_sgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b, int64_t m,
                     int64_t n, int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                     float beta, float *c, int64_t ldc)
{
    mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, layout, trans_a, trans_b};
    return gemm(ctx, &d, 1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

mmt_status mmt_dgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b, int64_t m,
                     int64_t n, int64_t k, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
                     double beta, double *c, int64_t ldc)
{
    mmt_gemm_desc d = {MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE, layout, trans_a, trans_b};
    return gemm(ctx, &d, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
