/* test_store_transfer.c - results as rows and rows absorbed into a real database file:
 * what a row must hold, trials counted as a multiset (the same rows again add nothing,
 * rows that repeat within a source stay two), the best of a merge as a total order
 * (this mmtune's template source, then the faster, then the smaller configuration text:
 * the same whatever the order of sources), baselines (the later), a database's own rows
 * read back through mmt_xfer_add_db, and inputs or targets of a newer schema refused with
 * nothing written. */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "query.h"
#include "store_transfer.h"

static char dir[] = "/tmp/mmtune-test-transfer-XXXXXX";

/* Hashes of two sources of one template: CURRENT is "this mmtune's". */
#define CURRENT "1111111111111111111111111111111111111111111111111111111111111111"
#define OLDER "2222222222222222222222222222222222222222222222222222222222222222"

static const char *current_source(void *user, const char *name)
{
    (void)user;
    return strcmp(name, "cpu/gemm_avx.c") == 0 ? CURRENT : NULL;
}

/* A trial row of the f32 64x48x40 problem (m = 64 unless given) on device "fp". */
typedef struct trial_spec {
    const char *hash, *params, *status, *created;
    double ms;
    int best;
    int64_t m;
} trial_spec;

static void fill(mmt_xfer_value *row, const char *const *text, const char *kind)
{
    for (int c = 0; c < MMT_XFER_NCOLS; c++) row[c] = (mmt_xfer_value){.null = 1};
    for (int c = 0; text[2 * c]; c++) {
        int col = mmt_xfer_col_find(text[2 * c]);
        CHECK(col >= 0);
        if (col >= 0) CHECK(mmt_xfer_value_parse(col, text[2 * c + 1], &row[col]) == NULL);
    }
    row[0] = (mmt_xfer_value){.text = kind};
}

static mmt_status add_trial(mmt_xfer *x, int source, long line, trial_spec t, mmt_err *err)
{
    char ms[32], gflops[32], best[4], m[24];
    if (t.ms == 0) t.ms = 1;
    snprintf(ms, sizeof ms, "%.17g", t.ms);
    snprintf(gflops, sizeof gflops, "%.17g", t.ms > 0 ? 1.0 / t.ms : 1.0);
    snprintf(best, sizeof best, "%d", t.best);
    snprintf(m, sizeof m, "%lld", (long long)(t.m ? t.m : 64));
    const char *text[] = {"device_backend", "cpu", "device_name", "Test CPU", "device_arch", "x86_64-avx2",
                          "device_fingerprint", "fp", "dtype", "f32", "out_dtype", "f32", "mode", "f32",
                          "layout", "row", "trans_a", "0", "trans_b", "0", "m", m, "n", "48", "k", "40",
                          "template", "cpu/gemm_avx.c", "template_hash", t.hash ? t.hash : CURRENT,
                          "params", t.params ? t.params : "MR=6", "status", t.status ? t.status : "ok",
                          "time_ms_median", ms, "gflops", gflops, "created",
                          t.created ? t.created : "2025-01-01 00:00:00", "best", best, "session_command", "mmtune",
                          "session_started", "2025-01-01 00:00:00", NULL};
    mmt_xfer_value row[MMT_XFER_NCOLS];
    fill(row, text, "trial");
    return mmt_xfer_add(x, source, line, row, err);
}

static mmt_status add_baseline(mmt_xfer *x, int source, const char *ms, const char *created, mmt_err *err)
{
    const char *text[] = {"device_backend", "cpu", "device_name", "Test CPU", "device_arch", "x86_64-avx2",
                          "device_fingerprint", "fp", "dtype", "f32", "out_dtype", "f32", "mode", "f32",
                          "layout", "row", "trans_a", "0", "trans_b", "0", "m", "64", "n", "48", "k", "40",
                          "library", "OpenBLAS", "time_ms_median", ms, "gflops", "1", "created", created, NULL};
    mmt_xfer_value row[MMT_XFER_NCOLS];
    fill(row, text, "baseline");
    return mmt_xfer_add(x, source, 1, row, err);
}

/* The best of the 64x48x40 problem: "params ms". */
static void best_of(const char *path, char *out, size_t size)
{
    query(path,
          "SELECT c.params || ' ' || b.time_ms FROM best b JOIN config c ON c.id = b.config_id "
          "JOIN problem p ON p.id = b.problem_id WHERE p.m = 64",
          out, size);
}

