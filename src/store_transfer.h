/* store_transfer.h - the store's side of mmtune export, import and merge: a database's
 * results as rows (xfer_row.h), and the rows of files or other databases brought into one.
 *
 * Bringing rows in (mmt_xfer_absorb) is idempotent: a trial the database holds as
 * often as the source does is not added again, the best of a (device, problem, template)
 * is the best ranked of the one there and the source's (a result of the template source
 * this mmtune has, then the faster, then the smaller configuration text), and a baseline
 * (paired with the target's trial of the key its row names) is the greatest of the
 * target's and every source's: timed beside a best, then paired at all, then the later
 * measured (BASELINE_RANK in store_transfer.c), so no order of sources changes the result.
 * Rows are staged first (checked, nothing written) and absorbed in one transaction. */
#ifndef MMT_STORE_TRANSFER_H
#define MMT_STORE_TRANSFER_H

#include "store.h"
#include "xfer_row.h"

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

/* Stages every row of the database at path, brought to the current schema in memory: the
 * file is only read; a newer schema is refused. Its compiled kernels stay behind (the
 * binary table of older databases): code never travels from one database to another. */
mmt_status mmt_xfer_add_db(mmt_xfer *x, int source, const char *path, mmt_err *err);

typedef struct mmt_xfer_counts {
    long rows;                                                /* staged */
    long trials, bests, baselines, sessions, devices; /* added, or changed */
} mmt_xfer_counts;

/* Absorbs the staged sources 1..sources into the database at target (created, or brought
 * to the current schema, as mmt_store_open does), in one transaction: all or nothing.
 * current_source gives the source hash of this mmtune's template of a name (NULL where it
 * has none). */
mmt_status mmt_xfer_absorb(mmt_xfer *x, const char *target, int sources,
                           const char *(*current_source)(void *user, const char *name), void *user,
                           mmt_xfer_counts *counts, mmt_err *err);

#endif
