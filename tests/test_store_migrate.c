/* test_store_migrate.c - the store's files of older versions (tests/data/schema_vN.sql,
 * db/schema.sql as it was) brought up to date when opened writable: refused read-only
 * until then; versions 1 to 5 migrated with every row and id kept, to the schema of a new
 * file word for word, and read back (problems in their own type, a vendor figure timed
 * alone without a ratio); a version-1 file whose rows name a missing parent left as it
 * was; several processes opening an old file at once (one migrates). */
#include <sqlite3.h>
#include <stdlib.h>

#include "check.h"
#include "query.h"
#include "fsutil.h"
#include "store.h"
#include "store_check.h"

static char dir[] = "/tmp/mmtune-test-store-migrate-XXXXXX";

/* A file of an older version made the way that version of mmtune made it:
 * tests/data/schema_vN.sql (db/schema.sql as it was), user_version N, then rows through
 * plain SQL. */
static void make_old(const char *path, int version, const char *rows)
{
    mmt_err err;
    void *schema = NULL;
    size_t size;
    char file[256], pragma[64];
    snprintf(file, sizeof file, "%s/schema_v%d.sql", MMT_TEST_DATA, version);
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version);
    CHECK_OK(mmt_file_read(file, &schema, &size, &err), &err);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *msg = NULL;
    const char *steps[] = {schema ? schema : "", pragma, rows};
    for (int i = 0; i < 3; i++) {
        if (sqlite3_exec(db, steps[i], NULL, NULL, &msg) != SQLITE_OK) {
            fprintf(stderr, "make_old step %d: %s\n", i, msg ? msg : "?");
            CHECK(0);
        }
        sqlite3_free(msg);
        msg = NULL;
    }
    sqlite3_close(db);
    free(schema);
}

static void make_v1(const char *path, const char *rows) { make_old(path, 1, rows); }

/* Rows of every table, with ids that are not 1, 2, 3 (the rebuild must keep them). */
static const char v1_rows[] =
    "PRAGMA foreign_keys = ON;"
    "INSERT INTO device (id, backend, name, arch, fingerprint, props) "
    "  VALUES (3, 'cpu', 'Old CPU', 'x86_64-avx2', 'old-cpu', 'cores=2');"
    "INSERT INTO template (id, name, source_hash) VALUES (4, 'cpu/gemm_avx.c', 'cccc');"
    "INSERT INTO config (id, template_id, params) VALUES (7, 4, 'MR=6,NV=2'), (8, 4, 'MR=4,NV=3');"
    "INSERT INTO problem (id, dtype, layout, trans_a, trans_b, m, n, k) "
    "  VALUES (11, 'f32', 'row', 0, 0, 64, 48, 40), (12, 'f64', 'col', 1, 0, 33, 17, 65);"
    "INSERT INTO session (id, device_id, command, strategy, budget) VALUES (2, 3, 'mmtune', 'exhaustive', '');"
    "INSERT INTO trial (id, session_id, device_id, problem_id, config_id, status, time_ms_median, time_ms_min, "
    "  time_ms_max, gflops, rel_error, reps) VALUES "
    "  (21, 2, 3, 11, 7, 'ok', 2.0, 2.0, 2.0, 500, 1e-7, 5), (22, 2, 3, 12, 8, 'ok', 4.0, 4.0, 4.0, 250, 1e-15, 5),"
    "  (23, 2, 3, 11, 8, 'wrong_result', NULL, NULL, NULL, NULL, 0.5, NULL);"
    "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, gflops) "
    "  VALUES (3, 11, 'cpu/gemm_avx.c', 4, 7, 21, 2.0, 500), (3, 12, 'cpu/gemm_avx.c', 4, 8, 22, 4.0, 250);"
    "INSERT INTO baseline (device_id, problem_id, library, time_ms, gflops) "
    "  VALUES (3, 11, 'OpenBLAS 0.3.21', 4.0, 250);"
    "INSERT INTO binary (key, template_name, params, target, compiler, source, data, size) "
    "  VALUES ('kv1', 'cpu/gemm_avx.c', 'MR=6', 'x86_64', 'gcc', 'int x;', x'7f454c46', 4);";

