/* parallel_for.c - a loop spread over the host's cores on plain threads (see parallel_for.h).
 *
 * Threads are kept between loops in a pool: making, starting and joining a thread costs tens
 * of microseconds (some 45 us on a 2-core virtual machine), as much as a small loop's work,
 * while waking a kept one costs a few. Idle workers sleep on a condition variable, so they
 * take no CPU from the application. One loop uses the pool at a time; a loop that finds it
 * in use (another application thread's), or that needs more threads than it keeps, makes
 * and joins threads of its own for the rest, as before the pool. A forked child starts with
 * no workers (they stayed with the parent), and the library's destructor stops and joins
 * them, so unloading it never pulls code from under a worker. */
#include "parallel_for.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "device.h"

enum { MAX_THREADS = 1024, POOL_MAX = 64 };

typedef struct {
    mmt_range_fn fn;
    void *ctx;
    int64_t n, chunk;
    int threads;
    atomic_int_fast64_t next; /* chunk > 0: the first iteration not handed out */
} loop;

typedef struct {
    loop *l;
    int index;
} share;

static void run_share(loop *l, int index)
{
    if (l->chunk == 0) {
        const int64_t begin = l->n * index / l->threads, end = l->n * (index + 1) / l->threads;
        if (begin < end) l->fn(l->ctx, begin, end);
        return;
    }
    for (int64_t begin; (begin = atomic_fetch_add(&l->next, l->chunk)) < l->n;)
        l->fn(l->ctx, begin, begin + l->chunk < l->n ? begin + l->chunk : l->n);
}

/* ---- the pool ----------------------------------------------------------------------- */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t thread[POOL_MAX];
    int made;       /* workers alive; worker i runs share i + 1 */
    int busy;       /* a loop holds the pool */
    int stopping;   /* the destructor: workers return */
    _Atomic uint64_t gen; /* the loop's number (written under the lock): a worker runs each loop once */
    loop *l;        /* the loop of generation gen */
    int want;       /* its workers: 0 .. want - 1 */
    int finished;   /* of those, done with it */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

/* A worker's wait for the next loop: after a loop it ran a share of, a short spin first
 * (some tens of microseconds, as libmmtuned bounds OpenMP's idle spinning), so that a loop
 * that follows at once (a batch after a batch) finds it running on its own core, rather than
 * woken where the scheduler puts a woken thread, often beside the caller; then asleep. A
 * worker a loop did not need goes back to sleep at once. */
enum { SPINS = 2000 };

static void *worker_main(void *arg)
{
    const int index = (int)(intptr_t)arg;
    uint64_t seen = 0;
    for (int ran = 0;;) {
        for (int i = 0; ran && i < SPINS && atomic_load_explicit(&pool.gen, memory_order_relaxed) == seen; i++) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.gen, memory_order_relaxed) == seen && !pool.stopping)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stopping) {
            pthread_mutex_unlock(&pool.lock);
            return NULL;
        }
        seen = atomic_load_explicit(&pool.gen, memory_order_relaxed);
        loop *l = index < pool.want ? pool.l : NULL;
        pthread_mutex_unlock(&pool.lock);
        ran = l != NULL;
        if (!l) continue;
        run_share(l, index + 1);
        pthread_mutex_lock(&pool.lock);
        if (++pool.finished == pool.want) pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
}

/* Grows the pool to n workers (under the lock), as far as threads can be made. */
static void grow(int n)
{
    while (pool.made < n && pthread_create(&pool.thread[pool.made], NULL, worker_main, (void *)(intptr_t)pool.made) == 0)
        pool.made++;
}

/* The fork handlers: the lock is held across fork, so a child never inherits it held by a
 * thread it does not have; the child's pool has no workers and no loop. */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void after_fork_child(void)
{
    pool.made = 0, pool.busy = 0, pool.want = 0, pool.finished = 0;
    /* the condition variables count the parent's waiting workers: made anew */
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pthread_mutex_unlock(&pool.lock);
}

__attribute__((constructor)) static void pool_init(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.stopping = 1;
    pthread_cond_broadcast(&pool.wake);
    const int made = pool.made;
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < made; i++) pthread_join(pool.thread[i], NULL);
}

/* Takes the pool for l's shares 1 .. helpers (under its lock): returns how many of them its
 * workers run (0: the pool is in use, or none could be made); the caller then waits in
 * pool_release. */
static int pool_take(loop *l, int helpers)
{
    pthread_mutex_lock(&pool.lock);
    int got = 0;
    if (!pool.busy && !pool.stopping) {
        grow(helpers < POOL_MAX ? helpers : POOL_MAX);
        got = helpers < pool.made ? helpers : pool.made;
        if (got > 0) {
            pool.busy = 1, pool.l = l, pool.want = got, pool.finished = 0;
            atomic_fetch_add_explicit(&pool.gen, 1, memory_order_relaxed);
            pthread_cond_broadcast(&pool.wake);
        }
    }
    pthread_mutex_unlock(&pool.lock);
    return got;
}

static void pool_release(void)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.finished < pool.want) pthread_cond_wait(&pool.done, &pool.lock);
    pool.busy = 0, pool.want = 0, pool.l = NULL;
    pthread_mutex_unlock(&pool.lock);
}

/* ---- threads of a loop's own (the pool in use or too small) --------------------------- */

static void *thread_main(void *arg)
{
    share *s = arg;
    run_share(s->l, s->index);
    return NULL;
}

void mmt_parallel_for(int64_t n, int64_t chunk, int threads, mmt_range_fn fn, void *ctx)
{
    if (n <= 0) return;
    if (threads <= 0) threads = mmt_usable_cores();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    const int64_t shares = chunk > 0 ? (n + chunk - 1) / chunk : n;
    if (threads > shares) threads = (int)shares;
    loop l = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk, .threads = threads};
    atomic_init(&l.next, 0);
    /* shares 1 .. pooled run on the pool's workers, pooled + 1 .. threads - 1 on threads
     * made for this loop, share 0 on the caller */
    const int pooled = threads > 1 ? pool_take(&l, threads - 1) : 0, own = threads - 1 - pooled;
    pthread_t *t = own > 0 ? malloc(sizeof *t * own) : NULL;
    share *s = own > 0 ? malloc(sizeof *s * own) : NULL;
    int made = 0;
    if (t && s)
        for (; made < own; made++) {
            s[made] = (share){&l, pooled + 1 + made};
            if (pthread_create(&t[made], NULL, thread_main, &s[made]) != 0) break;
        }
    run_share(&l, 0);
    /* a static share whose thread was not made: the caller takes it */
    if (chunk == 0)
        for (int i = pooled + 1 + made; i < threads; i++) run_share(&l, i);
    for (int i = 0; i < made; i++) pthread_join(t[i], NULL);
    if (pooled) pool_release();
    free(t);
    free(s);
}
