/* store_check.h - what the tests of the store on a real file share: a CPU device by its
 * fingerprint, a trial added through mmt_store_trial_add (which moves the best), and one
 * file opened by several processes at once. */
#ifndef MMT_TEST_STORE_CHECK_H
#define MMT_TEST_STORE_CHECK_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static mmt_device_info device(const char *fingerprint)
{
    mmt_device_info d = {.backend = "cpu"};
    snprintf(d.name, sizeof d.name, "Test CPU");
    snprintf(d.arch, sizeof d.arch, "x86_64-avx2");
    snprintf(d.fingerprint, sizeof d.fingerprint, "%s", fingerprint);
    mmt_device_set_prop(&d, "cores", 2);
    return d;
}

static int64_t add(mmt_store *st, int64_t dev, int64_t prob, int64_t cfg, mmt_trial_status s, double ms)
{
    mmt_err err;
    mmt_trial_rec t = {.device_id = dev, .problem_id = prob, .config_id = cfg, .status = s, .time_ms_median = ms,
                       .time_ms_min = ms, .time_ms_max = ms, .gflops = 1000 / ms, .rel_error = 1e-7, .reps = 5};
    int64_t id = 0;
    CHECK_OK(mmt_store_trial_add(st, &t, &id, &err), &err);
    return id;
}

/* Opens path from several processes at once, each adding the device "race"; the
 * schema work (a new file, or a migration) must happen exactly once. */
static void open_from_children(const char *path)
{
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            mmt_err e;
            mmt_store *cs;
            int64_t id;
            mmt_device_info d = device("race");
            if (mmt_store_open(path, 0, &cs, &e) != MMT_OK || mmt_store_device(cs, &d, &id, &e) != MMT_OK) {
                fprintf(stderr, "child %d: %s\n", i, e.msg);
                _exit(1);
            }
            mmt_store_close(cs);
            _exit(0);
        }
    }
    for (int i = 0; i < 4; i++) {
        int status = 0;
        waitpid(kids[i], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

#endif
