/* prebuild.c - the compile-ahead pool and its compile processes (see prebuild.h). A
 * request is a fixed struct followed by the source and the definitions; the reply says
 * whether the process compiled. */
#include "prebuild.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "kernel.h"

typedef struct request {
    char backend[16]; /* its name: "cuda" */
    mmt_device_info dev;
    uint64_t source_size, defines_size; /* the texts follow, in this order, without their NULs */
} request;

typedef struct reply {
    int32_t status; /* mmt_kernel_binary's */
    int32_t cached; /* found in the cache: nothing compiled */
} reply;

/* A request's texts above this are not a request of the pool's. */
#define MAX_TEXT (64u << 20)

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
    char *exe; /* NULL: the threads compile in themselves */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    job *jobs; /* queued and running, oldest first */
    int stop, n_threads;
    size_t compiled; /* instances the pool compiled (not found in a cache), for throughput */
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

/* Compiles an instance into the kernel file cache (the binary itself is not kept);
 * *cached: it was there already. */
static mmt_status warm(const mmt_backend *be, const mmt_device_info *dev, const char *source, const char *defines,
                       int *cached)
{
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    *cached = 1;
    mmt_status st = mmt_kernel_binary(be, dev, "", source, defines, &bin, &size, &log, cached, NULL);
    free(bin);
    free(log);
    return st;
}

/* Has the thread's process compile; 1 if it compiled, 0 if not (found in a cache, failed,
 * or the process was lost on it: the job is dropped, the next one starts a fresh process),
 * -1 if no process can be started. A process found dead before it took the job (killed
 * while idle) is replaced and the job sent again. */
static int compile_in_process(const mmt_prebuild *pb, mmt_child *proc, const char *defines)
{
    request rq = {.dev = *pb->dev, .source_size = strlen(pb->source), .defines_size = strlen(defines)};
    snprintf(rq.backend, sizeof rq.backend, "%s", pb->be->name);
    const char *const argv[] = {pb->exe, "__compiler", NULL};
    for (int attempt = 0; attempt < 2; attempt++) {
        if (proc->pid < 0 && mmt_child_spawn(proc, argv, NULL) != MMT_OK) return -1;
        int sent = mmt_child_write_all(proc->to, &rq, sizeof rq) == 0 &&
                   mmt_child_write_all(proc->to, pb->source, rq.source_size) == 0 &&
                   mmt_child_write_all(proc->to, defines, rq.defines_size) == 0;
        reply rp;
        if (sent && mmt_child_read_all(proc->from, &rp, sizeof rp, 0) == 0) return rp.status == MMT_OK && !rp.cached;
        int status;
        mmt_child_reap(proc, &status);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return -1; /* the exec failed */
        if (sent) return 0;
    }
    return 0;
}

static void *compile_thread(void *arg)
{
    mmt_prebuild *pb = arg;
    mmt_child proc = MMT_CHILD_NONE; /* started on the first job, killed if this thread ends */
    int in_thread = !pb->exe;
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
        int compiled = in_thread ? -1 : compile_in_process(pb, &proc, j->defines);
        if (compiled < 0) { /* no process: as good as this thread can do */
            int cached;
            in_thread = 1;
            compiled = warm(pb->be, pb->dev, pb->source, j->defines, &cached) == MMT_OK && !cached;
        }
        pthread_mutex_lock(&pb->mu);
        pb->compiled += (size_t)compiled;
        job **at = find(pb, j->defines);
        if (at) unlink_job(at);
        pthread_cond_broadcast(&pb->done);
    }
    pthread_mutex_unlock(&pb->mu);
    mmt_child_stop(&proc);
    return NULL;
}

mmt_status mmt_prebuild_new(const mmt_backend *be, const mmt_device_info *dev, const char *source, int threads,
                            const char *exe, mmt_prebuild **out, mmt_err *err)
{
    mmt_prebuild *pb = calloc(1, sizeof *pb + sizeof(pthread_t) * (size_t)threads);
    RETURN_ERROR_IF(!pb, err, MMT_OUT_OF_MEMORY, "out of memory");
    if (exe && !(pb->exe = strdup(exe))) {
        free(pb);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
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
    free(pb->exe);
    free(pb);
}

/* ---- the compile process's side ------------------------------------------------------- */

/* The backend a request names, for compiling only (no device is opened). */
static const mmt_backend *compiler_named(const char *name, mmt_err *err)
{
    if (strcmp(name, mmt_backend_cpu.name) == 0) return &mmt_backend_cpu;
    if (strcmp(name, "cuda") == 0) return mmt_backend_cuda_compiler(err);
    mmt_err_set(err, MMT_UNSUPPORTED, "no backend %s", name);
    return NULL;
}

/* Reads n bytes of text from fd into a malloc'd string; NULL on EOF or error. */
static char *read_text(int fd, uint64_t n)
{
    char *s = n < MAX_TEXT ? malloc(n + 1) : NULL;
    if (s && mmt_child_read_all(fd, s, n, 0) == 0) {
        s[n] = '\0';
        return s;
    }
    free(s);
    return NULL;
}

int mmt_prebuild_main(void)
{
    /* Ctrl-C and a SIGTERM to the group reach every process of it: the tuner decides what
     * an interrupt means, and lets the compile in flight finish */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    request rq;
    while (mmt_child_read_all(3, &rq, sizeof rq, 0) == 0) {
        char *source = read_text(3, rq.source_size), *defines = source ? read_text(3, rq.defines_size) : NULL;
        if (!defines) {
            free(source);
            return 1;
        }
        rq.backend[sizeof rq.backend - 1] = '\0';
        mmt_err err;
        const mmt_backend *be = compiler_named(rq.backend, &err);
        int cached = 1;
        reply rp = {.status = be ? warm(be, &rq.dev, source, defines, &cached) : err.status};
        rp.cached = cached;
        free(source);
        free(defines);
        if (mmt_child_write_all(4, &rp, sizeof rp) != 0) return 1;
    }
    return 0;
}
