/* test_idle_spin.c - libmmtuned bounds how long idle OpenMP and OpenBLAS threads spin where
 * the application has not chosen and the runtime is not loaded yet (backend_cpu.c). Linked
 * as an application links libmmtuned.so, without OpenMP of its own; it runs itself with
 * environments of each kind and the child checks what it finds:
 *   neither set                        GOMP_SPINCOUNT=10000 (300 on 4 cores or fewer),
 *                                      OPENBLAS_THREAD_TIMEOUT=4
 *   both set by the application        its values
 *   OMP_WAIT_POLICY set                GOMP_SPINCOUNT left unset
 *   libgomp loaded first (LD_PRELOAD)  GOMP_SPINCOUNT left unset: too late to matter */
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "mmtuned.h"

extern char **environ;

/* The child: the two variables against the expected ones ("-": unset). */
static int child(const char *gomp, const char *openblas)
{
    const char *g = getenv("GOMP_SPINCOUNT"), *o = getenv("OPENBLAS_THREAD_TIMEOUT");
    CHECK_EQ_STR(g ? g : "-", gomp);
    CHECK_EQ_STR(o ? o : "-", openblas);
    mmt_ctx *ctx = NULL; /* and the library works */
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    mmt_close(ctx);
    return check_result();
}

/* Runs this program as the child with `extra` added to an environment that has none of the
 * variables; its exit status. */
static int run(const char *self, const char *const *extra, const char *gomp, const char *openblas)
{
    static const char *const dropped[] = {"GOMP_SPINCOUNT=", "OPENBLAS_THREAD_TIMEOUT=", "OMP_WAIT_POLICY=",
                                          "LD_PRELOAD=", NULL};
    char *env[512];
    size_t n = 0;
    for (int i = 0; extra[i]; i++) env[n++] = (char *)extra[i]; /* first: getenv finds these */
    for (char **e = environ; *e && n < 500; e++) {
        int drop = 0;
        for (int i = 0; dropped[i]; i++) drop |= strncmp(*e, dropped[i], strlen(dropped[i])) == 0;
        if (!drop) env[n++] = *e;
    }
    env[n] = NULL;
    char *argv[] = {(char *)self, (char *)gomp, (char *)openblas, NULL};
    pid_t pid;
    int status;
    if (posix_spawn(&pid, self, NULL, NULL, argv, env) != 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    if (argc == 3) return child(argv[1], argv[2]);
    static const char *const none[] = {NULL};
    static const char *const chosen[] = {"GOMP_SPINCOUNT=7", "OPENBLAS_THREAD_TIMEOUT=9", NULL};
    static const char *const policy[] = {"OMP_WAIT_POLICY=passive", NULL};
    /* under AddressSanitizer a preload must not come before its runtime, unless told */
    static const char *const preloaded[] = {"LD_PRELOAD=libgomp.so.1",
                                            "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1", NULL};
    cpu_set_t set; /* the cores the child may run on, as libgomp counts them */
    const int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    CHECK_EQ_INT(run(argv[0], none, cores <= 4 ? "300" : "10000", "4"), 0);
    CHECK_EQ_INT(run(argv[0], chosen, "7", "9"), 0);
    CHECK_EQ_INT(run(argv[0], policy, "-", "4"), 0);
    CHECK_EQ_INT(run(argv[0], preloaded, "-", "4"), 0);
    return check_result();
}
