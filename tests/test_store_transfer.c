/* test_store_transfer.c - results as rows and rows absorbed into a real database file:
 * what a row must hold, trials counted as a multiset (the same rows again add nothing,
 * rows that repeat within a source stay two), the best of a merge as a total order
 * (this mmtune's template source, then the faster, then the smaller configuration text:
 * the same whatever the order of sources), baselines (the later), a baseline's pairing
 * with its trial (resolved by the trial's key; the figure beside the best kept, whatever
 * the order of sources), best.partial and session.outcome, a database's own rows read
 * back through mmt_xfer_add_db, and inputs or targets of a newer schema refused with
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

/* A trial row of the f32 64x48x40 problem (m = 64 unless given) on device "fp", in the
 * session "mmtune" of 2025-01-01; set: more columns, name and value pairs. */
typedef struct trial_spec {
    const char *hash, *params, *status, *created;
    double ms;
    int best;
    int64_t m;
    const char *set[7];
} trial_spec;

static trial_spec with_defaults(trial_spec t)
{
    if (!t.hash) t.hash = CURRENT;
    if (!t.params) t.params = "MR=6";
    if (!t.status) t.status = "ok";
    if (!t.created) t.created = "2025-01-01 00:00:00";
    if (t.ms == 0) t.ms = 1;
    if (!t.m) t.m = 64;
    return t;
}

/* A vendor figure of the 64x48x40 problem, timed beside the trial `beside` (NULL: alone);
 * drop: a column left null. */
typedef struct baseline_spec {
    const char *ms, *created;
    const trial_spec *beside;
    const char *drop;
} baseline_spec;

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
    t = with_defaults(t);
    char ms[32], gflops[32], best[4], m[24];
    snprintf(ms, sizeof ms, "%.17g", t.ms);
    snprintf(gflops, sizeof gflops, "%.17g", t.ms > 0 ? 1.0 / t.ms : 1.0);
    snprintf(best, sizeof best, "%d", t.best);
    snprintf(m, sizeof m, "%lld", (long long)t.m);
    const char *text[64] = {"device_backend", "cpu", "device_name", "Test CPU", "device_arch", "x86_64-avx2",
                            "device_fingerprint", "fp", "dtype", "f32", "out_dtype", "f32", "mode", "f32",
                            "layout", "row", "trans_a", "0", "trans_b", "0", "m", m, "n", "48", "k", "40",
                            "template", "cpu/gemm_avx.c", "template_hash", t.hash, "params", t.params,
                            "status", t.status, "time_ms_median", ms, "gflops", gflops, "created", t.created,
                            "best", best, "session_command", "mmtune", "session_started", "2025-01-01 00:00:00"};
    size_t n = 0;
    while (text[n]) n++;
    for (int i = 0; t.set[i]; i++) text[n++] = t.set[i];
    mmt_xfer_value row[MMT_XFER_NCOLS];
    fill(row, text, "trial");
    return mmt_xfer_add(x, source, line, row, err);
}

