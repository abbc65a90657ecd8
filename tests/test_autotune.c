/* test_autotune.c - background tuning (src/autotune.c, api.c's sync): the environment's
 * values (a bad MMTUNE_AUTOTUNE or budget fails mmt_open, naming the variable); the
 * detached process (a stand-in script records its arguments and descriptors) holds the
 * problem's lock while it runs, so a second start finds it busy; a sync switches an entry
 * to a configuration tuned since by anyone (built and loaded then); and end to end with
 * the real mmtune: an untuned tiny shape on the CPU is tuned by the background process
 * into a new default database, and a later call reports MMT_CHOICE_EXACT; no mmtune to run
 * is said once per process. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "autotune.h"
#include "backend.h"
#include "check.h"
#include "query.h"
#include "family.h"
#include "gemm_check.h"
#include "mmtuned.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-autotune-XXXXXX";

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int lock_held(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return 0;
    int held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

static void test_config(void)
{
    mmt_ctx *ctx = NULL;
    setenv("MMTUNE_AUTOTUNE", "foreground", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_INVALID_ARGUMENT);
    CHECK(strstr(mmt_last_error(ctx), "MMTUNE_AUTOTUNE=foreground") != NULL);
    mmt_close(ctx);
    setenv("MMTUNE_AUTOTUNE", "background", 1);
    const char *bad[] = {"ten", "5x", "0s", "-3", "1.5m"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("MMTUNE_AUTOTUNE_BUDGET", bad[i], 1);
        ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_INVALID_ARGUMENT);
        CHECK(strstr(mmt_last_error(ctx), "MMTUNE_AUTOTUNE_BUDGET") != NULL);
        mmt_close(ctx);
    }
    unsetenv("MMTUNE_AUTOTUNE_BUDGET");

    mmt_err err;
    mmt_autotune at;
    setenv("MMTUNE_BIN", MMT_TEST_DATA "/no-such-mmtune", 1);
    CHECK_OK(mmt_autotune_config(&at, &err), &err);
    CHECK(at.on && strcmp(at.budget, "60s") == 0);
    CHECK_EQ_STR(at.bin, ""); /* a named binary that is missing is not replaced by another */
    setenv("MMTUNE_BIN", MMT_MMTUNE_BIN, 1);
    setenv("MMTUNE_AUTOTUNE_BUDGET", "2m", 1);
    CHECK_OK(mmt_autotune_config(&at, &err), &err);
    CHECK(at.on && strcmp(at.budget, "2m") == 0 && strstr(at.bin, "mmtune") != NULL);
    unsetenv("MMTUNE_BIN");
    unsetenv("MMTUNE_AUTOTUNE_BUDGET");
    const char *off[] = {"off", ""};
    for (int i = 0; i < 2; i++) {
        setenv("MMTUNE_AUTOTUNE", off[i], 1);
        CHECK_OK(mmt_autotune_config(&at, &err), &err);
        CHECK(!at.on);
        mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 8, .n = 8, .k = 8};
        CHECK_EQ_INT(mmt_autotune_start(&at, "cpu", "fp", "/nonexistent/x.db", &p), MMT_AUTOTUNE_OFF);
    }
    unsetenv("MMTUNE_AUTOTUNE");
}

/* No mmtune to run is said once per process on stderr, however many contexts open, with
 * what was looked for; the contexts open and serve all the same. In a child whose stderr
 * is a file: the first such context of the process says it. */
static void test_said_once(void)
{
    char log[600], db[600];
    snprintf(log, sizeof log, "%s/said.err", dir);
    snprintf(db, sizeof db, "%s/said.db", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(2);
        setenv("MMTUNE_AUTOTUNE", "background", 1);
        setenv("MMTUNE_BIN", MMT_TEST_DATA "/no-such-mmtune", 1);
        setenv("MMTUNE_DB", db, 1); /* the default database: background tuning makes it */
        for (int i = 0; i < 3; i++) {
            mmt_ctx *ctx = NULL;
            if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) {
                fprintf(stderr, "mmt_open: %s\n", mmt_last_error(ctx));
                _exit(3);
            }
            mmt_close(ctx);
        }
        unsetenv("MMTUNE_BIN"); /* none anywhere: PATH of nothing, no mmtune beside this test */
        setenv("PATH", "/nonexistent", 1);
        mmt_ctx *ctx = NULL;
        if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) _exit(4);
        mmt_close(ctx);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char line[2048];
    int said = 0, named = 0;
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        said += strstr(line, "libmmtuned: MMTUNE_AUTOTUNE=background, but") != NULL;
        named += strstr(line, "MMTUNE_BIN=" MMT_TEST_DATA "/no-such-mmtune is no executable") != NULL;
    }
    if (f) fclose(f);
    CHECK_EQ_INT(said, 1);
    CHECK_EQ_INT(named, 1);
}

/* The detached run, with a stand-in for mmtune: its arguments, the lock it holds while it
 * runs (a second start is busy, and so is one while this process holds the lock), and no
 * descriptor of ours but the lock in it. */
