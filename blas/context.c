/* context.c - the one libmmtuned context the GEMMs of a process run on: opened on the first
 * GEMM (the CPU, the default database: $MMTUNE_DB, else ~/.cache/mmtune/mmtune.db), shared
 * by every thread (mmtuned.h's threading contract), and closed when the process exits or
 * the library is unloaded, which writes the counts of the shapes it served untuned into
 * the database's miss table. A forked child opens its own. Also the counts of GEMMs served
 * and forwarded, which MMTUNE_BLAS_STATS=1 (read at the first GEMM) prints at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas.h"

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(mmt_ctx *) ctx;
static int open_tried; /* under open_lock: a context that failed to open is not tried again */

#define N_CHOICES 5 /* MMT_CHOICE_NONE .. MMT_CHOICE_VENDOR */
/* The counts MMTUNE_BLAS_STATS=1 prints, kept only where it asks for them: otherwise a call
 * would pay for them (an atomic add on a line every thread writes, and the lookup of its
 * choice). -1: not read yet (the first count reads it; a forked child reads it again). */
static atomic_int stats = -1;

static int stats_on(void)
{
    int on = atomic_load_explicit(&stats, memory_order_relaxed);
    if (on < 0) {
        const char *env = getenv("MMTUNE_BLAS_STATS");
        on = env && *env && strcmp(env, "0") != 0;
        atomic_store_explicit(&stats, on, memory_order_relaxed);
    }
    return on;
}
static atomic_llong served[2][N_CHOICES]; /* [f64][mmt_choice] */
static atomic_llong forwarded[2];
static atomic_llong offloaded[2];

