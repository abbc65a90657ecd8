/* test_miss.c - libmmtuned records what it serves untuned (src/miss.c) in real database
 * files: a CPU context that calls an untuned shape N times and closes leaves calls == N in
 * the miss table (its row-major form, added up across contexts), a tuned shape leaves
 * nothing, problems that differ only in transposes or precision are counted apart (a
 * counter is the whole problem's, not its sizes'), threads calling one shape at once count
 * every call, a strided batch counts its GEMMs once
 * each, a due call writes back before the context closes, a database another
 * connection holds locked or that is read-only never fails a call, and a bad
 * MMTUNE_SYNC_S fails mmt_open. */
#include <grp.h>
#include <pthread.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "query.h"
#include "family.h"
#include "mmtuned.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-miss-XXXXXX";

/* The misses as "mode layout trans MxNxK calls" rows joined by "; ", most called first. */
static void misses(const char *path, char *out, size_t size)
{
    query(path,
          "SELECT group_concat(mode || ' ' || layout || ' ' || trans || ' ' || m || 'x' || n || 'x' || k || ' ' "
          "|| calls, '; ') FROM miss_view",
          out, size);
}

/* A database in which the f32 problem 64x64x64 (row major, NN) is tuned, with the
 * default configuration, as mmtune would leave it. */
static void make_db(const char *path)
{
    mmt_err err;
    mmt_store *st;
    mmt_device_info dev;
    mmt_family *fam;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    mmt_config def;
    char params[512];
    mmt_space_default(fam->space, &def);
    mmt_config_format(fam->space, &def, params, sizeof params);
    int64_t dev_id, tpl, cfg, prob;
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 64, .k = 64};
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, params, &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    mmt_trial_rec t = {.device_id = dev_id, .problem_id = prob, .config_id = cfg, .status = MMT_TRIAL_OK,
                       .time_ms_median = 1, .time_ms_min = 1, .time_ms_max = 1, .gflops = 10, .rel_error = 1e-7,
                       .reps = 5};
    CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    mmt_store_close(st);
    mmt_family_free(fam);
}

/* A new database NAME in the test's folder (its path to db), with 64^3 tuned, and a CPU
 * context on it whose calls write the counts back every sync_s seconds. */
static mmt_ctx *open_on_new_db(const char *name, const char *sync_s, char *db, size_t size)
{
    snprintf(db, size, "%s/%s", dir, name);
    make_db(db);
    setenv("MMTUNE_SYNC_S", sync_s, 1);
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    return ctx;
}

/* n calls of C = op(A) op(B) (m x n, depth k), f32 or f64, in the given layout and with the
 * given transposes; returns how many failed. */
