/* all_gpus.c - one mmtune per GPU (see all_gpus.h). */
#include "all_gpus.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "exit_codes.h"

/* Starts mmtune with argv and "--device G" (and "--shard J/M" where shards > 0) after it;
 * the pid, or -1. */
static pid_t start(const char *exe, int argc, char **argv, int gpu, int shard, int shards)
{
    char device[16], share[32];
    snprintf(device, sizeof device, "%d", gpu);
    snprintf(share, sizeof share, "%d/%d", shard, shards);
    char **args = calloc((size_t)argc + 5, sizeof *args);
    if (!args) return -1;
    memcpy(args, argv, (size_t)argc * sizeof *args);
    args[argc] = "--device", args[argc + 1] = device;
    if (shards > 0) args[argc + 2] = "--shard", args[argc + 3] = share;
    pid_t pid = fork();
    if (pid == 0) {
        execv(exe, args);
        _exit(127);
    }
    free(args);
    return pid;
}

int mmt_tune_all_gpus(int argc, char **argv, int deal, int shard_index, int shard_count)
{
    mmt_err err;
    const mmt_backend *cuda = mmt_backend_cuda(&err);
    int n = cuda ? cuda->device_count() : 0;
    if (n == 0) {
        fprintf(stderr, "mmtune: --device all tunes every GPU of this host, and it has none (%s): --device cpu "
                        "tunes the CPU\n",
                cuda ? "the CUDA driver finds no device" : err.msg);
        return EXIT_BAD_INPUT;
    }
    mmt_device_info *dev = calloc((size_t)n, sizeof *dev);
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int rc = dev && pids && len > 0 ? EXIT_OK : EXIT_FAIL;
    if (rc == EXIT_OK) exe[len] = '\0';
    for (int g = 0; rc == EXIT_OK && g < n; g++)
        if (cuda->probe(g, &dev[g], &err) != MMT_OK) {
            fprintf(stderr, "mmtune: GPU %d: %s\n", g, err.msg);
            rc = EXIT_FAIL;
        }
    const int ready = rc == EXIT_OK;
    for (int g = 0; ready && g < n; g++) {
        /* GPU g is the k-th of its m twins: it takes the k-th of m shares of the shard */
        int k = 0, m = 0;
        for (int o = 0; o < n; o++)
            if (strcmp(dev[o].fingerprint, dev[g].fingerprint) == 0) k += o < g, m++;
        if (!deal && k > 0) continue; /* one problem: its twin's result serves this GPU */
        pids[g] = start(exe, argc, argv, g, shard_index + shard_count * k, deal ? shard_count * m : 0);
        if (pids[g] < 0) fprintf(stderr, "mmtune: GPU %d: cannot start mmtune\n", g);
    }
    /* each run handles Ctrl-C itself (its partial table, its session row); this one waits */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (int g = 0; ready && g < n; g++) { /* every run is waited for, whatever the others did */
        int status = 0;
        if (pids[g] == 0) continue; /* not started: a twin tunes for it */
        if (pids[g] > 0) waitpid(pids[g], &status, 0);
        int r = pids[g] > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAIL;
        if (r > EXIT_BAD_INPUT && r <= 128) r = EXIT_FAIL; /* 127: exec failed; 128 + a signal stays */
        if (r > rc) rc = r;
    }
    free(dev);
    free(pids);
    return rc;
}