/* Stages the specs, one source each, and absorbs them into path. */
static void absorb(const char *path, const trial_spec *specs, int n, mmt_xfer_counts *counts)
{
    mmt_err err;
    mmt_xfer *x = NULL;
    CHECK_OK(mmt_xfer_new(&x, &err), &err);
    for (int i = 0; x && i < n; i++) CHECK_OK(add_trial(x, i + 1, i + 1, specs[i], &err), &err);
    if (x) CHECK_OK(mmt_xfer_absorb(x, path, n, current_source, NULL, counts, &err), &err);
    mmt_xfer_free(x);
}

static void test_rows_checked(void)
{
    mmt_err err;
    mmt_xfer *x = NULL;
    CHECK_OK(mmt_xfer_new(&x, &err), &err);
    if (!x) return;
    CHECK(add_trial(x, 1, 1, (trial_spec){.hash = "abc"}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "template_hash is a SHA-256") != NULL);
    CHECK(add_trial(x, 1, 1, (trial_spec){.status = "fine"}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "status is ok, compile_error") != NULL);
    CHECK(add_trial(x, 1, 1, (trial_spec){.status = "crashed", .best = 1}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "best is an ok trial") != NULL);
    CHECK(add_trial(x, 1, 1, (trial_spec){.ms = -1}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(add_trial(x, 1, 1, (trial_spec){.m = -3}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(add_trial(x, 1, 1, (trial_spec){.created = "yesterday"}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "created is a time") != NULL);
    CHECK(add_baseline(x, 1, "0", "2025-01-01 00:00:00", &err) == MMT_INVALID_ARGUMENT);
    mmt_xfer_value v;
    CHECK(mmt_xfer_value_parse(mmt_xfer_col_find("m"), "12x", &v) != NULL);
    CHECK(mmt_xfer_value_parse(mmt_xfer_col_find("m"), " 12", &v) != NULL);
    CHECK(mmt_xfer_value_parse(mmt_xfer_col_find("gflops"), "nan", &v) != NULL);
    CHECK(mmt_xfer_value_parse(mmt_xfer_col_find("gflops"), "1e400", &v) != NULL);
    CHECK(mmt_xfer_value_parse(mmt_xfer_col_find("gflops"), "0.25", &v) == NULL && v.r == 0.25);
    CHECK(mmt_xfer_col_find("nope") == -1);
    /* nothing staged, nothing written: the target is not even made */
    char path[256];
    snprintf(path, sizeof path, "%s/never.db", dir);
    mmt_xfer_free(x);
    CHECK(access(path, F_OK) != 0);
}

/* The same rows again add nothing; rows that repeat within one source are that many trials. */
static void test_multiset(void)
{
    char path[256], text[64];
    snprintf(path, sizeof path, "%s/multiset.db", dir);
    const trial_spec twice[] = {{.ms = 2, .params = "MR=4"}, {.ms = 2, .params = "MR=4"}};
    mmt_err err;
    mmt_xfer_counts n;
    mmt_xfer *x = NULL;
    for (int round = 0; round < 2; round++) {
        CHECK_OK(mmt_xfer_new(&x, &err), &err);
        if (!x) return;
        CHECK_OK(add_trial(x, 1, 1, twice[0], &err), &err);
        CHECK_OK(add_trial(x, 1, 2, twice[1], &err), &err);
        CHECK_OK(mmt_xfer_absorb(x, path, 1, current_source, NULL, &n, &err), &err);
        mmt_xfer_free(x);
        CHECK_EQ_INT(n.rows, 2);
        CHECK_EQ_INT(n.trials, round == 0 ? 2 : 0);
        CHECK_EQ_INT(n.sessions, round == 0 ? 1 : 0);
        CHECK_EQ_INT(n.devices, round == 0 ? 1 : 0);
        query(path, "SELECT count(*) FROM trial", text, sizeof text);
        CHECK_EQ_STR(text, "2");
    }
    /* one of them in a second source: the max over sources, not the sum */
    absorb(path, twice, 1, &n);
    CHECK_EQ_INT(n.trials, 0);
    query(path, "SELECT count(*) FROM session", text, sizeof text);
    CHECK_EQ_STR(text, "1");
}

/* The best is one total order over the candidates, so any order of sources agrees. */
static void test_best_order(void)
{
    const trial_spec specs[] = {
        {.ms = 2.0, .params = "MR=8", .best = 1},                  /* current, slower */
        {.ms = 1.5, .params = "MR=6", .best = 1},                  /* current, faster */
        {.ms = 1.5, .params = "MR=4", .best = 1},                  /* as fast, smaller text */
        {.ms = 0.5, .params = "MR=2", .best = 1, .hash = OLDER},   /* fastest, but an older source */
        {.ms = 0.1, .params = "MR=1", .best = 0},                  /* fastest of all, not a best */
    };
    const int orders[][5] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 3, 1}, {3, 1, 4, 0, 2}};
    char first[64] = "";
    for (size_t o = 0; o < sizeof orders / sizeof *orders; o++) {
        char path[256], got[64];
        snprintf(path, sizeof path, "%s/order%zu.db", dir, o);
        trial_spec in[5];
        for (int i = 0; i < 5; i++) in[i] = specs[orders[o][i]];
        mmt_xfer_counts n;
        absorb(path, in, 5, &n);
        best_of(path, got, sizeof got);
        CHECK_EQ_STR(got, "MR=4 1.5");
        if (o == 0) snprintf(first, sizeof first, "%s", got);
        absorb(path, in, 5, &n); /* again: nothing changes */
        CHECK_EQ_INT(n.trials, 0);
        CHECK_EQ_INT(n.bests, 0);
    }
    /* a best of an older source in the database gives way to one of the current source,
     * slower as it is; one of an unknown template is ranked by time alone */
    char path[256], got[64];
    snprintf(path, sizeof path, "%s/stale.db", dir);
    mmt_xfer_counts n;
    absorb(path, (trial_spec[]){{.ms = 0.5, .params = "MR=2", .best = 1, .hash = OLDER}}, 1, &n);
    best_of(path, got, sizeof got);
    CHECK_EQ_STR(got, "MR=2 0.5");
    absorb(path, (trial_spec[]){{.ms = 3, .params = "MR=9", .best = 1}}, 1, &n);
    CHECK_EQ_INT(n.bests, 1);
    best_of(path, got, sizeof got);
    CHECK_EQ_STR(got, "MR=9 3.0");
}

static void test_baselines(void)
{
    char path[256], text[64];
    snprintf(path, sizeof path, "%s/baseline.db", dir);
    mmt_err err;
    mmt_xfer_counts n;
    const char *created[] = {"2025-01-02 00:00:00", "2025-01-01 00:00:00", "2025-01-03 00:00:00"};
    const char *ms[] = {"2", "1", "3"};
    for (int i = 0; i < 3; i++) {
        mmt_xfer *x = NULL;
        CHECK_OK(mmt_xfer_new(&x, &err), &err);
        if (!x) return;
        CHECK_OK(add_baseline(x, 1, ms[i], created[i], &err), &err);
        CHECK_OK(mmt_xfer_absorb(x, path, 1, current_source, NULL, &n, &err), &err);
        mmt_xfer_free(x);
        CHECK_EQ_INT(n.baselines, i == 1 ? 0 : 1); /* the older one does not replace */
    }
    query(path, "SELECT time_ms FROM baseline", text, sizeof text);
    CHECK_EQ_STR(text, "3.0");
}

/* A database's own rows come back through mmt_xfer_add_db; a newer schema is refused. */
static void test_databases(void)
{
    char from[256], to[256], text[64];
    snprintf(from, sizeof from, "%s/order0.db", dir);
    snprintf(to, sizeof to, "%s/copy.db", dir);
    mmt_err err;
    mmt_xfer_counts n;
    mmt_xfer *x = NULL;
    CHECK_OK(mmt_xfer_new(&x, &err), &err);
    if (!x) return;
    CHECK_OK(mmt_xfer_add_db(x, 1, from, &err), &err);
    CHECK_OK(mmt_xfer_absorb(x, to, 1, current_source, NULL, &n, &err), &err);
    mmt_xfer_free(x);
    CHECK_EQ_INT(n.trials, 5);
    CHECK_EQ_INT(n.bests, 1);
    best_of(to, text, sizeof text);
    CHECK_EQ_STR(text, "MR=4 1.5");

    sqlite3 *db;
    sqlite3_open(from, &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK_OK(mmt_xfer_new(&x, &err), &err);
    if (!x) return;
    CHECK(mmt_xfer_add_db(x, 1, from, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "newer") != NULL);
    CHECK_OK(add_trial(x, 1, 1, (trial_spec){.ms = 1}, &err), &err);
    CHECK(mmt_xfer_absorb(x, from, 1, current_source, NULL, &n, &err) == MMT_DATABASE); /* a newer target */
    mmt_xfer_free(x);
    query(from, "SELECT count(*) FROM trial", text, sizeof text);
    CHECK_EQ_STR(text, "5");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    test_rows_checked();
    test_multiset();
    test_best_order();
    test_baselines();
    test_databases();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return check_result();
}
