/* builder.c - a queue of jobs and the one thread that runs them (see builder.h). */
#include "builder.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct job {
    mmt_builder_fn fn;
    void *arg;
    struct job *next;
} job;

struct mmt_builder {
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    job *head, *tail;
    int busy;     /* a job is running */
    int closing;
    int started;  /* the thread runs, in process `pid` */
    pid_t pid;
    pthread_t thread;
};

mmt_builder *mmt_builder_new(void)
{
    mmt_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
    pthread_cond_init(&b->idle, NULL);
    return b;
}

static void *run(void *arg)
{
    mmt_builder *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->head && !b->closing) pthread_cond_wait(&b->wake, &b->lock);
        if (b->closing) break;
        job *j = b->head;
        b->head = j->next;
        if (!b->head) b->tail = NULL;
        b->busy = 1;
        pthread_mutex_unlock(&b->lock);
        j->fn(j->arg, 1);
        free(j);
        pthread_mutex_lock(&b->lock);
        b->busy = 0;
        if (!b->head) pthread_cond_broadcast(&b->idle);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

int mmt_builder_submit(mmt_builder *b, mmt_builder_fn fn, void *arg)
{
    job *j = b ? malloc(sizeof *j) : NULL;
    if (!j) return -1;
    *j = (job){fn, arg, NULL};
    pthread_mutex_lock(&b->lock);
    if (b->started && b->pid != getpid()) /* a forked child: the thread stayed with the parent */
        b->started = 0, b->busy = 0, b->head = b->tail = NULL;
    int ok = !b->closing;
    if (ok && !b->started) {
        ok = pthread_create(&b->thread, NULL, run, b) == 0;
        if (ok) b->started = 1, b->pid = getpid();
    }
    if (ok) {
        if (b->tail) b->tail->next = j;
        else b->head = j;
        b->tail = j;
        pthread_cond_signal(&b->wake);
    }
    pthread_mutex_unlock(&b->lock);
    if (!ok) free(j);
    return ok ? 0 : -1;
}

int mmt_builder_drain(mmt_builder *b)
{
    if (!b) return 0;
    pthread_mutex_lock(&b->lock);
    const int live = b->started && b->pid == getpid(), any = live && (b->head || b->busy);
    while (live && (b->head || b->busy)) pthread_cond_wait(&b->idle, &b->lock);
    pthread_mutex_unlock(&b->lock);
    return any;
}

void mmt_builder_free(mmt_builder *b)
{
    if (!b) return;
    pthread_mutex_lock(&b->lock);
    b->closing = 1;
    const int join = b->started && b->pid == getpid();
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
    if (join) pthread_join(b->thread, NULL);
    for (job *j = b->head, *next; j; j = next) { /* queued and never run */
        next = j->next;
        j->fn(j->arg, 0);
        free(j);
    }
    pthread_cond_destroy(&b->wake);
    pthread_cond_destroy(&b->idle);
    pthread_mutex_destroy(&b->lock);
    free(b);
}