/* The schema as text (objects by type and name), to compare a migrated file with a new
 * one. The rename leaves the rebuilt table's name quoted: that is the only difference
 * allowed. */
static void schema_text(const char *path, char *out, size_t size)
{
    query(path,
          "SELECT group_concat(type || ' ' || name || ' ' || replace(sql, '\"problem\"', 'problem'), char(10)) "
          "FROM (SELECT * FROM sqlite_schema ORDER BY type, name)",
          out, size);
}

/* The schema of the migrated file at path is that of a new file at fresh, which it makes
 * (the migrations and schema.sql agree, word for word), and holds the words a and b (NULL:
 * none). */
static void same_schema_as_new(const char *path, const char *fresh, const char *a, const char *b)
{
    mmt_err err;
    mmt_store *fs;
    CHECK_OK(mmt_store_open(fresh, 0, &fs, &err), &err);
    mmt_store_close(fs);
    static char migrated_schema[16384], fresh_schema[16384];
    schema_text(path, migrated_schema, sizeof migrated_schema);
    schema_text(fresh, fresh_schema, sizeof fresh_schema);
    CHECK(!a || strstr(migrated_schema, a) != NULL);
    CHECK(!b || strstr(migrated_schema, b) != NULL);
    CHECK_EQ_STR(migrated_schema, fresh_schema);
}

/* A version-1 file opened by this mmtune: read-only is refused, writable migrates it
 * through versions 2, 3 and 4 to 5 with every row and id kept, and the problems read back in their
 * own type. */
