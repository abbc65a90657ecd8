/* store_transfer.h - the store's side of mmtune export, import and merge: results in a
 * row form that means the same in any database, and the rows of files or other databases
 * brought into one.
 *
 * A row is a trial or a vendor baseline with its device, problem, template, configuration
 * and session written out by their natural keys (the device's fingerprint, the template's
 * name and source hash, ...) instead of ids, so an imported result is served only on a
 * device of the same fingerprint and a result of an older template source stays stale.
 * `best` marks the trial that is its (device, problem, template)'s best.
 *
 * Bringing rows in (mmt_store_xfer_absorb) is idempotent: a trial the database holds as
 * often as the source does is not added again, the best of a (device, problem, template)
 * is the best ranked of the one there and the source's (a result of the template source
 * this mmtune has, then the faster, then the smaller configuration text), and a baseline
 * is the later measured. Rows are staged first (checked, nothing written) and absorbed in
 * one transaction. */
#ifndef MMT_STORE_TRANSFER_H
#define MMT_STORE_TRANSFER_H

#include <stdint.h>

#include "store.h"

typedef enum mmt_xfer_type { MMT_XFER_TEXT, MMT_XFER_INT, MMT_XFER_REAL } mmt_xfer_type;

typedef struct mmt_xfer_col {
    const char *name; /* as CSV headers and JSON keys write it */
    mmt_xfer_type type;
} mmt_xfer_col;

/* The columns of a row, in their order. */
#define MMT_XFER_NCOLS 35
extern const mmt_xfer_col mmt_xfer_cols[MMT_XFER_NCOLS];

/* One value of a row: null, or the member of the column's type (text is borrowed). */
typedef struct mmt_xfer_value {
    int null;
    const char *text;
    int64_t i;
    double r;
} mmt_xfer_value;

/* The index of a column name, or -1. */
int mmt_xfer_col_find(const char *name);

/* Reads a value of column col from text (a whole integer, a finite number, or any text):
 * NULL, or why it cannot be. */
const char *mmt_xfer_value_parse(int col, const char *text, mmt_xfer_value *v);

/* Calls fn with every row of the database, trials in the order measured, then baselines;
 * stops early, with MMT_OK, where fn returns non-zero (fn keeps its own reason). */
mmt_status mmt_store_xfer_each(mmt_store *st, int (*fn)(void *user, const mmt_xfer_value *row), void *user,
                               mmt_err *err);

/* Rows staged for a database, from sources numbered 1, 2, ... in the order they are
 * staged. Staging is checked and kept in memory: nothing touches the target before
 * mmt_xfer_absorb. A trial counts as one the target has when every column is equal, so
 * rows that occur twice in one source are two trials. */
typedef struct mmt_xfer mmt_xfer;

mmt_status mmt_xfer_new(mmt_xfer **out, mmt_err *err);
void mmt_xfer_free(mmt_xfer *x); /* NULL is a no-op */

/* Checks one row of a file and stages it: MMT_INVALID_ARGUMENT and what is wrong with it
 * (the caller adds file and line), or MMT_DATABASE. */
mmt_status mmt_xfer_add(mmt_xfer *x, int source, long line, const mmt_xfer_value *row, mmt_err *err);

/* Stages every row and compiled kernel of the database at path, brought to the current
 * schema in memory: the file is only read; a newer schema is refused. */
mmt_status mmt_xfer_add_db(mmt_xfer *x, int source, const char *path, mmt_err *err);

typedef struct mmt_xfer_counts {
    long rows;                                                /* staged */
    long trials, bests, baselines, sessions, devices, binaries; /* added, or changed */
} mmt_xfer_counts;

/* Absorbs the staged sources 1..sources into the database at target (created, or brought
 * to the current schema, as mmt_store_open does), in one transaction: all or nothing.
 * current_source gives the source hash of this mmtune's template of a name (NULL where it
 * has none). */
mmt_status mmt_xfer_absorb(mmt_xfer *x, const char *target, int sources,
                           const char *(*current_source)(void *user, const char *name), void *user,
                           mmt_xfer_counts *counts, mmt_err *err);

#endif
