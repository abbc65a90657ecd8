/* api.c - the public entry points (include/mmtuned.h): argument and descriptor checks,
 * layout normalisation, the sgemm policy, and the per-context table that maps a call to
 * its loaded kernel, so a repeated shape costs one hash lookup under the context's lock.
 * A first-time shape is chosen, built (cache or compiler) and loaded outside that lock,
 * so calls of shapes already served never wait behind a compile or the database; errors
 * and the last choice are kept per thread (thread views below). Entries served untuned
 * count their calls (miss.h); every few seconds a call syncs the context with the
 * database: the counts are written back and, under background tuning (autotune.h),
 * entries whose problem was tuned since switch to the tuned kernel. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autotune.h"
#include "backend.h"
#include "builder.h"
#include "err.h"
#include "family.h"
#include "kernel.h"
#include "lookup.h"
#include "miss.h"
#include "ooc.h"
#include "ooc_tuned.h"
#include "predict.h"
#include "store.h"
#include "store_serving.h"
#include "strassen.h"
#include "vendor.h"

#define N_BUCKETS 256
#define MMT_MAX_GPUS 64

/* A loaded binary, shared by every problem whose instance compiles to the same key. */
typedef struct loaded {
    char key[65];
    mmt_module *mod;
    struct loaded *next;
} loaded;

/* What the table is keyed by. The row-major problem (its mode and output type included);
 * the alignment of A and B (mmt_align_bytes of pointer and row pitch), because lookups
 * check configurations against it: one that needs 16-byte rows must never serve 2-byte
 * ones; whether the call may run f32x3 for an f32 problem (mmt_sgemm under
 * MMT_SGEMM_ALLOW_F32X3), whose answer may differ from the plain f32 one; and whether it
 * must be reproducible bit for bit (mmt_set_reproducible: no atomic split-K) and whether it
 * may run Strassen-Winograd levels (MMT_ALLOW_STRASSEN). */
typedef struct call_key {
    mmt_problem problem;
    int align_a, align_b;
    int allow_f32x3;
    int reproducible;
    int allow_levels;
} call_key;

/* What a call runs. mod, geometry, plan, choice and params change together, under the
 * lock, when a sync switches the entry to a kernel tuned since; calls copy them under the
 * lock. */
typedef struct entry {
    call_key key;
    mmt_module *mod; /* NULL: the vendor library runs it, by route */
    mmt_vendor_route route;
    mmt_geometry geometry;
    mmt_strassen_plan plan; /* levels 0: the kernel alone (the classic algorithm) */
    mmt_choice choice;
    char params[512];
    mmt_miss_counter *miss; /* counts the calls while choice is not EXACT; NULL without write-back */
    int stay;               /* its tuned kernel failed to build: keep the fallback, do not retry */
    struct entry *next;
} entry;

/* A family of a mode and its tuned entries, read from the database once. */
typedef struct served_family {
    mmt_family *family;
    mmt_best_rec *bests;
    size_t n_bests;
} served_family;

/* Per mode: the families that serve it (family.h's order), which compete for every call,
 * with the vendor family's tuned entries and what the prediction for untuned problems
 * reads (predict.h). A mode this backend lacks is remembered as such (why), so asking
 * again costs nothing. */
typedef struct served {
    served_family fam[MMT_MAX_FAMILIES];
    int n;
    mmt_best_rec *vendor_bests;
    size_t n_vendor;
    mmt_paired_rec *paired;
    size_t n_paired;
    int ready, missing;
    char why[512];
} served;

struct mmt_ctx {
    const mmt_backend *be;
    mmt_device_info dev;
    char device[64]; /* as mmt_open got it: a background mmtune's --device */
    mmt_store *st;   /* NULL without a database */
    char db_path[PATH_MAX]; /* absolute; set when the database is writable */
    mmt_misses *misses;     /* NULL unless the database opened writable: nothing is recorded then */
    mmt_autotune autotune;
    uint64_t id; /* unique per context of the process: thread views name contexts by it */
    _Atomic(void *) stream;
    pthread_mutex_t lock; /* guards the table, the modules, the additions and the policies; launches run outside it */
    int sgemm_policy;     /* mmt_sgemm_policy */
    int reproducible;     /* mmt_set_reproducible */
    int algorithm_policy; /* mmt_algorithm_policy */
    mmt_strassen_adds adds[2]; /* f32, f64: the additions of Strassen levels, loaded when an entry first has levels */
    /* The vendor library (vendor.h), opened on the first call that may need it, under
     * vendor_lock: vendor_state 0 not yet tried, 1 open, -1 absent or off (MMTUNE_VENDOR=off). */
    pthread_mutex_t vendor_lock;
    mmt_vendor *vendor;
    _Atomic int vendor_state;
    mmt_builder *builder; /* builds kernels off the callers' paths while the vendor serves */
    pthread_mutex_t modes_lock; /* guards modes: taken on first-time shapes and syncs, before lock */
    int db_unread;              /* the database failed a read of tuned entries (said once), under modes_lock */
    served modes[MMT_N_MODES];
    entry *buckets[N_BUCKETS];
    loaded *modules;
    /* Device scratch for kernels whose launch asks for it (operands packed to aligned rows)
     * and for the temporaries of Strassen levels. Every launch of a context goes to its one
     * stream, so one buffer serves them all; the mutex keeps each call's launches (pack,
     * multiply; a Strassen run's products and additions) together. */
    pthread_mutex_t ws_lock;
    void *ws;
    int64_t ws_size;
    /* Host-memory GEMMs (ooc.h), one at a time under ooc_lock: the knobs as the caller set
     * them (tiles in the caller's layout), the GPUs (gpus[i] the ordinal, peer[i] its
     * context: this one, or one opened on the same database) and their pipelines. */
    pthread_mutex_t ooc_lock;
    const mmt_cuda_async *async; /* NULL on the CPU */
    char db_arg[PATH_MAX];       /* mmt_open's db_path ("" for NULL): the peers open it too */
    mmt_host_gemm_config ooc_cfg; /* devices: ooc_devices */
    char ooc_devices[256];
    int n_gpus;
    int gpus[MMT_MAX_GPUS];
    mmt_ctx *peer[MMT_MAX_GPUS];
    mmt_ooc_device *ooc[MMT_MAX_GPUS];
};

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
static _Thread_local thread_view views[THREAD_VIEWS];
static _Thread_local uint64_t view_clock;
static _Atomic uint64_t next_ctx_id = 1;

