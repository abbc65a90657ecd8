/* test_db_hostile.c - a database someone else wrote, with values no mmtune writes: a tuned
 * database (template bests of f32 and f64 problems, vendor figures paired with them, a
 * vendor family best) copied 200 times, each copy with 1 to 3 cells of what serving reads
 * (problem sizes, types, modes, layouts and transposes, configurations, figures, statuses,
 * template names and sources) set to a hostile value: null, zero, negative, the extremes of
 * 64-bit integers and doubles, text where a number belongs and a number where text does,
 * another configuration's text, a blob, 100,000 characters. A context on each copy opens or
 * is refused with a message, and every GEMM it runs is right: f32 and f64 of the tuned
 * shapes and of a shape nobody tuned, with the templates alone and with the vendor
 * competing. Seeded: the same copies on every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "api_call.h"
#include "check.h"
#include "mmtuned.h"
#include "tuned_db.h"

static char dir[] = "/tmp/mmtune-test-db-hostile-XXXXXX";

enum { COPIES = 200 };

static const int shapes[][3] = {{64, 48, 40}, {100, 30, 70}, {37, 29, 51}}; /* the last is never tuned */

/* The seed: the first two shapes tuned in f32 and f64 with the default configuration, the
 * vendor timed beside each, and its family's best for one. */
static void seed(const char *path)
{
    db d;
    db_open(&d, path);
    char params[512];
    default_text(d.fam, params, sizeof params);
    for (int i = 0; i < 2; i++)
        for (int f64 = 0; f64 < 2; f64++) {
            const mmt_dtype t = f64 ? MMT_F64 : MMT_F32;
            const mmt_problem p = {.dtype = t, .out = t, .mode = f64 ? MMT_MODE_F64 : MMT_MODE_F32,
                                   .layout = MMT_ROW_MAJOR, .m = shapes[i][0], .n = shapes[i][1], .k = shapes[i][2]};
            put(&d, d.fam->name, d.fam->source_hash, params, &p, 10 + i + f64, 8 + 4 * i);
            if (i == 1 && !f64) put(&d, "vendor", "5cce1a1ca2083b1a98ca8ef9336c4aabd06c5409c9e782909765eb00d24a9c7c",
                                    "ROUTINE=cblas_sgemm", &p, 12, 0);
        }
    db_close(&d);
}

/* The cells serving reads, as table and column. */
static const char *const cells[][2] = {
    {"problem", "m"},       {"problem", "n"},          {"problem", "k"},        {"problem", "dtype"},
    {"problem", "out_dtype"}, {"problem", "mode"},     {"problem", "layout"},   {"problem", "trans_a"},
    {"problem", "trans_b"}, {"config", "params"},      {"best", "gflops"},      {"best", "time_ms"},
    {"best", "template_name"}, {"best", "config_id"},  {"best", "trial_id"},    {"best", "problem_id"},
    {"baseline", "gflops"}, {"baseline", "trial_id"},  {"trial", "gflops"},     {"trial", "status"},
    {"trial", "time_ms_median"}, {"trial", "config_id"}, {"template", "name"},  {"template", "source_hash"},
    {"device", "fingerprint"},
};

static const char *const values[] = {
    "NULL", "0", "-1", "1", "2", "9223372036854775807", "-9223372036854775808", "1e308", "-1e308", "1e-308",
    "'x'", "''", "'f32'", "'f64'", "'bf16'", "'row'", "'col'", "'ok'", "'crashed'", "'BM=64'",
    "'BM=1,BM=2'", "'THREADS=0'", "'vendor'", "'cpu/gemm_avx.c'", "x'00ff'", "randomblob(64)",
    "(SELECT params FROM config ORDER BY id DESC LIMIT 1)", "printf('%.*c', 100000, 'A')",
};

static uint64_t state = 0x9E3779B97F4A7C15ull;
static int applied; /* the hostile values SQLite took */
static unsigned next(unsigned n)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (unsigned)(state % n);
}

/* A copy of the seed with 1 to 3 cells set to hostile values; what SQLite refuses (NOT
 * NULL, a foreign key) is left as it was. The statements run are put in what. */
static void hostile_copy(const char *seed_path, const char *path, char *what, size_t size)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp %s %s && rm -f %s-wal %s-shm", seed_path, path, path, path);
    CHECK(system(cmd) == 0);
    sqlite3 *h = NULL;
    CHECK(sqlite3_open(path, &h) == SQLITE_OK);
    what[0] = '\0';
    const unsigned n = 1 + next(3);
    for (unsigned i = 0; i < n; i++) {
        const unsigned c = next(sizeof cells / sizeof cells[0]), v = next(sizeof values / sizeof values[0]);
        char sql[400];
        snprintf(sql, sizeof sql, "UPDATE %s SET %s = %s WHERE rowid = (SELECT rowid FROM %s ORDER BY rowid LIMIT 1 OFFSET %u)",
                 cells[c][0], cells[c][1], values[v], cells[c][0], next(4));
        if (sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK && sqlite3_changes(h) > 0) applied++;
        const size_t used = strlen(what);
        snprintf(what + used, size - used, "%s%s.%s = %.40s", used ? "; " : "", cells[c][0], cells[c][1], values[v]);
    }
    sqlite3_close(h);
}

/* Each shape in f32 and f64 on a context of path: the number of calls not right (0 where
 * mmt_open refused the database with a message). */
static int wrong_calls(const char *path, const char *what)
{
    mmt_ctx *ctx = NULL;
    if (mmt_open(&ctx, "cpu", path) != MMT_OK) {
        if (!strlen(mmt_last_error(ctx))) fprintf(stderr, "%s: refused without a message\n", what);
        const int silent = !strlen(mmt_last_error(ctx));
        mmt_close(ctx);
        return silent;
    }
    int wrong = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int f64 = 0; f64 < 2; f64++) wrong += !api_gemm_right(ctx, f64, shapes[i][0], shapes[i][1], shapes[i][2], what);
    mmt_close(ctx);
    return wrong;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    char seed_path[300], path[300], cache[300], what[600];
    snprintf(seed_path, sizeof seed_path, "%s/seed.db", dir);
    snprintf(path, sizeof path, "%s/hostile.db", dir);
    snprintf(cache, sizeof cache, "%s/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    seed(seed_path);
    CHECK_EQ_INT(wrong_calls(seed_path, "the seed"), 0);
    int opened = 0, refused = 0, wrong = 0;
    for (int i = 0; i < COPIES; i++) {
        hostile_copy(seed_path, path, what, sizeof what);
        if (i % 2) setenv("MMTUNE_VENDOR", "off", 1); /* the templates' own path reads every tuned entry */
        else unsetenv("MMTUNE_VENDOR");
        mmt_ctx *probe = NULL;
        const mmt_status st = mmt_open(&probe, "cpu", path);
        mmt_close(probe);
        st == MMT_OK ? opened++ : refused++;
        wrong += wrong_calls(path, what);
    }
    unsetenv("MMTUNE_VENDOR");
    printf("%d hostile databases (%d hostile values taken): %d opened, %d refused with a message; calls not "
           "right: %d\n",
           COPIES, applied, opened, refused, wrong);
    CHECK_EQ_INT(wrong, 0);
    CHECK(opened > COPIES / 2 && applied > COPIES);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return check_result();
}
