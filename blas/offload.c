/* offload.c - the opt-in GPU offload: MMTUNE_OFFLOAD=cuda:N sends a GEMM with m n k of at
 * least MMTUNE_OFFLOAD_MIN (default 2^30, a 1024^3 product) to GPU N, where libmmtuned runs
 * it on the host matrices out of core (mmtuned.h's mmt_set_host_gemm: tiles of C, panels of
 * A and B copied on streams of their own while the tuned kernels run, as NVBLAS does; the
 * MMTUNE_OOC_* variables set its knobs). Unset, empty or off, every GEMM runs on the CPU.
 * The GPU context is opened once, on the first call the offload would take. Without a GPU
 * (or its driver) that fails, says why once, and GEMMs stay on the CPU. A GEMM the GPU
 * cannot run (too little memory, say) is said once and runs on the CPU, which is exact
 * because libmmtuned promises an untouched C for those failures, or where beta is 0 (C is
 * not read); a GPU that fails after writing part of a C that the result depends on leaves
 * no right answer to give, and the process stops with the message. A value that is not
 * one of the above is said once and ignored. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int on;
static double min_size = 1073741824.0;
static char device[64];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mmt_ctx *gpu;  /* under lock */
static int gpu_tried; /* under lock: a GPU that did not open is not tried again */

static void configure(void)
{
    static atomic_int said;
    const char *env = getenv("MMTUNE_OFFLOAD"), *min = getenv("MMTUNE_OFFLOAD_MIN");
    if (!env || !*env || strcmp(env, "off") == 0) return;
    char *end = NULL;
    if (strncmp(env, "cuda:", 5) != 0 || !isdigit((unsigned char)env[5]) || (strtol(env + 5, &end, 10), *end) ||
        strlen(env) >= sizeof device) {
        mmtb_warn_once(&said, "MMTUNE_OFFLOAD=%.100s: the values are off (the default) and cuda:N (GPU N); GEMMs stay "
                              "on the CPU",
                       env);
        return;
    }
    if (min && *min) {
        double v = strtod(min, &end);
        if (*end || !(v >= 0)) {
            mmtb_warn_once(&said, "MMTUNE_OFFLOAD_MIN=%.100s: the smallest m*n*k to offload, a number (default 2^30); "
                                  "GEMMs stay on the CPU",
                           min);
            return;
        }
        min_size = v;
    }
    snprintf(device, sizeof device, "%s", env);
    on = 1;
}

static mmt_ctx *gpu_context(void)
{
    pthread_mutex_lock(&lock);
    if (!gpu && !gpu_tried) {
        gpu_tried = 1;
        mmt_status st = mmt_open(&gpu, device, NULL);
        if (st != MMT_OK) {
            static atomic_int said;
            mmtb_warn_once(&said, "MMTUNE_OFFLOAD=%s: the GPU does not open (%s: %s); GEMMs stay on the CPU", device,
                           mmt_status_string(st), mmt_last_error(gpu));
            mmt_close(gpu);
            gpu = NULL;
        }
    }
    mmt_ctx *c = gpu;
    pthread_mutex_unlock(&lock);
    return c;
}

int mmtb_offload(const mmtb_gemm *g)
{
    pthread_once(&once, configure);
    mmt_ctx *ctx;
    if (!on || (double)g->m * g->n * g->k < min_size || !(ctx = gpu_context())) return 0;
    mmt_status st = mmtb_gemm_on(ctx, g);
    if (st == MMT_OK) {
        mmtb_count_offloaded(g->dtype);
        return 1;
    }
    const int untouched = st == MMT_OUT_OF_MEMORY || st == MMT_UNSUPPORTED || st == MMT_INVALID_ARGUMENT;
    if (!untouched && g->beta != 0) {
        fprintf(stderr, "libmmtuned_blas: MMTUNE_OFFLOAD=%s: the GPU failed part way through a GEMM whose C it had "
                        "begun to write (%s: %s); no right result can be given\n",
                device, mmt_status_string(st), mmt_last_error(ctx));
        abort();
    }
    static atomic_int said;
    mmtb_warn_once(&said, "MMTUNE_OFFLOAD=%s: the GPU could not run a GEMM (%s: %s); such GEMMs run on the CPU", device,
                   mmt_status_string(st), mmt_last_error(ctx));
    return 0;
}

/* At exit (or unload): the GPU context closes. A call still running at exit is the
 * application's race, as with any library it calls. */
__attribute__((destructor)) static void close_gpu(void)
{
    pthread_mutex_lock(&lock);
    mmt_close(gpu);
    gpu = NULL;
    pthread_mutex_unlock(&lock);
}

/* A child drops its parent's GPU context (CUDA contexts do not survive a fork) and opens
 * its own on its first offload. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    gpu = NULL;
    gpu_tried = 0;
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void watch_forks(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}