static mmt_status add_baseline(mmt_xfer *x, int source, long line, baseline_spec b, mmt_err *err)
{
    trial_spec t = with_defaults(b.beside ? *b.beside : (trial_spec){0});
    char ms[32];
    snprintf(ms, sizeof ms, "%.17g", t.ms);
    const char *text[64] = {"device_backend", "cpu", "device_name", "Test CPU", "device_arch", "x86_64-avx2",
                            "device_fingerprint", "fp", "dtype", "f32", "out_dtype", "f32", "mode", "f32",
                            "layout", "row", "trans_a", "0", "trans_b", "0", "m", "64", "n", "48", "k", "40",
                            "library", "OpenBLAS", "time_ms_median", b.ms, "gflops", "1", "created", b.created};
    const char *pairing[] = {"paired_template", "cpu/gemm_avx.c", "paired_template_hash", t.hash,
                             "paired_params", t.params, "paired_created", t.created, "paired_time_ms_median", ms};
    size_t n = 0;
    while (text[n]) n++;
    for (size_t i = 0; b.beside && i < sizeof pairing / sizeof *pairing; i++) text[n++] = pairing[i];
    mmt_xfer_value row[MMT_XFER_NCOLS];
    fill(row, text, "baseline");
    if (b.drop) row[mmt_xfer_col_find(b.drop)] = (mmt_xfer_value){.null = 1};
    return mmt_xfer_add(x, source, line, row, err);
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

/* A source of a few rows: trials, then a baseline. */
typedef struct source_spec {
    int n_trials;
    trial_spec trials[2];
    const baseline_spec *baseline; /* NULL: none */
} source_spec;

/* Stages the sources in the order given (NULL: as they are) and absorbs them in one go. */
static void absorb_sources(const char *path, const source_spec *sources, const int *order, int n,
                           mmt_xfer_counts *counts)
{
    mmt_err err;
    mmt_xfer *x = NULL;
    CHECK_OK(mmt_xfer_new(&x, &err), &err);
    for (int i = 0; x && i < n; i++) {
        const source_spec *src = &sources[order ? order[i] : i];
        long line = 1;
        for (int t = 0; t < src->n_trials; t++) CHECK_OK(add_trial(x, i + 1, line++, src->trials[t], &err), &err);
        if (src->baseline) CHECK_OK(add_baseline(x, i + 1, line++, *src->baseline, &err), &err);
    }
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
    CHECK(add_baseline(x, 1, 1, (baseline_spec){.ms = "0", .created = "2025-01-01 00:00:00"}, &err) ==
          MMT_INVALID_ARGUMENT);
    /* partial on a best alone, 0 or 1; an outcome of the four; a pairing whole, on a baseline */
    CHECK(add_trial(x, 1, 1, (trial_spec){.set = {"partial", "1"}}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "partial is 0 or 1, on a best trial") != NULL);
    CHECK(add_trial(x, 1, 1, (trial_spec){.best = 1, .set = {"partial", "2"}}, &err) == MMT_INVALID_ARGUMENT);
    CHECK_OK(add_trial(x, 1, 1, (trial_spec){.best = 1, .set = {"partial", "1"}}, &err), &err);
    CHECK(add_trial(x, 1, 1, (trial_spec){.set = {"session_outcome", "done"}}, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "session_outcome is complete, partial, interrupted or failed") != NULL);
    CHECK_OK(add_trial(x, 1, 1, (trial_spec){.set = {"session_outcome", "interrupted"}}, &err), &err);
    CHECK(add_trial(x, 1, 1, (trial_spec){.set = {"paired_template", "cpu/gemm_avx.c"}}, &err) ==
          MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "paired_* are a baseline row's") != NULL);
    const trial_spec beside = {.ms = 2};
    const baseline_spec paired = {.ms = "1", .created = "2025-01-01 00:00:00", .beside = &beside};
    CHECK_OK(add_baseline(x, 1, 1, paired, &err), &err);
    baseline_spec half = paired;
    half.drop = "paired_created";
    CHECK(add_baseline(x, 1, 1, half, &err) == MMT_INVALID_ARGUMENT);
    CHECK_EQ_STR(err.msg, "no paired_created");
    half.drop = "paired_time_ms_median"; /* the median alone may be missing: a trial without one */
    CHECK_OK(add_baseline(x, 1, 1, half, &err), &err);
    half.drop = "paired_template_hash";
    CHECK(add_baseline(x, 1, 1, half, &err) == MMT_INVALID_ARGUMENT);
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
        CHECK_OK(add_baseline(x, 1, 1, (baseline_spec){.ms = ms[i], .created = created[i]}, &err), &err);
        CHECK_OK(mmt_xfer_absorb(x, path, 1, current_source, NULL, &n, &err), &err);
        mmt_xfer_free(x);
        CHECK_EQ_INT(n.baselines, i == 1 ? 0 : 1); /* the older one does not replace */
    }
    query(path, "SELECT time_ms FROM baseline", text, sizeof text);
    CHECK_EQ_STR(text, "3.0");
}

/* A vendor figure belongs to the trial it was timed beside. Of several for one problem
 * and library, the one kept is the figure beside the best, not the latest (timed beside a
 * trial that lost, beside one that is no best, or alone), so best_view makes its ratio,
 * whatever the order of sources. The trial is found by its key: a search's trial of the
 * same configuration and second is not taken for it. */
