/* worker.c - the measuring process and the tuner's handle on it (see worker.h). Requests
 * and replies are fixed structs followed by a blob, over two pipes; both ends are the
 * same binary, so the layouts agree. */
#define _GNU_SOURCE
#include "worker.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "cpu_wait.h"
#include "stats.h"
#include "vendor.h"

enum { REQ_SETUP = 1, REQ_MEASURE = 2, REQ_PAIRED = 4 };

typedef struct request {
    int32_t kind;
    mmt_problem problem;    /* setup */
    mmt_geometry geometry;  /* measure */
    double best_hi_ms;      /* measure */
    char entry[64];         /* measure */
    uint64_t blob_size;     /* measure, paired: the binaries follow, one after the other */
    int32_t n_paired;       /* paired: the binaries */
    int32_t with_vendor;    /* paired: the vendor library too, timed in the same rounds */
    uint64_t paired_size[MMT_BENCH_MAX_PAIRED];
    mmt_geometry paired_geometry[MMT_BENCH_MAX_PAIRED];
    char paired_entry[MMT_BENCH_MAX_PAIRED][64];
    mmt_strassen_plan paired_plan[MMT_BENCH_MAX_PAIRED]; /* levels 0: the classic algorithm */
} request;

typedef struct reply {
    int32_t status; /* mmt_status of the request itself */
    mmt_measure m;
    mmt_measure paired[MMT_BENCH_MAX_PAIRED]; /* the binaries, then the vendor (its faster route) */
    int32_t vendor_route;                     /* the vendor's route (mmt_vendor_route) */
    mmt_beside beside; /* on the CPU, the fastest binary and the vendor in one process (bench.h) */
    mmt_cool cool;     /* on a GPU, the fastest binary and the vendor below the power limit (bench.h) */
    char text[256]; /* paired with the vendor: its label */
    int32_t retire; /* the worker exits after this reply: its device state is not to be trusted */
} reply;

struct mmt_worker {
    char exe[1024], device[64];
    mmt_child proc;
    int have_problem;
    mmt_problem problem;
};

/* Watchdogs: a measurement has its warm-up, verification and a time-capped timing loop,
 * so anything far past that is a hang. MMTUNE_WATCHDOG_S overrides (tests use short ones). */
static double watchdog_s(double base)
{
    const char *env = getenv("MMTUNE_WATCHDOG_S");
    double v = env ? atof(env) : 0;
    return v > 0 ? v : base;
}

/* ---- the tuner's side --------------------------------------------------------------- */

/* The CPUs' pressure over a measurement that began at w0, on a CPU device. */
static double cpu_wait_of(const mmt_worker *w, const mmt_cpu_wait *w0)
{
    return strcmp(w->device, "cpu") == 0 ? mmt_cpu_wait_share(w0) : -1;
}

static mmt_status spawn(mmt_worker *w, mmt_err *err)
{
    const char *const argv[] = {w->exe, "__worker", w->device, NULL};
    return mmt_child_spawn(&w->proc, argv, err);
}

mmt_status mmt_worker_start(const char *exe, const char *device, mmt_worker **out, mmt_err *err)
{
    mmt_worker *w = calloc(1, sizeof *w);
    RETURN_ERROR_IF(!w, err, MMT_OUT_OF_MEMORY, "out of memory");
    snprintf(w->exe, sizeof w->exe, "%s", exe);
    snprintf(w->device, sizeof w->device, "%s", device);
    mmt_status st = spawn(w, err);
    if (st != MMT_OK) {
        free(w);
        return st;
    }
    *out = w;
    return MMT_OK;
}

void mmt_worker_stop(mmt_worker *w)
{
    if (!w) return;
    mmt_child_stop(&w->proc);
    free(w);
}