static void test_start(void)
{
    char db[600], out[700], stop[720], lock[900], text[1024];
    snprintf(db, sizeof db, "%s/start.db", dir);
    snprintf(out, sizeof out, "%s/fake.out", dir);
    snprintf(stop, sizeof stop, "%s.stop", out);
    setenv("FAKE_MMTUNE_OUT", out, 1);
    mmt_autotune at = {.on = 1, .budget = "7"};
    snprintf(at.bin, sizeof at.bin, "%s", MMT_TEST_DATA "/fake_mmtune.sh");
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .layout = MMT_ROW_MAJOR, .trans_b = 1, .m = 24, .n = 20, .k = 16};
    mmt_autotune_lock_path(db, "fp-1", &p, lock, sizeof lock);
    CHECK(strncmp(lock, db, strlen(db)) == 0 && strstr(lock, ".autotune/") && strstr(lock, ".lock"));

    int leak = dup2(1, 57); /* a descriptor of the application's, without close-on-exec */
    CHECK_EQ_INT(leak, 57);
    CHECK_EQ_INT(mmt_autotune_start(&at, "cpu", "fp-1", db, &p), MMT_AUTOTUNE_STARTED);
    for (int i = 0; i < 300 && access(out, F_OK) != 0; i++) sleep_s(0.1);
    FILE *f = fopen(out, "r");
    CHECK(f != NULL);
    char args[1024] = "", fds[1024] = "";
    if (f) {
        CHECK(fgets(args, sizeof args, f) != NULL && fgets(fds, sizeof fds, f) != NULL);
        fclose(f);
    }
    snprintf(text, sizeof text, "--device cpu --problem f32 row NT 24x20x16 --db %s --budget 7 --strategy random --quiet\n",
             db);
    CHECK_EQ_STR(args, text);
    CHECK(strncmp(fds, "0 1 2 3 ", 8) == 0); /* the lock is descriptor 3 */
    CHECK(strstr(fds, " 57 ") == NULL);
    close(57);
    CHECK(lock_held(lock));
    CHECK_EQ_INT(mmt_autotune_start(&at, "cpu", "fp-1", db, &p), MMT_AUTOTUNE_BUSY);
    /* another device's run of the same problem has its own lock */
    char lock2[900];
    mmt_autotune_lock_path(db, "fp-2", &p, lock2, sizeof lock2);
    CHECK(strcmp(lock, lock2) != 0);
    f = fopen(lock, "r"); /* plain text, for a person looking at the directory */
    if (f) {
        CHECK(fgets(text, sizeof text, f) != NULL);
        CHECK_EQ_STR(text, "f32 row NT 24x20x16\n");
        fclose(f);
    }

    /* the run ends: the lock is free, and a new start runs again */
    fclose(fopen(stop, "w"));
    for (int i = 0; i < 300 && lock_held(lock); i++) sleep_s(0.1);
    CHECK(!lock_held(lock));
    remove(out);
    remove(stop);
    int mine = open(lock, O_RDWR);
    CHECK(mine >= 0 && flock(mine, LOCK_EX | LOCK_NB) == 0); /* this process tunes it now */
    CHECK_EQ_INT(mmt_autotune_start(&at, "cpu", "fp-1", db, &p), MMT_AUTOTUNE_BUSY);
    close(mine);
    CHECK_EQ_INT(mmt_autotune_start(&at, "cpu", "fp-1", db, &p), MMT_AUTOTUNE_STARTED);
    for (int i = 0; i < 300 && access(out, F_OK) != 0; i++) sleep_s(0.1);
    fclose(fopen(stop, "w"));
    for (int i = 0; i < 300 && lock_held(lock); i++) sleep_s(0.1);
    CHECK(!lock_held(lock));
    unsetenv("FAKE_MMTUNE_OUT");
}

/* sgemm of an m x k by k x n problem through ctx; the relative error against the reference. */
static double call(mmt_ctx *ctx, int64_t m, int64_t n, int64_t k)
{
    void *a = gc_matrix(0, 0, m, k, k, 0), *b = gc_matrix(0, 0, k, n, n, 0), *c = gc_matrix(0, 0, m, n, n, 1);
    double *ref = gc_ref_alloc(m, n);
    gc_reference(0, 0, 0, 0, m, n, k, 1, a, k, b, n, 0, c, n, ref);
    double e = INFINITY;
    if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n) == MMT_OK)
        e = gc_rel_error(0, 0, m, n, c, n, ref);
    else
        fprintf(stderr, "sgemm: %s\n", mmt_last_error(ctx));
    free(a), free(b), free(c), free(ref);
    return e;
}

/* Records a tuned entry for problem p with params, as mmtune would. */
static void tune_by_hand(const char *path, const mmt_problem *p, const char *params)
{
    mmt_err err;
    mmt_store *st;
    mmt_device_info dev;
    mmt_family *fam;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    int64_t dev_id, tpl, cfg, prob;
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, p, &prob, &err), &err);
    mmt_trial_rec t = {.device_id = dev_id, .problem_id = prob, .config_id = cfg, .status = MMT_TRIAL_OK,
                       .time_ms_median = 1, .time_ms_min = 1, .time_ms_max = 1, .gflops = 10, .rel_error = 1e-7,
                       .reps = 5};
    CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    mmt_store_close(st);
    mmt_family_free(fam);
}