static void test_pairing(void)
{
    const trial_spec lost = {.ms = 2.0, .params = "MR=8", .best = 1, .created = "2025-01-01 00:00:01"};
    const trial_spec search = {.ms = 1.6, .params = "MR=4", .created = "2025-01-01 00:00:02"};
    const trial_spec won = {.ms = 1.5, .params = "MR=4", .best = 1, .created = "2025-01-01 00:00:02"};
    const trial_spec no_best = {.ms = 1.0, .params = "MR=2", .created = "2025-01-01 00:00:03"};
    const baseline_spec beside_lost = {.ms = "0.5", .created = "2025-01-04 00:00:00", .beside = &lost};
    const baseline_spec beside_won = {.ms = "0.75", .created = "2025-01-02 00:00:00", .beside = &won};
    const baseline_spec alone = {.ms = "0.25", .created = "2025-01-06 00:00:00"};
    const baseline_spec beside_no_best = {.ms = "0.3", .created = "2025-01-05 00:00:00", .beside = &no_best};
    const source_spec sources[] = {
        {1, {lost}, &beside_lost}, {2, {search, won}, &beside_won}, {0, {{0}}, &alone}, {1, {no_best}, &beside_no_best},
    };
    const int orders[][4] = {{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}};
    for (size_t o = 0; o < sizeof orders / sizeof *orders; o++) {
        char path[256], text[64];
        snprintf(path, sizeof path, "%s/pairing%zu.db", dir, o);
        mmt_xfer_counts n;
        absorb_sources(path, sources, orders[o], 4, &n);
        CHECK_EQ_INT(n.baselines, 1);
        /* the figure, paired with the best's trial, and the ratio best_view makes of them */
        query(path, "SELECT v.time_ms || ' ' || (v.trial_id = b.trial_id) || ' ' || w.vendor || ' ' || w.ratio "
                    "FROM baseline v, best b, best_view w", text, sizeof text);
        CHECK_EQ_STR(text, "0.75 1 OpenBLAS 0.667");
        absorb_sources(path, sources, orders[o], 4, &n); /* again: nothing changes */
        CHECK_EQ_INT(n.trials, 0);
        CHECK_EQ_INT(n.bests, 0);
        CHECK_EQ_INT(n.baselines, 0);
        absorb_sources(path, sources, (const int[]){2}, 1, &n); /* a later figure alone does not replace it */
        CHECK_EQ_INT(n.baselines, 0);
    }
    /* a figure whose trial is in neither the source nor the target stays unpaired: no ratio */
    char path[256], text[64];
    snprintf(path, sizeof path, "%s/unpaired.db", dir);
    mmt_xfer_counts n;
    const trial_spec elsewhere = {.ms = 1.5, .params = "MR=4", .best = 1, .created = "2025-01-01 00:00:09"};
    const baseline_spec beside_elsewhere = {.ms = "0.75", .created = "2025-01-02 00:00:00", .beside = &elsewhere};
    absorb_sources(path, (const source_spec[]){{1, {won}, &beside_elsewhere}}, NULL, 1, &n);
    CHECK_EQ_INT(n.baselines, 1);
    query(path, "SELECT coalesce(trial_id, 'none') FROM baseline", text, sizeof text);
    CHECK_EQ_STR(text, "none");
    query(path, "SELECT coalesce(ratio, 'none') FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "none");
}

/* best.partial and session.outcome travel. The same best, partial in one copy and not in
 * another, is not partial (the search that chose it went to its end), in either order; a
 * session's end and outcome fill in where the target does not know them; a faster best
 * brings its own partial; copies that disagree on an outcome (edited: a session ends once)
 * give the worse, in either order. */
static void test_partial_outcome(void)
{
    const trial_spec running = {.ms = 1.5, .best = 1, .set = {"partial", "1"}};
    const trial_spec ended = {
        .ms = 1.5, .best = 1,
        .set = {"partial", "0", "session_ended", "2025-01-01 00:10:00", "session_outcome", "complete"}};
    const trial_spec faster = {.ms = 1.0, .params = "MR=2", .best = 1, .created = "2025-01-01 00:00:05",
                               .set = {"partial", "1", "session_outcome", "interrupted"}};
    const source_spec sources[] = {{1, {running}, NULL}, {1, {ended}, NULL}, {1, {faster}, NULL}};
    char path[256], text[128];
    mmt_xfer_counts n;
    snprintf(path, sizeof path, "%s/partial.db", dir);
    absorb_sources(path, sources, NULL, 1, &n);
    query(path, "SELECT b.partial || ' ' || coalesce(s.outcome, 'unknown') || ' ' || coalesce(s.ended, 'running') "
                "FROM best b, session s", text, sizeof text);
    CHECK_EQ_STR(text, "1 unknown running");
    const int orders[][2] = {{0, 1}, {1, 0}};
    for (int o = 0; o < 2; o++) {
        /* in one go, and one source at a time into a database that has the first */
        for (int one_by_one = 0; one_by_one < 2; one_by_one++) {
            snprintf(path, sizeof path, "%s/partial%d%d.db", dir, o, one_by_one);
            if (one_by_one) {
                absorb_sources(path, sources, &orders[o][0], 1, &n);
                absorb_sources(path, sources, &orders[o][1], 1, &n);
            } else {
                absorb_sources(path, sources, orders[o], 2, &n);
            }
            query(path, "SELECT count(*) || ' ' || b.partial || ' ' || s.outcome || ' ' || s.ended "
                        "FROM trial t, best b, session s", text, sizeof text);
            CHECK_EQ_STR(text, "1 0 complete 2025-01-01 00:10:00");
        }
        snprintf(path, sizeof path, "%s/faster%d.db", dir, o);
        absorb_sources(path, sources, (const int[][2]){{1, 2}, {2, 1}}[o], 2, &n);
        query(path, "SELECT c.params || ' ' || b.partial || ' ' || s.outcome FROM best b JOIN config c "
                    "ON c.id = b.config_id, session s", text, sizeof text);
        CHECK_EQ_STR(text, "MR=2 1 interrupted");
    }
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
    test_pairing();
    test_partial_outcome();
    test_databases();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return check_result();
}
