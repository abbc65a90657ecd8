/* call_table.c - the per-context table (call_table.h): a call's key maps to its entry, so a
 * repeated shape costs one hash lookup under the context's lock. A first-time shape is
 * chosen (the families' tuned entries, the vendor family's, the prediction), built (cache or
 * compiler) and loaded outside that lock, so calls of shapes already served never wait
 * behind a compile or the database. Entries served untuned count their calls (miss.h);
 * every few seconds a call syncs the context with the database: the counts are written back
 * and, under background tuning (autotune.h), entries whose problem was tuned since switch to
 * the tuned kernel. */
#include "call_table.h"

#include <stdio.h>
#include <stdlib.h>

#include "epilogue.h"
#include "err.h"
#include "kernel.h"
#include "lookup.h"

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

static unsigned key_hash(const call_key *k)
{
    const mmt_problem *p = &k->problem;
    uint64_t kind = ((((((uint64_t)p->mode * 4 + p->out) * 4 + (uint64_t)p->trans_a * 2 + p->trans_b) * 32 +
                      (uint64_t)k->align_a) * 32 + (uint64_t)k->align_b) * 32 + (uint64_t)k->align_c) * 2 +
                    (uint64_t)k->beta_zero;
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
           a->align_b == b->align_b && a->align_c == b->align_c && a->beta_zero == b->beta_zero &&
           a->allow_f32x3 == b->allow_f32x3 &&
           a->reproducible == b->reproducible && a->allow_levels == b->allow_levels;
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
static mmt_status module_keep(mmt_ctx *ctx, const char *key, const mmt_family *fam, const char *defines,
                              mmt_module *mod, mmt_module **out, mmt_err *err)
{
    mmt_module *have = module_find(ctx, key);
    loaded *l = have ? NULL : calloc(1, sizeof *l);
    char *text = l ? strdup(defines) : NULL;
    if (have || !text) {
        ctx->be->unload(mod);
        free(l);
        *out = have;
        return have ? MMT_OK : mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(l->key, sizeof l->key, "%s", key);
    l->mod = mod;
    l->fam = fam;
    l->defines = text;
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
    mmt_status st = module_keep(ctx, key, fam, defines, mod, out, err);
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

static mmt_vendor *vendor_for(mmt_ctx *ctx, mmt_mode mode);

mmt_status mmt_table_module(mmt_ctx *ctx, const mmt_family *fam, const char *defines, int compile, mmt_module **out,
                            mmt_err *err)
{
    return load_module(ctx, fam, defines, compile, out, err);
}

/* Whether name is among the NULL-ended list of templates. */
static int among(const char *name, const char *const *templates)
{
    while (*templates && strcmp(*templates, name) != 0) templates++;
    return *templates != NULL;
}

mmt_status mmt_table_variant(mmt_ctx *ctx, mmt_module *base, const char *const *templates, const char *extra,
                             int compile, mmt_module **out, mmt_err *err)
{
    const mmt_family *fam = NULL;
    char *defines = NULL;
    pthread_mutex_lock(&ctx->lock);
    for (loaded *l = ctx->modules; l && !fam; l = l->next)
        if (l->mod == base && among(l->fam->name, templates)) {
            fam = l->fam;
            const size_t n = strlen(l->defines) + strlen(extra) + 2;
            if ((defines = malloc(n))) snprintf(defines, n, "%s %s", l->defines, extra);
        }
    pthread_mutex_unlock(&ctx->lock);
    if (!fam) return MMT_UNSUPPORTED;
    RETURN_ERROR_IF(!defines, err, MMT_OUT_OF_MEMORY, "out of memory");
    const mmt_status st = load_module(ctx, fam, defines, compile, out, err);
    free(defines);
    return st;
}

int mmt_table_vendor_serves(mmt_ctx *ctx, mmt_mode mode)
{
    return vendor_for(ctx, mode) != NULL;
}

const mmt_family *mmt_table_family(mmt_ctx *ctx, mmt_mode mode, const char *template_name)
{
    served *sv = NULL;
    mmt_err err;
    pthread_mutex_lock(&ctx->modes_lock);
    const mmt_status st = serve_mode(ctx, mode, &sv, &err);
    pthread_mutex_unlock(&ctx->modes_lock);
    for (int f = 0; st == MMT_OK && f < sv->n; f++)
        if (strcmp(sv->fam[f].family->name, template_name) == 0) return sv->fam[f].family;
    return NULL;
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

/* Whether the vendor library may serve k: it has a call for it, and is not off nor known
 * absent (it may not be opened yet). */
static int vendor_may_serve(const mmt_ctx *ctx, const call_key *k)
{
    return atomic_load(&ctx->vendor_state) >= 0 &&
           mmt_vendor_takes(ctx->be, &k->problem, k->align_a, k->align_b, k->align_c, k->beta_zero);
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
    char routine[96];
    const char *r = mmt_vendor_route_params(ctx->be, e->key.problem.mode, route, routine, sizeof routine);
    snprintf(e->params, sizeof e->params, "LIBRARY=%s%s%s", mmt_vendor_name(ctx->vendor), r ? "," : "", r ? r : "");
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
    const int vendor_may = vendor_may_serve(ctx, k);
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
    const int vendor = vendor_may_serve(ctx, k);
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
        atomic_fetch_add(&ctx->table_gen, 1);
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
    if (built) ok = module_keep(ctx, key, fam, defines, mod, &mod, &err) == MMT_OK;
    if (ok) {
        e->mod = mod;
        e->geometry = g;
        e->plan = plan;
        e->choice = pk.how;
        e->stay = 0;
        snprintf(e->params, sizeof e->params, "%s", params);
        atomic_fetch_add(&ctx->table_gen, 1);
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

static void sync_in_background(void *arg, int run)
{
    mmt_ctx *ctx = arg;
    if (run) sync_with_database(ctx);
    else mmt_misses_done(ctx->misses); /* dropped at mmt_close, which writes the counts itself */
}

/* A due sync, handed to the context's builder thread: a write to the database takes a
 * millisecond or so, and up to 100 ms where a tuner holds the write lock, which no GEMM call
 * should wait for (cuBLAS and OpenBLAS never do). On the caller's thread only where that
 * thread cannot start. */
static void sync_off_path(mmt_ctx *ctx)
{
    if (!ctx->builder || mmt_builder_submit(ctx->builder, sync_in_background, ctx) != 0) sync_with_database(ctx);
}

mmt_status mmt_table_serve_mode(mmt_ctx *ctx, mmt_mode mode, mmt_err *err)
{
    served *sv;
    pthread_mutex_lock(&ctx->modes_lock);
    mmt_status st = serve_mode(ctx, mode, &sv, err);
    pthread_mutex_unlock(&ctx->modes_lock);
    return st;
}

/* The launch's parameters of a call on its row-major problem rp (user's, normalised): a
 * column-major call is the row-major C^T = op(B)^T op(A)^T, so A and B swap. */
static mmt_gemm_params params_of(const mmt_problem *user, const mmt_problem *rp, double alpha, const void *a,
                                 int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
    const int swap = user->layout == MMT_COL_MAJOR;
    return (mmt_gemm_params){.m = rp->m, .n = rp->n, .k = rp->k, .lda = swap ? ldb : lda, .ldb = swap ? lda : ldb,
                             .ldc = ldc, .trans_a = rp->trans_a, .trans_b = rp->trans_b, .alpha = alpha, .beta = beta,
                             .a = swap ? b : a, .b = swap ? a : b, .c = c};
}

/* A call's launch and what follows it: the miss count of an untuned entry, its hand-over to
 * a background mmtune on its first call, and a due sync. */
static mmt_status run_entry(mmt_ctx *ctx, const mmt_problem *p, mmt_module *mod, const mmt_geometry *geometry,
                            const mmt_strassen_plan *plan, mmt_vendor_route route, mmt_miss_counter *miss,
                            mmt_gemm_params *gp, mmt_err *err)
{
    int sync = 0;
    if (miss) {
        mmt_miss_count(miss);
        sync = mmt_misses_due(ctx->misses);
    }
    mmt_status st = mod ? launch(ctx, mod, geometry, plan, gp, err) : vendor_launch(ctx, p, route, gp, err);
    /* after the launch, so the call's own result is not delayed: the first call of an
     * untuned problem hands it to a background mmtune, and a due call syncs */
    if (miss && ctx->autotune.on && atomic_exchange(&miss->autotune, 1) == 0)
        mmt_autotune_start(&ctx->autotune, ctx->device, ctx->dev.fingerprint, ctx->db_path, &miss->problem);
    if (sync) sync_off_path(ctx);
    return st;
}

/* The alignment of C in a call's key (call_key): where it decides whether the vendor takes
 * the call, FP8's; 0 elsewhere. */
static int key_align_c(const mmt_problem *normal, const mmt_gemm_params *gp)
{
    if (!mmt_dtype_fp8(normal->dtype)) return 0;
    return mmt_align_bytes((uintptr_t)gp->c, gp->ldc * mmt_dtype_size(normal->out));
}

/* Whether beta is 0 in a call's key (call_key): for FP8 C, where it decides whether the vendor
 * takes the call; 0 elsewhere. */
static int key_beta_zero(const mmt_problem *normal, double beta)
{
    return mmt_dtype_fp8(normal->out) && beta == 0;
}

int mmt_table_repeat(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda, const void *b,
                     int64_t ldb, double beta, void *c, int64_t ldc, mmt_status *st, mmt_err *err)
{
    if (atomic_load_explicit(&ctx->table_gen, memory_order_acquire) != hit->gen) return 0;
    mmt_gemm_params gp = params_of(&hit->user, &hit->problem, alpha, a, lda, b, ldb, beta, c, ldc);
    const int es = mmt_dtype_size(hit->problem.dtype);
    if (mmt_align_bytes((uintptr_t)gp.a, gp.lda * es) != hit->align_a ||
        mmt_align_bytes((uintptr_t)gp.b, gp.ldb * es) != hit->align_b ||
        (hit->align_c && /* 0: not keyed (not FP8), nor is beta */
         (key_align_c(&hit->problem, &gp) != hit->align_c || key_beta_zero(&hit->problem, beta) != hit->beta_zero)))
        return 0;
    *st = run_entry(ctx, &hit->problem, hit->mod, &hit->geometry, NULL, hit->route, hit->miss, &gp, err);
    return 1;
}

/* The lookup of a call (mmt_table_run, mmt_table_lookup): its key, its entry found or made,
 * and what the launch reads copied under the lock into *hit (*plan where the entry runs
 * Strassen levels: hit->repeatable is 0 then); *how and config. */
static mmt_status lookup(mmt_ctx *ctx, const mmt_problem *user, int sgemm, const void *a, int64_t lda, const void *b,
                         int64_t ldb, double beta, const void *c, int64_t ldc, mmt_choice *how, char *config,
                         size_t config_size, mmt_table_hit *hit, mmt_strassen_plan *plan, mmt_err *err)
{
    call_key key = {.problem = mmt_problem_normalise(user)};
    const mmt_gemm_params gp = params_of(user, &key.problem, 0, a, lda, b, ldb, 0, (void *)c, ldc);
    const int es = mmt_dtype_size(user->dtype);
    key.align_a = mmt_align_bytes((uintptr_t)gp.a, gp.lda * es);
    key.align_b = mmt_align_bytes((uintptr_t)gp.b, gp.ldb * es);
    key.align_c = key_align_c(&key.problem, &gp);
    key.beta_zero = key_beta_zero(&key.problem, beta);

    /* the fast path: the lookup and what the launch reads, under the lock once; a first-time
     * key is made outside it */
    pthread_mutex_lock(&ctx->lock);
    key.allow_f32x3 = sgemm && ctx->sgemm_policy == MMT_SGEMM_ALLOW_F32X3;
    key.reproducible = ctx->reproducible;
    key.allow_levels = ctx->algorithm_policy == MMT_ALLOW_STRASSEN;
    entry *e = table_find(ctx, &key);
    if (!e) {
        pthread_mutex_unlock(&ctx->lock);
        FORWARD_IF_ERROR(make_entry(ctx, &key, &e, err));
        pthread_mutex_lock(&ctx->lock);
    }
    *how = e->choice;
    mmt_copy_text(config, config_size, e->params);
    /* what the launch reads, copied: a sync may switch the entry meanwhile */
    const int levels = e->plan.levels;
    if (levels) *plan = e->plan;
    *hit = (mmt_table_hit){.repeatable = !levels, .gen = atomic_load(&ctx->table_gen), .user = *user,
                           .problem = key.problem, .align_a = key.align_a, .align_b = key.align_b, .align_c = key.align_c,
                           .beta_zero = key.beta_zero, .mod = e->mod,
                           .geometry = e->geometry, .route = e->route,
                           .miss = e->choice != MMT_CHOICE_EXACT ? e->miss : NULL};
    pthread_mutex_unlock(&ctx->lock);
    return MMT_OK;
}

mmt_status mmt_table_run(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a, int64_t lda,
                         const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how, char *config,
                         size_t config_size, mmt_table_hit *hit, mmt_err *err)
{
    mmt_table_hit own, *h = hit ? hit : &own;
    mmt_strassen_plan plan;
    FORWARD_IF_ERROR(lookup(ctx, user, sgemm, a, lda, b, ldb, beta, c, ldc, how, config, config_size, h, &plan, err));
    mmt_gemm_params gp = params_of(user, &h->problem, alpha, a, lda, b, ldb, beta, c, ldc);
    return run_entry(ctx, &h->problem, h->mod, &h->geometry, h->repeatable ? NULL : &plan, h->route, h->miss, &gp,
                     err);
}

mmt_status mmt_table_lookup(mmt_ctx *ctx, const mmt_problem *user, int sgemm, const void *a, int64_t lda,
                            const void *b, int64_t ldb, double beta, const void *c, int64_t ldc, mmt_choice *how,
                            char *config, size_t config_size, mmt_table_hit *hit, mmt_err *err)
{
    mmt_strassen_plan plan;
    return lookup(ctx, user, sgemm, a, lda, b, ldb, beta, c, ldc, how, config, config_size, hit, &plan, err);
}

mmt_status mmt_table_launch(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                            const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_err *err)
{
    return mmt_table_launch_scaled(ctx, hit, alpha, a, lda, b, ldb, beta, c, ldc, NULL, NULL, err);
}

mmt_status mmt_table_launch_scaled(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                                   const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const float *scale_a,
                                   const float *scale_b, mmt_err *err)
{
    mmt_gemm_params gp = params_of(&hit->user, &hit->problem, alpha, a, lda, b, ldb, beta, c, ldc);
    gp.scale_a = scale_a, gp.scale_b = scale_b;
    return hit->mod ? launch(ctx, hit->mod, &hit->geometry, NULL, &gp, err)
                    : vendor_launch(ctx, &hit->problem, hit->route, &gp, err);
}

mmt_status mmt_table_launch_epilogue(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                                     const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_activation act,
                                     const void *bias, mmt_dtype bias_type, mmt_err *err)
{
    if (hit->mod || alpha == 0 || !ctx->vendor) return MMT_UNSUPPORTED;
    mmt_gemm_params gp = params_of(&hit->user, &hit->problem, alpha, a, lda, b, ldb, beta, c, ldc);
    const mmt_vendor_call call = {ctx->vendor, hit->problem.mode, hit->problem.out, hit->route};
    return mmt_vendor_gemm_epilogue(&call, &gp, act, bias, bias_type, atomic_load(&ctx->stream), err);
}

mmt_status mmt_table_launch_fused(mmt_ctx *ctx, const mmt_table_hit *hit, mmt_module *mod, const void *bias,
                                  float scale, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                                  double beta, void *c, int64_t ldc, mmt_err *err)
{
    mmt_fused_params fp = {.p = params_of(&hit->user, &hit->problem, alpha, a, lda, b, ldb, beta, c, ldc),
                           .bias = bias, .scale = scale};
    return launch(ctx, mod, &hit->geometry, NULL, &fp.p, err); /* the kernel reads the bias after p */
}

void mmt_table_count_calls(mmt_ctx *ctx, const mmt_table_hit *hit, int64_t calls)
{
    mmt_miss_counter *miss = hit->miss;
    if (!miss || calls <= 0) return;
    mmt_miss_count_n(miss, calls);
    if (ctx->autotune.on && atomic_exchange(&miss->autotune, 1) == 0)
        mmt_autotune_start(&ctx->autotune, ctx->device, ctx->dev.fingerprint, ctx->db_path, &miss->problem);
    if (mmt_misses_due(ctx->misses)) sync_off_path(ctx);
}

mmt_status mmt_table_run_batched(mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a, int64_t lda,
                                 const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const mmt_batch *bt,
                                 mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    mmt_vendor *v = vendor_for(ctx, user->mode);
    const char *routine = mmt_vendor_batched_routine(v, user->mode);
    if (!routine) return MMT_UNSUPPORTED;
    const mmt_problem rp = mmt_problem_normalise(user);
    mmt_gemm_params gp = params_of(user, &rp, alpha, a, lda, b, ldb, beta, c, ldc);
    const int swap = user->layout == MMT_COL_MAJOR;
    const mmt_batch rb = {bt->count, swap ? bt->stride_b : bt->stride_a, swap ? bt->stride_a : bt->stride_b,
                          bt->stride_c};
    mmt_vendor_call call = {v, rp.mode, rp.out, MMT_VENDOR_CALL};
    if (gp.alpha == 0) gp.k = 0; /* A and B are not read (vendor_launch) */
    FORWARD_IF_ERROR(mmt_vendor_gemm_strided_batched(&call, &gp, &rb, atomic_load(&ctx->stream), err));
    *how = MMT_CHOICE_VENDOR;
    snprintf(config, config_size, "LIBRARY=%s,ROUTINE=%s", mmt_vendor_name(v), routine);
    return MMT_OK;
}

mmt_status mmt_table_run_grouped(mmt_ctx *ctx, const mmt_problem *user, int64_t count, const int64_t *rows,
                                 double alpha, const void *const *a, int64_t lda, const void *const *b, int64_t ldb,
                                 double beta, void *const *c, int64_t ldc, mmt_choice *how, char *config,
                                 size_t config_size, mmt_err *err)
{
    int64_t sum = 0, nonempty = 0;
    for (int64_t g = 0; g < count; g++) sum += rows[g], nonempty += rows[g] > 0;
    mmt_vendor *v = vendor_for(ctx, user->mode);
    const char *routine = mmt_vendor_grouped_routine(v, user->mode);
    if (!routine || user->out != mmt_mode_dtype(user->mode) || nonempty == 0 || nonempty > 0x7fffffff ||
        sum > MMT_GROUPED_VENDOR_ROWS * nonempty)
        return MMT_UNSUPPORTED;
    const int64_t es = mmt_dtype_size(user->dtype), cs = mmt_dtype_size(user->out);
    int aligned = (lda * es | ldb * es | ldc * cs) % 16 == 0;
    for (int64_t g = 0; g < count; g++)
        aligned &= !rows[g] || ((uintptr_t)a[g] | (uintptr_t)b[g] | (uintptr_t)c[g]) % 16 == 0;
    if (!aligned) return MMT_UNSUPPORTED;
    mmt_gemm_params *ps = malloc(sizeof *ps * (size_t)nonempty);
    RETURN_ERROR_IF(!ps, err, MMT_OUT_OF_MEMORY, "out of host memory for %lld groups", (long long)nonempty);
    for (int64_t g = 0, i = 0; g < count; g++) {
        if (!rows[g]) continue;
        mmt_problem ug = *user;
        ug.m = rows[g];
        const mmt_problem rp = mmt_problem_normalise(&ug);
        ps[i] = params_of(&ug, &rp, alpha, a[g], lda, b[g], ldb, beta, c[g], ldc);
        if (ps[i].alpha == 0) ps[i].k = 0; /* A and B are not read (vendor_launch) */
        i++;
    }
    const mmt_problem rp = mmt_problem_normalise(user); /* its mode: FP8 of two kinds swap as A and B do */
    mmt_vendor_call call = {v, rp.mode, rp.out, MMT_VENDOR_CALL};
    const mmt_status st = mmt_vendor_gemm_grouped(&call, ps, (int)nonempty, atomic_load(&ctx->stream), err);
    free(ps);
    if (st == MMT_OK) {
        *how = MMT_CHOICE_VENDOR;
        snprintf(config, config_size, "LIBRARY=%s,ROUTINE=%s", mmt_vendor_name(v), routine);
    }
    return st;
}

void mmt_table_free(mmt_ctx *ctx)
{
    for (int i = 0; i < N_BUCKETS; i++)
        for (entry *e = ctx->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    for (loaded *l = ctx->modules, *next; l; l = next) {
        next = l->next;
        ctx->be->unload(l->mod);
        free(l->defines);
        free(l);
    }
    mmt_strassen_adds_unload(&ctx->adds[0]);
    mmt_strassen_adds_unload(&ctx->adds[1]);
    for (int t = 0; t < MMT_EPILOGUE_C_TYPES; t++)
        for (int b = 0; b < 2; b++)
            if (ctx->epilogue[t][b]) ctx->be->unload(ctx->epilogue[t][b]);
    for (int d = 0; d < MMT_N_MODES; d++) {
        for (int f = 0; f < ctx->modes[d].n; f++) {
            mmt_family_free(ctx->modes[d].fam[f].family);
            free(ctx->modes[d].fam[f].bests);
        }
        free(ctx->modes[d].vendor_bests);
        free(ctx->modes[d].paired);
    }
    mmt_vendor_close(ctx->vendor);
}
