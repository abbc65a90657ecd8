/* test_db_damaged.c - a damaged database still serves: a database whose `best` table is
 * gone, whose column is renamed, or whose pages past the first are overwritten opens (or
 * is refused with a message), and every GEMM of a context on it is right: what the
 * database cannot say is served as untuned (the templates' defaults, the vendor), said
 * once a context on stderr, never a failed call. The default database that cannot be
 * opened at all (of a newer mmtune, not SQLite, a FIFO) is served without: mmt_open
 * succeeds; the same file named by the caller is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "api_call.h"
#include "check.h"
#include "mmtuned.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-db-damaged-XXXXXX";

/* A new database at path with the schema and one device row (a context made it). */
static void fresh(const char *path)
{
    mmt_store *st = NULL;
    mmt_err err;
    remove(path);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    mmt_store_close(st);
}

static void sql(const char *path, const char *text)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK) fprintf(stderr, "%s: %s\n", text, msg);
    sqlite3_free(msg);
    sqlite3_close(db);
}

/* Every page but the first overwritten: SQLite opens the file, every query of it fails. */
static void overwrite_pages(const char *path)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    CHECK(size > 8192);
    fseek(f, 4096, SEEK_SET);
    for (long i = 4096; i < size; i++) fputc(0xA5, f);
    fclose(f);
}

/* f32 and f64 calls of a few shapes on a context of the database (NULL: the default one,
 * which mmt_open never refuses): each right (or mmt_open refused it, with a message). */
static void serves(const char *what, const char *path)
{
    mmt_ctx *ctx = NULL;
    const mmt_status open = mmt_open(&ctx, "cpu", path);
    if (open != MMT_OK && !path) {
        fprintf(stderr, "%s: mmt_open of the default database failed: %s\n", what, mmt_last_error(NULL));
        CHECK(0);
        return;
    }
    if (open != MMT_OK) {
        printf("%-34s mmt_open refused it: %s\n", what, mmt_last_error(NULL));
        CHECK(strlen(mmt_last_error(NULL)) > 0);
        return;
    }
    static const int shapes[][3] = {{17, 9, 5}, {64, 48, 40}, {100, 3, 70}};
    int right = 0, calls = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int f64 = 0; f64 < 2; f64++, calls++)
            right += api_gemm_right(ctx, f64, shapes[i][0], shapes[i][1], shapes[i][2], what);
    printf("%-34s %d of %d calls right\n", what, right, calls);
    CHECK_EQ_INT(right, calls);
    mmt_close(ctx);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    char path[300], cache[300];
    snprintf(path, sizeof path, "%s/mmtune.db", dir);
    snprintf(cache, sizeof cache, "%s/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    setenv("MMTUNE_VENDOR", "off", 1); /* the templates' own path, which reads the tuned entries */

    fresh(path);
    serves("a sound database", path);
    fresh(path);
    sql(path, "DROP VIEW best_view; DROP TABLE best;");
    serves("its best table dropped", path);
    fresh(path);
    sql(path, "ALTER TABLE config RENAME COLUMN params TO knobs;");
    serves("a column renamed", path);
    fresh(path);
    overwrite_pages(path);
    serves("every page but the first overwritten", path);
    unsetenv("MMTUNE_VENDOR");
    serves("the same, the vendor competing", path);

    /* the default database (here $MMTUNE_DB's) that cannot be opened at all serves untuned;
     * named by the caller, it is refused */
    fresh(path);
    sql(path, "PRAGMA user_version = 99");
    setenv("MMTUNE_DB", path, 1);
    serves("the default one of a newer mmtune", NULL);
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", path), MMT_DATABASE);
    mmt_close(ctx);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs("problems: not a database\n", f) >= 0 && fclose(f) == 0);
    serves("the default one not SQLite", NULL);
    remove(path);
    CHECK(mkfifo(path, 0600) == 0);
    serves("the default one a FIFO", NULL);
    unsetenv("MMTUNE_DB");

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return check_result();
}
