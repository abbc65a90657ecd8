/* lanes.c - one queue of problems, several devices taking from it (see lanes.h). */
#include "lanes.h"

#include <pthread.h>
#include <stdatomic.h>
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
    size_t n;
    atomic_size_t next;
    mmt_lane_fn run;
    void *user;
} queue;

typedef struct lane {
    queue *q;
    int index;
} lane;

static void *drain(void *arg)
{
    const lane *l = arg;
    for (size_t j; (j = atomic_fetch_add(&l->q->next, 1)) < l->q->n;) l->q->run(l->q->user, l->index, l->q->order[j]);
    return NULL;
}

int mmt_lanes_run(int lanes, const size_t *order, size_t n, mmt_lane_fn run, void *user)
{
    if (lanes < 1) lanes = 1;
    if (lanes > MMT_LANES_MAX) lanes = MMT_LANES_MAX;
    queue q = {order, n, 0, run, user};
    lane ls[MMT_LANES_MAX];
    pthread_t th[MMT_LANES_MAX];
    int started[MMT_LANES_MAX] = {0}, ran = 1;
    for (int i = 1; i < lanes; i++) {
        ls[i] = (lane){&q, i};
        started[i] = pthread_create(&th[i], NULL, drain, &ls[i]) == 0;
        ran += started[i];
    }
    ls[0] = (lane){&q, 0};
    drain(&ls[0]);
    for (int i = 1; i < lanes; i++)
        if (started[i]) pthread_join(th[i], NULL);
    return ran;
}
