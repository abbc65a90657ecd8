/* all_gpus.c - one mmtune per kind of GPU (see all_gpus.h). */
#include "all_gpus.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "exit_codes.h"

/* Starts mmtune with argv and "--device LIST" after it; the pid, or -1. */
static pid_t start(const char *exe, int argc, char **argv, const char *list)
{
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return -1;
    memcpy(args, argv, (size_t)argc * sizeof *args);
    args[argc] = "--device", args[argc + 1] = (char *)list;
    pid_t pid = fork();
    if (pid == 0) {
        execv(exe, args);
        _exit(127);
    }
    free(args);
    return pid;
}

/* Whether GPU g is the first of its kind (fingerprint) among dev[0..g]. */
static int first_of_kind(const mmt_device_info *dev, int g)
{
    for (int o = 0; o < g; o++)
        if (strcmp(dev[o].fingerprint, dev[g].fingerprint) == 0) return 0;
    return 1;
}

int mmt_tune_all_gpus(int argc, char **argv, int json)
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
    int kinds = 0;
    for (int g = 0; rc == EXIT_OK && g < n; g++) kinds += first_of_kind(dev, g);
    if (rc == EXIT_OK && json && kinds > 1) {
        fprintf(stderr, "mmtune: --json takes one kind of device, and this host has %d kinds of GPU (a run and a "
                        "table each): --device with a list of twins (0,1) tunes one kind\n", kinds);
        rc = EXIT_BAD_INPUT;
    }
    const int ready = rc == EXIT_OK;
    for (int g = 0; ready && g < n; g++) {
        /* the first GPU of its kind starts the run of the kind: it and its twins */
        char list[4096] = "";
        if (!first_of_kind(dev, g)) continue;
        for (int o = g; o < n; o++)
            if (strcmp(dev[o].fingerprint, dev[g].fingerprint) == 0)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", list[0] ? "," : "", o);
        pids[g] = start(exe, argc, argv, list);
        if (pids[g] < 0) fprintf(stderr, "mmtune: GPUs %s: cannot start mmtune\n", list);
    }
    /* each run handles Ctrl-C itself (its partial table, its session row); this one waits */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (int g = 0; ready && g < n; g++) { /* every run is waited for, whatever the others did */
        int status = 0;
        if (pids[g] == 0) continue; /* a twin's run tunes it */
        if (pids[g] > 0) waitpid(pids[g], &status, 0);
        int r = pids[g] > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAIL;
        if (r > EXIT_BAD_INPUT && r <= 128) r = EXIT_FAIL; /* 127: exec failed; 128 + a signal stays */
        if (r > rc) rc = r;
    }
    free(dev);
    free(pids);
    return rc;
}