static int gemms(mmt_ctx *ctx, int f64, mmt_layout layout, int ta, int tb, int64_t m, int64_t n, int64_t k, int times)
{
    double *a = calloc((size_t)(m * k), sizeof *a), *b = calloc((size_t)(k * n), sizeof *b),
           *c = calloc((size_t)(m * n), sizeof *c);
    const mmt_transpose ta_ = ta ? MMT_TRANS : MMT_NO_TRANS, tb_ = tb ? MMT_TRANS : MMT_NO_TRANS;
    const int row = layout == MMT_ROW_MAJOR; /* a stored row (column) of A holds k elements where ta != row */
    const int64_t lda = (ta != row) ? k : m, ldb = (tb != row) ? n : k, ldc = row ? n : m;
    int failed = 0;
    for (int i = 0; i < times; i++) {
        mmt_status st = f64 ? mmt_dgemm(ctx, layout, ta_, tb_, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
                            : mmt_sgemm(ctx, layout, ta_, tb_, m, n, k, 1, (float *)a, lda, (float *)b, ldb, 0,
                                        (float *)c, ldc);
        if (st != MMT_OK) {
            fprintf(stderr, "gemm: %s\n", mmt_last_error(ctx));
            failed++;
        }
    }
    free(a), free(b), free(c);
    return failed;
}

/* n calls of C = A B, f32, in the given layout. */
static int calls(mmt_ctx *ctx, mmt_layout layout, int64_t m, int64_t n, int64_t k, int times)
{
    return gemms(ctx, 0, layout, 0, 0, m, n, k, times);
}

static void test_counts(void)
{
    char db[600], text[1024];
    /* no write-back from calls here: only mmt_close writes */
    mmt_ctx *ctx = open_on_new_db("counts.db", "3600", db, sizeof db);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 64, 64, 64, 5), 0);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_EXACT);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 7), 0);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_NEAREST);
    CHECK_EQ_INT(calls(ctx, MMT_COL_MAJOR, 24, 20, 16, 3), 0); /* the row-major problem 20 x 24 */
    /* an f64 shape has no tuned neighbour: the default */
    double a[9] = {1}, b[9] = {1}, c[9];
    CHECK_EQ_INT(mmt_dgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS, 3, 3, 3, 1, a, 3, b, 3, 0, c, 3), MMT_OK);
    CHECK_EQ_INT(mmt_last_choice(ctx, NULL), MMT_CHOICE_DEFAULT);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, ""); /* nothing before the context closes */
    mmt_close(ctx);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 7; f32 row NN 20x24x16 3; f64 row NT 3x3x3 1");
    query(db, "SELECT count(*) FROM miss_view WHERE m = 64 OR tuned", text, sizeof text);
    CHECK_EQ_STR(text, "0");

    /* a second context adds to the same rows */
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 4), 0);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 64, 64, 64, 2), 0);
    mmt_close(ctx);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 11; f32 row NN 20x24x16 3; f64 row NT 3x3x3 1");
    query(db, "SELECT count(*) FROM miss", text, sizeof text);
    CHECK_EQ_STR(text, "3");
    unsetenv("MMTUNE_SYNC_S");
}

/* Threads calling one shape at once add to their own shares of its counter: the row holds
 * every call. */
enum { COUNT_THREADS = 12, THREAD_CALLS = 40 }; /* more threads than shares: some share one */
static mmt_ctx *thread_ctx;

static void *thread_calls(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)calls(thread_ctx, MMT_ROW_MAJOR, 24, 20, 16, THREAD_CALLS);
}

static void test_threaded_counts(void)
{
    char db[600], text[1024], want[64];
    thread_ctx = open_on_new_db("threads.db", "3600", db, sizeof db);
    pthread_t t[COUNT_THREADS];
    for (int i = 0; i < COUNT_THREADS; i++) CHECK(pthread_create(&t[i], NULL, thread_calls, NULL) == 0);
    for (int i = 0; i < COUNT_THREADS; i++) {
        void *failed = NULL;
        pthread_join(t[i], &failed);
        CHECK(failed == NULL);
    }
    mmt_close(thread_ctx);
    misses(db, text, sizeof text);
    snprintf(want, sizeof want, "f32 row NN 24x20x16 %d", COUNT_THREADS * THREAD_CALLS);
    CHECK_EQ_STR(text, want);
    unsetenv("MMTUNE_SYNC_S");
}

/* One size, 24x20x16, four problems: f32 NN, f32 NT, f32 TN and f64 NN. Each has its own
 * counter and row, whatever order they come in. */
static void test_full_problem(void)
{
    char db[600], text[1024];
    mmt_ctx *ctx = open_on_new_db("full.db", "3600", db, sizeof db);
    CHECK_EQ_INT(gemms(ctx, 0, MMT_ROW_MAJOR, 0, 0, 24, 20, 16, 2), 0);
    CHECK_EQ_INT(gemms(ctx, 0, MMT_ROW_MAJOR, 0, 1, 24, 20, 16, 3), 0);
    CHECK_EQ_INT(gemms(ctx, 1, MMT_ROW_MAJOR, 0, 0, 24, 20, 16, 5), 0);
    CHECK_EQ_INT(gemms(ctx, 0, MMT_ROW_MAJOR, 1, 0, 24, 20, 16, 4), 0);
    CHECK_EQ_INT(gemms(ctx, 0, MMT_ROW_MAJOR, 0, 0, 24, 20, 16, 1), 0);
    mmt_close(ctx);
    query(db,
          "SELECT group_concat(mode || ' ' || trans || ' ' || m || 'x' || n || 'x' || k || ' ' || calls, '; ') FROM "
          "(SELECT * FROM miss_view ORDER BY mode, trans)",
          text, sizeof text);
    CHECK_EQ_STR(text, "f32 NN 24x20x16 3; f32 NT 24x20x16 3; f32 TN 24x20x16 4; f64 NN 24x20x16 5");
    unsetenv("MMTUNE_SYNC_S");
}

