/* test_store.c - the SQLite store on a real file: schema and version, ids, the best
 * rule (faster wins, wrong results never, a changed template source replaces), lookups,
 * baselines in best_view, the compile cache, resume order, and two writers at once. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-store-XXXXXX";

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

/* One column of one row, as text, through a plain sqlite3 connection: what a person sees. */
static void query(const char *path, const char *sql, char *out, size_t size)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    out[0] = '\0';
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
            snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
}

/* Opens a new database from several processes at once: exactly one applies the schema. */
static void test_concurrent_create(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/race/r.db", dir);
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
    char text[64];
    query(path, "SELECT count(*) FROM device", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "1");
}

typedef struct seen {
    char params[8][64];
    int n;
} seen;

static int collect(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    (void)status, (void)ms, (void)gflops;
    seen *s = user;
    if (s->n < 8) snprintf(s->params[s->n++], 64, "%s", params);
    return 0;
}

static int stop_after_two(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    collect(user, params, status, ms, gflops);
    return ((seen *)user)->n == 2;
}

int main(void)
{
    mmt_err err;
    char path[256], text[256];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/sub/dir/t.db", dir);

    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_NOT_FOUND); /* read-only never creates */
    CHECK(st == NULL);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(path, "PRAGMA journal_mode", text, sizeof text);
    CHECK_EQ_STR(text, "wal");

    mmt_device_info d = device("test-cpu-1");
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 48, .k = 40};
    mmt_problem q = {.dtype = MMT_F64, .layout = MMT_COL_MAJOR, .trans_a = 1, .m = 33, .n = 17, .k = 65};
    int64_t dev, dev2, tpl, tpl2, c1, c2, c3, prob, prob2, again;
    CHECK_OK(mmt_store_device(st, &d, &dev, &err), &err);
    CHECK_OK(mmt_store_device(st, &d, &again, &err), &err);
    CHECK_EQ_INT(dev, again);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaa", &tpl, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaa", &again, &err), &err);
    CHECK_EQ_INT(tpl, again);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6,NV=2", &c1, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=4,NV=3", &c2, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6,NV=2", &again, &err), &err);
    CHECK_EQ_INT(c1, again);
    CHECK(c1 != c2);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    CHECK_OK(mmt_store_problem(st, &q, &prob2, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &again, &err), &err);
    CHECK_EQ_INT(prob, again);
    CHECK(prob != prob2);
    query(path, "SELECT dtype || ' ' || layout || ' ' || trans_a || trans_b FROM problem WHERE m = 33", text,
          sizeof text);
    CHECK_EQ_STR(text, "f64 col 10");
    CHECK_EQ_STR(mmt_trial_status_name(MMT_TRIAL_WRONG_RESULT), "wrong_result");
    CHECK_EQ_STR(mmt_trial_status_name(MMT_TRIAL_CRASHED), "crashed");

    /* the best rule */
    add(st, dev, prob, c1, MMT_TRIAL_OK, 2.0);
    add(st, dev, prob, c2, MMT_TRIAL_OK, 3.0); /* slower: stays */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=6,NV=2");
    add(st, dev, prob, c2, MMT_TRIAL_WRONG_RESULT, 0.5); /* fast but wrong: never best */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=6,NV=2");
    add(st, dev, prob, c2, MMT_TRIAL_OK, 1.0); /* faster: replaces */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=4,NV=3");
    query(path, "SELECT count(*) FROM trial", text, sizeof text);
    CHECK_EQ_STR(text, "4");
    /* a failed trial insert (no such config) says why and where, and leaves no transaction open */
    mmt_trial_rec bad = {.device_id = dev, .problem_id = prob, .config_id = 9999, .status = MMT_TRIAL_OK,
                         .time_ms_median = 0.1, .gflops = 1, .rel_error = -1};
    CHECK(mmt_store_trial_add(st, &bad, NULL, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, path) != NULL && strstr(err.msg, "FOREIGN KEY") != NULL);
    query(path, "SELECT time_ms_median IS NULL FROM trial WHERE status = 'wrong_result'", text, sizeof text);
    CHECK_EQ_STR(text, "1");

    /* a new template source: its first result replaces a faster stale one */
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "bbbb", &tpl2, &err), &err);
    CHECK(tpl2 != tpl);
    CHECK_OK(mmt_store_config(st, tpl2, "MR=8,NV=1", &c3, &err), &err);
    add(st, dev, prob, c3, MMT_TRIAL_OK, 9.0);
    query(path, "SELECT params || ' ' || template_hash FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=8,NV=1 bbbb");

    /* another template family keeps its own best beside it, and is not listed below */
    int64_t tplx, cx;
    CHECK_OK(mmt_store_template(st, "cpu/gemm_other.c", "bbbb", &tplx, &err), &err);
    CHECK_OK(mmt_store_config(st, tplx, "X=1", &cx, &err), &err);
    add(st, dev, prob, cx, MMT_TRIAL_OK, 0.25);
    query(path, "SELECT count(*) FROM best", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    query(path, "SELECT params FROM best_view WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "MR=8,NV=1");

    /* lookups see only this device, template name and source, and dtype */
    mmt_best_rec *bests;
    size_t n;
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_STR(bests[0].params, "MR=8,NV=1");
        CHECK_EQ_INT(bests[0].problem.m, 64);
        CHECK_EQ_INT(bests[0].problem.k, 40);
    }
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "aaaa", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "other-cpu", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F64, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_other.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(bests[0].params, "X=1");
    free(bests);
    mmt_device_info d2 = device("test-cpu-2");
    CHECK_OK(mmt_store_device(st, &d2, &dev2, &err), &err);
    CHECK(dev2 != dev);

    /* the vendor's figure appears in best_view with the ratio */
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "OpenBLAS 0.3.21", 18.0, 1000 / 18.0, &err), &err);
    query(path, "SELECT vendor || ' ' || ratio FROM best_view WHERE template = 'cpu/gemm_avx.c'", text,
          sizeof text);
    CHECK_EQ_STR(text, "OpenBLAS 0.3.21 2.0");
    /* a second library: still one row per best, against the faster figure */
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "BLIS 0.9", 4.5, 1000 / 4.5, &err), &err);
    query(path, "SELECT count(*) FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    query(path, "SELECT vendor || ' ' || ratio FROM best_view WHERE template = 'cpu/gemm_avx.c'", text,
          sizeof text);
    CHECK_EQ_STR(text, "BLIS 0.9 0.5");
    query(path, "SELECT trans || ' ' || m || 'x' || n || 'x' || k || ' ' || device FROM best_view", text,
          sizeof text);
    CHECK_EQ_STR(text, "NN 64x48x40 Test CPU");

    /* resume sees every trial of a template, in order */
    seen s = {0};
    CHECK_OK(mmt_store_trials_each(st, dev, prob, tpl, collect, &s, &err), &err);
    CHECK_EQ_INT(s.n, 4);
    CHECK_EQ_STR(s.params[0], "MR=6,NV=2");
    CHECK_EQ_STR(s.params[1], "MR=4,NV=3");
    CHECK_EQ_STR(s.params[3], "MR=4,NV=3");
    seen s2 = {0};
    CHECK_OK(mmt_store_trials_each(st, dev, prob, tpl, stop_after_two, &s2, &err), &err);
    CHECK_EQ_INT(s2.n, 2);

    /* compile cache */
    void *data;
    size_t size;
    const unsigned char blob[] = {0x7f, 'E', 'L', 'F', 0, 1, 2};
    CHECK(mmt_store_binary_get(st, "k1", &data, &size, &err) == MMT_NOT_FOUND);
    CHECK_OK(mmt_store_binary_put(st, "k1", "cpu/gemm_avx.c", "MR=6", "x86_64", "gcc", "int x;", blob, sizeof blob,
                                  &err),
             &err);
    CHECK_OK(mmt_store_binary_put(st, "k2", "cpu/gemm_avx.c", "MR=6", "x86_64", "gcc", NULL, blob, 3, &err), &err);
    CHECK_OK(mmt_store_binary_get(st, "k1", &data, &size, &err), &err);
    CHECK_EQ_INT(size, sizeof blob);
    CHECK(data && memcmp(data, blob, sizeof blob) == 0);
    free(data);
    CHECK_OK(mmt_store_binary_get(st, "k2", &data, &size, &err), &err);
    CHECK_EQ_INT(size, 3);
    CHECK(data && memcmp(data, blob, 3) == 0);
    free(data);
    query(path, "SELECT source IS NULL FROM binary WHERE key = 'k2'", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(path, "SELECT source FROM binary WHERE key = 'k1'", text, sizeof text);
    CHECK_EQ_STR(text, "int x;");
    /* a rebuild replaces the entry */
    CHECK_OK(mmt_store_binary_put(st, "k1", "cpu/gemm_avx.c", "MR=6", "x86_64", "gcc", "int y;", blob, 2, &err),
             &err);
    CHECK_OK(mmt_store_binary_get(st, "k1", &data, &size, &err), &err);
    CHECK_EQ_INT(size, 2);
    free(data);

    int64_t sess;
    CHECK_OK(mmt_store_session_begin(st, dev, "mmtune --device cpu", "random", "10", &sess, &err), &err);
    CHECK_OK(mmt_store_session_end(st, sess, &err), &err);
    query(path, "SELECT ended IS NOT NULL FROM session", text, sizeof text);
    CHECK_EQ_STR(text, "1");

    /* two writers: a child process and this one add trials at the same time */
    pid_t child = fork();
    if (child == 0) {
        mmt_store *cs;
        if (mmt_store_open(path, 0, &cs, &err) != MMT_OK) _exit(2);
        for (int i = 0; i < 200; i++) add(cs, dev2, prob, c1, MMT_TRIAL_OK, 1.0 + i);
        mmt_store_close(cs);
        _exit(check_failures_ ? 1 : 0);
    }
    for (int i = 0; i < 200; i++) add(st, dev, prob2, c1, MMT_TRIAL_OK, 1.0 + i);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    query(path, "SELECT count(*) FROM trial", text, sizeof text);
    CHECK_EQ_STR(text, "406");
    query(path, "SELECT count(*) FROM best", text, sizeof text);
    CHECK_EQ_STR(text, "4");

    /* `mmtune show`: a header line and one aligned row per best */
    FILE *f = tmpfile();
    CHECK_OK(mmt_store_print_best(st, f, &err), &err);
    rewind(f);
    char line[1024];
    int lines = 0;
    size_t col_ratio = 0;
    while (fgets(line, sizeof line, f)) {
        if (lines == 0) {
            CHECK(strncmp(line, "device", 6) == 0);
            CHECK(strstr(line, "vendor_gflops") != NULL);
            col_ratio = strstr(line, "ratio") ? (size_t)(strstr(line, "ratio") - line) : 0;
        } else if (strstr(line, "MR=8,NV=1")) {
            CHECK(col_ratio > 0 && strncmp(line + col_ratio, "0.5", 3) == 0); /* columns line up */
        }
        lines++;
    }
    CHECK_EQ_INT(lines, 5);
    fclose(f);
    mmt_store_close(st);

    /* a reader of an existing file */
    CHECK_OK(mmt_store_open(path, 1, &st, &err), &err);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    free(bests);
    mmt_store_close(st);

    /* reopen is idempotent; a newer schema than ours is refused */
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    mmt_store_close(st);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(mmt_store_open(path, 0, &st, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "newer") != NULL && strstr(err.msg, path) != NULL);
    CHECK(st == NULL);
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);

    test_concurrent_create();

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("KEEP") && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