static void test_migrate(void)
{
    mmt_err err;
    char path[256], fresh[256], text[1024];
    snprintf(path, sizeof path, "%s/v1.db", dir);
    snprintf(fresh, sizeof fresh, "%s/v2.db", dir);
    make_v1(path, v1_rows);

    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "needs an upgrade") != NULL && strstr(err.msg, path) != NULL);
    CHECK(st == NULL);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "1");

    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path,
          "SELECT (SELECT count(*) FROM device) || (SELECT count(*) FROM template) || (SELECT count(*) FROM config) "
          "|| (SELECT count(*) FROM problem) || (SELECT count(*) FROM session) || (SELECT count(*) FROM trial) "
          "|| (SELECT count(*) FROM best) || (SELECT count(*) FROM baseline) || (SELECT count(*) FROM binary)",
          text, sizeof text);
    CHECK_EQ_STR(text, "112213211");
    query(path,
          "SELECT group_concat(id || ' ' || dtype || ' ' || out_dtype || ' ' || mode || ' ' || layout || ' ' "
          "|| trans_a || trans_b || ' ' || m || 'x' || n || 'x' || k, '; ') FROM (SELECT * FROM problem ORDER BY id)",
          text, sizeof text);
    CHECK_EQ_STR(text, "11 f32 f32 f32 row 00 64x48x40; 12 f64 f64 f64 col 10 33x17x65");
    query(path,
          "SELECT group_concat(id || ':' || session_id || ':' || device_id || ':' || problem_id || ':' || config_id, "
          "' ') FROM (SELECT * FROM trial ORDER BY id)",
          text, sizeof text);
    CHECK_EQ_STR(text, "21:2:3:11:7 22:2:3:12:8 23:2:3:11:8");
    query(path,
          "SELECT group_concat(device_id || ':' || problem_id || ':' || template_id || ':' || config_id || ':' "
          "|| trial_id, ' ') FROM (SELECT * FROM best ORDER BY problem_id)",
          text, sizeof text);
    CHECK_EQ_STR(text, "3:11:4:7:21 3:12:4:8:22");
    query(path, "SELECT device_id || ':' || problem_id || ':' || library FROM baseline", text, sizeof text);
    CHECK_EQ_STR(text, "3:11:OpenBLAS 0.3.21");
    query(path, "SELECT count(*) FROM pragma_foreign_key_check", text, sizeof text);
    CHECK_EQ_STR(text, "0");
    query(path, "PRAGMA integrity_check", text, sizeof text);
    CHECK_EQ_STR(text, "ok");
    query(path, "SELECT size FROM binary WHERE key = 'kv1'", text, sizeof text); /* kept, never read */
    CHECK_EQ_STR(text, "4");

    /* the same schema as a new file: the migrations and schema.sql agree */
    same_schema_as_new(path, fresh, "out_dtype", "miss_view");

    /* lookups and best_view on the migrated rows */
    mmt_best_rec *bests;
    size_t n;
    CHECK_OK(mmt_store_best_list(st, "old-cpu", "cpu/gemm_avx.c", "cccc", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_STR(bests[0].params, "MR=6,NV=2");
        CHECK_EQ_INT(bests[0].problem.dtype, MMT_F32);
        CHECK_EQ_INT(bests[0].problem.out, MMT_F32);
        CHECK_EQ_INT(bests[0].problem.mode, MMT_MODE_F32);
        CHECK_EQ_INT(bests[0].problem.m, 64);
    }
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "old-cpu", "cpu/gemm_avx.c", "cccc", MMT_MODE_F64, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_STR(bests[0].params, "MR=4,NV=3");
        CHECK_EQ_INT(bests[0].problem.dtype, MMT_F64);
        CHECK_EQ_INT(bests[0].problem.out, MMT_F64);
        CHECK_EQ_INT(bests[0].problem.mode, MMT_MODE_F64);
        CHECK_EQ_INT(bests[0].problem.layout, MMT_COL_MAJOR);
        CHECK_EQ_INT(bests[0].problem.trans_a, 1);
    }
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "old-cpu", "cpu/gemm_avx.c", "cccc", MMT_MODE_TF32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    query(path, "SELECT count(*) FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    /* the version-1 vendor figure was timed alone: it stays in baseline, and no ratio is made of it */
    query(path,
          "SELECT mode || ' ' || out_dtype || ' ' || params || ' ' || coalesce(vendor, 'no vendor') || ' ' || "
          "coalesce(ratio, 'no ratio') || ' partial ' || partial FROM best_view WHERE dtype = 'f32'",
          text, sizeof text);
    CHECK_EQ_STR(text, "f32 f32 MR=6,NV=2 no vendor no ratio partial 0");

    /* the old rows are found by their full key; the same shape in tf32 is a new row */
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = 64, .n = 48, .k = 40};
    int64_t id;
    CHECK_OK(mmt_store_problem(st, &p, &id, &err), &err);
    CHECK_EQ_INT(id, 11);
    p.mode = MMT_MODE_TF32;
    CHECK_OK(mmt_store_problem(st, &p, &id, &err), &err);
    CHECK(id != 11 && id != 12);
    add(st, 3, id, 7, MMT_TRIAL_OK, 1.0);
    query(path, "SELECT count(*) FROM best_view WHERE m = 64", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    /* foreign keys are enforced again after the upgrade */
    mmt_trial_rec bad = {.device_id = 3, .problem_id = 11, .config_id = 9999, .status = MMT_TRIAL_OK,
                         .time_ms_median = 0.1, .gflops = 1, .rel_error = -1};
    CHECK(mmt_store_trial_add(st, &bad, NULL, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "FOREIGN KEY") != NULL);
    mmt_store_close(st);

    CHECK_OK(mmt_store_open(path, 1, &st, &err), &err); /* now a reader is served */
    mmt_store_close(st);
}

/* A version-1 file whose rows name a missing parent (written without foreign keys) is
 * not migrated: the check before COMMIT stops it, and the file stays version 1. */
static void test_migrate_broken(void)
{
    mmt_err err;
    char path[256], text[256];
    snprintf(path, sizeof path, "%s/v1-broken.db", dir);
    make_v1(path, "INSERT INTO device (id, backend, name, arch, fingerprint) VALUES (1, 'cpu', 'c', 'a', 'f');"
                  "INSERT INTO template (id, name, source_hash) VALUES (1, 't', 'h');"
                  "INSERT INTO config (id, template_id, params) VALUES (1, 1, 'X=1');"
                  "INSERT INTO trial (id, device_id, problem_id, config_id, status) VALUES (5, 1, 99, 1, 'crashed');");
    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 0, &st, &err) == MMT_DATABASE);
    CHECK(st == NULL);
    CHECK(strstr(err.msg, "trial row 5") != NULL && strstr(err.msg, "problem") != NULL);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(path, "SELECT count(*) FROM pragma_table_info('problem') WHERE name = 'mode'", text, sizeof text);
    CHECK_EQ_STR(text, "0");
    query(path, "SELECT count(*) FROM sqlite_schema WHERE name IN ('best_view', 'problem')", text, sizeof text);
    CHECK_EQ_STR(text, "2");
}

