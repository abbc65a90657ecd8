/* miss.c - miss counters and their write-back (see miss.h). */
#include "miss.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mmt_misses {
    mmt_device_info dev;
    int64_t interval_ms;
    _Atomic int64_t next_ms; /* the coarse clock's time of the next sync */
    atomic_int syncing;
    pthread_mutex_t lock; /* guards the list; counts are atomic */
    mmt_miss_counter *counters;
    mmt_store *st; /* the write-back connection; only the sync owner and free use it */
};

/* A call that finds the interval over waits this long for a tuner's write lock at most;
 * mmt_close, which writes the last counts, waits longer. */
enum { CALL_WAIT_MS = 100, CLOSE_WAIT_MS = 3000 };

/* The coarse monotonic clock (a vDSO read, no system call; a few ms resolution is plenty
 * for an interval of seconds), in milliseconds. */
static int64_t coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

mmt_status mmt_misses_interval(double *seconds, mmt_err *err)
{
    *seconds = 5;
    const char *env = getenv("MMTUNE_SYNC_S");
    if (!env || !*env) return MMT_OK;
    char *end;
    double v = strtod(env, &end);
    RETURN_ERROR_IF(*end || !isfinite(v) || v < 0, err, MMT_INVALID_ARGUMENT,
                    "MMTUNE_SYNC_S=%.100s: seconds between a context's syncs with the database (default 5)", env);
    *seconds = v;
    return MMT_OK;
}

mmt_misses *mmt_misses_new(const char *db_path, const mmt_device_info *dev, double interval_s)
{
    mmt_misses *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    /* opened here, not on the first write: opening may wait for locks as long as any open
     * does (the store's busy timeout), which a GEMM call must not */
    mmt_err ignore;
    if (mmt_store_open(db_path, 0, &m->st, &ignore) != MMT_OK) {
        free(m);
        return NULL;
    }
    mmt_store_busy_timeout(m->st, CALL_WAIT_MS);
    m->dev = *dev;
    m->interval_ms = (int64_t)(interval_s * 1000);
    atomic_init(&m->next_ms, coarse_ms() + m->interval_ms);
    atomic_init(&m->syncing, 0);
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

mmt_store *mmt_misses_store(mmt_misses *m) { return m->st; }

/* The calling thread's share of every counter: threads are dealt them in turn. */
static atomic_uint next_share;
static __thread int share = -1;

void mmt_miss_count_n(mmt_miss_counter *c, int64_t calls)
{
    if (share < 0) share = (int)(atomic_fetch_add_explicit(&next_share, 1, memory_order_relaxed) % MMT_MISS_SHARES);
    atomic_fetch_add_explicit(&c->calls[share].n, calls, memory_order_relaxed);
}

static int64_t calls_of(mmt_miss_counter *c)
{
    int64_t sum = 0;
    for (int i = 0; i < MMT_MISS_SHARES; i++) sum += atomic_load_explicit(&c->calls[i].n, memory_order_relaxed);
    return sum;
}

static void flush(mmt_misses *m, int wait_ms)
{
    /* a snapshot of the counts; calls keep adding to the counters meanwhile */
    size_t n = 0, cap = 0;
    mmt_miss_rec *recs = NULL;
    mmt_miss_counter **of = NULL;
    pthread_mutex_lock(&m->lock);
    for (mmt_miss_counter *c = m->counters; c; c = c->next) {
        int64_t calls = calls_of(c);
        if (calls <= 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            mmt_miss_rec *r = realloc(recs, cap * sizeof *recs);
            mmt_miss_counter **o = realloc(of, cap * sizeof *of);
            if (r) recs = r;
            if (o) of = o;
            if (!r || !o) break;
        }
        recs[n] = (mmt_miss_rec){.problem = c->problem, .calls = calls};
        of[n++] = c;
    }
    pthread_mutex_unlock(&m->lock);
    if (n) {
        mmt_err ignore;
        mmt_store_busy_timeout(m->st, wait_ms);
        if (mmt_store_miss_add(m->st, &m->dev, recs, n, &ignore) == MMT_OK)
            for (size_t i = 0; i < n; i++) /* from one share: the sum is what counts */
                atomic_fetch_sub_explicit(&of[i]->calls[0].n, recs[i].calls, memory_order_relaxed);
        mmt_store_busy_timeout(m->st, CALL_WAIT_MS);
    }
    free(recs);
    free(of);
}

void mmt_misses_flush(mmt_misses *m) { flush(m, CALL_WAIT_MS); }

void mmt_misses_free(mmt_misses *m)
{
    if (!m) return;
    flush(m, CLOSE_WAIT_MS);
    mmt_store_close(m->st);
    for (mmt_miss_counter *c = m->counters, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

mmt_miss_counter *mmt_misses_counter(mmt_misses *m, const mmt_problem *p)
{
    pthread_mutex_lock(&m->lock);
    mmt_miss_counter *c = m->counters;
    while (c && !mmt_problem_equal(&c->problem, p)) c = c->next;
    if (!c && (c = aligned_alloc(_Alignof(mmt_miss_counter), sizeof *c)) != NULL) { /* its shares' lines */
        memset(c, 0, sizeof *c);
        c->problem = *p;
        for (int i = 0; i < MMT_MISS_SHARES; i++) atomic_init(&c->calls[i].n, 0);
        atomic_init(&c->autotune, 0);
        c->next = m->counters;
        m->counters = c;
    }
    pthread_mutex_unlock(&m->lock);
    return c;
}

int mmt_misses_due(mmt_misses *m)
{
    if (coarse_ms() < atomic_load_explicit(&m->next_ms, memory_order_relaxed)) return 0;
    return atomic_exchange(&m->syncing, 1) == 0;
}

void mmt_misses_done(mmt_misses *m)
{
    atomic_store(&m->next_ms, coarse_ms() + m->interval_ms);
    atomic_store(&m->syncing, 0);
}