/* One round trip. On a dead or silent worker: *lost is set, with the reason in m. */
static mmt_status round_trip(mmt_worker *w, const request *rq, const void *blob, double timeout_s, reply *rp,
                             int *lost, mmt_err *err)
{
    *lost = 0;
    if (w->proc.pid < 0) FORWARD_IF_ERROR(spawn(w, err));
    int rc = mmt_child_write_all(w->proc.to, rq, sizeof *rq);
    if (rc == 0 && rq->blob_size) rc = mmt_child_write_all(w->proc.to, blob, rq->blob_size);
    if (rc == 0) rc = mmt_child_read_all(w->proc.from, rp, sizeof *rp, timeout_s);
    if (rc == 0) {
        int status;
        if (rp->retire) mmt_child_reap(&w->proc, &status); /* the next round trip starts a fresh one */
        return MMT_OK;
    }
    *lost = 1;
    memset(rp, 0, sizeof *rp);
    int status = 0;
    if (rc == -2) {
        rp->m.status = MMT_TRIAL_TIMEOUT;
        snprintf(rp->m.message, sizeof rp->m.message, "no answer within %.0f s: killed by the watchdog", timeout_s);
        mmt_child_reap(&w->proc, &status);
    } else {
        mmt_child_reap(&w->proc, &status);
        rp->m.status = MMT_TRIAL_CRASHED;
        if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
            snprintf(rp->m.message, sizeof rp->m.message, "the worker died of signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(rp->m.message, sizeof rp->m.message, "the worker exited with status %d",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    rp->m.rel_error = NAN;
    return MMT_OK;
}

mmt_status mmt_worker_setup(mmt_worker *w, const mmt_problem *p, mmt_err *err)
{
    request rq = {.kind = REQ_SETUP, .problem = *p};
    reply rp;
    int lost;
    FORWARD_IF_ERROR(round_trip(w, &rq, NULL, watchdog_s(600), &rp, &lost, err));
    RETURN_ERROR_IF(lost, err, MMT_LAUNCH, "setting up the problem in the worker failed: %s", rp.m.message);
    RETURN_ERROR_IF(rp.status != MMT_OK, err, (mmt_status)rp.status, "%s", rp.m.message);
    w->problem = *p;
    w->have_problem = 1;
    return MMT_OK;
}

/* After losing a worker, a fresh one gets the problem again. */
static mmt_status restore(mmt_worker *w, mmt_err *err)
{
    return w->have_problem ? mmt_worker_setup(w, &w->problem, err) : MMT_OK;
}

mmt_status mmt_worker_measure(mmt_worker *w, const void *bin, size_t size, const char *entry, const mmt_geometry *g,
                              double best_hi_ms, mmt_measure *m, mmt_err *err)
{
    request rq = {.kind = REQ_MEASURE, .geometry = *g, .best_hi_ms = best_hi_ms, .blob_size = size};
    snprintf(rq.entry, sizeof rq.entry, "%s", entry);
    reply rp;
    int lost;
    mmt_cpu_wait w0;
    mmt_cpu_wait_start(&w0);
    FORWARD_IF_ERROR(round_trip(w, &rq, bin, watchdog_s(60), &rp, &lost, err));
    *m = rp.m;
    m->cpu_wait = cpu_wait_of(w, &w0);
    if (lost || rp.retire) return restore(w, err);
    RETURN_ERROR_IF(rp.status != MMT_OK, err, (mmt_status)rp.status, "%s", rp.m.message);
    return MMT_OK;
}

/* Both paired requests: n binaries, and the vendor after them where vendor is not NULL. */
static mmt_status paired(mmt_worker *w, int n, const mmt_worker_binary *bins, mmt_measure *m, mmt_measure *vendor,
                         mmt_vendor_route *route, mmt_beside *beside, mmt_cool *cool, char *label, size_t label_size,
                         mmt_err *err)
{
    const int all = n + (vendor != NULL);
    RETURN_ERROR_IF(n < 1 || all > MMT_BENCH_MAX_PAIRED, err, MMT_INVALID_ARGUMENT, "paired measurement of %d", all);
    request rq = {.kind = REQ_PAIRED, .n_paired = n, .with_vendor = vendor != NULL};
    for (int i = 0; i < n; i++) {
        rq.paired_size[i] = bins[i].size;
        rq.paired_geometry[i] = bins[i].geometry;
        rq.paired_plan[i] = bins[i].plan;
        snprintf(rq.paired_entry[i], sizeof rq.paired_entry[i], "%s", bins[i].entry);
        rq.blob_size += bins[i].size;
    }
    char *blob = malloc(rq.blob_size ? rq.blob_size : 1);
    RETURN_ERROR_IF(!blob, err, MMT_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0, at = 0; i < (size_t)n; at += bins[i].size, i++) memcpy(blob + at, bins[i].bin, bins[i].size);
    reply rp;
    int lost;
    mmt_cpu_wait w0;
    mmt_cpu_wait_start(&w0);
    /* each has its warm-up, verification and time-capped share of the rounds */
    mmt_status st = round_trip(w, &rq, blob, watchdog_s(60) * all, &rp, &lost, err);
    free(blob);
    FORWARD_IF_ERROR(st);
    const double cpu_wait = cpu_wait_of(w, &w0);
    for (int i = 0; i < n; i++) m[i] = lost ? rp.m : rp.paired[i], m[i].cpu_wait = cpu_wait;
    if (vendor) *vendor = lost ? rp.m : rp.paired[n], vendor->cpu_wait = cpu_wait;
    if (route) *route = lost ? MMT_VENDOR_PLAN : (mmt_vendor_route)rp.vendor_route;
    if (beside) *beside = lost ? (mmt_beside){0} : rp.beside;
    if (cool) *cool = lost ? (mmt_cool){0} : rp.cool;
    if (label) snprintf(label, label_size, "%s", lost ? "" : rp.text);
    if (lost || rp.retire) return restore(w, err);
    RETURN_ERROR_IF(rp.status != MMT_OK, err, (mmt_status)rp.status, "%s", rp.m.message);
    return MMT_OK;
}

mmt_status mmt_worker_measure_paired(mmt_worker *w, int n, const mmt_worker_binary *bins, mmt_measure *m,
                                     mmt_err *err)
{
    return paired(w, n, bins, m, NULL, NULL, NULL, NULL, NULL, 0, err);
}

mmt_status mmt_worker_measure_versus(mmt_worker *w, int n, const mmt_worker_binary *bins, mmt_measure *m,
                                     mmt_measure *vendor, mmt_vendor_route *route, mmt_beside *beside, mmt_cool *cool,
                                     char *label, size_t size, mmt_err *err)
{
    return paired(w, n, bins, m, vendor, route, beside, cool, label, size, err);
}

/* ---- the worker's side -------------------------------------------------------------- */

typedef struct kernel_call {
    const mmt_backend *be;
    mmt_module *mod;
    mmt_geometry g;
    mmt_strassen_plan plan;        /* levels 0: the kernel alone */
    const mmt_strassen_adds *adds; /* the additions, for a plan with levels */
    void *workspace;               /* workspace_bytes(), or NULL */
} kernel_call;

static int64_t workspace_bytes(const kernel_call *kc)
{
    return kc->plan.levels ? kc->plan.workspace : kc->g.workspace;
}

static mmt_status kernel_gemm(void *user, const mmt_gemm_params *p, void *stream, mmt_err *err)
{
    kernel_call *kc = user;
    mmt_gemm_params q = *p;
    q.workspace = kc->workspace;
    q.workspace_size = kc->workspace ? workspace_bytes(kc) : 0;
    if (kc->plan.levels) return mmt_strassen_run(kc->be, kc->mod, kc->adds, &kc->plan, &q, stream, err);
    return kc->be->launch(kc->mod, &q, &kc->g, stream, err);
}

/* Verifies within the bound for `levels` Strassen levels; 1 if it passed, else m says why
 * not. */
static int verify_with(mmt_bench *b, mmt_gemm_fn fn, void *user, int levels, mmt_measure *m)
{
    mmt_err e;
    int ok = 0;
    m->rel_error = NAN;
    if (mmt_bench_verify(b, fn, user, levels, &m->rel_error, &ok, &e) != MMT_OK) {
        m->status = MMT_TRIAL_LAUNCH_ERROR;
        snprintf(m->message, sizeof m->message, "%.2000s", e.msg);
    } else if (!ok) {
        m->status = MMT_TRIAL_WRONG_RESULT;
        snprintf(m->message, sizeof m->message, "relative error %.3g exceeds the bound %.3g", m->rel_error,
                 mmt_bench_error_bound(&b->p, levels));
    }
    return ok && m->status == MMT_TRIAL_OK;
}

static void measure_with(mmt_bench *b, mmt_gemm_fn fn, void *user, double best_hi_ms, mmt_measure *m)
{
    mmt_err e;
    if (!verify_with(b, fn, user, 0, m)) return;
    if (mmt_bench_time(b, fn, user, best_hi_ms, &m->timing, &e) != MMT_OK) {
        m->status = MMT_TRIAL_LAUNCH_ERROR;
        snprintf(m->message, sizeof m->message, "%.2000s", e.msg);
    } else if (m->timing.stopped_early) {
        const mmt_timing *t = &m->timing;
        snprintf(m->message, sizeof m->message,
                 "stopped early: after %d samples the median's interval [%.6g, %.6g] ms (%.0f%%) starts more than "
                 "%.0f%% above the best's upper end %.6g ms",
                 t->samples, t->lo_ms, t->hi_ms, 100 * t->level, 100 * MMT_STATS_EARLY_MARGIN, best_hi_ms);
    }
}

/* The additions of the problem's element type (adds: f32 and f64), built and loaded once
 * per worker. */
static const mmt_strassen_adds *worker_adds(const mmt_backend *be, const mmt_device_info *dev,
                                            mmt_strassen_adds adds[2], mmt_dtype dtype, mmt_err *err)
{
    mmt_strassen_adds *a = &adds[dtype == MMT_F64];
    if (!a->be && mmt_strassen_adds_load(be, dev, dtype, a, err) != MMT_OK) return NULL;
    return a;
}

/* The vendor library of the worker's device, opened on first use. */
typedef struct vendor_state {
    mmt_vendor *v;
    int tried;
    char why[256]; /* why it did not open */
} vendor_state;

/* The vendor's call for the problem of b, verified, into fns/users; 0 if it is not there,
 * has no routine for the mode, or fails verification (m says why; *launched says whether
 * it ran on the device). */
static int vendor_ready(const mmt_backend *be, const mmt_device_info *dev, mmt_bench *b, vendor_state *vs,
                        mmt_vendor_call *call, char *label, size_t size, mmt_measure *m, int *launched)
{
    mmt_err err;
    m->rel_error = NAN;
    *launched = 0;
    if (!vs->tried && mmt_vendor_open(be, dev, &vs->v, &err) != MMT_OK)
        snprintf(vs->why, sizeof vs->why, "%.200s", err.msg);
    if (!vs->tried) mmt_vendor_use_device_cores(vs->v, dev);
    vs->tried = 1;
    if (!vs->v || mmt_vendor_check(vs->v, b->p.mode, &err) != MMT_OK) {
        m->status = MMT_TRIAL_LAUNCH_ERROR;
        snprintf(m->message, sizeof m->message, "not measured: %.1000s", vs->v ? err.msg : vs->why);
        return 0;
    }
    /* timed as libmmtuned would serve it (a kept cuBLASLt plan where there is one): what the
     * vendor family's best promises is the call an application then gets, which for a small
     * problem is up to 2 us faster than the vendor's own call (BENCHMARKS.md) */
    *call = (mmt_vendor_call){vs->v, b->p.mode, b->p.out, MMT_VENDOR_PLAN};
    mmt_vendor_label(vs->v, b->p.mode, label, size);
    *launched = 1;
    return verify_with(b, mmt_vendor_gemm, call, 0, m);
}

/* The paired request: every binary loaded and verified, and the vendor where asked; those
 * that pass are timed side by side. *vendor_launched: the vendor ran on the device. */
static void measure_paired(const mmt_backend *be, const mmt_device_info *dev, mmt_bench *b, const request *rq,
                           const char *blob, mmt_strassen_adds adds[2], vendor_state *vs, reply *rp,
                           int *vendor_launched)
{
    kernel_call kc[MMT_BENCH_MAX_PAIRED];
    mmt_gemm_fn fns[MMT_BENCH_MAX_PAIRED];
    void *users[MMT_BENCH_MAX_PAIRED];
    int live[MMT_BENCH_MAX_PAIRED], n_live = 0, n = rq->n_paired;
    /* the vendor's routes: the lean plan (slot n), then where they run the problem otherwise
     * the plan with workspace (n + 1) and cuBLAS's own call (n + 2) */
    static const mmt_vendor_route routes[] = {MMT_VENDOR_PLAN, MMT_VENDOR_PLAN_WORKSPACE, MMT_VENDOR_CALL};
    mmt_vendor_call vc[3];
    mmt_err err;
    memset(kc, 0, sizeof kc);
    *vendor_launched = 0;
    size_t at = 0;
    for (int i = 0; i < n; at += rq->paired_size[i], i++) {
        mmt_measure *m = &rp->paired[i];
        m->rel_error = NAN;
        kc[i] = (kernel_call){.be = be, .g = rq->paired_geometry[i], .plan = rq->paired_plan[i]};
        const int levels = kc[i].plan.levels;
        if ((levels && !(kc[i].adds = worker_adds(be, dev, adds, b->p.dtype, &err))) ||
            be->load(dev, blob + at, rq->paired_size[i], rq->paired_entry[i], &kc[i].mod, &err) != MMT_OK ||
            (workspace_bytes(&kc[i]) > 0 &&
             be->alloc(dev, (size_t)workspace_bytes(&kc[i]), &kc[i].workspace, &err) != MMT_OK)) {
            m->status = MMT_TRIAL_LAUNCH_ERROR;
            snprintf(m->message, sizeof m->message, "%.2000s", err.msg);
        } else if (verify_with(b, kernel_gemm, &kc[i], levels, m)) {
            fns[n_live] = kernel_gemm;
            users[n_live] = &kc[i];
            live[n_live++] = i;
        }
    }
    /* the vendor goes last, and only beside a binary that passed: it is the yardstick */
    if (rq->with_vendor && n_live > 0 &&
        vendor_ready(be, dev, b, vs, &vc[0], rp->text, sizeof rp->text, &rp->paired[n], vendor_launched)) {
        fns[n_live] = mmt_vendor_gemm;
        users[n_live] = &vc[0];
        live[n_live++] = n;
        /* where another route is another call, it is timed too, and the fastest route is the
         * vendor's figure: a small problem may run faster split along K (a plan with
         * workspace), or through the kernel cuBLAS's own heuristic picks (cublaslt.h) */
        const mmt_gemm_params gp = mmt_bench_params(b);
        for (int r = 1; r < 3; r++) {
            vc[r] = vc[0];
            vc[r].route = routes[r];
            if (n + r + 1 <= MMT_BENCH_MAX_PAIRED && mmt_vendor_route_differs(&vc[0], &gp, routes[r]) &&
                verify_with(b, mmt_vendor_gemm, &vc[r], 0, &rp->paired[n + r])) {
                fns[n_live] = mmt_vendor_gemm;
                users[n_live] = &vc[r];
                live[n_live++] = n + r;
            }
        }
    } else if (rq->with_vendor && n_live == 0) {
        rp->paired[n].status = MMT_TRIAL_LAUNCH_ERROR;
        snprintf(rp->paired[n].message, sizeof rp->paired[n].message, "not measured: no tuned kernel passed");
    }
    mmt_timing t[MMT_BENCH_MAX_PAIRED];
    if (n_live > 0 && mmt_bench_time_paired(b, n_live, fns, users, t, &err) != MMT_OK) {
        for (int j = 0; j < n_live; j++) { /* which one failed is not known: none is timed */
            rp->paired[live[j]].status = MMT_TRIAL_LAUNCH_ERROR;
            snprintf(rp->paired[live[j]].message, sizeof rp->paired[live[j]].message, "%.2000s", err.msg);
        }
    } else {
        for (int j = 0; j < n_live; j++) rp->paired[live[j]].timing = t[j];
        rp->vendor_route = MMT_VENDOR_PLAN;
        int fastest_route = -1; /* the index in live of the vendor's fastest route */
        for (int j = 0; j < n_live; j++)
            if (live[j] >= n && (fastest_route < 0 || t[j].median_ms < t[fastest_route].median_ms)) fastest_route = j;
        if (fastest_route >= 0 && live[fastest_route] > n) {
            rp->vendor_route = routes[live[fastest_route] - n];
            rp->paired[n] = rp->paired[live[fastest_route]];
        }
        /* on the CPU the vendor is a library an application may call too: the fastest
         * binary and it alternating in one process, where one's idle threads may take the
         * other's cores (the GPU's libraries share no cores); on a GPU, where the fastest
         * binary was the faster, the two again below the power limit (bench.h) */
        int fastest = -1, vendor_at = -1;
        for (int j = 0; j < n_live; j++)
            if (live[j] == n) vendor_at = j;
            else if (live[j] < n && (fastest < 0 || t[j].median_ms < t[fastest].median_ms)) fastest = j;
        const int on_cpu = strcmp(be->name, "cpu") == 0;
        if (on_cpu && fastest >= 0 && vendor_at >= 0) {
            const double slower = fmax(t[fastest].median_ms, t[vendor_at].median_ms);
            if (mmt_bench_time_beside(b, fns[fastest], users[fastest], fns[vendor_at], users[vendor_at], slower,
                                      &rp->beside, &err) != MMT_OK)
                memset(&rp->beside, 0, sizeof rp->beside); /* the paired figures stand */
        }
        if (!on_cpu && fastest >= 0 && fastest_route >= 0 && t[fastest].median_ms <= t[fastest_route].median_ms &&
            mmt_bench_time_cool(b, fns[fastest], users[fastest], fns[fastest_route], users[fastest_route],
                                t[fastest_route].median_ms, &rp->cool, &err) != MMT_OK)
            memset(&rp->cool, 0, sizeof rp->cool); /* the paired figures stand */
    }
    for (int i = 0; i < n; i++) {
        be->free(kc[i].workspace);
        if (kc[i].mod) be->unload(kc[i].mod);
    }
}

int mmt_worker_main(const char *device)
{
    const mmt_backend *be;
    mmt_device_info dev;
    int ordinal;
    mmt_err err;
    if (mmt_backend_for_device(device, &be, &ordinal, &err) != MMT_OK || be->probe(ordinal, &dev, &err) != MMT_OK) {
        fprintf(stderr, "mmtune worker: %s\n", err.msg);
        return 1;
    }
    /* Ctrl-C and a SIGTERM to the group reach every process of it: the tuner decides what
     * an interrupt means and lets the measurement in flight finish */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    mmt_bench *b = NULL;
    vendor_state vendor = {0};
    mmt_strassen_adds adds[2] = {{0}}; /* f32, f64: loaded when a plan first needs them */
    request rq;
    while (mmt_child_read_all(3, &rq, sizeof rq, 0) == 0) {
        reply rp;
        memset(&rp, 0, sizeof rp);
        rp.m.rel_error = NAN;
        void *blob = NULL;
        int vendor_launched = 0;
        if (rq.blob_size) {
            blob = malloc(rq.blob_size);
            if (!blob || mmt_child_read_all(3, blob, rq.blob_size, 0) != 0) return 1;
        }
        if (rq.kind == REQ_SETUP) {
            mmt_bench_free(b);
            b = NULL;
            rp.status = mmt_bench_setup(be, &dev, NULL, &rq.problem, mmt_bench_cache_bytes(&dev), &b, &err);
            if (rp.status != MMT_OK) snprintf(rp.m.message, sizeof rp.m.message, "%.2000s", err.msg);
        } else if (rq.kind == REQ_MEASURE && b) {
            kernel_call kc = {.be = be, .g = rq.geometry};
            if (be->load(&dev, blob, rq.blob_size, rq.entry, &kc.mod, &err) != MMT_OK ||
                (kc.g.workspace > 0 && be->alloc(&dev, (size_t)kc.g.workspace, &kc.workspace, &err) != MMT_OK)) {
                rp.m.status = MMT_TRIAL_LAUNCH_ERROR;
                snprintf(rp.m.message, sizeof rp.m.message, "%.2000s", err.msg);
            } else {
                measure_with(b, kernel_gemm, &kc, rq.best_hi_ms, &rp.m);
            }
            be->free(kc.workspace);
            if (kc.mod) be->unload(kc.mod);
        } else if (rq.kind == REQ_PAIRED && b && rq.n_paired >= 1 &&
                   rq.n_paired + (rq.with_vendor != 0) <= MMT_BENCH_MAX_PAIRED) {
            measure_paired(be, &dev, b, &rq, blob, adds, &vendor, &rp, &vendor_launched);
        } else {
            rp.status = MMT_INTERNAL;
            snprintf(rp.m.message, sizeof rp.m.message, "worker: request %d before setup", rq.kind);
        }
        free(blob);
        /* A failed launch on a GPU may leave a sticky error in the context (an illegal
         * address poisons it for good): answer, then make way for a fresh worker. */
        int launch_error = rp.m.status == MMT_TRIAL_LAUNCH_ERROR;
        for (int i = 0; rq.kind == REQ_PAIRED && i < rq.n_paired && i < MMT_BENCH_MAX_PAIRED; i++)
            launch_error |= rp.paired[i].status == MMT_TRIAL_LAUNCH_ERROR;
        for (int i = rq.n_paired; vendor_launched && i < rq.n_paired + 2 && i < MMT_BENCH_MAX_PAIRED; i++)
            launch_error |= rp.paired[i].status == MMT_TRIAL_LAUNCH_ERROR; /* the vendor's routes */
        rp.retire = launch_error && strcmp(be->name, "cpu") != 0;
        if (mmt_child_write_all(4, &rp, sizeof rp) != 0 || rp.retire) break;
    }
    mmt_vendor_close(vendor.v);
    mmt_strassen_adds_unload(&adds[0]);
    mmt_strassen_adds_unload(&adds[1]);
    mmt_bench_free(b);
    return 0;
}
