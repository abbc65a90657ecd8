/* store_sql.h - what store.c shares with the store's other files (store_transfer.c): the
 * handle and the statement helpers. Internal to src/; the tuner sees store.h alone. */
#ifndef MMT_STORE_SQL_H
#define MMT_STORE_SQL_H

#include <sqlite3.h>

#include "store.h"

struct mmt_store {
    sqlite3 *db;
    char path[1024];
};

/* MMT_DATABASE "path: what: SQLite's message". */
mmt_status mmt_store_db_error(mmt_store *st, mmt_err *err, const char *what);
/* Runs SQL text (any number of statements, no rows wanted). */
mmt_status mmt_store_exec(mmt_store *st, const char *sql, mmt_err *err);
mmt_status mmt_store_prepare(mmt_store *st, const char *sql, sqlite3_stmt **out, mmt_err *err);

#endif
