/* test_db_load.c - one database under load from several processes: WRITERS processes add
 * TRIALS trials each (every trial its own transaction, as mmtune commits them) while an
 * application process calls mmt_sgemm on a tuned problem of the same file over and over
 * (its context counting and writing back misses every second). Not one trial is lost, the
 * application's calls never fail and are right, and PRAGMA integrity_check is ok. Prints
 * the figures docs/RELIABILITY.md quotes; MMTUNE_LOAD_WRITERS and MMTUNE_LOAD_TRIALS make
 * the longer run (4 x 200 in the suite). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "backend.h"
#include "check.h"
#include "family.h"
#include "mmtuned.h"
#include "store.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}

/* A writer: `trials` trials of problem `problem_id`, one transaction each. */
static int writer(const char *db, int64_t device_id, int64_t problem_id, int64_t config_id, int trials)
{
    mmt_store *st;
    mmt_err err;
    if (mmt_store_open(db, 0, &st, &err) != MMT_OK) {
        fprintf(stderr, "writer: %s\n", err.msg);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < trials && !bad; i++) {
        mmt_trial_rec t = {.device_id = device_id, .problem_id = problem_id, .config_id = config_id,
                           .status = MMT_TRIAL_OK, .time_ms_median = 1 + i, .time_ms_min = 1, .time_ms_max = 2 + i,
                           .gflops = 1.0 / (1 + i), .rel_error = 1e-7, .reps = 5};
        int64_t id;
        if (mmt_store_trial_add(st, &t, &id, &err) != MMT_OK) {
            fprintf(stderr, "writer: %s\n", err.msg);
            bad = 1;
        }
    }
    mmt_store_close(st);
    return bad;
}

/* The application: mmt_sgemm of the tuned 64^3 problem until told to stop; every call must
 * succeed and be right. Prints how many calls it made. */
static volatile sig_atomic_t stop;
static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static int reader(const char *db)
{
    signal(SIGTERM, on_term);
    mmt_ctx *ctx;
    if (mmt_open(&ctx, "cpu", db) != MMT_OK) {
        fprintf(stderr, "reader: %s\n", mmt_last_error(ctx));
        return 1;
    }
    enum { N = 64 };
    static float a[N * N], b[N * N], c[N * N];
    for (int i = 0; i < N * N; i++) a[i] = (float)(i % 7) - 3, b[i] = (float)(i % 5) - 2;
    long calls = 0;
    int bad = 0;
    while (!stop && !bad) {
        for (int i = 0; i < N * N; i++) c[i] = NAN;
        const int64_t m = calls % 2 ? N : N - 3; /* the tuned shape and one served untuned */
        if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, N, N, 1, a, N, b, N, 0, c, N) != MMT_OK) {
            fprintf(stderr, "reader: call %ld: %s\n", calls, mmt_last_error(ctx));
            bad = 1;
        }
        for (int j = 0; j < N && !bad; j += 13) {
            double s = 0;
            for (int l = 0; l < N; l++) s += (double)a[(m - 1) * N + l] * b[l * N + j];
            bad = c[(m - 1) * N + j] != (float)s;
        }
        calls++;
    }
    mmt_close(ctx);
    printf("reader: %ld calls of mmt_sgemm, %s\n", calls, bad ? "one FAILED" : "all right");
    fflush(stdout); /* the process ends with _exit */
    return bad;
}

int main(void)
{
    const int writers = env_int("MMTUNE_LOAD_WRITERS", 4), trials = env_int("MMTUNE_LOAD_TRIALS", 200);
    char dir[] = "/tmp/mmtune-test-load-XXXXXX", db[256];
    if (!mkdtemp(dir)) return 1;
    snprintf(db, sizeof db, "%s/load.db", dir);
    setenv("MMTUNE_SYNC_S", "1", 1);

    /* a tuned problem the application runs, as mmtune records one */
    mmt_err err;
    mmt_store *st;
    mmt_device_info dev;
    mmt_family *fam = NULL;
    int64_t dev_id = 0, tpl = 0, cfg = 0, prob = 0, trial = 0;
    char params[512];
    mmt_config def;
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .m = 64,
                     .n = 64, .k = 64};
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    CHECK_OK(mmt_store_open(db, 0, &st, &err), &err);
    if (!fam || check_result()) return 1;
    mmt_space_default(fam->space, &def);
    mmt_config_format(fam->space, &def, params, sizeof params);
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    mmt_trial_rec t = {.device_id = dev_id, .problem_id = prob, .config_id = cfg, .status = MMT_TRIAL_OK,
                       .time_ms_median = 0.5, .time_ms_min = 0.5, .time_ms_max = 0.5, .gflops = 1, .rel_error = 1e-7,
                       .reps = 5};
    CHECK_OK(mmt_store_trial_add(st, &t, &trial, &err), &err);
    mmt_store_close(st);
    mmt_family_free(fam);

    const double t0 = now_s();
    pid_t app = fork();
    if (app == 0) _exit(reader(db));
    sleep(1); /* the application is calling before the writers start */
    pid_t pids[256];
    for (int w = 0; w < writers && w < 256; w++)
        if ((pids[w] = fork()) == 0) _exit(writer(db, dev_id, prob, cfg, trials));
    int failed = 0, status;
    for (int w = 0; w < writers && w < 256; w++) {
        waitpid(pids[w], &status, 0);
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    const double written = now_s() - t0 - 1;
    kill(app, SIGTERM);
    waitpid(app, &status, 0);
    CHECK_EQ_INT(failed, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    sqlite3 *h;
    long n = -1;
    char check[64] = "";
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM trial", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
            n = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
            snprintf(check, sizeof check, "%s", (const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
    }
    sqlite3_close(h);
    CHECK_EQ_INT(n, 1 + (long)writers * trials);
    CHECK_EQ_STR(check, "ok");
    printf("%d writers x %d trials: %ld trials in the file (none lost), integrity_check %s, %.1f s, %.0f commits/s\n",
           writers, trials, n - 1, check, written, (double)writers * trials / (written > 0 ? written : 1));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
