/* test_thread_limit.c - a GEMM where threads cannot be created: libgomp ends the process
 * when it cannot make one ("libgomp: Thread creation failed"), so libmmtuned must not ask
 * it for threads that cannot be had. A child process of this test (nobody, where the test
 * runs as root, whom RLIMIT_NPROC does not hold), its kernels built and loaded and OpenMP
 * asking for 4 threads, sets RLIMIT_NPROC to 1 and calls mmt_sgemm of 256^3 and a strided
 * batch of 600 small GEMMs, which libmmtuned would spread over plain threads: both are
 * right, on the one thread there is, the process lives to say so, and the application's own
 * OpenMP setting is what it was. */
#include <math.h>
#include <omp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api_call.h"
#include "batched_check.h"
#include "check.h"
#include "mmtuned.h"

extern char **environ;

static int limited_child(void)
{
    /* root is not held to RLIMIT_NPROC: the child is nobody then, in a folder of its own */
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 77;
    mmt_ctx *ctx;
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) return 3;
    omp_set_num_threads(1); /* the kernel compiled and loaded, OpenMP started, no thread made yet */
    if (!api_gemm_right(ctx, 0, 256, 256, 256, "the warm-up")) return 3;
    /* a batch with work for several threads (api.c's BATCH_THREAD_WORK), its kernel built */
    const batch_case bc = {.ab = MMT_F32, .c = MMT_F32, .mode = MMT_MODE_F32, .m = 33, .n = 17, .k = 30,
                           .batch = 600, .alpha = 1, .beta = 0.5};
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    batch_data d = bc_data(&bc);
    if (mmt_gemm_strided_batched(ctx, &desc, bc.m, bc.n, bc.k, bc.alpha, d.a, d.lda, d.stride_a, d.b, d.ldb,
                                 d.stride_b, bc.beta, d.c, d.ldc, d.stride_c, bc.batch) != MMT_OK)
        return 3;
    memcpy(d.c, d.c0, sizeof(float) * (size_t)d.nc);
    enum { M = 256 };
    float *a = malloc(sizeof(float) * M * M), *b = malloc(sizeof(float) * M * M), *c = malloc(sizeof(float) * M * M);
    for (int i = 0; i < M * M; i++) a[i] = (float)(i % 7) / 8 - 0.375f, b[i] = (float)(i % 5) / 4 - 0.5f, c[i] = NAN;
    omp_set_num_threads(4);
    struct rlimit was, none; /* this user may have no more processes or threads, for the call */
    if (getrlimit(RLIMIT_NPROC, &was) != 0) return 3;
    none = (struct rlimit){1, was.rlim_max};
    if (setrlimit(RLIMIT_NPROC, &none) != 0) return 3;
    int right = mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, M, M, M, 1, a, M, b, M, 0, c, M) == MMT_OK;
    const int batch_ran = mmt_gemm_strided_batched(ctx, &desc, bc.m, bc.n, bc.k, bc.alpha, d.a, d.lda, d.stride_a,
                                                   d.b, d.ldb, d.stride_b, bc.beta, d.c, d.ldc, d.stride_c,
                                                   bc.batch) == MMT_OK;
    setrlimit(RLIMIT_NPROC, &was); /* a leak checker at exit wants a thread */
    for (int i = 0; right && i < M * M; i += 97) { /* a sample of C against double sums (no OpenMP here) */
        double s = 0;
        for (int k = 0; k < M; k++) s += (double)a[i / M * M + k] * b[k * M + i % M];
        right = fabs(c[i] - s) <= 1e-4 * M;
    }
    free(a), free(b), free(c);
    mmt_close(ctx);
    const int batch_right = batch_ran && bc_error(&bc, &d, d.c) <= gc_bound(0, bc.k); /* OpenMP threads again */
    bc_free(&d);
    printf("with no thread to be had: %s, the batch %s; OpenMP asks for %d threads again\n",
           right ? "right" : "not right", batch_right ? "right" : "not right", omp_get_max_threads());
    return right && batch_right && omp_get_max_threads() == 4 ? 0 : 1;
}

int main(int argc, char **argv)
{
    setenv("MMTUNE_VENDOR", "off", 1); /* the templates' kernels, which use OpenMP */
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test-thread-limit.db", 1);
    if (argc > 1 && strcmp(argv[1], "limited") == 0) return limited_child();
    char dir[] = "/tmp/mmtune-test-thread-limit-XXXXXX", cache[64], cmd[128];
    CHECK(mkdtemp(dir) != NULL);
    if (geteuid() == 0) CHECK(chown(dir, 65534, 65534) == 0);
    snprintf(cache, sizeof cache, "%s/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    setenv("TMPDIR", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);
    pid_t pid;
    char *child_argv[] = {argv[0], "limited", NULL};
    CHECK(posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) == 0);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        printf("could not become another user: skipped\n");
        return check_result() ? check_result() : 77;
    }
    CHECK_EQ_INT(WEXITSTATUS(status), 0); /* 1: libgomp ended it ("Thread creation failed"), or a wrong result */
    return check_result();
}
