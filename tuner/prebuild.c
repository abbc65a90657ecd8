/* prebuild.c - the compile-ahead pool (see prebuild.h). */
#include "prebuild.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

enum { JOB_QUEUED, JOB_RUNNING };

typedef struct job {
    char *defines;
    int state;
    struct job *next;
} job;

struct mmt_prebuild {
    const mmt_backend *be;
    const mmt_device_info *dev;
    const char *source;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    job *jobs; /* queued and running, oldest first */
    int stop, n_threads;
    size_t compiled; /* instances the threads compiled (not found in a cache), for throughput */
    pthread_t threads[];
};

static job **find(mmt_prebuild *pb, const char *defines)
{
    for (job **j = &pb->jobs; *j; j = &(*j)->next)
        if (strcmp((*j)->defines, defines) == 0) return j;
    return NULL;
}

static void unlink_job(job **at)
{
    job *j = *at;
    *at = j->next;
    free(j->defines);
    free(j);
}

static void *compile_thread(void *arg)
{
    mmt_prebuild *pb = arg;
    pthread_mutex_lock(&pb->mu);
    for (;;) {
        job *j = pb->jobs;
        while (j && j->state != JOB_QUEUED) j = j->next;
        if (pb->stop) break;
        if (!j) {
            pthread_cond_wait(&pb->work, &pb->mu);
            continue;
        }
        j->state = JOB_RUNNING;
        pthread_mutex_unlock(&pb->mu);
        void *bin = NULL;
        size_t size = 0;
        char *log = NULL;
        int cached = 1;
        /* a failure is not reported here (nor counted): the loop builds the instance again,
         * records it and counts that compile */
        mmt_status st =
            mmt_kernel_binary(pb->be, pb->dev, NULL, "", pb->source, j->defines, &bin, &size, &log, &cached, NULL);
        free(bin);
        free(log);
        pthread_mutex_lock(&pb->mu);
        if (st == MMT_OK && !cached) pb->compiled++;
        job **at = find(pb, j->defines);
        if (at) unlink_job(at);
        pthread_cond_broadcast(&pb->done);
    }
    pthread_mutex_unlock(&pb->mu);
    return NULL;
}

mmt_status mmt_prebuild_new(const mmt_backend *be, const mmt_device_info *dev, const char *source, int threads,
                            mmt_prebuild **out, mmt_err *err)
{
    mmt_prebuild *pb = calloc(1, sizeof *pb + sizeof(pthread_t) * (size_t)threads);
    RETURN_ERROR_IF(!pb, err, MMT_OUT_OF_MEMORY, "out of memory");
    pb->be = be;
    pb->dev = dev;
    pb->source = source;
    pthread_mutex_init(&pb->mu, NULL);
    pthread_cond_init(&pb->work, NULL);
    pthread_cond_init(&pb->done, NULL);
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&pb->threads[i], NULL, compile_thread, pb) != 0) break;
        pb->n_threads++;
    }
    *out = pb;
    return MMT_OK;
}

void mmt_prebuild_push(mmt_prebuild *pb, const char *defines)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    if (!find(pb, defines)) {
        job *j = calloc(1, sizeof *j), **tail = &pb->jobs;
        if (j && (j->defines = strdup(defines))) {
            while (*tail) tail = &(*tail)->next;
            *tail = j;
            pthread_cond_signal(&pb->work);
        } else {
            free(j);
        }
    }
    pthread_mutex_unlock(&pb->mu);
}

void mmt_prebuild_claim(mmt_prebuild *pb, const char *defines)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    job **at;
    while ((at = find(pb, defines)) && (*at)->state == JOB_RUNNING) pthread_cond_wait(&pb->done, &pb->mu);
    if (at) unlink_job(at);
    pthread_mutex_unlock(&pb->mu);
}

int mmt_prebuild_pending(mmt_prebuild *pb)
{
    if (!pb) return 0;
    pthread_mutex_lock(&pb->mu);
    int n = 0;
    for (job *j = pb->jobs; j; j = j->next) n++;
    pthread_mutex_unlock(&pb->mu);
    return n;
}

size_t mmt_prebuild_compiled(mmt_prebuild *pb)
{
    if (!pb) return 0;
    pthread_mutex_lock(&pb->mu);
    size_t n = pb->compiled;
    pthread_mutex_unlock(&pb->mu);
    return n;
}

void mmt_prebuild_free(mmt_prebuild *pb)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    pb->stop = 1;
    pthread_cond_broadcast(&pb->work);
    pthread_mutex_unlock(&pb->mu);
    for (int i = 0; i < pb->n_threads; i++) pthread_join(pb->threads[i], NULL);
    while (pb->jobs) unlink_job(&pb->jobs);
    pthread_mutex_destroy(&pb->mu);
    pthread_cond_destroy(&pb->work);
    pthread_cond_destroy(&pb->done);
    free(pb);
}
