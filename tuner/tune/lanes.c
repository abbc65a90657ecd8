/* lanes.c - one queue of problems, several devices taking from it (see lanes.h). */
#include "lanes.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct costed {
    double flops;
    size_t index;
} costed;

static int costlier_first(const void *x, const void *y)
{
    const costed *a = x, *b = y;
    return a->flops > b->flops ? -1 : a->flops < b->flops ? 1 : (a->index > b->index) - (a->index < b->index);
}

void mmt_lanes_order(const mmt_problem *p, size_t n, size_t *order)
{
    costed *c = malloc((n ? n : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        if (c) c[i] = (costed){mmt_problem_flops(&p[i]), i};
    }
    if (!c) return; /* out of memory: the file's order deals them too */
    qsort(c, n, sizeof *c, costlier_first);
    for (size_t i = 0; i < n; i++) order[i] = c[i].index;
    free(c);
}

typedef struct queue {
    const size_t *order;
    size_t n, next;
    size_t *retry, n_retry; /* problems a broken lane left, taken before the queue's next */
    int busy, alive;        /* lanes running a problem; lanes not broken */
    mmt_lane_fn run;
    void *user;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} queue;

typedef struct lane {
    queue *q;
    int index;
} lane;

/* A lane's loop: the next problem (a broken lane's first), until none is left and no lane
 * runs one that may come back. */
static void *drain(void *arg)
{
    const lane *l = arg;
    queue *q = l->q;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        size_t i;
        if (q->n_retry) i = q->retry[--q->n_retry];
        else if (q->next < q->n) i = q->order[q->next++];
        else if (q->busy) {
            pthread_cond_wait(&q->changed, &q->lock);
            continue;
        } else break;
        const int last = q->alive == 1;
        q->busy++;
        pthread_mutex_unlock(&q->lock);
        const int broken = q->run(q->user, l->index, i, last);
        pthread_mutex_lock(&q->lock);
        q->busy--;
        if (broken && !last) { /* i goes back; this lane leaves unless it is the last one now */
            q->retry[q->n_retry++] = i;
            if (q->alive > 1) {
                q->alive--;
                pthread_cond_broadcast(&q->changed);
                break;
            }
        }
        pthread_cond_broadcast(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

int mmt_lanes_run(int lanes, const size_t *order, size_t n, mmt_lane_fn run, void *user)
{
    if (lanes < 1) lanes = 1;
    if (lanes > MMT_LANES_MAX) lanes = MMT_LANES_MAX;
    queue q = {.order = order, .n = n, .retry = malloc((n ? n : 1) * sizeof(size_t)), .run = run, .user = user};
    if (!q.retry) lanes = 1; /* out of memory: one lane, which never leaves its problems */
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.changed, NULL);
    lane ls[MMT_LANES_MAX];
    pthread_t th[MMT_LANES_MAX];
    int started[MMT_LANES_MAX] = {0};
    q.alive = 1;
    pthread_mutex_lock(&q.lock); /* the lanes count themselves in before any runs */
    for (int i = 1; i < lanes; i++) {
        ls[i] = (lane){&q, i};
        started[i] = pthread_create(&th[i], NULL, drain, &ls[i]) == 0;
        q.alive += started[i];
    }
    const int ran = q.alive;
    pthread_mutex_unlock(&q.lock);
    ls[0] = (lane){&q, 0};
    drain(&ls[0]);
    for (int i = 1; i < lanes; i++)
        if (started[i]) pthread_join(th[i], NULL);
    pthread_cond_destroy(&q.changed);
    pthread_mutex_destroy(&q.lock);
    free(q.retry);
    return ran;
}
