/* bench_nvrtc.c - NVRTC's throughput over the threads of one process against the same
 * number of processes, on a fixed random sample of instances of one family for the two
 * fast odd bf16 problems of issue 9 (777x1234x4321, 96x12288x4096, row major NN) on an H100
 * as the CUDA backend probes it (no GPU needed). The tuner's compile-ahead pool was threads;
 * this is the measurement that moved it to processes (BENCHMARKS.md).
 *   bench_nvrtc [--family wgmma|mma] [--count N] N_WORKERS...
 * Prints, per worker count, compiles per second in threads and in processes. Exits 77
 * without NVRTC. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "family.h"
#include "h100.h"
#include "kernel.h"

static const char *source, *arch;
static char **defines;
static int count, workers;

static void compile_share(int w)
{
    for (int i = w; i < count; i += workers) {
        void *bin = NULL;
        size_t size = 0;
        mmt_err err;
        if (mmt_cuda_compile_for_arch(arch, source, defines[i], &bin, &size, NULL, &err) != MMT_OK) {
            fprintf(stderr, "bench_nvrtc: %s\n", err.msg);
            exit(1);
        }
        free(bin);
    }
}

static void *thread_main(void *arg)
{
    compile_share((int)(intptr_t)arg);
    return NULL;
}

/* Compiles per second with `workers` threads (processes: 0) or processes (1). */
static double run(int processes)
{
    const double t0 = mmt_now_s();
    int failed = 0;
    if (processes) {
        for (int w = 0; w < workers; w++)
            if (fork() == 0) compile_share(w), _exit(0);
        for (int status; wait(&status) > 0;) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    } else {
        pthread_t t[256];
        for (int w = 0; w < workers; w++) pthread_create(&t[w], NULL, thread_main, (void *)(intptr_t)w);
        for (int w = 0; w < workers; w++) pthread_join(t[w], NULL);
    }
    if (failed) fprintf(stderr, "bench_nvrtc: a compile process failed\n"), exit(1);
    return count / (mmt_now_s() - t0);
}

int main(int argc, char **argv)
{
    const char *family = "wgmma";
    int want = 30, a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
        if (a + 1 >= argc) break;
        if (strcmp(argv[a], "--family") == 0) family = argv[a + 1];
        else if (strcmp(argv[a], "--count") == 0) want = atoi(argv[a + 1]);
    }
    if (a >= argc || want < 2 || (strcmp(family, "wgmma") && strcmp(family, "mma"))) {
        fprintf(stderr, "usage: bench_nvrtc [--family wgmma|mma] [--count N] N_WORKERS...\n");
        return 2;
    }
    mmt_err err;
    void *bin = NULL;
    size_t size;
    if (mmt_cuda_compile_for_arch("sm_90", "__global__ void k() {}", "", &bin, &size, NULL, &err) != MMT_OK) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    free(bin);
    char path[512];
    snprintf(path, sizeof path, "%s/search_spaces/cuda_gemm_%s.yaml", MMT_SOURCE_DIR, family);
    mmt_family *fam = NULL;
    if (mmt_family_load_file(path, &fam, &err) != MMT_OK) return fprintf(stderr, "bench_nvrtc: %s\n", err.msg), 1;
    mmt_device_info dev;
    h100(&dev);
    source = fam->source;
    arch = fam->space->arch_specific ? "sm_90a" : "sm_90";
    defines = calloc((size_t)want, sizeof *defines);
    const int64_t shapes[2][3] = {{777, 1234, 4321}, {96, 12288, 4096}};
    uint64_t rng = 12345;
    for (int i = 0; i < want; i++) { /* half from each problem, spread at random */
        mmt_problem p = {.dtype = MMT_BF16, .out = MMT_BF16, .mode = MMT_MODE_BF16, .layout = MMT_ROW_MAJOR,
                         .m = shapes[i % 2][0], .n = shapes[i % 2][1], .k = shapes[i % 2][2]};
        mmt_space_env env = {.problem = &p, .device = &dev, .align_a = mmt_align_bytes(0, p.k * 2),
                             .align_b = mmt_align_bytes(0, p.n * 2)};
        mmt_config *all = NULL;
        size_t n = 0;
        char d[4096];
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        if (mmt_space_enumerate(fam->space, &env, &all, &n, &err) != MMT_OK || n == 0 ||
            mmt_kernel_defines(fam->space, &all[(rng >> 33) % n], &env, d, sizeof d, &err) != MMT_OK)
            return fprintf(stderr, "bench_nvrtc: %s\n", err.msg), 1;
        defines[count++] = strdup(d);
        free(all);
    }
    printf("bench_nvrtc: %d %s instances (bf16 777x1234x4321 and 96x12288x4096 on an H100, %s)\n", count, family,
           arch);
    for (; a < argc; a++) {
        workers = atoi(argv[a]);
        if (workers < 1 || workers > 256) continue;
        double threads = run(0), processes = run(1);
        printf("%3d workers: %6.2f compiles/s in threads, %6.2f in processes\n", workers, threads, processes);
    }
    for (int i = 0; i < count; i++) free(defines[i]);
    free(defines);
    mmt_family_free(fam);
    return 0;
}