/* A version-2 file: migrate_3.sql adds the miss table and its view, nothing else changes
 * (migrate_4.sql follows), and the result is the schema of a new file. */
static void test_migrate_v2(void)
{
    mmt_err err;
    char path[256], fresh[256], text[256];
    snprintf(path, sizeof path, "%s/v2-old.db", dir);
    snprintf(fresh, sizeof fresh, "%s/v3.db", dir);
    make_old(path,
             2,
             "INSERT INTO device (id, backend, name, arch, fingerprint) VALUES (5, 'cpu', 'c', 'a', 'v2-cpu');"
             "INSERT INTO problem (id, dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) "
             "  VALUES (9, 'f32', 'f32', 'tf32', 'row', 0, 1, 8, 16, 32);");
    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "needs an upgrade") != NULL);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "SELECT (SELECT count(*) FROM miss) || ' ' || (SELECT group_concat(id) FROM problem)", text,
          sizeof text);
    CHECK_EQ_STR(text, "0 9");
    mmt_miss_rec *list;
    size_t n;
    CHECK_OK(mmt_store_miss_list(st, "v2-cpu", &list, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(list);
    mmt_store_close(st);
    same_schema_as_new(path, fresh, NULL, NULL);
}

/* A version-3 file with two families' bests for one problem: migrate_4.sql gives best_view
 * its `chosen` column (the faster family's row), the rows stay, and the result is the
 * schema of a new file. */
static void test_migrate_v3(void)
{
    mmt_err err;
    char path[256], fresh[256], text[256];
    snprintf(path, sizeof path, "%s/v3-old.db", dir);
    snprintf(fresh, sizeof fresh, "%s/v4.db", dir);
    make_old(path, 3,
             "INSERT INTO device (id, backend, name, arch, fingerprint) VALUES (5, 'cuda', 'g', 'sm_90', 'v3-gpu');"
             "INSERT INTO template (id, name, source_hash) VALUES (1, 'cuda/gemm_mma.cu', 'aa'), "
             "  (2, 'cuda/gemm_wgmma.cu', 'bb');"
             "INSERT INTO config (id, template_id, params) VALUES (3, 1, 'X=1'), (4, 2, 'Y=2');"
             "INSERT INTO problem (id, dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) "
             "  VALUES (9, 'bf16', 'f32', 'bf16', 'row', 0, 0, 64, 64, 64);"
             "INSERT INTO trial (id, device_id, problem_id, config_id, status, gflops) "
             "  VALUES (6, 5, 9, 3, 'ok', 300), (7, 5, 9, 4, 'ok', 600);"
             "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, "
             "  gflops) VALUES (5, 9, 'cuda/gemm_mma.cu', 1, 3, 6, 2.0, 300), "
             "  (5, 9, 'cuda/gemm_wgmma.cu', 2, 4, 7, 1.0, 600);");
    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    mmt_store_close(st);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "SELECT group_concat(template || ' ' || chosen, ', ') FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "cuda/gemm_mma.cu 0, cuda/gemm_wgmma.cu 1");
    same_schema_as_new(path, fresh, NULL, NULL);
}

/* A version-4 file: migrate_5.sql adds session.outcome, best.partial and baseline.trial_id
 * (older rows: unknown, 0, NULL), best_view shows a vendor figure only beside the trial it
 * was timed with (the old one was timed alone: no ratio), and the result is the schema of a
 * new file. */
static void test_migrate_v4(void)
{
    mmt_err err;
    char path[256], fresh[256], text[256];
    snprintf(path, sizeof path, "%s/v4-old.db", dir);
    snprintf(fresh, sizeof fresh, "%s/v5.db", dir);
    make_old(path, 4,
             "INSERT INTO device (id, backend, name, arch, fingerprint) VALUES (5, 'cpu', 'c', 'a', 'v4-cpu');"
             "INSERT INTO template (id, name, source_hash) VALUES (1, 'cpu/gemm_avx.c', 'aa');"
             "INSERT INTO config (id, template_id, params) VALUES (3, 1, 'X=1');"
             "INSERT INTO problem (id, dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) "
             "  VALUES (9, 'f32', 'f32', 'f32', 'row', 0, 0, 64, 64, 64);"
             "INSERT INTO session (id, device_id, command, strategy, budget, ended) "
             "  VALUES (2, 5, 'mmtune --device cpu', 'model', '45s', datetime('now'));"
             "INSERT INTO trial (id, session_id, device_id, problem_id, config_id, status, time_ms_median, gflops) "
             "  VALUES (6, 2, 5, 9, 3, 'ok', 1.0, 500);"
             "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, "
             "  gflops) VALUES (5, 9, 'cpu/gemm_avx.c', 1, 3, 6, 1.0, 500);"
             "INSERT INTO baseline (device_id, problem_id, library, time_ms, gflops) "
             "  VALUES (5, 9, 'OpenBLAS 0.3.21', 2.0, 250);");
    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "needs an upgrade") != NULL);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    mmt_store_close(st);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "SELECT coalesce(outcome, 'unknown') FROM session WHERE id = 2", text, sizeof text);
    CHECK_EQ_STR(text, "unknown");
    query(path, "SELECT partial || ' ' || params || ' ' || coalesce(vendor, '-') || ' ' || coalesce(ratio, '-') "
                "FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "0 X=1 - -");
    query(path, "SELECT library || ' ' || coalesce(trial_id, 'unpaired') FROM baseline", text, sizeof text);
    CHECK_EQ_STR(text, "OpenBLAS 0.3.21 unpaired");
    same_schema_as_new(path, fresh, "outcome", "partial");
}

