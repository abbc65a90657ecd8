/* test_prebuild.c - the compile-ahead pool with its compile processes (the real mmtune
 * __compiler, NVRTC for an H100, no GPU needed): what two processes compile lands in the
 * kernel file cache under the keys the tuner looks up, and is what an in-process compile
 * makes; a compile error, and processes killed while idle, cost nothing more than their
 * job; an mmtune that cannot be started leaves the threads to compile; no process outlives
 * the pool. Skips (77) when NVRTC is unavailable. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "family.h"
#include "h100.h"
#include "kernel.h"
#include "prebuild.h"

enum { N_GOOD = 5 };

/* The state letter and parent of process pid ("pid (comm) state ppid ..."); 0 if it is gone. */
static int stat_of(const char *pid, char *state, int *ppid)
{
    char path[300], text[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *after = strrchr(text, ')');
    return after && sscanf(after + 1, " %c %d", state, ppid) == 2;
}

/* The pids of this process's children (zombies too); returns how many, at most max. */
static int children(pid_t *pids, int max)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    char state;
    int ppid;
    while (d && (e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && stat_of(e->d_name, &state, &ppid) && ppid == getpid() &&
            n < max)
            pids[n++] = atoi(e->d_name);
    if (d) closedir(d);
    return n;
}

/* Whether process pid is a zombie (dead, its pipes closed) or gone. */
static int dead(pid_t pid)
{
    char name[32], state;
    int ppid;
    snprintf(name, sizeof name, "%d", (int)pid);
    return !stat_of(name, &state, &ppid) || state == 'Z';
}

/* Waits until the pool has nothing queued or compiling (at most 5 minutes: a hang fails). */
static void drain(mmt_prebuild *pb)
{
    for (int i = 0; i < 3000 && mmt_prebuild_pending(pb) > 0; i++) usleep(100000);
    CHECK_EQ_INT(mmt_prebuild_pending(pb), 0);
}

static int cache_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += strstr(e->d_name, ".bin") != NULL;
    if (d) closedir(d);
    return n;
}

/* The cache holds the instance, and it is what compiling it here makes. */
static void check_cached(const mmt_backend *be, const mmt_device_info *dev, const char *source, const char *defines)
{
    void *bin = NULL, *fresh = NULL;
    size_t size = 0, fresh_size = 0;
    char *log = NULL;
    int cached = 0;
    mmt_err err;
    CHECK_OK(mmt_kernel_binary(be, dev, "", source, defines, &bin, &size, &log, &cached, &err), &err);
    CHECK_EQ_INT(cached, 1);
    free(log);
    CHECK_OK(be->compile(dev, source, defines, &fresh, &fresh_size, &log, &err), &err);
    CHECK(bin && fresh && size == fresh_size && memcmp(bin, fresh, size) == 0);
    free(log);
    free(bin);
    free(fresh);
}

int main(void)
{
    mmt_err err;
    const mmt_backend *be = mmt_backend_cuda_compiler(&err);
    if (!be) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    char dir[] = "/tmp/mmt-test-prebuild-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("MMTUNE_CACHE_DIR", dir, 1);
    mmt_device_info dev;
    h100(&dev);

    /* N_GOOD instances of the SIMT family for one problem, spread over its valid configs */
    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_find_template("cuda/gemm_simt.cu", &fam, &err), &err);
    if (!fam) return check_result();
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .m = 512,
                     .n = 512, .k = 512};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all = NULL;
    size_t count = 0;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    CHECK(count >= N_GOOD);
    char good[N_GOOD][4096];
    for (size_t i = 0; i < N_GOOD && count >= N_GOOD; i++)
        CHECK_OK(mmt_kernel_defines(fam->space, &all[(2 * i + 1) * count / (2 * N_GOOD)], &env, good[i],
                                    sizeof good[i], &err),
                 &err);
    free(all);
    if (count < N_GOOD) return check_result();

    /* two compile processes; the first job is a compile error (a warp tile of 4 x 4 lanes) */
    mmt_prebuild *pb = NULL;
    CHECK_OK(mmt_prebuild_new(be, &dev, fam->source, 2, MMT_MMTUNE_BIN, &pb, &err), &err);
    mmt_prebuild_push(pb, "WM=64 WN=64");
    mmt_prebuild_push(pb, good[0]);
    mmt_prebuild_push(pb, good[1]);
    mmt_prebuild_push(pb, good[0]); /* queued already or done: nothing new */
    drain(pb);
    CHECK_EQ_INT(mmt_prebuild_compiled(pb), 2);
    pid_t pids[16];
    int n = children(pids, 16);
    CHECK(n >= 1 && n <= 2);

    /* processes killed while idle: the next jobs start fresh ones and lose nothing */
    for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
    for (int i = 0; i < n; i++)
        for (int w = 0; w < 500 && !dead(pids[i]); w++) usleep(10000);
    mmt_prebuild_push(pb, good[2]);
    mmt_prebuild_push(pb, good[3]);
    drain(pb);
    CHECK_EQ_INT(mmt_prebuild_compiled(pb), 4);
    mmt_prebuild_free(pb);
    CHECK_EQ_INT(children(pids, 16), 0);

    /* an mmtune that cannot be started: the threads compile */
    CHECK_OK(mmt_prebuild_new(be, &dev, fam->source, 2, "/nonexistent/mmtune", &pb, &err), &err);
    mmt_prebuild_push(pb, good[4]);
    drain(pb);
    CHECK_EQ_INT(mmt_prebuild_compiled(pb), 1);
    mmt_prebuild_free(pb);
    CHECK_EQ_INT(children(pids, 16), 0);

    /* the cache holds the good instances, under the keys the tuner looks up */
    CHECK_EQ_INT(cache_files(dir), N_GOOD);
    for (int i = 0; i < N_GOOD; i++) check_cached(be, &dev, fam->source, good[i]);

    mmt_family_free(fam);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return check_result();
}
