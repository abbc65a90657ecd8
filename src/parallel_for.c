/* parallel_for.c - a loop spread over the host's cores on plain threads (see parallel_for.h). */
#include "parallel_for.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "device.h"

enum { MAX_THREADS = 1024 };

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
    pthread_t *t = threads > 1 ? malloc(sizeof *t * (threads - 1)) : NULL;
    share *s = threads > 1 ? malloc(sizeof *s * (threads - 1)) : NULL;
    int made = 0;
    if (t && s)
        for (; made < threads - 1; made++) {
            s[made] = (share){&l, made + 1};
            if (pthread_create(&t[made], NULL, thread_main, &s[made]) != 0) break;
        }
    run_share(&l, 0);
    /* a static share whose thread was not made: the caller takes it */
    if (chunk == 0)
        for (int i = made + 1; i < threads; i++) run_share(&l, i);
    for (int i = 0; i < made; i++) pthread_join(t[i], NULL);
    free(t);
    free(s);
}