/* A version-5 file: migrate_6.sql adds trial.cpu_wait (older rows: not known, which reads
 * as not busy), and the result is the schema of a new file. */
static void test_migrate_v5(void)
{
    char path[256], fresh[256], text[256];
    snprintf(path, sizeof path, "%s/v5-old.db", dir);
    snprintf(fresh, sizeof fresh, "%s/v6.db", dir);
    make_old(path, 5,
             "INSERT INTO device (id, backend, name, arch, fingerprint) VALUES (5, 'cpu', 'c', 'a', 'v5-cpu');"
             "INSERT INTO template (id, name, source_hash) VALUES (1, 'cpu/gemm_avx.c', 'aa');"
             "INSERT INTO config (id, template_id, params) VALUES (3, 1, 'X=1');"
             "INSERT INTO problem (id, dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) "
             "  VALUES (9, 'f32', 'f32', 'f32', 'row', 0, 0, 64, 64, 64);"
             "INSERT INTO trial (id, device_id, problem_id, config_id, status, time_ms_median, gflops) "
             "  VALUES (6, 5, 9, 3, 'ok', 1.0, 500);"
             "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, "
             "  gflops) VALUES (5, 9, 'cpu/gemm_avx.c', 1, 3, 6, 1.0, 500);");
    open_from_children(path);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "SELECT coalesce(cpu_wait, 'unknown') FROM trial WHERE id = 6", text, sizeof text);
    CHECK_EQ_STR(text, "unknown");
    same_schema_as_new(path, fresh, "cpu_wait", NULL);
}

/* Several processes open a version-1 file at once: one migrates, the others find it done. */
static void test_concurrent_migrate(void)
{
    char path[256], text[64];
    snprintf(path, sizeof path, "%s/v1-race.db", dir);
    make_v1(path, v1_rows);
    open_from_children(path);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "SELECT count(*) || ' ' || (SELECT count(*) FROM problem) FROM device", text, sizeof text);
    CHECK_EQ_STR(text, "2 2");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;

    test_migrate();
    test_migrate_broken();
    test_concurrent_migrate();
    test_migrate_v2();
    test_migrate_v3();
    test_migrate_v4();
    test_migrate_v5();

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("KEEP") && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
