/* bench_nvrtc.c - the tuner's compile-ahead pool (tuner/tune/prebuild.h) with its compiles in
 * the pool's threads against in its processes (`mmtune __compiler`), on a fixed random
 * sample of instances of one family for the two fast odd bf16 problems (bench/shapes_odd.yaml)
 * (777x1234x4321, 96x12288x4096, row major NN) on an H100 as the CUDA backend probes it
 * (no GPU needed). Each run starts from an empty kernel cache.
 *   bench_nvrtc [--family wgmma|mma] [--count N] N_WORKERS...
 * Prints, per worker count, compiles per second in threads and in processes. Exits 77
 * without NVRTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "family.h"
#include "h100.h"
#include "kernel.h"
#include "prebuild.h"

/* Compiles per second of the pool with `workers` threads, compiling in processes of exe
 * (NULL: in the threads), into a fresh cache. */
static double run(const mmt_backend *be, const mmt_device_info *dev, const char *source, char **defines, int count,
                  int workers, const char *exe)
{
    char dir[] = "/tmp/mmt-bench-nvrtc-XXXXXX", cmd[64];
    mmt_prebuild *pb = NULL;
    mmt_err err;
    if (!mkdtemp(dir)) return fprintf(stderr, "bench_nvrtc: no temporary directory\n"), exit(1), 0;
    setenv("MMTUNE_CACHE_DIR", dir, 1);
    if (mmt_prebuild_new(be, dev, source, workers, exe, &pb, &err) != MMT_OK)
        return fprintf(stderr, "bench_nvrtc: %s\n", err.msg), exit(1), 0;
    const double t0 = mmt_now_s();
    for (int i = 0; i < count; i++) mmt_prebuild_push(pb, defines[i]);
    while (mmt_prebuild_pending(pb) > 0) usleep(10000);
    const double s = mmt_now_s() - t0;
    const size_t compiled = mmt_prebuild_compiled(pb);
    mmt_prebuild_free(pb);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_nvrtc: could not remove %s\n", dir);
    if (compiled != (size_t)count) fprintf(stderr, "bench_nvrtc: %zu of %d compiled\n", compiled, count), exit(1);
    return count / s;
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
    const mmt_backend *be = mmt_backend_cuda_compiler(&err);
    if (!be) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/search_spaces/cuda_gemm_%s.yaml", MMT_SOURCE_DIR, family);
    mmt_family *fam = NULL;
    if (mmt_family_load_file(path, &fam, &err) != MMT_OK) return fprintf(stderr, "bench_nvrtc: %s\n", err.msg), 1;
    mmt_device_info dev;
    h100(&dev);
    char **defines = calloc((size_t)want, sizeof *defines);
    const int64_t shapes[2][3] = {{777, 1234, 4321}, {96, 12288, 4096}};
    uint64_t rng = 12345;
    int count = 0;
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
        free(all);
        int seen = 0; /* the pool compiles a repeated instance once */
        for (int j = 0; j < count; j++) seen |= strcmp(defines[j], d) == 0;
        if (!seen) defines[count++] = strdup(d);
    }
    printf("bench_nvrtc: %d %s instances (bf16 777x1234x4321 and 96x12288x4096 on an H100)\n", count, family);
    for (; a < argc; a++) {
        const int workers = atoi(argv[a]);
        if (workers < 1 || workers > 256) continue;
        const double threads = run(be, &dev, fam->source, defines, count, workers, NULL),
                     processes = run(be, &dev, fam->source, defines, count, workers, MMT_MMTUNE_BIN);
        printf("%3d workers: %6.2f compiles/s in threads, %6.2f in processes\n", workers, threads, processes);
    }
    for (int i = 0; i < count; i++) free(defines[i]);
    free(defines);
    mmt_family_free(fam);
    return 0;
}