static thread_view *view_of(uint64_t id, int make)
{
    thread_view *oldest = &views[0];
    for (int i = 0; i < THREAD_VIEWS; i++) {
        if (views[i].used && views[i].ctx_id == id) return &views[i];
        if (views[i].used < oldest->used) oldest = &views[i];
    }
    if (!make) return NULL;
    memset(oldest, 0, sizeof *oldest);
    oldest->ctx_id = id;
    oldest->used = ++view_clock;
    return oldest;
}

/* src into dst of size bytes, cut to fit: on every call's path, where snprintf's formatting
 * cost a tenth of a small GEMM's time. */
static void copy_text(char *dst, size_t size, const char *src)
{
    const size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The end of a public call on ctx: its outcome becomes this thread's view of ctx. */
static mmt_status finish(const mmt_ctx *ctx, mmt_status st, const mmt_err *err, mmt_choice choice,
                         const char *config)
{
    thread_view *v = view_of(ctx ? ctx->id : 0, 1);
    v->used = ++view_clock;
    if (st != MMT_OK) {
        v->err = *err;
        v->err.status = st;
    } else {
        mmt_err_clear(&v->err);
    }
    if (config) {
        v->choice = choice;
        copy_text(v->config, sizeof v->config, config);
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
    mmt_misses_free(ctx->misses); /* the last counts go to the database */
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
    mmt_strassen_adds_unload(&ctx->adds[0]);
    mmt_strassen_adds_unload(&ctx->adds[1]);
    for (int d = 0; d < MMT_N_MODES; d++) {
        for (int f = 0; f < ctx->modes[d].n; f++) {
            mmt_family_free(ctx->modes[d].fam[f].family);
            free(ctx->modes[d].fam[f].bests);
        }
        free(ctx->modes[d].vendor_bests);
        free(ctx->modes[d].paired);
    }
    mmt_vendor_close(ctx->vendor);
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

/* Launches mod, or runs plan's Strassen levels around it (plan NULL: none), with the
 * context's scratch when the launch asks for some (grown on demand: the old buffer is freed
 * only after the stream has finished with it). */
static mmt_status launch(mmt_ctx *ctx, mmt_module *mod, const mmt_geometry *g, const mmt_strassen_plan *plan,
                         mmt_gemm_params *gp, mmt_err *err)
{
    const int64_t need = plan ? plan->workspace : g->workspace;
    if (need <= 0) return ctx->be->launch(mod, gp, g, atomic_load(&ctx->stream), err);
    pthread_mutex_lock(&ctx->ws_lock);
    void *stream = atomic_load(&ctx->stream);
    mmt_status st = MMT_OK;
    if (ctx->ws_size < need) {
        if (ctx->ws) st = ctx->be->sync(stream, err);
        if (st == MMT_OK) {
            ctx->be->free(ctx->ws);
            ctx->ws = NULL, ctx->ws_size = 0;
            st = ctx->be->alloc(&ctx->dev, (size_t)need, &ctx->ws, err);
        }
        if (st == MMT_OK) ctx->ws_size = need;
    }
    if (st == MMT_OK) {
        gp->workspace = ctx->ws;
        gp->workspace_size = ctx->ws_size;
        st = plan ? mmt_strassen_run(ctx->be, mod, &ctx->adds[plan->elem_bytes == 8], plan, gp, stream, err)
                  : ctx->be->launch(mod, gp, g, stream, err);
    }
    pthread_mutex_unlock(&ctx->ws_lock);
    return st;
}

/* Runs the row-major problem p through the vendor library on the context's stream, by its
 * kept plan where it has one (vendor.h). alpha == 0 runs it with K = 0, C = beta C: BLAS's
 * rule that A and B are not read then, which cuBLAS's GemmEx does not keep. */
static mmt_status vendor_launch(mmt_ctx *ctx, const mmt_problem *p, mmt_vendor_route route, mmt_gemm_params *gp,
                                mmt_err *err)
{
    mmt_vendor_call call = {ctx->vendor, p->mode, p->out, route};
    if (gp->alpha == 0) gp->k = 0;
    return mmt_vendor_gemm(&call, gp, atomic_load(&ctx->stream), err);
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

static unsigned key_hash(const call_key *k)
{
    const mmt_problem *p = &k->problem;
    uint64_t kind = ((((uint64_t)p->mode * 4 + p->out) * 4 + (uint64_t)p->trans_a * 2 + p->trans_b) * 32 +
                     (uint64_t)k->align_a) * 32 + (uint64_t)k->align_b;
    uint64_t h = (uint64_t)p->m * 0x9E3779B97F4A7C15ull ^ (uint64_t)p->n * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)p->k * 0x165667B19E3779F9ull ^
                 (((kind * 2 + (uint64_t)k->allow_f32x3) * 2 + (uint64_t)k->reproducible) * 2 + (uint64_t)k->allow_levels) *
                     0x27D4EB2F165667C5ull;
    return (unsigned)(h ^ (h >> 29)) % N_BUCKETS;
}

static int same_key(const call_key *a, const call_key *b)
{
    const mmt_problem *p = &a->problem, *q = &b->problem;
    return p->m == q->m && p->n == q->n && p->k == q->k && p->dtype == q->dtype && p->out == q->out &&
           p->mode == q->mode && p->trans_a == q->trans_a && p->trans_b == q->trans_b && a->align_a == b->align_a &&
           a->align_b == b->align_b && a->allow_f32x3 == b->allow_f32x3 && a->reproducible == b->reproducible &&
           a->allow_levels == b->allow_levels;
}

/* A mode's families as the lookup sees them; returns how many. */
static int lookup_families(const served *sv, mmt_lookup_family *out)
{
    for (int f = 0; f < sv->n; f++)
        out[f] = (mmt_lookup_family){sv->fam[f].family->space, sv->fam[f].bests, sv->fam[f].n_bests};
    return sv->n;
}

/* The vendor family's tuned entries of a mode and the paired figures the prediction reads,
 * calibrated on the families' tuned entries (sv's, read before) where the vendor may serve
 * the mode, from st (replacing those sv had); a database that cannot answer leaves none, and
 * a calibration that fails none of its own (the vendor serves the untuned problems then).
 * Called under modes_lock. */
static void read_vendor_records(const mmt_ctx *ctx, mmt_store *st, mmt_mode mode, served *sv)
{
    free(sv->vendor_bests);
    free(sv->paired);
    sv->vendor_bests = NULL, sv->paired = NULL, sv->n_vendor = sv->n_paired = 0;
    if (mmt_store_best_list(st, ctx->dev.fingerprint, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, mode,
                            &sv->vendor_bests, &sv->n_vendor, NULL) != MMT_OK)
        sv->vendor_bests = NULL, sv->n_vendor = 0;
    if (mmt_store_paired_list(st, ctx->dev.fingerprint, mode, &sv->paired, &sv->n_paired, NULL) != MMT_OK)
        sv->paired = NULL, sv->n_paired = 0;
    mmt_family *fams[MMT_MAX_FAMILIES];
    mmt_lookup_family lf[MMT_MAX_FAMILIES];
    for (int f = 0; f < sv->n; f++) fams[f] = sv->fam[f].family;
    mmt_predict_trials trials = {st, &ctx->dev};
    const int predicts = atomic_load(&ctx->vendor_state) >= 0 && mmt_vendor_routine(ctx->be, mode) != NULL;
    if (predicts && sv->n_paired &&
        mmt_predict_calibrate(&ctx->dev, fams, lf, lookup_families(sv, lf), mmt_predict_measured, &trials, sv->paired,
                              sv->n_paired, NULL) != MMT_OK)
        for (size_t i = 0; i < sv->n_paired; i++) sv->paired[i].transfer = 0;
}

/* The families and tuned entries of a mode, read once. Called under modes_lock. A mode
 * this backend has no template for is MMT_UNSUPPORTED with mmt_family_find_all's message. */
static mmt_status serve_mode(mmt_ctx *ctx, mmt_mode mode, served **out, mmt_err *err)
{
    served *sv = &ctx->modes[mode];
    RETURN_ERROR_IF(sv->missing, err, MMT_UNSUPPORTED, "%s", sv->why);
    if (!sv->ready) {
        if (!sv->n) {
            mmt_family_list list;
            mmt_status st = mmt_family_find_all(ctx->be->name, mode, &list, err);
            if (st == MMT_UNSUPPORTED) {
                sv->missing = 1;
                snprintf(sv->why, sizeof sv->why, "%.500s", err->msg);
            }
            FORWARD_IF_ERROR(st);
            for (int f = 0; f < list.n; f++) sv->fam[f].family = list.f[f];
            sv->n = list.n;
        }
        for (int f = 0; ctx->st && f < sv->n; f++) {
            served_family *sf = &sv->fam[f];
            free(sf->bests);
            sf->bests = NULL;
            mmt_err why;
            if (mmt_store_best_list(ctx->st, ctx->dev.fingerprint, sf->family->name, sf->family->source_hash, mode,
                                    &sf->bests, &sf->n_bests, &why) == MMT_OK)
                continue;
            /* a damaged or foreign database: what it cannot say is served as untuned (the
             * defaults and the vendor), never a failed GEMM; said once a context */
            sf->bests = NULL, sf->n_bests = 0;
            if (!ctx->db_unread++)
                fprintf(stderr, "libmmtuned: %.600s; serving without its tuned entries\n", why.msg);
        }
        if (ctx->st) read_vendor_records(ctx, ctx->st, mode, sv);
        sv->ready = 1;
    }
    *out = sv;
    return MMT_OK;
}

/* The module already loaded for key, or NULL. Called under lock. */
static mmt_module *module_find(const mmt_ctx *ctx, const char *key)
{
    for (const loaded *l = ctx->modules; l; l = l->next)
        if (strcmp(l->key, key) == 0) return l->mod;
    return NULL;
}

/* Builds (cache, or the compiler where compile) and loads an instance: MMT_NOT_FOUND where
 * it is not compiled and compile is 0. Uses the backend and the database connection only
 * (which serialises its own use), so it may run outside the lock. */
static mmt_status module_build(mmt_ctx *ctx, const mmt_family *fam, const char *defines, int compile,
                               mmt_module **out, mmt_err *err)
{
    void *bin;
    size_t size;
    char *log = NULL;
    mmt_status st = compile ? mmt_kernel_binary(ctx->be, &ctx->dev, fam->name, fam->source, defines, &bin,
                                                &size, &log, NULL, err)
                            : mmt_kernel_cached(ctx->be, &ctx->dev, fam->name, fam->source, defines, &bin,
                                                &size, err);
    free(log);
    FORWARD_IF_ERROR(st);
    st = ctx->be->load(&ctx->dev, bin, size, fam->space->entry, out, err);
    free(bin);
    return st;
}

/* Keeps mod under key until mmt_close. Called under lock; *out is the module to use:
 * mod, or the one another thread kept under the same key meanwhile (mod is unloaded). */
static mmt_status module_keep(mmt_ctx *ctx, const char *key, mmt_module *mod, mmt_module **out, mmt_err *err)
{
    mmt_module *have = module_find(ctx, key);
    loaded *l = have ? NULL : calloc(1, sizeof *l);
    if (have || !l) {
        ctx->be->unload(mod);
        *out = have;
        return have ? MMT_OK : mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(l->key, sizeof l->key, "%s", key);
    l->mod = mod;
    l->next = ctx->modules;
    ctx->modules = l;
    *out = mod;
    return MMT_OK;
}

/* The module of an instance, loaded once per context: found under lock, else built
 * outside it (two threads may build the same one: module_keep keeps the first); where not
 * compile, MMT_NOT_FOUND if that would take a compiler. */
static mmt_status load_module(mmt_ctx *ctx, const mmt_family *fam, const char *defines, int compile,
                              mmt_module **out, mmt_err *err)
{
    char key[65];
    FORWARD_IF_ERROR(mmt_kernel_key(ctx->be, &ctx->dev, fam->source, defines, key, err));
    pthread_mutex_lock(&ctx->lock);
    *out = module_find(ctx, key);
    pthread_mutex_unlock(&ctx->lock);
    if (*out) return MMT_OK;
    mmt_module *mod;
    FORWARD_IF_ERROR(module_build(ctx, fam, defines, compile, &mod, err));
    pthread_mutex_lock(&ctx->lock);
    mmt_status st = module_keep(ctx, key, mod, out, err);
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

/* A configuration chosen for a call, before anything is built. */
typedef struct pick {
    int by_vendor;     /* the vendor library, not a template (sf, cfg unused) */
    mmt_vendor_route route; /* by_vendor: how it is called */
    served_family *sf; /* the family chosen */
    mmt_problem problem; /* row-major; its mode is the one that runs */
    mmt_config cfg;
    mmt_choice how;
    double gflops; /* recorded for the tuned entry chosen; 0 for the default */
} pick;

static mmt_space_env env_of(const mmt_ctx *ctx, const mmt_problem *p, const call_key *k)
{
    mmt_space_env env = {.problem = p, .device = &ctx->dev, .align_a = k->align_a, .align_b = k->align_b,
                         .reproducible = k->reproducible,
                         .allow_levels = k->allow_levels};
    return env;
}

/* The additions of dtype's Strassen levels, loaded once per context: looked for under lock,
 * else built outside it (two threads may both build them: the first kept stays). */
static mmt_status load_adds(mmt_ctx *ctx, mmt_dtype dtype, mmt_err *err)
{
    const int i = dtype == MMT_F64;
    pthread_mutex_lock(&ctx->lock);
    const int have = ctx->adds[i].be != NULL;
    pthread_mutex_unlock(&ctx->lock);
    if (have) return MMT_OK;
    mmt_strassen_adds adds;
    FORWARD_IF_ERROR(mmt_strassen_adds_load(ctx->be, &ctx->dev, dtype, &adds, err));
    pthread_mutex_lock(&ctx->lock);
    const int first = ctx->adds[i].be == NULL;
    if (first) ctx->adds[i] = adds;
    pthread_mutex_unlock(&ctx->lock);
    if (!first) mmt_strassen_adds_unload(&adds);
    return MMT_OK;
}

/* The plan of a configuration chosen for env (levels 0 where it has none), with its
 * additions loaded. The lookup let its levels through only where the plan holds. */
static mmt_status plan_levels(mmt_ctx *ctx, const mmt_space *s, const mmt_config *cfg, const mmt_space_env *env,
                              mmt_strassen_plan *plan, mmt_err *err)
{
    memset(plan, 0, sizeof *plan);
    if (mmt_config_levels(s, cfg) == 0) return MMT_OK;
    int valid = 0;
    FORWARD_IF_ERROR(mmt_strassen_plan_make(s, cfg, env, plan, &valid, err));
    RETURN_ERROR_IF(!valid, err, MMT_INTERNAL, "%s: a configuration with Strassen levels chosen where they cannot run",
                    s->file);
    return load_adds(ctx, env->problem->dtype, err);
}

/* The f32x3 rival of an f32 call under MMT_SGEMM_ALLOW_F32X3: only a tuned entry counts
 * (a default's speed is unknown). *found is 0 if there is none, or if this backend has no
 * f32x3 family: that is plain f32, not an error. */
static mmt_status pick_f32x3(mmt_ctx *ctx, const call_key *k, pick *out, int *found, mmt_err *err)
{
    *found = 0;
    out->problem = k->problem;
    out->problem.mode = MMT_MODE_F32X3;
    mmt_err why; /* a missing family is no failure: it leaves no message */
    served *sv;
    mmt_status st = serve_mode(ctx, MMT_MODE_F32X3, &sv, &why);
    if (st == MMT_UNSUPPORTED) return MMT_OK;
    if (st != MMT_OK) return mmt_err_set(err, st, "%s", why.msg);
    FORWARD_IF_ERROR(st);
    mmt_space_env env = env_of(ctx, &out->problem, k);
    mmt_lookup_family fams[MMT_MAX_FAMILIES];
    int which = mmt_lookup_tuned_among(fams, lookup_families(sv, fams), &env, &out->cfg, &out->how, &out->gflops);
    *found = which >= 0;
    if (*found) out->sf = &sv->fam[which];
    return MMT_OK;
}

/* The entry of row-major problem p itself in bests, or NULL: a cheap test before a lookup,
 * which parses and checks configurations. */
static const mmt_best_rec *exact_entry(const mmt_best_rec *bests, size_t n, const mmt_problem *p)
{
    for (size_t i = 0; i < n; i++) {
        const mmt_problem q = mmt_problem_normalise(&bests[i].problem);
        if (mmt_problem_equal(&q, p)) return &bests[i];
    }
    return NULL;
}

/* A family whose tuned entry for this very problem the call rules out (aligned loads for
 * operands that are not, atomic split-K under mmt_set_reproducible) offers the fastest other
 * configuration measured for the problem that the call allows: a figure of this problem,
 * before a neighbour's guess or a default, and against another family's exact entry by
 * GFLOP/s. pk is left alone where that is not faster. Called under modes_lock. */
static mmt_status pick_measured(mmt_ctx *ctx, served *sv, const mmt_space_env *env, pick *pk, mmt_err *err)
{
    mmt_lookup_family fams[MMT_MAX_FAMILIES];
    int of[MMT_MAX_FAMILIES], n = 0;
    mmt_status st = MMT_OK;
    for (int f = 0; ctx->st && st == MMT_OK && f < sv->n; f++) {
        const mmt_family *fam = sv->fam[f].family;
        const mmt_best_rec *b = exact_entry(sv->fam[f].bests, sv->fam[f].n_bests, env->problem);
        mmt_config c;
        mmt_choice h;
        if (!b || mmt_lookup_tuned(fam->space, b, 1, env, &c, &h, NULL)) continue; /* none, or it runs */
        mmt_best_rec *measured;
        size_t count;
        st = mmt_store_measured_list(ctx->st, ctx->dev.fingerprint, fam->name, fam->source_hash, &b->problem,
                                     &measured, &count, err);
        if (st == MMT_OK) fams[n] = (mmt_lookup_family){fam->space, measured, count}, of[n++] = f;
    }
    pick m = *pk;
    const int which = st == MMT_OK ? mmt_lookup_tuned_among(fams, n, env, &m.cfg, &m.how, &m.gflops) : -1;
    if (which >= 0 && (pk->how != MMT_CHOICE_EXACT || m.gflops > pk->gflops)) m.sf = &sv->fam[of[which]], *pk = m;
    for (int i = 0; i < n; i++) free((void *)fams[i].bests);
    return st;
}

/* Whether the vendor library may serve mode: it has a routine for it, and is not off nor
 * known absent (it may not be opened yet). */
static int vendor_may_serve(const mmt_ctx *ctx, mmt_mode mode)
{
    return atomic_load(&ctx->vendor_state) >= 0 && mmt_vendor_routine(ctx->be, mode) != NULL;
}

/* The vendor library where it may serve mode: opened by the first call that asks (cuBLAS
 * makes its handle then), NULL where it is absent, off (MMTUNE_VENDOR=off) or has no routine
 * for the mode. Never under lock or modes_lock: opening it can take a while. */
static mmt_vendor *vendor_for(mmt_ctx *ctx, mmt_mode mode)
{
    if (atomic_load(&ctx->vendor_state) < 0) return NULL;
    pthread_mutex_lock(&ctx->vendor_lock);
    if (atomic_load(&ctx->vendor_state) == 0) {
        mmt_err ignore; /* absent is no failure: the templates serve */
        atomic_store(&ctx->vendor_state, mmt_vendor_open(ctx->be, &ctx->dev, &ctx->vendor, &ignore) == MMT_OK ? 1 : -1);
    }
    mmt_vendor *v = ctx->vendor;
    pthread_mutex_unlock(&ctx->vendor_lock);
    return v && mmt_vendor_routine(ctx->be, mode) ? v : NULL;
}

/* Whether the vendor library serves k instead of pk, the templates' choice: where the vendor
 * family has a tuned entry for this very problem, or, for a problem no family tuned, where
 * the prediction does not expect a template to beat it (predict.h). The tuner keeps that
 * entry only where the vendor was the faster or the more accurate beside every family's
 * winner, so it serves, even where a template's figure is the higher: that figure may be of
 * Strassen levels the call does not run, or of a less accurate kernel. A choice the call
 * opted into (f32x3 for an SGEMM, Strassen levels) races it on speed alone. Sets
 * pk->by_vendor and pk->how (EXACT, or MMT_CHOICE_VENDOR). Called under modes_lock. */
static void vendor_or_template(const served *sv, const call_key *k, pick *pk)
{
    const mmt_best_rec *vb = exact_entry(sv->vendor_bests, sv->n_vendor, &k->problem);
    const int opted = pk->how == MMT_CHOICE_EXACT && pk->sf &&
                      (pk->problem.mode != k->problem.mode || mmt_config_levels(pk->sf->family->space, &pk->cfg) > 0);
    const mmt_choice by = mmt_predict_serve(pk->how, opted ? pk->gflops : 0, vb ? &vb->gflops : NULL, sv->paired,
                                            sv->n_paired, &k->problem, 0, NULL);
    if (by == MMT_CHOICE_NONE) return;
    pk->by_vendor = 1, pk->how = by;
    /* the route the tuner measured for this very problem; elsewhere the lean one */
    pk->route = by == MMT_CHOICE_EXACT ? mmt_vendor_route_of(vb->params) : MMT_VENDOR_PLAN;
    if (by == MMT_CHOICE_EXACT) pk->gflops = vb->gflops;
}

/* Entry e runs the vendor library: what mmt_last_choice says of it. Under lock, or before
 * e is shared. */
static void vendor_entry(const mmt_ctx *ctx, entry *e, mmt_choice how, mmt_vendor_route route)
{
    e->mod = NULL;
    e->choice = how;
    e->route = route;
    memset(&e->plan, 0, sizeof e->plan);
    snprintf(e->params, sizeof e->params, "LIBRARY=%s,ROUTINE=%s", mmt_vendor_name(ctx->vendor),
             route == MMT_VENDOR_PLAN_WORKSPACE ? MMT_VENDOR_LT_ROUTINE : mmt_vendor_routine(ctx->be, e->key.problem.mode));
}

static void switch_entry(mmt_ctx *ctx, entry *e, const pick *chosen);

/* A kernel built off the callers' paths (builder.h): the entry runs the vendor meanwhile. */
typedef struct build_job {
    mmt_ctx *ctx;
    entry *e;
    pick pk;
} build_job;

static void build_in_background(void *arg, int run)
{
    build_job *j = arg;
    if (run) switch_entry(j->ctx, j->e, &j->pk);
    free(j);
}

/* The entry of k in the table, or NULL. Called under lock. */
static entry *table_find(const mmt_ctx *ctx, const call_key *k)
{
    for (entry *e = ctx->buckets[key_hash(k)]; e; e = e->next)
        if (same_key(&e->key, k)) return e;
    return NULL;
}

/* A first-time call: its configuration chosen (under modes_lock: the families and their
 * tuned entries, the vendor family's and the prediction's records), built and loaded
 * (outside every lock), then added to the table, where another thread may have put the same
 * key meanwhile (its entry is used). Where the vendor library serves the mode, no compile
 * happens on the caller's path: a template whose binary is not cached is built by the
 * context's builder while the vendor runs the calls. */
static mmt_status make_entry(mmt_ctx *ctx, const call_key *k, entry **out, mmt_err *err)
{
    pick pk = {.problem = k->problem};
    mmt_space_env env = env_of(ctx, &pk.problem, k);
    /* the vendor library is opened only where it serves: an application whose shapes its
     * templates serve never loads it (nor OpenBLAS's threads) */
    const int vendor_may = vendor_may_serve(ctx, k->problem.mode);
    pthread_mutex_lock(&ctx->modes_lock);
    served *sv;
    mmt_status st = serve_mode(ctx, k->problem.mode, &sv, err);
    if (st == MMT_OK) {
        mmt_lookup_family fams[MMT_MAX_FAMILIES];
        int which;
        st = mmt_lookup_choose_among(fams, lookup_families(sv, fams), &env, &pk.cfg, &pk.how, &pk.gflops, &which,
                                     err);
        if (st == MMT_OK) pk.sf = &sv->fam[which];
        if (st == MMT_OK) st = pick_measured(ctx, sv, &env, &pk, err);
    }
    if (st == MMT_OK && k->allow_f32x3) {
        pick rival;
        int found;
        st = pick_f32x3(ctx, k, &rival, &found, err);
        if (st == MMT_OK && found && rival.gflops > pk.gflops) pk = rival;
    }
    const pick templates = pk;
    if (st == MMT_OK && vendor_may) vendor_or_template(sv, k, &pk);
    pthread_mutex_unlock(&ctx->modes_lock);
    FORWARD_IF_ERROR(st);
    if (pk.by_vendor && !vendor_for(ctx, k->problem.mode)) pk = templates; /* it does not open */

    entry *e = calloc(1, sizeof *e);
    RETURN_ERROR_IF(!e, err, MMT_OUT_OF_MEMORY, "out of memory");
    e->key = *k;
    int background = 0;
    if (pk.by_vendor) {
        vendor_entry(ctx, e, pk.how, pk.route);
    } else {
        const mmt_space *s = pk.sf->family->space;
        env = env_of(ctx, &pk.problem, k);
        char defines[4096];
        st = mmt_kernel_defines(s, &pk.cfg, &env, defines, sizeof defines, err);
        if (st == MMT_OK) st = mmt_space_geometry(s, &pk.cfg, &env, &e->geometry, err);
        if (st == MMT_OK) st = plan_levels(ctx, s, &pk.cfg, &env, &e->plan, err);
        /* a kernel no cache holds: the vendor runs the calls while the builder compiles it */
        if (st == MMT_OK) st = load_module(ctx, pk.sf->family, defines, !vendor_may, &e->mod, err);
        if (st == MMT_NOT_FOUND && (background = vendor_for(ctx, k->problem.mode) != NULL)) {
            vendor_entry(ctx, e, MMT_CHOICE_VENDOR, MMT_VENDOR_PLAN);
            st = MMT_OK;
        } else if (st == MMT_NOT_FOUND) { /* the vendor does not open after all */
            st = load_module(ctx, pk.sf->family, defines, 1, &e->mod, err);
        }
        if (!background) {
            e->choice = pk.how;
            mmt_config_format(s, &pk.cfg, e->params, sizeof e->params);
        }
        if (st != MMT_OK) {
            free(e);
            return st;
        }
    }
    if (pk.how != MMT_CHOICE_EXACT && ctx->misses) e->miss = mmt_misses_counter(ctx->misses, &k->problem);
    pthread_mutex_lock(&ctx->lock);
    entry *have = table_find(ctx, k);
    if (!have) {
        unsigned b = key_hash(k);
        e->next = ctx->buckets[b];
        ctx->buckets[b] = e;
        e->stay = background; /* a sync leaves it alone: its kernel is on the way */
    }
    pthread_mutex_unlock(&ctx->lock);
    if (have) {
        free(e); /* its module stays with the context, shared by key */
    } else if (background) {
        build_job *job = malloc(sizeof *job);
        if (job) *job = (build_job){ctx, e, pk};
        if (!job || mmt_builder_submit(ctx->builder, build_in_background, job) != 0) {
            free(job); /* no thread: the vendor keeps it */
        }
    }
    *out = have ? have : e;
    return MMT_OK;
}

/* Whether k's problem has a tuned entry of its own in the bests read now, and which
 * configuration runs it: the rule of make_entry, where only an EXACT answer counts (an f32
 * call allowed f32x3 keeps its fallback if an untuned f32x3 choice would beat the tuned
 * f32 one). Reads only modes already served. Called under modes_lock. */
static int tuned_now(mmt_ctx *ctx, const call_key *k, pick *out)
{
    served *sv = &ctx->modes[k->problem.mode];
    const int vendor = vendor_may_serve(ctx, k->problem.mode);
    int exact = vendor && sv->ready && exact_entry(sv->vendor_bests, sv->n_vendor, &k->problem) != NULL;
    for (int f = 0; sv->ready && f < sv->n; f++)
        exact |= exact_entry(sv->fam[f].bests, sv->fam[f].n_bests, &k->problem) != NULL;
    if (!exact) return 0;
    *out = (pick){.problem = k->problem, .how = MMT_CHOICE_NONE};
    mmt_space_env env = env_of(ctx, &out->problem, k);
    mmt_lookup_family fams[MMT_MAX_FAMILIES];
    int which = mmt_lookup_tuned_among(fams, lookup_families(sv, fams), &env, &out->cfg, &out->how, &out->gflops);
    if (which >= 0) out->sf = &sv->fam[which];
    if (pick_measured(ctx, sv, &env, out, NULL) != MMT_OK) return 0;
    served *x3 = &ctx->modes[MMT_MODE_F32X3];
    if (out->how == MMT_CHOICE_EXACT && k->allow_f32x3 && x3->ready) {
        pick rival = {.problem = k->problem};
        rival.problem.mode = MMT_MODE_F32X3;
        env = env_of(ctx, &rival.problem, k);
        which = mmt_lookup_tuned_among(fams, lookup_families(x3, fams), &env, &rival.cfg, &rival.how, &rival.gflops);
        if (which >= 0 && rival.gflops > out->gflops) {
            if (rival.how != MMT_CHOICE_EXACT) return 0;
            rival.sf = &x3->fam[which];
            *out = rival;
        }
    }
    if (vendor) vendor_or_template(sv, k, out); /* its tuned entry, where it has the faster one */
    return out->how == MMT_CHOICE_EXACT;
}

/* Reads the bests of every mode an untuned entry runs (or might run) again, through the
 * write-back connection, so tuning done since the context opened (a background mmtune, or
 * anyone's) is seen; new shapes are looked up against them too. */
static void reread_bests(mmt_ctx *ctx, mmt_store *st)
{
    unsigned modes = 0;
    pthread_mutex_lock(&ctx->lock);
    for (int b = 0; b < N_BUCKETS; b++)
        for (const entry *e = ctx->buckets[b]; e; e = e->next)
            if (e->choice != MMT_CHOICE_EXACT)
                modes |= 1u << e->key.problem.mode | (e->key.allow_f32x3 ? 1u << MMT_MODE_F32X3 : 0);
    pthread_mutex_unlock(&ctx->lock);
    for (int mode = 0; mode < MMT_N_MODES; mode++) {
        served *sv = &ctx->modes[mode];
        pthread_mutex_lock(&ctx->modes_lock);
        const int n_fams = modes & (1u << mode) && sv->ready ? sv->n : 0;
        pthread_mutex_unlock(&ctx->modes_lock);
        for (int f = 0; f < n_fams; f++) { /* a served mode's families stay until mmt_close */
            const mmt_family *fam = sv->fam[f].family;
            mmt_best_rec *bests;
            size_t n;
            if (mmt_store_best_list(st, ctx->dev.fingerprint, fam->name, fam->source_hash, (mmt_mode)mode, &bests,
                                    &n, NULL) != MMT_OK)
                continue;
            pthread_mutex_lock(&ctx->modes_lock);
            free(sv->fam[f].bests);
            sv->fam[f].bests = bests;
            sv->fam[f].n_bests = n;
            pthread_mutex_unlock(&ctx->modes_lock);
        }
        if (n_fams) {
            pthread_mutex_lock(&ctx->modes_lock);
            read_vendor_records(ctx, st, (mmt_mode)mode, sv);
            pthread_mutex_unlock(&ctx->modes_lock);
        }
    }
}

/* Switches untuned entry e to the tuned configuration pk. The kernel is built and loaded
 * outside the lock and swapped in under it; a call in flight keeps the module it copied
 * (modules live until mmt_close). A kernel that fails to build leaves the entry on its
 * fallback for good. */
static void switch_entry(mmt_ctx *ctx, entry *e, const pick *chosen)
{
    pick pk = *chosen;
    if (pk.by_vendor) {
        const int open = vendor_for(ctx, e->key.problem.mode) != NULL; /* outside every lock */
        pthread_mutex_lock(&ctx->lock);
        if (open) vendor_entry(ctx, e, pk.how, pk.route);
        else e->stay = 1;
        pthread_mutex_unlock(&ctx->lock);
        return;
    }
    mmt_err err; /* not the caller's: a sync's failure is no failure of the call */
    const mmt_family *fam = pk.sf->family;
    const mmt_space *s = fam->space;
    mmt_space_env env = env_of(ctx, &pk.problem, &e->key);
    char defines[4096], key[65], params[512];
    mmt_geometry g;
    mmt_strassen_plan plan;
    mmt_module *mod = NULL;
    int built = 0, ok = mmt_kernel_defines(s, &pk.cfg, &env, defines, sizeof defines, &err) == MMT_OK &&
                        mmt_space_geometry(s, &pk.cfg, &env, &g, &err) == MMT_OK &&
                        plan_levels(ctx, s, &pk.cfg, &env, &plan, &err) == MMT_OK;
    if (ok) ok = mmt_kernel_key(ctx->be, &ctx->dev, fam->source, defines, key, &err) == MMT_OK;
    if (ok) {
        pthread_mutex_lock(&ctx->lock);
        mod = module_find(ctx, key);
        pthread_mutex_unlock(&ctx->lock);
        if (!mod) ok = built = module_build(ctx, fam, defines, 1, &mod, &err) == MMT_OK;
    }
    mmt_config_format(s, &pk.cfg, params, sizeof params);
    pthread_mutex_lock(&ctx->lock);
    if (built) ok = module_keep(ctx, key, mod, &mod, &err) == MMT_OK;
    if (ok) {
        e->mod = mod;
        e->geometry = g;
        e->plan = plan;
        e->choice = pk.how;
        e->stay = 0;
        snprintf(e->params, sizeof e->params, "%s", params);
    } else {
        e->stay = 1;
    }
    pthread_mutex_unlock(&ctx->lock);
}

/* Every untuned entry whose problem is tuned now switches to its tuned kernel: found in
 * one pass under the lock, switched one by one outside it. */
static void switch_tuned(mmt_ctx *ctx)
{
    typedef struct todo {
        entry *e;
        pick pk;
    } todo;
    todo *list = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&ctx->modes_lock); /* tuned_now reads the modes; the order is modes_lock, lock */
    pthread_mutex_lock(&ctx->lock);
    for (int b = 0; b < N_BUCKETS; b++)
        for (entry *c = ctx->buckets[b]; c; c = c->next) {
            pick pk;
            if (c->choice == MMT_CHOICE_EXACT || c->stay || !tuned_now(ctx, &c->key, &pk)) continue;
            if (n == cap) {
                todo *grown = realloc(list, (cap = cap ? 2 * cap : 8) * sizeof *list);
                if (!grown) break; /* the rest waits for the next sync */
                list = grown;
            }
            list[n++] = (todo){c, pk};
        }
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_unlock(&ctx->modes_lock);
    for (size_t i = 0; i < n; i++) switch_entry(ctx, list[i].e, &list[i].pk);
    free(list);
}

/* A due call's sync: write the miss counts back and, under background tuning, switch the
 * entries tuned since. The caller owns the sync (mmt_misses_due) until the end. */
static void sync_with_database(mmt_ctx *ctx)
{
    mmt_misses_flush(ctx->misses);
    mmt_store *st = ctx->autotune.on ? mmt_misses_store(ctx->misses) : NULL;
    if (st) {
        reread_bests(ctx, st);
        switch_tuned(ctx);
    }
    mmt_misses_done(ctx->misses);
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
    RETURN_ERROR_IF(!mmt_dtype_name(d->ab_type), err, MMT_INVALID_ARGUMENT,
                    "unknown ab_type %d (MMT_F32, MMT_F64, MMT_BF16, MMT_F16)", (int)d->ab_type);
    RETURN_ERROR_IF(!mmt_dtype_name(d->c_type), err, MMT_INVALID_ARGUMENT,
                    "unknown c_type %d (MMT_F32, MMT_F64, MMT_BF16, MMT_F16)", (int)d->c_type);
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
                    mmt_dtype_name(d->ab_type), compute_name(d->compute));
    *p = (mmt_problem){.dtype = d->ab_type, .out = d->c_type, .mode = mode, .layout = d->layout,
                       .trans_a = d->trans_a == MMT_TRANS, .trans_b = d->trans_b == MMT_TRANS};
    const char *why = mmt_problem_check(p);
    RETURN_ERROR_IF(why, err, MMT_INVALID_ARGUMENT, "c_type %s with ab_type %s: %s", mmt_dtype_name(d->c_type),
                    mmt_dtype_name(d->ab_type), why);
    return MMT_OK;
}

static mmt_status run_gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int host_ok, int64_t m, int64_t n,
                           int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                           void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err);

/* What a GPU's tiles run through: the GEMM of its context on device operands, whose choice
 * is kept from the first tile for the caller. */
typedef struct tile_runner {
    mmt_ctx *ctx;
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
    FORWARD_IF_ERROR(run_gemm(r->ctx, d, r->sgemm, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &how, config,
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
static mmt_status host_gemm(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a,
                            int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how,
                            char *config, size_t config_size, mmt_err *err)
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
        runners[i] = (tile_runner){.ctx = peer, .sgemm = sgemm};
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
             "%.360s%sOOC_TILE_M=%lld,OOC_TILE_N=%lld,OOC_PANEL_K=%lld,OOC_STREAMS=%d,OOC_GPUS=%d,OOC_TUNED=%s",
             first->config, *first->config ? "," : "", (long long)(swap ? plan.tile_n : plan.tile_m),
             (long long)(swap ? plan.tile_m : plan.tile_n), (long long)plan.panel_k, plan.streams, job.n_gpus,
             fell_back ? "too_big" : tuned == MMT_CHOICE_EXACT ? "exact" : tuned == MMT_CHOICE_NEAREST ? "nearest"
                                                                                                          : "none");
    return MMT_OK;
}

/* A GEMM call: checked, normalised, looked up (made the first time), launched; *how and
 * config say what served it. sgemm: the call came through mmt_sgemm, whose policy may allow
 * f32x3; mmt_gemm_ex runs exactly what its descriptor says. host_ok: operands may be host
 * memory on a GPU (a public call; the out-of-core GEMM's tiles are device operands). */
static mmt_status run_gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int host_ok, int64_t m, int64_t n,
                           int64_t k, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                           void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    mmt_problem user;
    FORWARD_IF_ERROR(check_desc(d, &user, err));
    RETURN_ERROR_IF(m < 0 || n < 0 || k < 0, err, MMT_INVALID_ARGUMENT, "negative size m=%lld n=%lld k=%lld",
                    (long long)m, (long long)n, (long long)k);
    int tra = user.trans_a, trb = user.trans_b;
    RETURN_ERROR_IF(!ld_ok(d->layout, tra ? k : m, tra ? m : k, lda), err, MMT_INVALID_ARGUMENT,
                    "lda=%lld is too small", (long long)lda);
    RETURN_ERROR_IF(!ld_ok(d->layout, trb ? n : k, trb ? k : n, ldb), err, MMT_INVALID_ARGUMENT,
                    "ldb=%lld is too small", (long long)ldb);
    RETURN_ERROR_IF(!ld_ok(d->layout, m, n, ldc), err, MMT_INVALID_ARGUMENT, "ldc=%lld is too small",
                    (long long)ldc);
    /* what each matrix spans in bytes must be a number: sizes whose products wrap around
     * would have the kernels index a small buffer as a huge one */
    const int row = d->layout == MMT_ROW_MAJOR;
    int64_t span;
    RETURN_ERROR_IF(mmt_span_bytes(row == !tra ? m : k, row == !tra ? k : m, lda, mmt_dtype_size(user.dtype),
                                   &span) != 0 ||
                        mmt_span_bytes(row == !trb ? k : n, row == !trb ? n : k, ldb, mmt_dtype_size(user.dtype),
                                       &span) != 0 ||
                        mmt_span_bytes(row ? m : n, row ? n : m, ldc, mmt_dtype_size(user.out), &span) != 0,
                    err, MMT_INVALID_ARGUMENT,
                    "m=%lld n=%lld k=%lld with lda=%lld ldb=%lld ldc=%lld: a matrix would span more bytes than "
                    "64-bit sizes hold",
                    (long long)m, (long long)n, (long long)k, (long long)lda, (long long)ldb, (long long)ldc);
    if (user.mode != MMT_MODE_F64) { /* the contract: alpha and beta are applied in fp32 */
        alpha = (float)alpha;
        beta = (float)beta;
    }
    if (m == 0 || n == 0) { /* nothing to compute, but an unserved mode says so whatever the size */
        served *sv;
        pthread_mutex_lock(&ctx->modes_lock);
        mmt_status st = serve_mode(ctx, user.mode, &sv, err);
        pthread_mutex_unlock(&ctx->modes_lock);
        return st;
    }
    RETURN_ERROR_IF(!c, err, MMT_INVALID_ARGUMENT, "C is NULL");
    RETURN_ERROR_IF(k > 0 && alpha != 0 && (!a || !b), err, MMT_INVALID_ARGUMENT, "A or B is NULL");
    if ((alpha == 0 || k == 0) && beta == 1) return MMT_OK; /* BLAS's quick return: C stays C */
    if (host_ok && ctx->async) { /* a GPU: one query per operand read says where it lives */
        const int host_c = ctx->async->is_host(c), reads = k > 0 && alpha != 0;
        const int host_a = reads ? ctx->async->is_host(a) : host_c, host_b = reads ? ctx->async->is_host(b) : host_c;
        RETURN_ERROR_IF(host_a != host_c || host_b != host_c, err, MMT_INVALID_ARGUMENT,
                        "A, B and C must all be device memory or all host memory (A is %s, B %s, C %s memory)",
                        host_a ? "host" : "device", host_b ? "host" : "device", host_c ? "host" : "device");
        if (host_c) {
            user.m = m, user.n = n, user.k = k;
            return host_gemm(ctx, &user, sgemm, alpha, a, lda, b, ldb, beta, c, ldc, how, config, config_size, err);
        }
    }

    user.m = m, user.n = n, user.k = k;
    call_key key = {.problem = mmt_problem_normalise(&user)};
    int swap = d->layout == MMT_COL_MAJOR;
    mmt_gemm_params gp = {.m = key.problem.m, .n = key.problem.n, .k = key.problem.k, .lda = swap ? ldb : lda,
                          .ldb = swap ? lda : ldb, .ldc = ldc, .trans_a = key.problem.trans_a,
                          .trans_b = key.problem.trans_b, .alpha = alpha, .beta = beta, .a = swap ? b : a,
                          .b = swap ? a : b, .c = c};
    const int es = mmt_dtype_size(user.dtype);
    key.align_a = mmt_align_bytes((uintptr_t)gp.a, gp.lda * es);
    key.align_b = mmt_align_bytes((uintptr_t)gp.b, gp.ldb * es);

    /* the fast path: one lookup under the lock; a first-time key is made outside it */
    pthread_mutex_lock(&ctx->lock);
    key.allow_f32x3 = sgemm && ctx->sgemm_policy == MMT_SGEMM_ALLOW_F32X3;
    key.reproducible = ctx->reproducible;
    key.allow_levels = ctx->algorithm_policy == MMT_ALLOW_STRASSEN;
    entry *e = table_find(ctx, &key);
    pthread_mutex_unlock(&ctx->lock);
    if (!e) FORWARD_IF_ERROR(make_entry(ctx, &key, &e, err));
    mmt_miss_counter *miss = NULL;
    pthread_mutex_lock(&ctx->lock);
    *how = e->choice;
    copy_text(config, config_size, e->params);
    /* what the launch reads, copied: a sync may switch the entry meanwhile */
    mmt_module *mod = e->mod;
    mmt_geometry geometry = e->geometry;
    const mmt_vendor_route route = e->route;
    mmt_strassen_plan plan;
    const int levels = e->plan.levels;
    if (levels) plan = e->plan;
    if (e->choice != MMT_CHOICE_EXACT) miss = e->miss;
    pthread_mutex_unlock(&ctx->lock);
    int sync = 0;
    if (miss) {
        mmt_miss_count(miss);
        sync = mmt_misses_due(ctx->misses);
    }
    mmt_status st = mod ? launch(ctx, mod, &geometry, levels ? &plan : NULL, &gp, err)
                        : vendor_launch(ctx, &key.problem, route, &gp, err);
    /* after the launch, so the call's own result is not delayed: the first call of an
     * untuned problem hands it to a background mmtune, and a due call syncs */
    if (miss && ctx->autotune.on && atomic_exchange(&miss->autotune, 1) == 0)
        mmt_autotune_start(&ctx->autotune, ctx->device, ctx->dev.fingerprint, ctx->db_path, &miss->problem);
    if (sync) sync_with_database(ctx);
    return st;
}

/* Every GEMM entry point ends here: the call's outcome becomes this thread's view. */
static mmt_status gemm(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n, int64_t k,
                       double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                       int64_t ldc)
{
    if (!ctx) return MMT_INVALID_ARGUMENT;
    mmt_err err;
    mmt_choice how = MMT_CHOICE_NONE;
    char config[512] = "";
    mmt_status st = run_gemm(ctx, d, sgemm, 1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &how, config,
                             sizeof config, &err);
    return finish(ctx, st, &err, how, how != MMT_CHOICE_NONE ? config : NULL);
}

mmt_status mmt_gemm_ex(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k, double alpha,
                       const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
    return gemm(ctx, desc, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
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