void mmtb_warn_once(atomic_int *flag, const char *fmt, ...)
{
    if (atomic_exchange(flag, 1)) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("libmmtuned_blas: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static mmt_ctx *open_once(void)
{
    pthread_mutex_lock(&open_lock);
    mmt_ctx *c = atomic_load(&ctx);
    if (!c && !open_tried) {
        open_tried = 1;
        mmt_status st = mmt_open(&c, "cpu", NULL);
        if (st == MMT_OK) {
            atomic_store(&ctx, c);
        } else {
            static atomic_int said;
            mmtb_warn_once(&said, "libmmtuned cannot open its CPU context (%s: %s); GEMMs go to the system BLAS %s",
                           mmt_status_string(st), mmt_last_error(c), mmtb_system_blas());
            mmt_close(c);
            c = NULL;
        }
    }
    pthread_mutex_unlock(&open_lock);
    return c;
}

mmt_ctx *mmtb_context_enter(void)
{
    if (!mmtb_inside_enter()) return NULL; /* the exit has begun: keep off the context */
    mmt_ctx *c = atomic_load(&ctx);
    if (!c) c = open_once();
    if (!c) mmtb_inside_leave();
    return c;
}

void mmtb_context_leave(void) { mmtb_inside_leave(); }

void mmtb_count_served(mmt_ctx *c, mmt_dtype dtype, long long n)
{
    if (!stats_on()) return;
    const mmt_choice how = mmt_last_choice(c, NULL);
    atomic_fetch_add_explicit(&served[dtype == MMT_F64][(unsigned)how < N_CHOICES ? how : 0], n,
                              memory_order_relaxed);
}

void mmtb_count_forwarded(mmt_dtype dtype)
{
    if (stats_on()) atomic_fetch_add_explicit(&forwarded[dtype == MMT_F64], 1, memory_order_relaxed);
}

void mmtb_count_offloaded(mmt_dtype dtype)
{
    if (stats_on()) atomic_fetch_add_explicit(&offloaded[dtype == MMT_F64], 1, memory_order_relaxed);
}

/* The BLAS libraries loaded beside this one (names with "blas" or "mkl"), for the line
 * that says why no GEMM came. */
typedef struct others {
    const char *self;
    char names[1024];
} others;

static int note_other(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    others *o = data;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    if (!base || !*base || strcmp(name, o->self) == 0 || (!strstr(base, "blas") && !strstr(base, "mkl"))) return 0;
    const size_t n = strlen(o->names);
    snprintf(o->names + n, sizeof o->names - n, "%s%s", n ? ", " : "", name);
    return 0;
}

/* Only a process that ran a GEMM prints, or one with another BLAS loaded that no GEMM of
 * left: the variable reaches every child (a compiler the library runs, say), whose output
 * must stay its own. */
static void print_counts(void)
{
    if (!stats_on()) return;
    long long any = 0;
    for (int f64 = 0; f64 < 2; f64++) {
        any += atomic_load(&forwarded[f64]) + atomic_load(&offloaded[f64]);
        for (int i = 0; i < N_CHOICES; i++) any += atomic_load(&served[f64][i]);
    }
    if (!any) {
        Dl_info me;
        others o = {.self = dladdr((const void *)print_counts, &me) && me.dli_fname ? me.dli_fname : ""};
        dl_iterate_phdr(note_other, &o);
        if (o.names[0])
            fprintf(stderr,
                    "libmmtuned_blas: 0 GEMMs reached libmmtuned: this process also loaded %s, and its GEMMs "
                    "went there under names this library does not answer, or none came (numpy sends a @ a.T to "
                    "SYRK and a matrix times a vector to GEMV)\n",
                    o.names);
        return;
    }
    for (int f64 = 0; f64 < 2; f64++) {
        long long s[N_CHOICES];
        for (int i = 0; i < N_CHOICES; i++) s[i] = atomic_load(&served[f64][i]);
        fprintf(stderr,
                "libmmtuned_blas: %s: %lld served by libmmtuned (%lld tuned, %lld nearest tuned shape, %lld "
                "default, %lld untuned by the vendor library), %lld forwarded, %lld offloaded to the GPU\n",
                f64 ? "dgemm" : "sgemm",
                s[MMT_CHOICE_EXACT] + s[MMT_CHOICE_NEAREST] + s[MMT_CHOICE_DEFAULT] + s[MMT_CHOICE_VENDOR],
                s[MMT_CHOICE_EXACT], s[MMT_CHOICE_NEAREST], s[MMT_CHOICE_DEFAULT], s[MMT_CHOICE_VENDOR],
                (long long)atomic_load(&forwarded[f64]), (long long)atomic_load(&offloaded[f64]));
    }
    const char *system = mmtb_system_blas();
    fprintf(stderr, "libmmtuned_blas: other routines go to %s\n", *system ? system : "no system BLAS (none found)");
}

mmt_status mmtb_gemm_on(mmt_ctx *ctx, const mmtb_gemm *g)
{
    return g->dtype == MMT_F32 ? mmt_sgemm(ctx, g->layout, g->trans_a, g->trans_b, g->m, g->n, g->k, (float)g->alpha,
                                           g->a, g->lda, g->b, g->ldb, (float)g->beta, g->c, g->ldc)
                               : mmt_dgemm(ctx, g->layout, g->trans_a, g->trans_b, g->m, g->n, g->k, g->alpha, g->a,
                                           g->lda, g->b, g->ldb, g->beta, g->c, g->ldc);
}

/* At exit (or unload): wait a second at most for calls still inside, then close. */
__attribute__((destructor)) static void close_context(void)
{
    if (mmtb_inside_close(1000)) mmt_close(atomic_exchange(&ctx, NULL));
    print_counts();
}

/* A child must not use its parent's context (its database connections, its counts): it
 * drops it (the parent keeps it) and opens its own on its first GEMM. */
static void before_fork(void) { pthread_mutex_lock(&open_lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&open_lock); }
static void after_fork_child(void)
{
    atomic_store(&ctx, NULL);
    open_tried = 0;
    mmtb_inside_forked();
    atomic_store(&stats, -1);
    for (int f64 = 0; f64 < 2; f64++) {
        atomic_store(&forwarded[f64], 0);
        atomic_store(&offloaded[f64], 0);
        for (int i = 0; i < N_CHOICES; i++) atomic_store(&served[f64][i], 0);
    }
    pthread_mutex_unlock(&open_lock);
}

__attribute__((constructor)) static void watch_forks(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}