/* A strided batch of f32 C = A B (m x n, depth k, row major), its matrices `gap` elements
 * apart; returns 0 where it succeeded. */
static int batch(mmt_ctx *ctx, int64_t m, int64_t n, int64_t k, int64_t count, int64_t gap)
{
    const int64_t sa = m * k + gap, sb = k * n + gap, sc = m * n + gap;
    float *a = calloc((size_t)(sa * count), sizeof *a), *b = calloc((size_t)(sb * count), sizeof *b),
          *c = calloc((size_t)(sc * count), sizeof *c);
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const mmt_status st = mmt_gemm_strided_batched(ctx, &d, m, n, k, 1, a, k, sa, b, n, sb, 0, c, n, sc, count);
    if (st != MMT_OK) fprintf(stderr, "batch: %s\n", mmt_last_error(ctx));
    free(a), free(b), free(c);
    return st != MMT_OK;
}

/* A strided batch counts each of its GEMMs once: spread over the cores (small GEMMs, their
 * matrices packed, or apart by an odd gap, which gives the batch's GEMMs several alignments
 * and the table several keys), or one by one (larger GEMMs); a tuned shape's batch counts
 * nothing. With the interval at 0 a batch is due, once: the counts are in the database
 * once the context's thread has written them (mmt_wait_kernels). */
static void test_batch_counts(void)
{
    char db[600], text[1024];
    mmt_ctx *ctx = open_on_new_db("batch.db", "3600", db, sizeof db);
    CHECK_EQ_INT(batch(ctx, 24, 20, 16, 3000, 0), 0);
    CHECK_EQ_INT(batch(ctx, 24, 20, 16, 1000, 3), 0);
    CHECK_EQ_INT(batch(ctx, 80, 70, 60, 5, 1), 0);   /* 336,000 multiply-adds each: one by one */
    CHECK_EQ_INT(batch(ctx, 64, 64, 64, 40, 0), 0);  /* tuned */
    CHECK_EQ_INT(batch(ctx, 12, 8, 16, 2000, 1), 0);
    mmt_close(ctx);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 4000; f32 row NN 12x8x16 2000; f32 row NN 80x70x60 5");
    setenv("MMTUNE_SYNC_S", "0", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", db), MMT_OK);
    CHECK_EQ_INT(batch(ctx, 12, 8, 16, 3000, 5), 0);
    CHECK_EQ_INT(mmt_wait_kernels(ctx, NULL), MMT_OK); /* the sync the batch started, off its path */
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 12x8x16 5000; f32 row NN 24x20x16 4000; f32 row NN 80x70x60 5");
    mmt_close(ctx);
    unsetenv("MMTUNE_SYNC_S");
}

/* With the interval at 0 every untuned call is due: the counts are in the database before
 * the context closes (what a process that never closes relies on), written by the
 * context's own thread, which mmt_wait_kernels waits for. */
static void test_periodic(void)
{
    char db[600], text[1024];
    mmt_ctx *ctx = open_on_new_db("periodic.db", "0", db, sizeof db);
    for (int i = 0; i < 3; i++) { /* each call due once the sync before it is done */
        CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 1), 0);
        CHECK_EQ_INT(mmt_wait_kernels(ctx, NULL), MMT_OK);
    }
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 3");
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 64, 64, 64, 3), 0); /* tuned: nothing */
    mmt_close(ctx);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 3");
    unsetenv("MMTUNE_SYNC_S");
}

/* Another connection holds the write lock (a tuner in a long transaction): calls succeed,
 * their write-backs fail and keep the counts, which the close writes once the lock is gone. */
