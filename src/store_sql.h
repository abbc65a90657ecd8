/* store_sql.h - what store.c and store_read.c share with each other and with the store's
 * other files (store_transfer.c, store_report.c): the handle, the statement helpers and rows
 * read into structs. Internal to src/; the tuner sees store.h alone. */
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
/* p's columns (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) as parameters
 * at, at + 1, ... of s. */
void mmt_store_bind_problem(sqlite3_stmt *s, int at, const mmt_problem *p);
/* Steps s to its end, each row read by row(s, elem) into a zeroed element of elem_size bytes
 * of a malloc'd array (*out, *n), kept where row returns non-zero; finalises s. On a failure
 * *out is NULL and *n 0. */
mmt_status mmt_store_collect(mmt_store *st, sqlite3_stmt *s, const char *what, size_t elem_size,
                             int (*row)(sqlite3_stmt *s, void *elem), void **out, size_t *n, mmt_err *err);

/* Column col's text, "" for null (a database of someone else's making may hold nulls). */
const char *mmt_store_text_at(sqlite3_stmt *s, int col);

/* SQL that is 1 where a trial's cpu_wait (an expression) says it was measured busy
 * (MMT_CPU_BUSY), 0 where not or not known. */
#define MMT_STORE_STR_(x) #x
#define MMT_STORE_STR(x) MMT_STORE_STR_(x)
#define MMT_STORE_BUSY(cpu_wait) "(coalesce(" cpu_wait ", 0) > " MMT_STORE_STR(MMT_CPU_BUSY) ")"

/* The columns mmt_store_problem_from_row reads, of problem p, in its order. */
#define MMT_STORE_PROBLEM_COLS "p.dtype, p.out_dtype, p.mode, p.layout, p.trans_a, p.trans_b, p.m, p.n, p.k"
enum { MMT_STORE_PROBLEM_NCOLS = 9 };
/* Reads MMT_STORE_PROBLEM_COLS from column col on; 1 where they are a problem mmtune could
 * have written (known names, transposes 0 or 1, sizes from 1 that 64-bit byte counts hold),
 * 0 for one a database of someone else's making may hold, which no reader should use. */
int mmt_store_problem_from_row(sqlite3_stmt *s, int col, mmt_problem *p);
/* Reads a device row's backend, name, arch, fingerprint and props from column col on: the
 * device as search spaces saw it. */
void mmt_store_device_from_row(sqlite3_stmt *s, int col, mmt_device_info *d);

#endif