/* A context under background tuning whose run cannot start (no mmtune): the miss is only
 * recorded, and when someone else tunes the problem (here, by hand, with a configuration
 * that is not the default, so its kernel is built at the switch), the next due call runs
 * the tuned kernel, right. */
static void test_switch(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/switch.db", dir);
    mmt_err err;
    mmt_store *st;
    CHECK_OK(mmt_store_open(db, 0, &st, &err), &err);
    mmt_store_close(st);
    setenv("MMTUNE_AUTOTUNE", "background", 1);
    setenv("MMTUNE_BIN", MMT_TEST_DATA "/no-such-mmtune", 1);
    setenv("MMTUNE_SYNC_S", "0", 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    enum { M = 40, N = 36, K = 20 };
    const char *cfg;
    CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_DEFAULT);
    char def[512];
    snprintf(def, sizeof def, "%s", cfg);

    /* a valid configuration other than the default */
    mmt_family *fam;
    mmt_device_info dev;
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = M, .n = N, .k = K};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all;
    size_t n;
    char other[512] = "";
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &n, &err), &err);
    for (size_t i = n; i-- > 0 && !other[0];) {
        mmt_config_format(fam->space, &all[i], other, sizeof other);
        if (strcmp(other, def) == 0) other[0] = '\0';
    }
    free(all);
    mmt_family_free(fam);
    CHECK(other[0] != '\0');
    tune_by_hand(db, &p, other);

    CHECK(call(ctx, M, N, K) <= gc_bound(0, K)); /* due: this call's sync switches the entry */
    CHECK_EQ_INT(mmt_wait_kernels(ctx, NULL), MMT_OK); /* the sync runs on the context's thread */
    CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
    CHECK_EQ_INT(mmt_last_choice(ctx, &cfg), MMT_CHOICE_EXACT);
    CHECK_EQ_STR(cfg, other);
    mmt_close(ctx);
    unsetenv("MMTUNE_AUTOTUNE");
    unsetenv("MMTUNE_BIN");
    unsetenv("MMTUNE_SYNC_S");
}

/* The real mmtune in the background: the default database is made at mmt_open, the first
 * call runs the default and starts the run, and a later call (after a sync, every 0.2 s
 * here) runs the tuned kernel. A generous timeout, no timing threshold. */
static void test_end_to_end(void)
{
    char db[600], log[700], text[1024];
    snprintf(db, sizeof db, "%s/cache/mmtune.db", dir);
    snprintf(log, sizeof log, "%s.autotune/log", db);
    setenv("MMTUNE_DB", db, 1);
    setenv("MMTUNE_AUTOTUNE", "background", 1);
    setenv("MMTUNE_BIN", MMT_MMTUNE_BIN, 1);
    setenv("MMTUNE_AUTOTUNE_BUDGET", "2", 1);
    setenv("MMTUNE_SYNC_S", "0.2", 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK(access(db, F_OK) == 0);
    enum { M = 21, N = 19, K = 13 };
    CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_DEFAULT);
    int exact = 0;
    for (int i = 0; i < 1200 && !exact; i++) { /* two minutes at most */
        sleep_s(0.1);
        CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
        exact = mmt_last_choice(ctx, NULL) == MMT_CHOICE_EXACT;
    }
    CHECK(exact);
    if (!exact) {
        snprintf(text, sizeof text, "cat '%s' >&2", log);
        CHECK(system(text) == 0);
    }
    CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_EXACT);
    mmt_close(ctx);

    query(db, "SELECT count(*) || ' ' || min(command) FROM session", text, sizeof text);
    CHECK(strncmp(text, "1 ", 2) == 0 && strstr(text, "--problem 'f32 row NN 21x19x13'") != NULL);
    query(db, "SELECT count(*) FROM best_view WHERE m = 21 AND n = 19 AND k = 13", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(db, "SELECT calls > 1 FROM miss_view WHERE m = 21", text, sizeof text); /* the history stays */
    CHECK_EQ_STR(text, "1");
    CHECK(access(log, F_OK) == 0);

    /* a new context runs it tuned from the first call, and starts nothing */
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK(call(ctx, M, N, K) <= gc_bound(0, K));
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_EXACT);
    mmt_close(ctx);
    query(db, "SELECT count(*) FROM session", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    unsetenv("MMTUNE_DB");
    unsetenv("MMTUNE_AUTOTUNE");
    unsetenv("MMTUNE_BIN");
    unsetenv("MMTUNE_AUTOTUNE_BUDGET");
    unsetenv("MMTUNE_SYNC_S");
}

int main(void)
{
    /* the templates' own choice (tuned, nearest, default): the vendor family is test_serve's */
    setenv("MMTUNE_VENDOR", "off", 1);
    CHECK(mkdtemp(dir) != NULL);
    test_said_once(); /* first: the message is once per process */
    test_config();
    test_start();
    test_switch();
    test_end_to_end();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("KEEP")) CHECK(system(cmd) == 0);
    return check_result();
}