static void test_locked(void)
{
    char db[600], text[1024];
    mmt_ctx *ctx = open_on_new_db("locked.db", "0", db, sizeof db);
    /* the first call stores its kernel binary through the context's own connection, which
     * waits for the lock as long as any store does: it runs before the lock is taken */
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 1), 0);
    CHECK_EQ_INT(mmt_wait_kernels(ctx, NULL), MMT_OK);
    sqlite3 *holder;
    CHECK(sqlite3_open(db, &holder) == SQLITE_OK);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 1");
    CHECK(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 3), 0);
    CHECK_EQ_STR(mmt_last_error(ctx), "");
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 1");
    CHECK(sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(holder);
    mmt_close(ctx);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "f32 row NN 24x20x16 4");
    unsetenv("MMTUNE_SYNC_S");
}

/* A database this process may read but not write: the context opens it read-only, calls
 * succeed and nothing is recorded. Permissions do not bind root, so as root the calls run
 * in a child that has become nobody. */
static void test_readonly(void)
{
    char sub[600], db[700], cache[700], text[1024];
    snprintf(sub, sizeof sub, "%s/ro", dir);
    snprintf(db, sizeof db, "%s/ro.db", sub);
    snprintf(cache, sizeof cache, "%s/cache", sub);
    CHECK(mkdir(sub, 0700) == 0);
    make_db(db);
    /* the directory stays writable to all (SQLite makes its -shm file there for readers) */
    CHECK(chmod(dir, 0755) == 0 && chmod(sub, 01777) == 0 && chmod(db, 0444) == 0);
    pid_t child = fork();
    if (child == 0) {
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        setenv("MMTUNE_CACHE_DIR", cache, 1);
        setenv("MMTUNE_SYNC_S", "0", 1);
        mmt_ctx *ctx;
        int bad = mmt_open(&ctx, "cpu", db) != MMT_OK;
        if (bad) fprintf(stderr, "mmt_open: %s\n", mmt_last_error(ctx));
        bad += calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 3);
        bad += mmt_last_choice(ctx, NULL) != MMT_CHOICE_NEAREST;
        bad += mmt_last_error(ctx)[0] != '\0';
        mmt_close(ctx);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    misses(db, text, sizeof text);
    CHECK_EQ_STR(text, "");
    CHECK(chmod(db, 0644) == 0 && chmod(sub, 0700) == 0 && chmod(dir, 0700) == 0);
}

/* No database: nothing to record, nothing created, no error. */
static void test_no_database(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s/none/none.db", dir);
    setenv("MMTUNE_DB", db, 1);
    setenv("MMTUNE_SYNC_S", "0", 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    CHECK_EQ_INT(calls(ctx, MMT_ROW_MAJOR, 24, 20, 16, 2), 0);
    mmt_close(ctx);
    CHECK(access(db, F_OK) != 0);
    unsetenv("MMTUNE_DB");
    unsetenv("MMTUNE_SYNC_S");
}

static void test_bad_interval(void)
{
    const char *bad[] = {"soon", "-1", "5s", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("MMTUNE_SYNC_S", bad[i], 1);
        mmt_ctx *ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_INVALID_ARGUMENT);
        CHECK(strstr(mmt_last_error(ctx), "MMTUNE_SYNC_S") != NULL);
        mmt_close(ctx);
    }
    setenv("MMTUNE_SYNC_S", "0.5", 1);
    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    mmt_close(ctx);
    unsetenv("MMTUNE_SYNC_S");
}

int main(void)
{
    /* the templates' own choice (tuned, nearest, default): the vendor family is test_serve's */
    setenv("MMTUNE_VENDOR", "off", 1);
    CHECK(mkdtemp(dir) != NULL);
    unsetenv("MMTUNE_AUTOTUNE");
    test_counts();
    test_threaded_counts();
    test_full_problem();
    test_periodic();
    test_batch_counts();
    test_locked();
    test_readonly();
    test_no_database();
    test_bad_interval();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("KEEP")) CHECK(system(cmd) == 0);
    return check_result();
}
