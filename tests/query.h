/* query.h - one value of a database, as text, through a plain sqlite3 connection opened
 * read-only: what a person with the sqlite3 shell sees. For the tests that check what the
 * store wrote. */
#ifndef MMT_TEST_QUERY_H
#define MMT_TEST_QUERY_H

#include <sqlite3.h>
#include <stdio.h>

/* The first column of the first row of sql on the file at path ("" if none). */
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
    } else {
        fprintf(stderr, "query %s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
}

#endif
